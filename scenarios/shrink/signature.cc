#include "scenarios/shrink/signature.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "scenarios/steps/steps.h"
#include "sim/assert.h"
#include "sim/clock.h"
#include "sim/trace.h"

namespace faultline::scenarios {
namespace {

// The first violation of a checker's report, without where it was seen
// ("at step 3: ").
std::string_view FirstOf(std::string_view actual) {
  std::string_view first = actual.substr(0, actual.find(';'));
  if (first.starts_with("at ")) {
    const std::size_t colon = first.find(": ");
    if (colon != std::string_view::npos) first.remove_prefix(colon + 2);
  }
  return first;
}

// The first violation, with what names one instance (numbers, paths,
// service names, times) left out: "kuri-1 is not serving" and "kuri-2 is
// not serving" are one kind.
std::string ViolationKind(std::string_view actual) {
  const std::string_view first = FirstOf(actual);
  std::string kind;
  std::size_t at = 0;
  constexpr std::size_t kMaxWords = 12;
  for (std::size_t words = 0; at < first.size() && words < kMaxWords; ++words) {
    const std::size_t end = std::min(first.find(' ', at), first.size());
    const std::string_view word = first.substr(at, end - at);
    // A number, a path, or a hyphenated name (kuri-1, db-init) names one.
    const bool instance = std::any_of(word.begin(), word.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '/' || c == '-';
    });
    if (!word.empty()) kind += (kind.empty() ? "" : " ") + std::string(instance ? "*" : word);
    at = end + 1;
  }
  return kind;
}

// A run's first failure: the first whole-run checker that failed against
// the scenario's expectation, or with `expectations` and none, the first
// failed step expectation ("expectation"); with the report it gave.
struct Failing {
  std::string checker;
  std::string_view report;
};
std::optional<Failing> FirstFailing(const ScenarioResult& result, bool expectations) {
  for (const CheckResult& check : result.checkers) {
    if (check.checker.empty() || !check.expected_to_hold || check.held) continue;
    return Failing{check.checker, check.actual};
  }
  if (!expectations) return std::nullopt;
  for (const StepResult& step : result.steps) {
    for (const CheckResult& check : step.checks) {
      if (!check.held) return Failing{"expectation", check.what};
    }
  }
  return std::nullopt;
}

}  // namespace

bool SameFailure(const Signature& a, const Signature& b) {
  return a.checker == b.checker && a.violation == b.violation;
}

std::string DescribeFault(const FaultSpec& fault) {
  std::string text =
      fmt::format("{} at {} (hit {})", sim::FaultActionName(fault.action), fault.site, fault.hit);
  if (fault.action == sim::FaultAction::kError) text += ", error " + fault.error;
  if (fault.action == sim::FaultAction::kDelay) {
    text += ", for " + sim::FormatDuration(fault.delay);
  }
  return text;
}

std::size_t FaultEventCount(const Scenario& scenario) {
  const auto steps = std::count_if(scenario.steps.begin(), scenario.steps.end(),
                                   [](const Step& step) { return StepKindOf(step).fault; });
  return scenario.faults.size() + (scenario.crash_site.empty() ? 0 : 1) +
         static_cast<std::size_t>(steps);
}

std::vector<FaultEvent> FaultEventsOf(const Scenario& scenario) {
  std::vector<FaultEvent> events;
  if (!scenario.crash_site.empty()) {
    events.push_back(
        {"crash@" + scenario.crash_site,
         fmt::format("crash at {} (hit {})", scenario.crash_site, scenario.crash_hit)});
  }
  for (const FaultSpec& fault : scenario.faults) {
    events.push_back({fmt::format("{}@{}", sim::FaultActionName(fault.action), fault.site),
                      DescribeFault(fault)});
  }
  for (std::size_t i = 0; i < scenario.steps.size(); ++i) {
    const StepKind& kind = StepKindOf(scenario.steps[i]);
    if (kind.fault) {
      events.push_back({std::string(kind.name),
                        fmt::format("{} at step {}", kind.show(scenario.steps[i]), i + 1)});
    }
  }
  FL_ASSERT(events.size() == FaultEventCount(scenario));
  return events;
}

std::multiset<std::string> FaultEventNames(const Scenario& scenario) {
  std::multiset<std::string> names;
  for (FaultEvent& event : FaultEventsOf(scenario)) names.insert(std::move(event.name));
  return names;
}

std::vector<std::string> Distinct(const std::multiset<std::string>& events) {
  const std::set<std::string> distinct(events.begin(), events.end());
  return {distinct.begin(), distinct.end()};
}

std::vector<std::string> SignatureFaults(const Scenario& scenario) {
  return Distinct(FaultEventNames(scenario));
}

std::multiset<std::string> DrawnFaultEvents(const Scenario& run, const Scenario& workload) {
  std::multiset<std::string> drawn = FaultEventNames(run);
  for (const std::string& own : FaultEventNames(workload)) {
    // (A shrunk run may have lost one of the workload's own events.)
    if (const auto found = drawn.find(own); found != drawn.end()) drawn.erase(found);
  }
  return drawn;
}

std::vector<std::string> FaultKinds(const std::vector<std::string>& events) {
  std::set<std::string> kinds;
  for (const std::string& event : events) kinds.insert(event.substr(0, event.find('@')));
  return {kinds.begin(), kinds.end()};
}

std::string Signature::Key() const {
  return fmt::format("{} | {} | {}", checker, violation, fmt::join(faults, ", "));
}

std::string FirstViolation(const ScenarioResult& result, bool expectations) {
  const std::optional<Failing> failing = FirstFailing(result, expectations);
  if (!failing) return {};
  const std::string_view first = FirstOf(failing->report);
  constexpr std::size_t kLine = 100;
  return first.size() > kLine ? std::string(sim::CutAtCharacter(first, kLine - 3)) + "..."
                              : std::string(first);
}

std::optional<Signature> SignatureOf(const Scenario& scenario, const ScenarioResult& result,
                                     bool expectations) {
  const std::optional<Failing> failing = FirstFailing(result, expectations);
  if (!failing) return std::nullopt;
  return Signature{failing->checker, ViolationKind(failing->report), SignatureFaults(scenario)};
}

}  // namespace faultline::scenarios
