// How much a user may feed faultline: one table of limits on its inputs
// (scenario files, migration folders, sum files, explore's results), each
// with the name that `--limit NAME=N` raises it by. A limit is a bound
// against input that would never end or never fit, not a judgement: the
// message that refuses an input says which limit and how to raise it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "models/migrate/folder.h"

namespace faultline::scenarios {

struct InputLimits {
  std::uint64_t scenario_file_bytes = 4 << 20;
  std::uint64_t steps = 10'000;  // [[step]]s in a scenario file.
  std::uint64_t faults = 1'000;  // [[fault]]s in a scenario file.
  std::uint64_t migration_file_bytes = 1 << 20;
  std::uint64_t migration_files = 10'000;  // Migration files in a folder (a README aside).
  std::uint64_t statements = 10'000;       // Statements in one migration file.
  std::uint64_t sum_file_bytes = 16 << 20;
  std::uint64_t results_file_bytes = 64 << 20;  // explore's groups.tsv, read by merge.
};

// One entry of the table.
struct Limit {
  std::string_view name;  // As --limit takes it: "steps".
  std::uint64_t InputLimits::*value;
  std::string_view counts;  // What it counts: "[[step]]s in a scenario file".
  std::uint64_t ceiling;    // The most it may be raised to (the simulator's own bounds).
};

std::span<const Limit> Limits();
const Limit& LimitOf(std::uint64_t InputLimits::*value);

// "over the limit of 10000 [[step]]s in a scenario file (raise it with
// --limit steps=20000)".
std::string OverLimit(const InputLimits& limits, std::uint64_t InputLimits::*value);

// Sets a limit from "NAME=N"; returns what is wrong with it, or empty.
std::string SetLimit(InputLimits& limits, std::string_view assignment);

// The migration folder reader's limits, with messages that say how to raise
// them.
models::migrate::FolderLimits FolderLimitsOf(const InputLimits& limits, bool require_text);

}  // namespace faultline::scenarios
