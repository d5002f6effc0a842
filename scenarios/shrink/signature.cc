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

// The first violation of a checker's report, with what names one instance
// (numbers, paths, service names, times) left out: "kuri-1 is not serving" and
// "kuri-2 is not serving" are one kind.
std::string ViolationKind(std::string_view actual) {
  std::string_view first = actual.substr(0, actual.find(';'));
  if (first.starts_with("at ")) {
    const std::size_t colon = first.find(": ");
    if (colon != std::string_view::npos) first.remove_prefix(colon + 2);
  }
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

std::multiset<std::string> FaultEventNames(const Scenario& scenario) {
  std::multiset<std::string> events;
  if (!scenario.crash_site.empty()) events.insert("crash@" + scenario.crash_site);
  for (const FaultSpec& fault : scenario.faults) {
    events.insert(fmt::format("{}@{}", sim::FaultActionName(fault.action), fault.site));
  }
  for (const Step& step : scenario.steps) {
    if (StepKindOf(step).fault) events.insert(std::string(StepKindOf(step).name));
  }
  FL_ASSERT(events.size() == FaultEventCount(scenario));
  return events;
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

std::string Signature::Key() const {
  return fmt::format("{} | {} | {}", checker, violation, fmt::join(faults, ", "));
}

std::string FirstViolation(const ScenarioResult& result, bool expectations) {
  std::string_view text;
  for (const CheckResult& check : result.checkers) {
    if (check.checker.empty() || !check.expected_to_hold || check.held) continue;
    text = check.actual;
    break;
  }
  if (text.empty() && expectations) {
    for (const StepResult& step : result.steps) {
      for (const CheckResult& check : step.checks) {
        if (!check.held && text.empty()) text = check.what;
      }
    }
  }
  // As ViolationKind reads it: the first violation, without where it was.
  std::string_view first = text.substr(0, text.find(';'));
  if (first.starts_with("at ")) {
    const std::size_t colon = first.find(": ");
    if (colon != std::string_view::npos) first.remove_prefix(colon + 2);
  }
  constexpr std::size_t kLine = 100;
  return first.size() > kLine ? std::string(sim::CutAtCharacter(first, kLine - 3)) + "..."
                              : std::string(first);
}

std::optional<Signature> SignatureOf(const Scenario& scenario, const ScenarioResult& result,
                                     bool expectations) {
  Signature signature;
  for (const CheckResult& check : result.checkers) {
    if (check.checker.empty() || !check.expected_to_hold || check.held) continue;
    signature.checker = check.checker;
    signature.violation = ViolationKind(check.actual);
    break;
  }
  if (signature.checker.empty() && expectations) {
    for (const StepResult& step : result.steps) {
      for (const CheckResult& check : step.checks) {
        if (check.held || !signature.checker.empty()) continue;
        signature.checker = "expectation";
        signature.violation = ViolationKind(check.what);
      }
    }
  }
  if (signature.checker.empty()) return std::nullopt;
  signature.faults = SignatureFaults(scenario);
  return signature;
}

}  // namespace faultline::scenarios
