// The rapidcheck commands over the harness (scenarios/cluster_commands.h):
// an upgrade that adds a two-statement migration file, under crashes at its
// statements, kills, restarts, partitions and S3 traffic. The safe runner
// holds every whole-run checker; golang-migrate does not (a crash between
// the statements leaves the keyspace dirty, and the node never serves
// again), and rapidcheck shrinks its failure to a few commands.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "scenarios/file/scenario_file.h"
#include "scenarios/harness/cluster_commands.h"
#include "tests/scenarios/harness/cluster_fixture.h"

namespace faultline::scenarios {
namespace {

namespace cmd = commands;

// The model for the upgrade story: the nodes may go to "next" (no
// rollbacks: a rollback is a story of its own), and crashes land at
// migration sites.
cmd::Model UpgradeModel(const Cluster& cluster, const std::string& runner) {
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

void UpgradeProperty(const std::string& runner, const std::filesystem::path& counterexample) {
  Cluster cluster(UpgradeTopology(runner), {.seed = *cmd::SimulationSeed()});
  cluster.Up();
  cmd::Check<cmd::PutObject, cmd::GetObject, cmd::DeleteObject, cmd::KillService,
             cmd::RestartService, cmd::ArmCrash, cmd::UpgradeService, cmd::PartitionService,
             cmd::HealNetwork, cmd::WaitAWhile, cmd::ReadLogs, cmd::RunCheckers>(
      cluster, UpgradeModel(cluster, runner), counterexample);
}

RC_GTEST_PROP(ClusterProperty, TheSafeRunnerUpgradesThroughCrashesKillsAndPartitions, ()) {
  UpgradeProperty("safe", {});
}

TEST(ClusterProperty, GolangMigrateFailsItAndTheShrunkStoryReplaysAsAScenarioFile) {
  // Named by process: ctest runs this binary twice at once (the property
  // label and the soak one), and one run's remove must not meet the other's.
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("faultline-cluster-counterexample-" + std::to_string(getpid()) + ".toml");
  std::filesystem::remove(file);
  // rapidcheck draws its own seed each run; it finds this within about 35
  // cases, so up to three rounds of the suite's cases keep the test from
  // ever missing it by bad luck.
  bool held = true;
  for (int round = 0; round < 3 && held; ++round) {
    held = rc::check("golang-migrate upgrades through crashes",
                     [&file] { UpgradeProperty("golang-migrate", file); });
  }
  EXPECT_FALSE(held);
  ASSERT_TRUE(std::filesystem::exists(file));
  auto loaded = LoadScenarioFile(file);
  ASSERT_TRUE(std::holds_alternative<Scenario>(loaded)) << std::get<FileError>(loaded).message;
  const Scenario& scenario = std::get<Scenario>(loaded);
  // Shrunk: up, the upgrade, the crash's pass, up, and what rapidcheck's
  // one-command-at-a-time shrinking could not drop: seed 13717396140303214010
  // kept two partitions beside them (8 steps).
  EXPECT_LE(scenario.steps.size(), 8u) << "shrunk: up, the upgrade, the crash's pass, up";
  ASSERT_FALSE(scenario.faults.empty());
  const ScenarioResult replayed = RunScenario(scenario, {.seed = scenario.seed});
  EXPECT_FALSE(replayed.passed);
  const auto converges =
      std::find_if(replayed.checkers.begin(), replayed.checkers.end(),
                   [](const CheckResult& c) { return c.checker == "converges"; });
  ASSERT_NE(converges, replayed.checkers.end());
  EXPECT_FALSE(converges->held) << "the dirty node never serves again";
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace faultline::scenarios
