// The results file of an exploration's shard (groups.tsv): what it explored
// and the failure groups it found, so that `faultline merge` can fold the
// shards into one exploration. Also the group lines worker processes send
// back over their pipes. A file is read whole or refused with its place.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "scenarios/core/limits.h"
#include "scenarios/explore/explore.h"

namespace faultline::scenarios {

inline constexpr std::uint64_t kMaxRuns = 100'000'000;  // explore --runs at most.

struct ShardFile {
  std::string scenario;  // As explore was given it (a path made absolute).
  std::uint64_t seed = 1;
  int runs = 0;       // Runs asked for in the whole exploration.
  int runs_done = 0;  // Runs this shard played.
  Shard shard;        // Which runs: every count-th batch from index.
  // Runs that share a world (explore.h); a file without it is of an
  // exploration from before batches: each run its own world.
  int batch = 1;
  bool expectations = false;  // --expectations: the scenario's own count too.
  ExploreBounds bounds;       // Every shard must draw with the same.
  // Which faultline played it (its build id) and which version of the
  // scenario (a digest of it): shards, and a resumed exploration's parts,
  // are one exploration only when both are the same. Empty in a file
  // from before they were recorded.
  std::string build;
  std::string scenario_digest;
  std::vector<DrawnGroup> groups;
};

// "3/8": shard 3 of 8 (from 0), with 0 <= 3 < 8 <= kMaxRuns.
std::optional<Shard> ParseShard(std::string_view text);

// One group as a tab-separated line ending in '\n', and back.
std::string GroupLine(const DrawnGroup& group);
std::optional<DrawnGroup> ParseGroupLine(std::string_view line);

std::string ShardText(const ShardFile& file);
// The file `source` holds `text`; what is wrong says "source:line: ...".
std::variant<ShardFile, std::string> ParseShardText(std::string_view text,
                                                    const std::string& source);
// The file at `path`, at most limits.results_file_bytes.
std::variant<ShardFile, std::string> ReadShardFile(const std::filesystem::path& path,
                                                   const InputLimits& limits);

}  // namespace faultline::scenarios
