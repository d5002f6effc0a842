#include "scenarios/core/limits.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

// The ceilings are the simulator's own bounds: a fault plan holds 4096
// rules in all (explore's and the steps' among them); the step budget and
// the readers' buffers bound the rest.
constexpr Limit kLimits[] = {
    {"scenario-file-bytes", &InputLimits::scenario_file_bytes, "bytes of a scenario file",
     std::uint64_t{1} << 30},
    {"steps", &InputLimits::steps, "[[step]]s in a scenario file", 1'000'000},
    {"faults", &InputLimits::faults, "[[fault]]s in a scenario file", 3'000},
    {"migration-file-bytes", &InputLimits::migration_file_bytes, "bytes of a migration file",
     std::uint64_t{256} << 20},
    {"migration-files", &InputLimits::migration_files, "migration files in a folder", 1'000'000},
    // SplitStatements cuts at most 100,000 pieces: past that, none are counted.
    {"statements", &InputLimits::statements, "statements in a migration file", 100'000},
    {"sum-file-bytes", &InputLimits::sum_file_bytes, "bytes of a sum file", std::uint64_t{1} << 30},
    {"results-file-bytes", &InputLimits::results_file_bytes, "bytes of an exploration's groups.tsv",
     std::uint64_t{4} << 30},
};

}  // namespace

std::span<const Limit> Limits() { return kLimits; }

const Limit& LimitOf(std::uint64_t InputLimits::*value) {
  for (const Limit& limit : kLimits) {
    if (limit.value == value) return limit;
  }
  FL_PANIC("a limit that is not in the table of limits");
}

std::string OverLimit(const InputLimits& limits, std::uint64_t InputLimits::*value) {
  const Limit& limit = LimitOf(value);
  const std::uint64_t now = limits.*value;
  if (now >= limit.ceiling) {
    return fmt::format("over the limit of {} {} (the most it can be raised to)", now, limit.counts);
  }
  return fmt::format("over the limit of {} {} (raise it with --limit {}={})", now, limit.counts,
                     limit.name, std::min(limit.ceiling, now * 2));
}

std::string SetLimit(InputLimits& limits, std::string_view assignment) {
  const std::size_t equals = assignment.find('=');
  const std::string_view name = assignment.substr(0, equals);
  for (const Limit& limit : kLimits) {
    if (limit.name != name) continue;
    const std::string_view text =
        equals == std::string_view::npos ? std::string_view() : assignment.substr(equals + 1);
    std::uint64_t number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || number == 0 ||
        number > limit.ceiling) {
      return fmt::format("--limit {}: give {}=N with N from 1 to {}, not '{}'", name, name,
                         limit.ceiling, assignment);
    }
    limits.*limit.value = number;
    return {};
  }
  std::string names;
  for (const Limit& limit : kLimits) names += (names.empty() ? "" : ", ") + std::string(limit.name);
  return fmt::format("--limit: no limit '{}' (limits: {})", name, names);
}

models::migrate::FolderLimits FolderLimitsOf(const InputLimits& limits, bool require_text) {
  return {.max_file_bytes = limits.migration_file_bytes,
          .max_entries = limits.migration_files,
          .max_statements = limits.statements,
          .over_file_bytes = OverLimit(limits, &InputLimits::migration_file_bytes),
          .over_entries = OverLimit(limits, &InputLimits::migration_files),
          .over_statements = OverLimit(limits, &InputLimits::statements),
          .require_text = require_text};
}

}  // namespace faultline::scenarios
