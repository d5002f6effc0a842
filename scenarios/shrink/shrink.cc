#include "scenarios/shrink/shrink.h"

#include <fmt/format.h>

#include <optional>
#include <variant>

#include "models/s3/seed_images.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/harness/runner.h"
#include "scenarios/steps/steps.h"
#include "sim/assert.h"
#include "sim/clock.h"

namespace faultline::scenarios {

Shrunk Shrink(const Scenario& failing, std::uint64_t seed, const Signature& signature,
              bool expectations, int max_runs, bool keep_steps,
              const std::function<bool(const Scenario&)>& also_holds) {
  Shrunk shrunk{failing, {}};
  int runs = 0;
  // Whether `candidate` still fails the same way (the checker and the kind
  // of violation; its faults are fewer, so its full signature differs).
  const auto still_fails = [&](const Scenario& candidate) {
    if (runs >= max_runs) return false;
    // A repro is a file that reads back: a change that leaves, say, a fault
    // at a site no step reaches any more is no repro.
    if (!std::holds_alternative<Scenario>(ParseScenario(ToToml(candidate), "candidate.toml"))) {
      return false;
    }
    ++runs;
    const ScenarioResult result = RunScenario(candidate, {.seed = seed});
    const std::optional<Signature> found = SignatureOf(candidate, result, expectations);
    return found.has_value() && SameFailure(*found, signature) &&
           (!also_holds || also_holds(candidate));
  };
  const auto attempt = [&](std::string what, Scenario candidate) {
    const bool kept = still_fails(candidate);
    if (kept) shrunk.scenario = std::move(candidate);
    shrunk.log.push_back(ShrinkStep{std::move(what), kept});
  };
  // 1. Fault events: each [[fault]], the [crash], each fault step.
  for (std::size_t i = shrunk.scenario.faults.size(); i-- > 0;) {
    Scenario candidate = shrunk.scenario;
    candidate.faults.erase(candidate.faults.begin() + static_cast<std::ptrdiff_t>(i));
    attempt(fmt::format("drop fault {} ({})", i + 1, DescribeFault(shrunk.scenario.faults[i])),
            std::move(candidate));
  }
  if (!shrunk.scenario.crash_site.empty()) {
    Scenario candidate = shrunk.scenario;
    candidate.crash_site.clear();
    attempt("drop the [crash]", std::move(candidate));
  }
  // 2. Steps, fault steps first, then the workload's, from the last. An
  // `up` stays (without it a cluster that is down fails for no fault), and
  // a `down` goes with the `up` after it.
  for (const bool fault_steps : {true, false}) {
    for (std::size_t i = keep_steps ? 0 : shrunk.scenario.steps.size(); i-- > 0;) {
      const Step& step = shrunk.scenario.steps[i];
      if (StepKindOf(step).fault != fault_steps || step.kind == Step::Kind::kUp) continue;
      const std::vector<Step>& steps = shrunk.scenario.steps;
      const std::size_t count = step.kind == Step::Kind::kDown && i + 1 < steps.size() &&
                                        steps[i + 1].kind == Step::Kind::kUp
                                    ? 2
                                    : 1;
      Scenario candidate = shrunk.scenario;
      candidate.steps.erase(candidate.steps.begin() + static_cast<std::ptrdiff_t>(i),
                            candidate.steps.begin() + static_cast<std::ptrdiff_t>(i + count));
      attempt(fmt::format("drop step {} ({}){}", i + 1, StepKindOf(step).show(step),
                          count == 2 ? " and the up after it" : ""),
              std::move(candidate));
    }
  }
  // 3. What remains, simpler: the first hit, half the delay.
  for (std::size_t i = 0; i < shrunk.scenario.faults.size(); ++i) {
    if (shrunk.scenario.faults[i].hit > 1) {
      Scenario candidate = shrunk.scenario;
      candidate.faults[i].hit = 1;
      attempt(fmt::format("fault {}: hit {} -> 1", i + 1, shrunk.scenario.faults[i].hit),
              std::move(candidate));
    }
    constexpr int kMaxHalvings = 8;
    for (int halving = 0; halving < kMaxHalvings; ++halving) {
      const FaultSpec& fault = shrunk.scenario.faults[i];
      if (fault.action != sim::FaultAction::kDelay || fault.delay < std::chrono::seconds(2)) {
        break;
      }
      Scenario candidate = shrunk.scenario;
      candidate.faults[i].delay = fault.delay / 2;
      const std::size_t kept_before = shrunk.log.size();
      attempt(fmt::format("fault {}: delay {} -> {}", i + 1, sim::FormatDuration(fault.delay),
                          sim::FormatDuration(fault.delay / 2)),
              std::move(candidate));
      if (!shrunk.log[kept_before].kept) break;
    }
  }
  // 4. Fewer nodes, while nothing names the last one (its service or its
  // keyspace) and the failure stays.
  constexpr int kMaxNodeTries = models::s3::kMaxNodes;
  for (int tries = 0; tries < kMaxNodeTries && shrunk.scenario.nodes > 1; ++tries) {
    const int last = shrunk.scenario.nodes;
    Scenario candidate = shrunk.scenario;
    candidate.nodes = last - 1;
    const std::string service = models::s3::NodeServiceName(last);
    const std::string keyspace = fmt::format("filecoingw_kuri{}", last);
    // Expectations are no oracle here (unless asked): those about the node go.
    if (!expectations) {
      for (Step& step : candidate.steps) {
        std::erase_if(step.expect, [&](const Expectation& e) {
          return e.service == service || e.service == keyspace;
        });
      }
    }
    // What the run does names the node, not what the story says of it.
    Scenario unworded = candidate;
    unworded.title = unworded.story = unworded.lesson = "";
    for (Step& each : unworded.steps) each.narration.clear();
    const std::string text = ToToml(unworded);
    if (text.find(service) != std::string::npos || text.find(keyspace) != std::string::npos) {
      break;
    }
    const std::size_t at = shrunk.log.size();
    attempt(fmt::format("nodes {} -> {}", last, last - 1), std::move(candidate));
    if (!shrunk.log[at].kept) break;
  }
  FL_ASSERT_MSG(FaultEventCount(shrunk.scenario) <= FaultEventCount(failing),
                "shrinking added fault events: {} -> {}", FaultEventCount(failing),
                FaultEventCount(shrunk.scenario));
  return shrunk;
}

}  // namespace faultline::scenarios
