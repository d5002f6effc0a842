// Is our upgrade safe to ship? The kuri nodes run our migration folder
// (migrations/): the cluster starts on every file but the newest (what is
// in production), then the nodes are upgraded to the whole folder, while
// rapidcheck draws S3 traffic, kills, restarts, partitions and crashes at
// the migration's statements. After the story the operator heals the
// network and runs `up`; every whole-run checker must then hold.
//
//   upgrade_property golang-migrate [--counterexample FILE]   (exit 1: fails)
//   upgrade_property safe                                      (exit 0: holds)
//
// RC_PARAMS="max_success=500" draws more stories; RC_PARAMS="reproduce=..."
// (printed on a failure) replays the shrunk one, the simulation included.
#include <faultline/models/migrate/folder.h>
#include <faultline/scenarios/harness/cluster.h>
#include <faultline/scenarios/harness/cluster_commands.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

namespace fl = faultline::scenarios;
namespace cmd = faultline::scenarios::commands;

// The topology: the seed cluster (store, db-init, two kuri nodes, the
// proxy) whose nodes run our folder, "shipped" (all but the newest file)
// and "next" (all of it), with `runner`.
fl::Scenario Topology(const std::vector<faultline::models::migrate::MigrationFile>& files,
                      const std::string& runner) {
  fl::Scenario topology;
  topology.name = "our-upgrade";
  fl::ImageSpec next{.service = "node", .version = "next", .runner = runner};
  next.files = files;
  // "shipped": without the newest version's files (up and down). The
  // folder reader sorts by name; a version is the name up to its '_'.
  const std::string newest = files.back().name.substr(0, files.back().name.find('_'));
  fl::ImageSpec shipped = next;
  shipped.version = "shipped";
  std::erase_if(shipped.files,
                [&](const auto& file) { return file.name.starts_with(newest + "_"); });
  topology.images = {shipped, next};
  topology.node_version = "shipped";
  return topology;
}

// Upgrades only (a rollback is a story of its own), and crashes only at the
// statements of migrations: where a runner's bookkeeping meets our files.
cmd::Model UpgradeModel(const fl::Cluster& cluster, const std::string& runner) {
  cmd::Model model = cmd::Model::Of(cluster);
  model.versions = {{"kuri-1", {"next"}}, {"kuri-2", {"next"}}};
  // The statements of the nodes' own runner: golang-migrate's sites are
  // "migrate.<keyspace>...", the safe runner's "safe.<keyspace>...".
  const std::string prefix = (runner == "safe" ? "safe." : "migrate.");
  std::erase_if(model.sites, [&](const std::string& site) {
    return !site.starts_with(prefix) ||
           (!site.ends_with(".statement.before") && !site.ends_with(".statement.after"));
  });
  return model;
}

int main(int argc, char** argv) {
  const std::string runner = argc > 1 ? argv[1] : "";
  if (runner != "golang-migrate" && runner != "safe") {
    std::fprintf(stderr, "usage: upgrade_property golang-migrate|safe [--counterexample FILE]\n");
    return 2;
  }
  std::filesystem::path counterexample;
  if (argc == 4 && std::string(argv[2]) == "--counterexample") {
    counterexample = argv[3];
  } else if (argc != 2) {
    std::fprintf(stderr, "usage: upgrade_property golang-migrate|safe [--counterexample FILE]\n");
    return 2;
  }
  auto files = faultline::models::migrate::ReadMigrationFolder(EXAMPLE_MIGRATIONS);
  if (!files.ok()) {
    std::fprintf(stderr, "upgrade_property: %s\n", files.status().ToString().c_str());
    return 2;
  }
  const auto ups = std::count_if(files->begin(), files->end(), [](const auto& file) {
    return file.name.find(".up.") != std::string::npos;
  });
  if (ups < 2) {
    std::fprintf(stderr,
                 "upgrade_property: %s needs two migrations or more (the shipped ones and "
                 "the new one)\n",
                 EXAMPLE_MIGRATIONS);
    return 2;
  }
  const fl::Scenario topology = Topology(*files, runner);
  const bool held = rc::check("the upgrade survives crashes, kills and partitions", [&] {
    fl::Cluster cluster(topology, {.seed = *cmd::SimulationSeed()});
    cluster.Up();
    cmd::Check<cmd::PutObject, cmd::GetObject, cmd::DeleteObject, cmd::KillService,
               cmd::RestartService, cmd::ArmCrash, cmd::UpgradeService, cmd::PartitionService,
               cmd::HealNetwork, cmd::WaitAWhile, cmd::RunCheckers>(
        cluster, UpgradeModel(cluster, runner), counterexample);
  });
  if (!held && !counterexample.empty() && std::filesystem::exists(counterexample)) {
    std::printf("the shrunk story as a scenario file: %s (faultline run %s)\n",
                counterexample.c_str(), counterexample.c_str());
  }
  return held ? 0 : 1;
}
