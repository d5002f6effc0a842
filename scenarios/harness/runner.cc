#include "scenarios/harness/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <iterator>
#include <memory>

#include "scenarios/harness/cluster.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

// A [crash] or [[fault]] (of any process) that the run never reached often
// enough: said, since the story would not be the one written.
std::vector<std::string> FaultsThatNeverHappened(const Scenario& scenario, World& world) {
  struct Named {
    std::string what;  // "crash", "fault"
    std::string site;  // As the plan names it: scoped for one service's fault.
    std::uint64_t hit;
  };
  std::vector<Named> named;
  if (!scenario.crash_site.empty()) {
    named.push_back({"crash", scenario.crash_site, scenario.crash_hit});
  }
  for (const FaultSpec& fault : scenario.faults) {
    named.push_back(
        {"fault", fault.service.empty() ? fault.site : sim::ScopedSite(fault.service, fault.site),
         fault.hit});
  }
  const sim::FaultInjector& faults = world.simulation.faults();
  std::vector<std::string> notes;
  for (const Named& fault : named) {
    std::uint64_t hits = faults.ScopedHits(fault.site);
    for (const sim::SiteCoverage& coverage : faults.Coverage()) {
      if (coverage.site == fault.site) hits = coverage.hits;
    }
    if (hits >= fault.hit) continue;
    notes.push_back(
        fmt::format("the {} at {} (hit {}) never happened: the run reached that site {} time{}",
                    fault.what, fault.site, fault.hit, hits, hits == 1 ? "" : "s"));
  }
  return notes;
}

}  // namespace

ScenarioResult RunScenario(const Scenario& scenario, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  Cluster cluster(scenario,
                  {.seed = options.seed, .sinks = options.sinks, .checkers = options.checkers});
  World& world = cluster.world();
  if (options.at_fault_pass) world.simulation.faults().SetPassOverride(options.at_fault_pass);
  ScenarioResult result;
  result.name = scenario.name;
  result.seed = options.seed;
  result.passed = true;
  const Scenario* playing = &scenario;  // Another once play_on_as says so.
  const auto play_on_as = [&](std::size_t step) {
    if (!options.play_on_as) return;
    const Scenario* next = options.play_on_as(step, cluster);
    if (next == nullptr) return;
    FL_ASSERT_MSG(
        next->steps.size() >= step &&
            std::equal(playing->steps.begin(), playing->steps.begin() + step, next->steps.begin()),
        "a run played on as {}, whose first {} steps are not the ones played", next->name, step);
    playing = next;
  };
  std::size_t played = 0;
  for (;;) {
    play_on_as(played);
    if (played == playing->steps.size()) break;
    FL_ASSERT(played < playing->steps.size());
    if (options.before_step) options.before_step(played);
    for (const CheckResult& check : cluster.PlayBorrowed(playing->steps[played]).checks) {
      result.passed = result.passed && check.held;
    }
    ++played;
    if (!cluster.stopped().empty()) break;
    if (options.observe) options.observe(played - 1, world);
  }
  const Scenario& ran = *playing;
  if (options.after_steps && cluster.stopped().empty()) options.after_steps(cluster);
  std::deque<StepResult> played_steps = cluster.TakePlayed();
  result.steps.assign(std::make_move_iterator(played_steps.begin()),
                      std::make_move_iterator(played_steps.end()));
  // The liveness phase: safety was checked after every step, under the
  // faults; now they stop and the cluster has kLivenessBound to converge.
  if (options.before_step && cluster.stopped().empty()) options.before_step(ran.steps.size());
  cluster.Settle();
  // A run stopped by its budget has no verdict: it did not finish.
  result.stopped = cluster.stopped();
  if (options.observe && result.stopped.empty()) options.observe(ran.steps.size(), world);
  FL_ASSERT(result.steps.size() <= ran.steps.size());
  FL_ASSERT(!result.stopped.empty() || result.steps.size() == ran.steps.size());
  if (!result.stopped.empty()) result.passed = false;
  // The checkers look at the whole run's end state; a scenario may expect
  // any of them to fail (that is its story).
  for (CheckResult& verdict : cluster.Verdicts()) {
    const std::string name = verdict.what;
    auto expected = ran.checkers.find(name);
    const bool expected_to_hold = expected == ran.checkers.end() || expected->second;
    if (verdict.held != expected_to_hold) result.passed = false;
    // What happened, in words that agree with the verdict beside them.
    verdict.what = fmt::format("checker {} {}", name,
                               verdict.held ? (expected_to_hold ? "holds"
                                                                : "holds, but the story "
                                                                  "expects it to fail")
                                            : (expected_to_hold ? "fails" : "fails, as expected"));
    verdict.checker = name;
    verdict.expected_to_hold = expected_to_hold;
    verdict.held = verdict.held == expected_to_hold;
    result.checkers.push_back(std::move(verdict));
  }
  for (std::string& note : FaultsThatNeverHappened(ran, world)) {
    result.notes.push_back(std::move(note));
  }
  result.trace_hash = world.simulation.trace().hash();
  result.virtual_time = world.simulation.Now();
  result.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start)
          .count();
  if (options.with_result) options.with_result(result);
  return result;
}

}  // namespace faultline::scenarios
