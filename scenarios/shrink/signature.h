// What a failure is, for grouping and shrinking: the failing checker, the
// kind of its first violation, and the faults of the scenario that failed.
// explore groups its runs by it; Shrink keeps a change only while a run's
// failure is still the same.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scenarios/core/results.h"
#include "scenarios/core/scenario.h"

namespace faultline::scenarios {

// What a failure is, for grouping: the failing checker, its first
// violation's kind (names and numbers left out), and the fault kinds and
// sites of the scenario that failed, sorted.
struct Signature {
  std::string checker;
  std::string violation;
  std::vector<std::string> faults;  // "crash@migrate.filecoingw_kuri1.statement.after", "kill"
  std::string Key() const;
  friend bool operator==(const Signature&, const Signature&) = default;
};

// The run's signature, or nullopt when every checker held as the scenario
// expects. With `expectations`, a failed step expectation counts too.
std::optional<Signature> SignatureOf(const Scenario& scenario, const ScenarioResult& result,
                                     bool expectations = false);

// A scenario's fault kinds and sites, as a signature names them, sorted.
std::vector<std::string> SignatureFaults(const Scenario& scenario);
// Its fault events in order (its crash, its [[fault]]s, its fault steps),
// each by its name below and in words ("kill kuri-1 at step 3").
struct FaultEvent {
  std::string name;
  std::string words;
};
std::vector<FaultEvent> FaultEventsOf(const Scenario& scenario);
// Its fault events by those names, each event once: "crash@<site>" for
// its crash and each crashing [[fault]], "<action>@<site>" for the other
// [[fault]]s, the step kind's name for each fault step.
std::multiset<std::string> FaultEventNames(const Scenario& scenario);
// The fault events of an explored `run` that are not its `workload`'s own
// (its steps, [[fault]]s and crash): the run's names with the workload's
// taken out, once each. A workload's own event is never a drawn fault.
std::multiset<std::string> DrawnFaultEvents(const Scenario& run, const Scenario& workload);
// The names of a multiset of events, each once, sorted (Signature::faults).
std::vector<std::string> Distinct(const std::multiset<std::string>& events);
// The kinds of fault events named (a fault site's action, "crash" of
// "crash@migrate.x.statement.after"; a step's kind as it is), distinct and
// sorted: explore's groups are one per failure and kinds.
std::vector<std::string> FaultKinds(const std::vector<std::string>& events);

// How many fault events a scenario has: its [[fault]]s and fault steps.
std::size_t FaultEventCount(const Scenario& scenario);

// The first violation of a run's first failing checker (or, with
// `expectations` and none, its first failed expectation) in its own words,
// names and numbers kept ("kuri-1 is not serving"), at most a line: what
// a signature's violation groups by, concrete. Empty when none failed.
std::string FirstViolation(const ScenarioResult& result, bool expectations = false);

// Whether two signatures are the same failure: the checker and the kind of
// violation (their faults may differ).
bool SameFailure(const Signature& a, const Signature& b);

// A [[fault]] in words: "crash at migrate.x.statement.after (hit 2)".
std::string DescribeFault(const FaultSpec& fault);

}  // namespace faultline::scenarios
