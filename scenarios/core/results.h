// What a run says: each step's result and each check's verdict, and the
// run's as a whole. The harness makes them, the command line and the
// reports print them, explore and check-migrations judge them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/clock.h"

namespace faultline::scenarios {

struct CheckResult {
  std::string what;  // "status 500", "kuri-1's log contains ..."
  bool held = false;
  std::string actual;  // What was there instead, when it did not hold.
  // A whole-run checker's name ("converges"), and whether the scenario
  // expected it to hold; empty for a step's expectation.
  std::string checker;
  bool expected_to_hold = true;
};

// What a step did, as data: whether it took place, the S3 answer's status,
// what came back, and the outcome in words made from them by the factories
// below (`faultline run` prints it after "->"; `contains` expectations read
// it). Nothing reads the words back for the data.
struct StepOutcome {
  // It took place: an S3 answer of 2xx, a statement or command that
  // succeeded, a compose action accepted (even if its services were not
  // all serving within the step's bound). false: it was refused or failed.
  bool ok = true;
  int status = 0;    // An S3 answer's HTTP status; 0 without one.
  std::string body;  // An S3 answer's body, or what ycqlsh or migrate printed.
  std::string text;  // In words.

  // An action that took place: "killed kuri-1".
  static StepOutcome Did(std::string words);
  // An action that could not: "cannot kill kuri-1: no such container ...".
  static StepOutcome Failed(std::string why);
  // An S3 answer: "<status> <body>"; ok when 2xx.
  static StepOutcome Answer(int status, std::string body);
  // What a shell or the migrate CLI printed, and whether it succeeded.
  static StepOutcome Output(std::string output, bool ok);
};

struct StepResult {
  std::string action;  // "PUT /photos/cat.jpg", "ycqlsh: DESCRIBE ..."
  std::string narration;
  std::string outcome;  // The outcome in words (StepOutcome::text).
  bool ok = true;       // StepOutcome::ok.
  int status = 0;       // StepOutcome::status: an S3 answer's, or 0.
  std::string body;     // StepOutcome::body.
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

// One line: the outcome shortened for tables and logs.
std::string OneLine(const std::string& text, std::size_t max = 100);

}  // namespace faultline::scenarios
