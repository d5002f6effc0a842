#include "app/explore_results.h"

#include <cctype>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "app/command_util.h"
#include "scenarios/explore/explore.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/harness/runner.h"
#include "scenarios/report/perfetto.h"
#include "sim/trace.h"

namespace faultline::app {
namespace {

namespace fs = std::filesystem;
using scenarios::ShardFile;

std::string ShrinkLog(const scenarios::Shrunk& shrunk) {
  std::string log;
  for (const scenarios::ShrinkStep& step : shrunk.log) {
    log += fmt::format("{} {}\n", step.kept ? "kept   " : "dropped", step.tried);
  }
  return log;
}

// The repro replayed once more, recorded: trace.jsonl, perfetto.json and
// timeline.txt beside it. False when a file cannot be written.
bool WriteReplay(const fs::path& dir, const scenarios::Scenario& repro) {
  StagedFile trace(dir / "trace.jsonl");
  StagedFile timeline(dir / "timeline.txt");
  if (!trace.good() || !timeline.good()) return false;
  sim::JsonLinesSink json_sink(trace.stream());
  sim::TextSink text_sink(timeline.stream());
  scenarios::PerfettoSink perfetto;
  (void)scenarios::RunScenario(repro,
                               {.seed = repro.seed, .sinks = {&json_sink, &text_sink, &perfetto}});
  return trace.Commit() && timeline.Commit() && WriteWhole(dir / "perfetto.json", perfetto.Json());
}

// Group `number`'s folder, whole: written under a staging name, renamed
// into place once every file is there.
bool WriteGroup(ResultsFolder& out, std::size_t number, const scenarios::FailureGroup& group) {
  const fs::path dir = out.path() / fmt::format("group-{}", number);
  const fs::path staging = dir.string() + ".partial";
  out.Made(staging);
  std::error_code error;
  fs::remove_all(staging, error);
  fs::create_directories(staging, error);
  if (error || !WriteWhole(staging / "repro.toml", scenarios::ToToml(group.repro.scenario)) ||
      !WriteWhole(staging / "shrink.log", ShrinkLog(group.repro)) ||
      !WriteReplay(staging, group.repro.scenario)) {
    return false;
  }
  fs::rename(staging, dir, error);
  if (!error) out.Made(dir);  // Never a folder of someone else's.
  return !error;
}

std::string SummaryJson(const std::string& name, const ShardFile& shard,
                        const std::vector<scenarios::FailureGroup>& groups, double wall_ms) {
  std::string list;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const scenarios::FailureGroup& group = groups[i];
    std::string faults;
    for (const std::string& fault : group.signature.faults) {
      faults += fmt::format("{}\"{}\"", faults.empty() ? "" : ",", Escaped(fault));
    }
    list += fmt::format(
        "{}{{\"checker\":\"{}\",\"violation\":\"{}\",\"faults\":[{}],\"count\":{},"
        "\"first_seed\":{},\"world_seed\":{},\"fault_events\":{},\"repro_fault_events\":{},"
        "\"repro\":\"group-{}/repro.toml\"}}",
        i == 0 ? "" : ",", Escaped(group.signature.checker), Escaped(group.signature.violation),
        faults, group.count, group.first_seed, group.world_seed, group.drawn_events,
        group.repro_drawn_events, i + 1);
  }
  const double seconds = wall_ms / 1000.0;
  return fmt::format(
      "{{\"scenario\":\"{}\",\"runs\":{},\"first_seed\":{},\"batch\":{},\"wall_time_ms\":{:.1f},"
      "\"runs_per_second\":{:.1f},\"groups\":[{}]}}\n",
      Escaped(name), shard.runs_done, shard.seed, shard.batch, wall_ms,
      seconds > 0 ? shard.runs_done / seconds : 0.0, list);
}

}  // namespace

int FinishExploration(const scenarios::Scenario& workload, ShardFile shard, ResultsFolder& out,
                      bool json, double wall_ms_so_far,
                      std::chrono::steady_clock::time_point started) {
  const std::vector<scenarios::FailureGroup> groups =
      scenarios::ShrinkGroups(workload, shard.groups, shard.bounds, shard.expectations);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (!WriteGroup(out, i + 1, groups[i])) {
      const int status =
          CannotWrite("--out", (out.path() / fmt::format("group-{}", i + 1)).string());
      out.Abandon();
      return status;
    }
  }
  const double wall_ms =
      wall_ms_so_far +
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  const std::string summary = SummaryJson(workload.name, shard, groups, wall_ms);
  // summary.json last: its presence says the folder is complete.
  out.Made(out.path() / "groups.tsv");
  out.Made(out.path() / "summary.json");
  if (!WriteWhole(out.path() / "groups.tsv", scenarios::ShardText(shard)) ||
      !WriteWhole(out.path() / "summary.json", summary)) {
    const int status = CannotWrite("--out", out.path().string());
    out.Abandon();
    return status;
  }
  if (json) {
    std::cout << summary;
  } else {
    std::cout << fmt::format(
        "{}: {} runs, {} group(s) of failures ({:.0f} runs/s); results in {}\n", workload.name,
        shard.runs_done, groups.size(), wall_ms > 0 ? shard.runs_done * 1000.0 / wall_ms : 0.0,
        out.path().string());
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const scenarios::FailureGroup& group = groups[i];
      std::cout << fmt::format(
          "  group {}: {} run(s), first seed {}{}; {} -> {} fault event(s): {}\n", i + 1,
          group.count, group.first_seed,
          group.world_seed == group.first_seed
              ? ""
              : fmt::format(" (on the world of seed {})", group.world_seed),
          group.drawn_events, group.repro_drawn_events, group.signature.Key());
      std::cout << fmt::format(
          "    faultline run {}\n",
          (out.path() / fmt::format("group-{}", i + 1) / "repro.toml").string());
    }
  }
  return groups.empty() ? kExitOk : kExitFailureFound;
}

}  // namespace faultline::app
