// Plays a scenario on a fresh simulation of the seed cluster, from a seed:
// each step's action, its outcome in words, and each expectation's verdict.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "scenarios/core/results.h"
#include "scenarios/core/scenario.h"
#include "sim/sim.h"

namespace faultline::scenarios {

struct World;   // world.h
class Cluster;  // cluster.h

struct RunOptions {
  std::uint64_t seed = 1;
  std::vector<sim::TraceSink*> sinks;  // Also receive every trace event.
  // false: no whole-run checker looks (a replay that wants only the trace).
  // The trace is the same either way: checkers observe, they never act.
  bool checkers = true;
  // Called after each step (with its index) and once after the liveness
  // phase (with the number of steps), to read the world: an observer
  // reads, it never acts, so it never changes the trace.
  std::function<void(std::size_t step, World& world)> observe;
  // Called before each step plays (with its index), and before the liveness
  // phase (with the number of steps; not when the budget stopped the run):
  // for sinks that mark the steps, such as the readable timeline. It sees
  // nothing and does nothing to the run.
  std::function<void(std::size_t step)> before_step;
  // Asked at every pass of a fault site before the scenario's own faults
  // (sim::PassOverride): how a branching run (branches.h) forks its
  // futures. Unset: the scenario's faults alone decide.
  sim::PassOverride at_fault_pass;
  // Called after the last step (with the cluster), before the liveness
  // phase, when the budget did not stop the run: where a branching run
  // holds its world to play more steps from it on demand (HeldRun,
  // branches.h). It must leave the run's own course as it was.
  std::function<void(Cluster& cluster)> after_steps;
  // Asked before each step (with its index) and once after the last one
  // when the budget did not stop the run: a scenario to play on as from
  // here, whose steps up to here are the ones played (nullptr: go on as
  // before). The runner plays its steps from here and judges the run by
  // its checkers and faults. How a run forked from another takes up its
  // own course where it parts from it (variants.h).
  std::function<const Scenario*(std::size_t step, Cluster& cluster)> play_on_as;
  // Called with the run's result while its world still stands, before it
  // is taken apart. A forked future returns its result from here and ends
  // (Branches::Return): taking a world apart frees every block it holds,
  // which writes to (and so copies) nearly every page the child shares
  // with its parent.
  std::function<void(const ScenarioResult& result)> with_result;
};

// After the last step, faults stop and the cluster has this long to converge
// before the whole-run checkers look (TigerBeetle's liveness phase).
inline constexpr sim::Duration kLivenessBound = std::chrono::seconds(30);

ScenarioResult RunScenario(const Scenario& scenario, const RunOptions& options);

}  // namespace faultline::scenarios
