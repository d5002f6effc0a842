// The cluster harness: a simulated cluster built from a topology, acted on
// one step at a time, observed by the whole-run checkers. It is what the
// scenario runner plays files on, and what your own properties drive
// (docs/library.md; scenarios/cluster_commands.h has rapidcheck commands):
//
//   faultline::scenarios::Cluster cluster(topology, {.seed = 7});
//   cluster.Up();
//   cluster.Put("/photos/cat.jpg", "meow");
//   cluster.CrashAt("migrate.filecoingw_kuri1.statement.after");
//   cluster.Upgrade("kuri-1", "v3");
//   cluster.Settle();
//   for (const CheckResult& verdict : cluster.Verdicts()) ...
//
// Every action is one Step (steps.h), so whatever a cluster did can be
// written out as a scenario file (AsScenario) that `faultline run` replays
// to the same trace. Its world is built in fakes::Environment's order.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fakes/compose.h"
#include "fakes/runtime.h"
#include "models/migrate/runner.h"
#include "scenarios/core/scenario.h"
#include "scenarios/core/topology.h"
#include "scenarios/harness/runner.h"
#include "sim/fault.h"
#include "sim/status.h"

namespace faultline::scenarios {

struct World;
class Checkers;

// An image of your own: its program, run by the containers of the services
// that name `image` at `version`.
struct CustomImage {
  std::string image;
  std::string version;
  fakes::EntryPoint entry;
};

// A migration runner of your own, for ImageSpec::runner to name.
using RunnerFactory = std::function<std::shared_ptr<models::migrate::MigrationRunner>()>;
struct CustomRunner {
  std::string name;
  RunnerFactory make;
};

struct ClusterOptions {
  // The simulation's seed; none: the topology's own (Scenario::seed).
  std::optional<std::uint64_t> seed;
  std::vector<sim::TraceSink*> sinks;  // Also receive every trace event.
  // false: no whole-run checker watches (Verdicts() is then empty). The
  // trace is the same either way: checkers observe, they never act.
  bool checkers = true;
  std::vector<CustomRunner> runners;
  std::vector<CustomImage> images;
  // Services of your own, added to the topology's compose file after its
  // own; each names a CustomImage (or a seed image) and its volumes.
  std::vector<fakes::ServiceSpec> services;
};

// The scenario's [crash] and [[fault]]s as one explicit plan, as a
// Cluster arms them; a fault of one service names its scoped site (that
// service's own hits).
std::shared_ptr<sim::ExplicitFaultPlan> FaultPlanOf(const ScenarioSetting& scenario);

class Cluster {
 public:
  // The cluster of `topology`: its images, nodes and service changes, its
  // [crash] and [[fault]]s and its budget. Its steps are not played; Play
  // them, or use the verbs below. Nothing runs until the first step.
  // Only the setting is copied (ScenarioSetting), never the steps.
  explicit Cluster(const Scenario& topology, ClusterOptions options = {});
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  // Plays `step` as a scenario file's step is played: its action, then its
  // expectations. REQUIRES: the fields its kind needs (steps.h) are set.
  // The result (and every verb's) stays valid as long as the cluster.
  const StepResult& Play(Step step);

  // The verbs, each one step (the StepResult says what happened). A service
  // they name must be one of Services(), and a version one registered for
  // its image (an assertion says which otherwise).
  const StepResult& Up();
  const StepResult& Down(bool volumes = false);  // true: down -v
  const StepResult& Clean();
  // S3 through the proxy, or straight to `node` ("kuri-1"). A PUT the proxy
  // answers 200 is acknowledged: acknowledged-writes reads it back.
  const StepResult& Put(const std::string& path, const std::string& body,
                        const std::string& node = "");
  const StepResult& Get(const std::string& path, const std::string& node = "");
  const StepResult& Delete(const std::string& path, const std::string& node = "");
  const StepResult& Kill(const std::string& service);
  const StepResult& Restart(const std::string& service);
  const StepResult& Stop(const std::string& service);
  // set-image then up: the service's container is recreated at `version`
  // (newer: an upgrade; older: a rollback), on its kept volumes. Being an
  // up, before Up() it brings the whole cluster up.
  const StepResult& Upgrade(const std::string& service, const std::string& version);
  // Blocks the links between `service` and `peer` (empty: every other host).
  const StepResult& Partition(const std::string& service, const std::string& peer = "");
  const StepResult& Heal();
  const StepResult& PowerLoss(const std::string& service,
                              sim::Survivors survivors = sim::Survivors::kNothingUnsynced);
  // A statement at the ycqlsh prompt, as an operator types it.
  const StepResult& Cql(const std::string& statement);
  const StepResult& Wait(sim::Duration duration);

  // Crashes the process at the `nth` pass through fault site `site` from
  // now on (counted over every process; FaultSites() lists the sites). It
  // becomes a [[fault]] of AsScenario(), at the hit it will be.
  // REQUIRES: `site` is one of FaultSites(); not settled (after Settle() no
  // fault fires).
  void CrashAt(const std::string& site, std::uint64_t nth = 1);

  // The liveness phase, as the runner ends every scenario: faults stop for
  // good, links heal, disks are repaired, and the cluster has
  // kLivenessBound to converge. Call it before Verdicts() for a whole-run
  // verdict. Steps may follow, but such a cluster has no scenario file.
  void Settle();
  // Each whole-run checker's verdict now (checkers.h): `what` its name,
  // `actual` what broke it. Observes only: the trace is unchanged.
  std::vector<CheckResult> Verdicts();

  // `service`'s log, every incarnation's lines (empty without a container).
  std::vector<std::string> Logs(const std::string& service) const;
  // Whether `service` would answer its health check now (observed).
  bool Serving(const std::string& service) const;
  // Every step played so far, in order.
  const std::deque<StepResult>& played() const { return played_; }
  // Moves the results out (played() is then empty): for a caller done with
  // the cluster that keeps them, as the runner does, without a copy.
  std::deque<StepResult> TakePlayed() { return std::move(played_); }
  // Whether the last compose step played was an up (not a down).
  bool is_up() const { return up_; }
  // Every service of the compose file, yours included, in its order.
  std::vector<std::string> Services() const;
  // Every fault site CrashAt accepts: the disk's, and the sites of the
  // runner of every version a node or the proxy starts on or may be
  // upgraded to (the seed's and the topology's own), yours included.
  const std::vector<std::string>& FaultSites() const { return fault_sites_; }
  // The image versions a node or the proxy may run (the seed's and the
  // topology's own), what Upgrade accepts for it; empty for other services.
  std::vector<std::string> VersionsOf(const std::string& service) const;
  // Why the run stopped early (its budget), in words; empty while it runs.
  const std::string& stopped() const;

  // The topology, the steps played and the faults armed, as a scenario:
  // written with ToToml, `faultline run` replays the same trace from the
  // same seed (settled last, as the runner does: the same trace hash). An
  // error when the cluster has images, services or runners of your own (a
  // file cannot name code), played a step after Settle(), or played a step
  // a file cannot say (a file's reader refuses it, or a duration finer than
  // a millisecond); the error says which.
  sim::Result<Scenario> AsScenario() const;

  const Scenario& topology() const { return topology_; }
  std::uint64_t seed() const { return seed_; }
  World& world() { return *world_; }
  const World& world() const { return *world_; }

 private:
  std::vector<std::string> ReachableFaultSites() const;
  // The runner plays a scenario's own steps, which outlive the cluster,
  // without copying them.
  friend ScenarioResult RunScenario(const Scenario& scenario, const RunOptions& options);
  const StepResult& PlayBorrowed(const Step& step);
  const StepResult& PlayStored(const Step& step);
  void CheckService(const std::string& service) const;

  Scenario topology_;
  ClusterOptions options_;
  std::uint64_t seed_ = 1;
  std::shared_ptr<sim::ExplicitFaultPlan> plan_;  // Grows with CrashAt.
  std::vector<FaultSpec> armed_;                  // What CrashAt added, as [[fault]]s.
  // Deques: a step and its result stay where they are while the cluster
  // lives (a step's coroutines may outlive its Play, and callers hold the
  // results), and a long run never copies them. Before the world, so the
  // steps outlive its coroutine frames too. story_ is every step played, in
  // order: those Play() copied (owned_steps_), and the runner's own.
  std::deque<Step> owned_steps_;
  std::vector<const Step*> story_;
  std::unique_ptr<Checkers> checkers_;  // Before the world: its trace sink.
  std::unique_ptr<World> world_;
  std::deque<StepResult> played_;
  std::vector<std::string> fault_sites_;  // Sorted; fixed once the cluster is built.
  bool settled_ = false;
  bool up_ = false;
  bool played_after_settle_ = false;
};

}  // namespace faultline::scenarios
