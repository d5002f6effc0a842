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
};

// What a field's reader asks of its input: the file reader's TOML table of
// one step (file/reader.cc). Each Fail names the place: the key's value, or
// the step when the key is absent, after the step's own place ("step 2: ").
class FieldSource {
 public:
  virtual ~FieldSource() = default;
  virtual bool Has(std::string_view key) const = 0;
  // The value, which must be a string; missing: an error.
  virtual std::string Text(std::string_view key) const = 0;
  // nullopt when absent; an error when not an integer.
  virtual std::optional<std::int64_t> Integer(std::string_view key) const = 0;
  // nullopt when absent or not a finite number (an integer is one).
  virtual std::optional<double> Number(std::string_view key) const = 0;
  // The value, which must be true or false.
  virtual bool Flag(std::string_view key) const = 0;
  // The list's items, each a string (else `item_error` at the item);
  // nullopt when absent or not a list.
  virtual std::optional<std::vector<std::string>> Texts(std::string_view key,
                                                        std::string_view item_error) const = 0;
  // A service of this cluster, named under `key`.
  virtual std::string Service(std::string_view key) const = 0;
  // The image `service` runs in this cluster; empty when there is none.
  virtual std::string ImageOf(std::string_view service) const = 0;
  // `version` must be a version of `service`'s image: a built-in one, or
  // an [[image]] of the scenario.
  virtual void CheckVersion(std::string_view key, const std::string& service,
                            const std::string& version) const = 0;
  [[noreturn]] virtual void Fail(std::string_view key, std::string_view what) const = 0;
  [[noreturn]] virtual void FailItem(std::string_view key, std::size_t index,
                                     std::string_view what) const = 0;
};

// What a field's writer gives its output (the file writer's TOML).
class FieldSink {
 public:
  virtual ~FieldSink() = default;
  virtual void Text(std::string_view key, std::string_view value) = 0;
  virtual void Integer(std::string_view key, std::int64_t value) = 0;
  virtual void Number(std::string_view key, double value) = 0;
  virtual void Flag(std::string_view key, bool value) = 0;
  virtual void Texts(std::string_view key, const std::vector<std::string>& values) = 0;
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
