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
#include "scenarios/explore/batch_play.h"
#include "scenarios/harness/runner.h"
#include "scenarios/shrink/shrink.h"
#include "scenarios/shrink/signature.h"

namespace faultline::scenarios {

struct ExploreBounds {
  int max_events = 3;        // Fault events per run, 1 to this.
  int max_crashes = 3;       // Crashes, kills and power losses among them.
  int max_power_losses = 1;  // Reboots among them.
  // The kinds of event a schedule may draw (--faults, --no-faults), by
  // name, in the registry's order (event_kinds.h); empty: every kind.
  std::vector<std::string> kinds;
};

// The workload `scenario` under the fault schedule drawn from `seed`: the
// scenario's own steps, faults and checkers, plus the drawn [[fault]]s and
// fault steps (kill, restart, partition, power-loss) between its steps.
Scenario DrawSchedule(const Scenario& workload, std::uint64_t seed, const ExploreBounds& bounds);

// Runs share their world: run r draws its faults from seed + r, and plays
// on the world seed of its batch (the batch's first run's seed), so the
// runs of a batch play alike until their first drawn event. A batch is
// played once up to each run's first event, and each run forks from
// there (harness/variants.h): its past is not played again; or, where a
// fork costs more than the past it saves, each run is played from empty
// on the batch's seed (batch_play.h). Batches of 1: every run on its own
// seed, played from empty.
inline constexpr int kDefaultBatch = 16;
inline constexpr int kMaxBatch = 1'000;
// Run r's world seed, in an exploration from `seed` in batches of `batch`.
std::uint64_t WorldSeedOf(std::uint64_t seed, std::uint64_t run, int batch);

// Which runs of an exploration one process plays: every count-th batch
// from index (run r when (r / batch) % count == index), so shards on
// several machines share one exploration's seeds, and a batch is never
// split.
struct Shard {
  std::uint64_t index = 0;
  std::uint64_t count = 1;
};
bool InShard(std::uint64_t run, const Shard& shard, int batch);
// How many of the first `runs` runs are in `shard`.
std::uint64_t RunsInShard(std::uint64_t runs, const Shard& shard, int batch);

// Failures of one drawn signature: how many runs, and the first.
struct DrawnGroup {
  Signature signature;
  std::int64_t count = 0;
  std::uint64_t first_seed = 0;  // Its first failure's schedule.
  std::uint64_t world_seed = 0;  // The world that run played on.
};

struct ExploreOptions {
  std::uint64_t seed = 1;  // Run r draws its faults from seed + r.
  int runs = 100;
  int batch = kDefaultBatch;  // Runs that share a world (WorldSeedOf).
  // How a batch's runs are played (batch_play.h): forked where each parts
  // from the batch, or each from an empty world on the same world seed
  // (the same results); by default whichever costs less on this machine.
  BatchPlay play = BatchPlay::kAuto;
  Shard shard;
  // Stop starting runs once this much wall time has passed (--time), or
  // once this says so (an interrupt): checked between batches.
  std::optional<std::chrono::steady_clock::duration> wall_time_limit;
  std::function<bool()> should_stop;
  ExploreBounds bounds;
  bool expectations = false;  // Count the scenario's own expectations too.
  // A resumed exploration's batches played before (by their first run):
  // skipped here, their runs counted by the caller.
  std::function<bool(std::uint64_t first_run)> played_before;
  // After each batch: its first run, its runs, and those that failed,
  // each a group of one run (a journal of the runs, for --resume).
  std::function<void(std::uint64_t first_run, std::size_t runs,
                     const std::vector<DrawnGroup>& failed)>
      on_batch;
  // Called after each run (progress).
  std::function<void(int runs_done, int failed_runs)> on_progress;
};

// Failures of one kind. Runs are grouped by their signature as drawn; once
// each group's first failure is shrunk, groups whose repros have the same
// failure from the same kinds of remaining fault are one (the repro and its
// faults, the first's; crashes at two sites of one failure are one group).
struct FailureGroup {
  Signature signature;     // The shrunk repro's: the faults that remain.
  std::int64_t count = 0;  // Runs that failed so.
  std::uint64_t first_seed = 0;
  std::uint64_t world_seed = 0;  // The world its first failure played on.
  Scenario first;                // The drawn scenario of its first failure.
  Shrunk repro;                  // That failure, shrunk.
  // The fault events drawn in `first` and those left in the repro, the
  // workload's own not counted (DrawnFaultEvents).
  std::size_t drawn_events = 0;
  std::size_t repro_drawn_events = 0;
  // False when shrinking was stopped before this group (ShrinkGroups'
  // should_stop): its repro is its first failure as drawn, whole.
  bool shrunk = true;
  std::vector<std::string> kinds;  // FaultKinds of the repro's: the group's.
  // The distinct sets of remaining faults merged into it (1: its repro's).
  std::size_t fault_sets = 1;
};

struct ExploreResult {
  int runs = 0;
  std::vector<FailureGroup> groups;  // In the order they were found.
  double wall_ms = 0;
};

// The runs alone: failures grouped by their drawn signature, each with its
// count and first seed, not yet shrunk (a schedule is drawn again from its
// seed and played on its world seed, so a group is whole with these).
// `runs_done` receives how many runs were played.
std::vector<DrawnGroup> ExploreRuns(const Scenario& workload, const ExploreOptions& options,
                                    int* runs_done = nullptr);
// Shards' groups as one exploration's: counts added, the first seed kept,
// ordered by first seed.
std::vector<DrawnGroup> MergeDrawnGroups(const std::vector<std::vector<DrawnGroup>>& parts);
// Each group's first failure, drawn again and shrunk; groups whose repros
// have the same signature are merged.
// Once `should_stop` says so (an interrupt), the groups left are not
// shrunk: each keeps its first failure as drawn for its repro.
// `on_shrink` hears of each candidate tried: the group's index, of how
// many, and the candidates tried for it so far (progress).
using ShrinkProgress = std::function<void(std::size_t group, std::size_t groups, int tried)>;
std::vector<FailureGroup> ShrinkGroups(const Scenario& workload,
                                       const std::vector<DrawnGroup>& drawn,
                                       const ExploreBounds& bounds, bool expectations = false,
                                       const std::function<bool()>& should_stop = {},
                                       const ShrinkProgress& on_shrink = {});

// ExploreRuns, then ShrinkGroups.
ExploreResult Explore(const Scenario& workload, const ExploreOptions& options);

}  // namespace faultline::scenarios
