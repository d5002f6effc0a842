// A family of runs that share their beginning: a trunk scenario, and
// variants of it that each play as the trunk does until they part from it
// (the first step that differs, or the first pass of a fault site at which
// their [crash] and [[fault]]s decide otherwise than the trunk's). The
// trunk is played once; at each variant's parting point a child is forked
// (branches.h) that takes up the variant's own steps, faults and checkers
// from there, so the variant's past is never played again. A variant's run
// is the one it would have played from an empty world on the trunk's seed:
// the same trace hash (variants_test.cc), so its repro replays from empty.
//
// How explore plays a batch of runs on one seed (explore.h), each its
// workload under its own drawn faults.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "scenarios/core/results.h"
#include "scenarios/core/scenario.h"
#include "scenarios/harness/runner.h"

namespace faultline::scenarios {

// What RunVariants needs of a variant of `trunk`: its setting the trunk's
// but for its words, [crash], [[fault]]s and checker expectations, and
// none of the faults in which the two differ scoped to a service's own
// hits. Empty when it is one; otherwise what is not.
std::string NotAVariant(const Scenario& trunk, const Scenario& variant);

// Plays `trunk` with `options` (its seed and sinks; nothing that forks),
// and each of `variants` forked where it parts from the trunk; a forked
// variant's child returns `finish(i, result)` (i its index in `variants`).
// A variant that never parts (its faults never fire and its steps and
// checkers are the trunk's, or the trunk stopped first) is the trunk's run:
// `finish(i, trunk's result)` in the caller; the trunk's result says
// nothing of its faults that never happened. `max_beside` children run
// beside the caller (0: one at a time). Returns each variant's text, in
// the order of `variants`, whatever the pool.
std::vector<std::string> RunVariants(
    const Scenario& trunk, const RunOptions& options, const std::vector<const Scenario*>& variants,
    const std::function<std::string(std::size_t variant, const ScenarioResult& result)>& finish,
    int max_beside = 0);

}  // namespace faultline::scenarios
