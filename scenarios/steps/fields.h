// The fields a step may have, one entry each: the key a file gives it, how
// it is read and checked, how it is written back, whether a step built in
// code has it, and an example. A step kind (steps.h) lists the fields it
// takes; the file reader and writer (file/) and the harness's check of a
// step built in code all work from this table. A new field is a member of
// Step (core/scenario.h), an enumerator below and one entry in fields.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/core/scenario.h"
#include "scenarios/core/table_io.h"

namespace faultline::scenarios {

// A field of Step as a file spells it (the key is in the table).
enum class StepField : unsigned char {
  kService,       // -> Step::service
  kVersion,       // -> Step::version (an image version of the service)
  kMethod,        // -> Step::method
  kPath,          // -> Step::path
  kQuery,         // -> Step::query
  kBody,          // -> Step::body
  kParts,         // -> Step::parts
  kStatement,     // -> Step::statement
  kKeyspace,      // -> Step::keyspace
  kTo,            // -> Step::number (migrate-force)
  kUntil,         // -> Step::state
  kFor,           // -> Step::duration
  kPeer,          // -> Step::peer (a service)
  kOneWay,        // -> Step::one_way
  kDistribution,  // -> Step::distribution
  kBase,          // -> Step::duration (latency)
  kExtra,         // -> Step::extra
  kProbability,   // -> Step::probability
  kSurvives,      // -> Step::survivors
  kVolume,        // -> Step::volume
  kOn,            // -> Step::io
  kPersistent,    // -> Step::persistent
  kCommand,       // -> Step::command (migrate)
  kPageSize,      // -> Step::number (cql: rows per page)
  kPagingState,   // -> Step::paging_state (cql, hex)
};

struct StepFieldSpec {
  StepField field;
  std::string_view key;      // As a file writes it: "service".
  std::string_view example;  // Its value as a file writes it: "\"kuri-1\"".
  // Reads the field into `step` (whose kind is set), checking it. Called
  // when the key is present, or when the kind requires it (then it fails).
  void (*read)(const FieldSource& in, Step& step);
  // Writes what `step` holds, or nothing when that is the field's default.
  void (*write)(const Step& step, FieldSink& out);
  // Whether a step built in code has it: a kind that requires it needs it
  // set (numbers, durations and flags always have a value).
  bool (*has)(const Step& step);
};

// Every field, in the order docs/scenario-format.md lists them.
const std::vector<StepFieldSpec>& StepFields();
// The entry of `field` (every field a kind takes has one).
const StepFieldSpec& FieldSpecOf(StepField field);
// The key a file uses for `field`.
std::string_view StepFieldKey(StepField field);

}  // namespace faultline::scenarios
