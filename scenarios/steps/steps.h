// Step kinds as one table. Each kind is one entry: its name in a file
// (`do = "..."`), the fields it takes and which it needs, how it is shown,
// and how it is performed. The file reader, the file writer and the runner
// all work from the table, so a new kind of step is one entry and its
// Perform function in steps.cc, and nothing else.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/core/scenario.h"
#include "sim/clock.h"

namespace faultline::scenarios {

struct World;

// A field of Step as a file spells it; a kind takes some of them.
enum class StepField : unsigned char {
  kService,       // service = "kuri-1"  -> Step::service
  kVersion,       // version = "v2"      -> Step::version (an image version of the service)
  kMethod,        // method = "PUT"      -> Step::method
  kPath,          // path = "/b/k"       -> Step::path
  kQuery,         // query = "uploads"   -> Step::query
  kBody,          // body = "bytes"      -> Step::body
  kParts,         // parts = ["a", "b"]  -> Step::parts
  kStatement,     // statement = "..."   -> Step::statement
  kKeyspace,      // keyspace = "..."    -> Step::keyspace
  kTo,            // to = 1754293669     -> Step::number
  kUntil,         // until = "running"   -> Step::state
  kFor,           // for = "15s"         -> Step::duration
  kPeer,          // peer = "yugabyte"   -> Step::peer (a service)
  kOneWay,        // one_way = true      -> Step::one_way
  kDistribution,  // distribution = "uniform" -> Step::distribution
  kBase,          // base = "2ms"       -> Step::duration (kLatency)
  kExtra,         // extra = "1ms"      -> Step::extra
  kProbability,   // probability = 0.1  -> Step::probability
  kSurvives,      // survives = "torn-blocks" -> Step::survivors
  kVolume,        // volume = "yugabyte-data" -> Step::volume
  kOn,            // on = ["write", "sync"] -> Step::io
  kPersistent,    // persistent = true  -> Step::persistent
  kCommand,       // command = "goto 3" -> Step::command (kMigrate)
};
// The key a file uses for `field`.
std::string_view StepFieldKey(StepField field);

struct StepFieldUse {
  StepField field;
  bool required;
};

struct StepKind {
  Step::Kind kind;
  std::string_view name;  // As `do = ...` says it.
  // Step::number for kinds whose name says it ("down -v": 1); -1: a field
  // (kTo) or unused.
  std::int64_t number;
  std::vector<StepFieldUse> fields;  // In the order a file lists them.
  sim::Duration default_duration;    // For an optional kFor.
  // The action in words: "docker compose up", "PUT /b/k".
  std::string (*show)(const Step& step);
  // Does the step on the world; returns its outcome in words, and sets
  // `status` to the S3 status when there is one.
  std::string (*perform)(World& world, const Step& step, int& status);
};

// Every kind, in the order `faultline` lists them.
const std::vector<StepKind>& StepKinds();
// The kind a file names, or nullptr.
const StepKind* FindStepKind(std::string_view name);
// The kind of `step` ("down" with number 1 is "down -v").
const StepKind& StepKindOf(const Step& step);

}  // namespace faultline::scenarios
