// rapidcheck state-machine commands over the cluster harness (cluster.h):
// one command per action, each with its preconditions on a model of the
// cluster, so a property is a few lines (docs/library.md):
//
//   RC_GTEST_PROP(Upgrade, SurvivesACrashMidMigration, ()) {
//     Cluster cluster(MyTopology(), {.seed = *commands::SimulationSeed()});
//     cluster.Up();
//     commands::Check<commands::PutObject, commands::GetObject,
//                     commands::ArmCrash, commands::UpgradeService>(cluster);
//   }
//
// The simulation's seed is drawn from rapidcheck, so rapidcheck's
// `reproduce` string replays the cluster run too; shrinking removes and
// simplifies commands. Check() settles the cluster at the end and asserts
// every whole-run checker; a failure can also be written out as a scenario
// file (WriteCounterexample) that `faultline run` replays.
//
// Header-only: it needs rapidcheck (Debian's librapidcheck-dev), which the
// faultline libraries themselves do not.
#pragma once

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "models/s3/seed_images.h"
#include "scenarios/checkers/checkers.h"
#include "scenarios/core/topology.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/harness/cluster.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios::commands {

// What the commands draw from and check against. The cluster's own state
// (what a PUT acknowledged, who serves) is read from the cluster; the model
// holds what a command's preconditions need and the bytes every PUT sent.
struct Model {
  std::vector<std::string> services;  // Every service, to kill, restart, stop, partition.
  // The image versions each node and proxy service can run (seed and the
  // topology's own), and the one it runs now.
  std::map<std::string, std::vector<std::string>> versions;
  std::map<std::string, std::string> running;
  std::vector<std::string> sites;                     // Fault sites the topology's runs can pass.
  std::vector<std::string> paths;                     // Object paths PUT, GET and DELETE draw from.
  std::vector<std::string> statements;                // What the Cql command may type.
  std::map<std::string, std::set<std::string>> sent;  // Every body PUT, by path.
  bool up = true;  // The cluster is up (Model::Of: Cluster::is_up()).
  bool partitioned = false;

  // The model of `cluster`: its services (yours too), the versions each
  // node and proxy can run (the seed's and the topology's own: narrow them
  // to your story, as a seed version brings the seed's migrations), its
  // fault sites, three object paths, and whether it is up.
  static Model Of(const Cluster& cluster) {
    Model model;
    model.services = cluster.Services();
    for (const fakes::ServiceSpec& service : cluster.world().spec.services) {
      std::vector<std::string> versions = cluster.VersionsOf(service.name);
      if (versions.empty()) continue;  // Not a node or the proxy.
      model.versions[service.name] = std::move(versions);
      model.running[service.name] = service.version;  // As the compose file has it now.
    }
    model.sites = cluster.FaultSites();
    model.up = cluster.is_up();
    model.paths = {"/bucket/a", "/bucket/b", "/bucket/c"};
    return model;
  }
};

using Command = rc::state::Command<Model, Cluster>;

// The seed of the simulation, drawn (and shrunk toward 1) by rapidcheck.
inline rc::Gen<std::uint64_t> SimulationSeed() {
  return rc::gen::inRange<std::uint64_t>(1, std::uint64_t{1} << 32);
}

// --- S3 ----------------------------------------------------------------------

struct PutObject : Command {
  std::string path;
  std::string body;
  explicit PutObject(const Model& model)
      : path(*rc::gen::elementOf(model.paths)),
        body(*rc::gen::container<std::string>(rc::gen::inRange('a', 'z'))) {}
  void checkPreconditions(const Model& model) const override { RC_PRE(model.up); }
  void apply(Model& model) const override { model.sent[path].insert(body); }
  void run(const Model&, Cluster& cluster) const override { cluster.Put(path, body); }
  void show(std::ostream& os) const override { os << "PUT " << path << " \"" << body << "\""; }
};

// A GET that answers 200 returns bytes some PUT of the path sent: whatever
// the faults, the cluster never makes bytes up or mixes two objects.
struct GetObject : Command {
  std::string path;
  explicit GetObject(const Model& model) : path(*rc::gen::elementOf(model.paths)) {}
  void checkPreconditions(const Model& model) const override { RC_PRE(model.up); }
  void run(const Model& model, Cluster& cluster) const override {
    const StepResult& got = cluster.Get(path);
    if (got.status != 200) return;
    const std::string& bytes = got.body;
    const auto sent = model.sent.find(path);
    RC_ASSERT(sent != model.sent.end() && sent->second.contains(bytes));
  }
  void show(std::ostream& os) const override { os << "GET " << path; }
};

struct DeleteObject : Command {
  std::string path;
  explicit DeleteObject(const Model& model) : path(*rc::gen::elementOf(model.paths)) {}
  void checkPreconditions(const Model& model) const override { RC_PRE(model.up); }
  void run(const Model&, Cluster& cluster) const override { cluster.Delete(path); }
  void show(std::ostream& os) const override { os << "DELETE " << path; }
};

// --- Containers ----------------------------------------------------------------

struct KillService : Command {
  std::string service;
  explicit KillService(const Model& model) : service(*rc::gen::elementOf(model.services)) {}
  void checkPreconditions(const Model& model) const override { RC_PRE(model.up); }
  void run(const Model&, Cluster& cluster) const override { cluster.Kill(service); }
  void show(std::ostream& os) const override { os << "kill " << service; }
};

struct RestartService : Command {
  std::string service;
  explicit RestartService(const Model& model) : service(*rc::gen::elementOf(model.services)) {}
  void checkPreconditions(const Model& model) const override { RC_PRE(model.up); }
  void run(const Model&, Cluster& cluster) const override { cluster.Restart(service); }
  void show(std::ostream& os) const override { os << "restart " << service; }
};

struct StopService : Command {
  std::string service;
  explicit StopService(const Model& model) : service(*rc::gen::elementOf(model.services)) {}
  void checkPreconditions(const Model& model) const override { RC_PRE(model.up); }
  void run(const Model&, Cluster& cluster) const override { cluster.Stop(service); }
  void show(std::ostream& os) const override { os << "stop " << service; }
};

// docker compose down, volumes kept; the next ComposeUp brings it back.
struct ComposeDown : Command {
  void checkPreconditions(const Model& model) const override { RC_PRE(model.up); }
  void apply(Model& model) const override { model.up = false; }
  void run(const Model&, Cluster& cluster) const override { cluster.Down(); }
  void show(std::ostream& os) const override { os << "docker compose down"; }
};

// docker compose down -v: the named volumes go, and with them every
// acknowledged object, so acknowledged-writes fails after it (as it
// should: the data is gone). Check() asserts every checker, so use this
// command in a property of your own that asserts what survives a down -v.
struct ComposeDownVolumes : Command {
  void checkPreconditions(const Model& model) const override { RC_PRE(model.up); }
  void apply(Model& model) const override { model.up = false; }
  void run(const Model&, Cluster& cluster) const override { cluster.Down(true); }
  void show(std::ostream& os) const override { os << "docker compose down -v"; }
};

struct CleanHostData : Command {
  void checkPreconditions(const Model& model) const override { RC_PRE(!model.up); }
  void run(const Model&, Cluster& cluster) const override { cluster.Clean(); }
  void show(std::ostream& os) const override { os << "clean the host data directories"; }
};

struct ComposeUp : Command {
  void checkPreconditions(const Model& model) const override { RC_PRE(!model.up); }
  void apply(Model& model) const override { model.up = true; }
  void run(const Model&, Cluster& cluster) const override { cluster.Up(); }
  void show(std::ostream& os) const override { os << "docker compose up"; }
};

// An upgrade or a rollback: the service's container is recreated at
// another image version, on its kept volumes.
struct UpgradeService : Command {
  std::string service;
  std::string version;
  explicit UpgradeService(const Model& model) {
    RC_PRE(!model.versions.empty());
    std::vector<std::string> names;
    for (const auto& [name, versions] : model.versions) names.push_back(name);
    service = *rc::gen::elementOf(names);
    version = *rc::gen::elementOf(model.versions.at(service));
  }
  void checkPreconditions(const Model& model) const override {
    RC_PRE(model.up);
    RC_PRE(model.running.contains(service) && model.running.at(service) != version);
  }
  void apply(Model& model) const override { model.running[service] = version; }
  void run(const Model&, Cluster& cluster) const override { cluster.Upgrade(service, version); }
  void show(std::ostream& os) const override { os << "run " << service << " at " << version; }
};

// --- Faults ----------------------------------------------------------------------

// A crash at the `nth` next pass through a fault site (a statement of a
// migration, a version write, a disk sync): it fires when later commands
// get there, or never.
struct ArmCrash : Command {
  std::string site;
  std::uint64_t nth = 1;
  explicit ArmCrash(const Model& model) {
    RC_PRE(!model.sites.empty());
    site = *rc::gen::elementOf(model.sites);
    nth = *rc::gen::inRange<std::uint64_t>(1, 4);
  }
  void run(const Model&, Cluster& cluster) const override { cluster.CrashAt(site, nth); }
  void show(std::ostream& os) const override {
    os << "crash at pass " << nth << " from now of " << site;
  }
};

struct PartitionService : Command {
  std::string service;
  explicit PartitionService(const Model& model) : service(*rc::gen::elementOf(model.services)) {}
  void checkPreconditions(const Model& model) const override { RC_PRE(model.up); }
  void apply(Model& model) const override { model.partitioned = true; }
  void run(const Model&, Cluster& cluster) const override { cluster.Partition(service); }
  void show(std::ostream& os) const override { os << "partition " << service << " from the rest"; }
};

struct HealNetwork : Command {
  void checkPreconditions(const Model& model) const override { RC_PRE(model.partitioned); }
  void apply(Model& model) const override { model.partitioned = false; }
  void run(const Model&, Cluster& cluster) const override { cluster.Heal(); }
  void show(std::ostream& os) const override { os << "heal the network"; }
};

struct PowerLoss : Command {
  std::string service;
  explicit PowerLoss(const Model& model) : service(*rc::gen::elementOf(model.services)) {}
  void checkPreconditions(const Model& model) const override { RC_PRE(model.up); }
  void run(const Model&, Cluster& cluster) const override { cluster.PowerLoss(service); }
  void show(std::ostream& os) const override { os << "power loss on " << service; }
};

struct WaitAWhile : Command {
  int seconds = 1;
  explicit WaitAWhile(const Model&) : seconds(*rc::gen::inRange(1, 61)) {}
  void run(const Model&, Cluster& cluster) const override {
    cluster.Wait(std::chrono::seconds(seconds));
  }
  void show(std::ostream& os) const override { os << "wait " << seconds << "s"; }
};

// --- The operator and the observers ------------------------------------------------

// A statement the model offers (Model::statements), typed at ycqlsh.
struct OperatorCql : Command {
  std::string statement;
  explicit OperatorCql(const Model& model) {
    RC_PRE(!model.statements.empty());
    statement = *rc::gen::elementOf(model.statements);
  }
  void checkPreconditions(const Model& model) const override { RC_PRE(model.up); }
  void run(const Model&, Cluster& cluster) const override { cluster.Cql(statement); }
  void show(std::ostream& os) const override { os << "ycqlsh -e \"" << statement << "\""; }
};

// No service's log says its process panicked (a bug of the code under
// test, whatever the faults).
struct ReadLogs : Command {
  std::string service;
  explicit ReadLogs(const Model& model) : service(*rc::gen::elementOf(model.services)) {}
  void run(const Model&, Cluster& cluster) const override {
    for (const std::string& line : cluster.Logs(service)) {
      RC_ASSERT(line.find("panic:") == std::string::npos);
    }
  }
  void show(std::ostream& os) const override { os << "read " << service << "'s log"; }
};

// The checkers that hold at every moment, faults or not (the others are
// asked once the cluster settled).
inline bool HoldsAtEveryMoment(const std::string& checker) {
  const CheckerSpec* spec = FindChecker(checker);
  FL_ASSERT_MSG(spec != nullptr, "a verdict of no checker: {}", checker);
  return spec->phase == CheckerPhase::kEveryMoment;
}

struct RunCheckers : Command {
  void run(const Model&, Cluster& cluster) const override {
    for (const CheckResult& verdict : cluster.Verdicts()) {
      if (!HoldsAtEveryMoment(verdict.what)) continue;
      RC_ASSERT(verdict.held);
    }
  }
  void show(std::ostream& os) const override { os << "ask the safety checkers"; }
};

// --- The property ------------------------------------------------------------------

// `cluster`'s story so far as a scenario file at `path`; when it has none
// (code of its own, a step after Settle(), a step a file cannot say:
// AsScenario says which), the file says why instead. The last failing case rapidcheck tries is its
// shrunk counterexample, so the file left at the end is the minimal one.
inline void WriteCounterexample(const Cluster& cluster, const std::filesystem::path& path) {
  sim::Result<Scenario> scenario = cluster.AsScenario();
  if (!scenario.ok()) {
    std::ofstream(path) << "# no scenario file: " << scenario.status().message() << "\n";
    return;
  }
  scenario->name = path.stem().string();
  scenario->title = "A counterexample rapidcheck shrank";
  std::ofstream out(path);
  out << ToToml(*scenario);
}

// Plays commands drawn from `Commands...` on `cluster` (up), then lets the
// operator heal the network and bring every service up again, settles the
// cluster and asserts
// every whole-run checker. On a failure the cluster's story is written to
// `counterexample` as a scenario file first, when it names one.
template <typename... Commands>
void Check(Cluster& cluster, const Model& model, const std::filesystem::path& counterexample = {}) {
  FL_ASSERT_MSG(cluster.is_up(), "commands::Check: bring the cluster up first (cluster.Up())");
  // Generation first: whatever it throws (a discard, a generation failure)
  // is rapidcheck's own business and no counterexample. The sequence it
  // gives is valid for the model (rapidcheck keeps shrunk ones valid too).
  const auto commands =
      *rc::state::gen::commands(model, rc::state::gen::execOneOfWithArgs<Commands...>());
  // Whatever fails while the commands run, a command's own assertion
  // included, the story is written before rapidcheck hears of it: the last
  // file written is then the last failing case, the shrunk one.
  try {
    rc::state::runAll(commands, model, cluster);
  } catch (...) {
    if (!counterexample.empty()) WriteCounterexample(cluster, counterexample);
    throw;
  }
  // As an operator would after an incident: the network is healed and
  // `up` run again (it starts what a failed dependency held back), and
  // again while it reports a service held back: a one-shot dependency
  // started during the partition may still give up just after the heal
  // (db-init out of retries). Each is a step, so a written counterexample
  // replays them.
  cluster.Heal();
  cluster.Up();
  constexpr int kMoreUps = 3;
  for (int up = 0; up < kMoreUps && !cluster.world().runtime.HeldBack().empty(); ++up) {
    cluster.Up();
  }
  cluster.Settle();
  std::string failed;
  if (!cluster.stopped().empty()) failed = "the run stopped: " + cluster.stopped() + "\n";
  for (const CheckResult& verdict : cluster.Verdicts()) {
    if (!verdict.held) failed += verdict.what + ": " + verdict.actual + "\n";
  }
  if (failed.empty()) return;
  if (!counterexample.empty()) WriteCounterexample(cluster, counterexample);
  RC_FAIL("checkers failed (simulation seed " + std::to_string(cluster.seed()) + "):\n" + failed);
}

template <typename... Commands>
void Check(Cluster& cluster, const std::filesystem::path& counterexample = {}) {
  Check<Commands...>(cluster, Model::Of(cluster), counterexample);
}

}  // namespace faultline::scenarios::commands
