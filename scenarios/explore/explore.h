// Exploration: a scenario's steps are the workload; each run draws a fault
// schedule from its seed (swarm testing: whole fault kinds switched on or
// off for the run, then a few events of the kinds on), plays the workload
// under it, and asks the whole-run checkers. Failures are grouped by a
// signature (the failing checker, its first violation's kind, the fault
// kinds and sites), and each group's first failure is shrunk to a scenario
// with nothing random left in it: every fault explicit, replayable with
// `faultline run`.
//
// Bounds follow studies of real clusters (../shared/reference/
// failure-catalog.md): by default at most 3 fault events, 3 crashes and one
// power loss per run.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/core/scenario.h"
#include "scenarios/harness/runner.h"
#include "scenarios/shrink/shrink.h"
#include "scenarios/shrink/signature.h"

namespace faultline::scenarios {

struct ExploreBounds {
  int max_events = 3;        // Fault events per run, 1 to this.
  int max_crashes = 3;       // Crashes, kills and power losses among them.
  int max_power_losses = 1;  // Reboots among them.
};

// The workload `scenario` under the fault schedule drawn from `seed`: the
// scenario's own steps, faults and checkers, plus the drawn [[fault]]s and
// fault steps (kill, restart, partition, power-loss) between its steps.
Scenario DrawSchedule(const Scenario& workload, std::uint64_t seed, const ExploreBounds& bounds);

// Which runs of an exploration one process plays: every count-th run from
// index (run r when r % count == index), so shards on several machines
// share one exploration's seeds.
struct Shard {
  std::uint64_t index = 0;
  std::uint64_t count = 1;
};
bool InShard(std::uint64_t run, const Shard& shard);

struct ExploreOptions {
  std::uint64_t seed = 1;  // Run r uses seed + r.
  int runs = 100;
  Shard shard;
  // Stop starting runs once this much wall time has passed (--time).
  std::optional<std::chrono::steady_clock::duration> wall_time_limit;
  ExploreBounds bounds;
  bool expectations = false;  // Count the scenario's own expectations too.
  // Called after each run, and once per new group (progress).
  std::function<void(int runs_done, int groups)> on_progress;
  std::function<void(const Signature&, std::uint64_t seed)> on_new_group;
};

// Failures of one kind. Runs are grouped by their signature as drawn; once
// each group's first failure is shrunk, groups whose repros have the same
// signature (the same failure from the same remaining faults) are one.
struct FailureGroup {
  Signature signature;     // The shrunk repro's: the faults that remain.
  std::int64_t count = 0;  // Runs that failed so.
  std::uint64_t first_seed = 0;
  Scenario first;  // The drawn scenario of its first failure.
  Shrunk repro;    // That failure, shrunk.
};

struct ExploreResult {
  int runs = 0;
  std::vector<FailureGroup> groups;  // In the order they were found.
  double wall_ms = 0;
};

// The runs alone: failures grouped by their drawn signature, each with its
// count and first seed, not yet shrunk (a schedule is drawn again from its
// seed, so a group is whole with these three). `runs_done` receives how
// many runs were played.
struct DrawnGroup {
  Signature signature;
  std::int64_t count = 0;
  std::uint64_t first_seed = 0;
};
std::vector<DrawnGroup> ExploreRuns(const Scenario& workload, const ExploreOptions& options,
                                    int* runs_done = nullptr);
// Shards' groups as one exploration's: counts added, the first seed kept,
// ordered by first seed.
std::vector<DrawnGroup> MergeDrawnGroups(const std::vector<std::vector<DrawnGroup>>& parts);
// Each group's first failure, drawn again and shrunk; groups whose repros
// have the same signature are merged.
std::vector<FailureGroup> ShrinkGroups(const Scenario& workload,
                                       const std::vector<DrawnGroup>& drawn,
                                       const ExploreBounds& bounds, bool expectations = false);

// ExploreRuns, then ShrinkGroups.
ExploreResult Explore(const Scenario& workload, const ExploreOptions& options);

}  // namespace faultline::scenarios
