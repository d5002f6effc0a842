// Step kinds as one table. Each kind is one entry: its name in a file
// (`do = "..."`), the fields it takes and which it needs, how it is shown,
// and how it is performed. The file reader, the file writer and the runner
// all work from the table, so a new kind of step is one entry here and its
// Perform function (steps/perform.h), and nothing else.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/core/results.h"
#include "scenarios/core/scenario.h"
#include "scenarios/steps/fields.h"
#include "sim/clock.h"

namespace faultline::scenarios {

struct World;

struct StepFieldUse {
  StepField field;
  bool required;
};

struct StepKind {
  Step::Kind kind;
  std::string_view name;  // As `do = ...` says it.
  // Step::number for kinds whose name says it ("down -v": 1); -1: a field
  // (kTo); 0: unused.
  std::int64_t number = 0;
  std::vector<StepFieldUse> fields;  // In the order a file lists them.
  sim::Duration default_duration{};  // For an optional kFor.
  // A fault the run suffers (a kill, a partition, a full disk...), not
  // workload: explore draws it (explore/event_kinds.h), shrinking drops it
  // before the workload's steps, a failure's signature names it.
  bool fault = false;
  // The action in words: "docker compose up", "PUT /b/k".
  std::string (*show)(const Step& step) = nullptr;
  // Does the step on the world; returns what it did (steps/perform.h).
  StepOutcome (*perform)(World& world, const Step& step) = nullptr;
};

// Every kind, in the order `faultline` lists them.
const std::vector<StepKind>& StepKinds();
// The kind a file names, or nullptr.
const StepKind* FindStepKind(std::string_view name);
// The kind of `step` ("down" with number 1 is "down -v").
const StepKind& StepKindOf(const Step& step);

}  // namespace faultline::scenarios
