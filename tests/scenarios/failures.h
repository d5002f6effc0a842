// What did not hold in a scenario run, one line each: for test messages.
#pragma once

#include <string>

#include "scenarios/harness/runner.h"

namespace faultline::scenarios {

inline std::string Failures(const ScenarioResult& result) {
  std::string failures;
  for (const StepResult& step : result.steps) {
    for (const CheckResult& check : step.checks) {
      if (!check.held)
        failures += step.action + ": " + check.what + " (got " + check.actual + ")\n";
    }
  }
  for (const CheckResult& check : result.checkers) {
    if (!check.held) failures += check.what + ": " + check.actual + "\n";
  }
  return failures;
}

}  // namespace faultline::scenarios
