// A step's expectations (Expectation in core/scenario.h) as one table: each
// form a file writes (`{ status = 200 }`, `{ log = "kuri-1", contains =
// "..." }`) is one entry with the keys it takes, how it is read and
// written, and how it is judged against the step's outcome and the world
// as it is after the step. Judging observes: it reads the runtime, the logs
// and the store's volume, and never acts. A new expectation is one entry in
// expectations.cc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scenarios/core/results.h"
#include "scenarios/core/scenario.h"
#include "scenarios/core/table_io.h"

namespace faultline::scenarios {

struct World;

struct ExpectationForm {
  // The key that says what it checks: the first of the table's keys a form
  // has, in the table's order, picks the form.
  std::string_view key;
  std::vector<Expectation::Kind> kinds;  // What it reads: one kind, or log's two.
  std::vector<std::string_view> keys;    // Every key it takes, `key` first.
  // Reads the form's keys (its place "step 2: a 'log' expectation: ").
  void (*read)(const FieldSource& in, Expectation& expectation);
  void (*write)(const Expectation& expectation, FieldSink& out);
  // Whether it holds after a step that did `outcome`, and what was there
  // instead.
  CheckResult (*judge)(World& world, const Expectation& expectation, const StepOutcome& outcome);
};

// Every form, in the order a table's keys are matched against them.
const std::vector<ExpectationForm>& ExpectationForms();
// The form a table with these keys is (nullptr when none has one of them).
const ExpectationForm* FindExpectationForm(const std::vector<std::string_view>& keys);
// The form `expectation` is written in.
const ExpectationForm& FormOf(const Expectation& expectation);

// Whether `expectation` holds for a step that did `outcome`.
CheckResult CheckExpectation(World& world, const Expectation& expectation,
                             const StepOutcome& outcome);

}  // namespace faultline::scenarios
