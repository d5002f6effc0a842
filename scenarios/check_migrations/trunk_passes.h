// check-migrations' crash trunk, placed before it branches (internal to
// scenarios/check_migrations/): which crash points have one future, and
// what the store holds at each version the runner records clean.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scenarios/core/scenario.h"
#include "scenarios/harness/branches.h"
#include "sim/clock.h"

namespace faultline::scenarios {
struct World;
}

namespace faultline::scenarios::check {

struct TrunkPasses {
  // Each point's key to the key of the point of its group that kuri-1
  // passes first: a pass of kuri-1's that follows its own previous pass
  // with nothing traced and nothing run between but its own continuation
  // (sim::FaultPass's place) finds the world as that pass did, so a crash
  // at either plays the same run (but for the fault's own trace event).
  // The migration runner's passes in a row are such (after_set_dirty and
  // the first statement.before, statement.after and the next
  // statement.before, ...).
  std::map<std::uint64_t, std::uint64_t> same_as;
  // The store's content (StoreSnapshot::ContentHash) at each pass of
  // `clean_site` by kuri-1 (the clean run's store at each version it
  // records clean), and the virtual time from there to its last such pass.
  // A run that reaches one of them there plays on as the trunk did
  // (Checker::StopAtTheCleanRun).
  std::map<std::uint64_t, sim::Duration> clean_contents;
};

// Plays `trunk` (its steps) once to place every pass; `clean_site` may be
// empty (a runner without one: no contents).
TrunkPasses PlaceTrunkPasses(const Scenario& trunk, std::uint64_t seed,
                             const std::vector<BranchPoint>& points, const std::string& clean_site);

// The store's content now (StoreSnapshot::ContentHash); 0 when there is no
// store database yet. Reads, never acts.
std::uint64_t StoreContent(World& world);

}  // namespace faultline::scenarios::check
