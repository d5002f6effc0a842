// An exploration's results directory, shared by `explore` and `merge`
// (internal to app/): how it is finished (each group
// shrunk, its repro, shrink log, trace, Perfetto file and timeline written,
// then summary.json and groups.tsv), with the report printed.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "app/cli.h"
#include "app/explore_progress.h"
#include "app/output_files.h"
#include "scenarios/core/scenario.h"
#include "scenarios/explore/shard_file.h"

namespace faultline::app {

// Shrinks the groups of `shard` and writes every file of the results
// folder `out` (each group's folder whole, then groups.tsv, then
// summary.json, which marks the results complete); prints the report (or
// the summary with `json`): each failure, then under it at most `top` of
// its groups, the most runs first. The exit status: 0 nothing failed, 1 a group
// was found, 2 a file could not be written (and then what this command
// wrote in `out` is removed).
// How many groups the report shows under each failure by default (--top).
inline constexpr int kDefaultTop = 5;
inline constexpr int kMaxTop = 100'000;

// --top N, on `command` (explore's and merge's).
void AddTop(CLI::App& command, int& top);

// The scenario's digest as results record it (ShardFile::scenario_digest):
// of its canonical text, so comments and layout do not count.
std::string ScenarioDigest(const scenarios::Scenario& scenario);
// Why results recorded in `shard` cannot be finished by this build on
// `workload` (another build found them, or the scenario changed since),
// or empty when they can. Results from before builds were recorded pass.
std::string NotThisExploration(const scenarios::ShardFile& shard,
                               const scenarios::Scenario& workload);

// With `should_stop` (an interrupt, app/interrupt.h), asked before each
// group is shrunk: once it says so, the groups left are written unshrunk,
// and the results say the exploration was interrupted.
// `played`: when the runs began, and how many of shard.runs_done were
// played by this command (not a merge's, nor a resumed one's before).
struct RunsPlayed {
  std::chrono::steady_clock::time_point started;
  int here = 0;
};
int FinishExploration(const scenarios::Scenario& workload, scenarios::ShardFile shard,
                      ResultsFolder& out, bool json, int top, const RunsPlayed& played,
                      const std::function<bool()>& should_stop = {},
                      ExploreProgress* progress = nullptr, std::string_view command = "explore");

}  // namespace faultline::app
