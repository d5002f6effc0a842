// An exploration's results directory, shared by `explore` and `merge`
// (internal to app/): where it goes, and how it is finished (each group
// shrunk, its repro, shrink log, trace, Perfetto file and timeline written,
// then summary.json and groups.tsv), with the report printed.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "scenarios/core/scenario.h"
#include "scenarios/explore/shard_file.h"

namespace faultline::app {

// The results directory, created: `flag` (--out), or a new one under
// faultline-results/ named after `stem`. Empty after saying why it could
// not be (a folder that holds results already is refused).
std::optional<std::filesystem::path> ResultsDirectory(const std::string& flag,
                                                      const std::string& stem);

// Shrinks the groups of `shard` and writes every file of the results
// directory `out`; prints the report (or the summary with `json`). The
// exit status: 0 nothing failed, 1 a group was found, 2 a file could not
// be written.
int FinishExploration(const scenarios::Scenario& workload, scenarios::ShardFile shard,
                      const std::filesystem::path& out, bool json, double wall_ms_so_far,
                      std::chrono::steady_clock::time_point started);

}  // namespace faultline::app
