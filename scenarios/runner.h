// Plays a scenario on a fresh simulation of the seed cluster, from a seed:
// each step's action, its outcome in words, and each expectation's verdict.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "scenarios/scenario.h"
#include "sim/sim.h"

namespace faultline::scenarios {

struct World;  // world.h

struct CheckResult {
  std::string what;  // "status 500", "kuri-1's log contains ..."
  bool held = false;
  std::string actual;  // What was there instead, when it did not hold.
  // A whole-run checker's name ("converges"), and whether the scenario
  // expected it to hold; empty for a step's expectation.
  std::string checker;
  bool expected_to_hold = true;
};

struct StepResult {
  std::string action;  // "PUT /photos/cat.jpg", "ycqlsh: DESCRIBE ..."
  std::string narration;
  std::string outcome;  // The answer, or what the step did.
  sim::TimePoint at{};  // Virtual time when the step ended.
  std::vector<CheckResult> checks;
};

struct ScenarioResult {
  std::string name;
  std::uint64_t seed = 0;
  bool passed = false;
  std::vector<StepResult> steps;
  std::vector<CheckResult> checkers;  // The whole-run checkers, against what the scenario expects.
  std::uint64_t trace_hash = 0;
  // Said to the person, not a verdict: a [crash] that never happened.
  std::vector<std::string> notes;
  // Why the run stopped before its end (its budget, Scenario::budget), in
  // words; empty when it played every step. Such a run has no verdict.
  std::string stopped;
  sim::TimePoint virtual_time{};
  double wall_ms = 0;
};

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
};

// After the last step, faults stop and the cluster has this long to converge
// before the whole-run checkers look (TigerBeetle's liveness phase).
inline constexpr sim::Duration kLivenessBound = std::chrono::seconds(30);

ScenarioResult RunScenario(const Scenario& scenario, const RunOptions& options);

// One line: the outcome shortened for tables and logs.
std::string OneLine(const std::string& text, std::size_t max = 100);

}  // namespace faultline::scenarios
