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

bool WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

// The repro replayed once more, recorded: trace.jsonl, perfetto.json and
// timeline.txt beside it. False when a file cannot be written.
bool WriteReplay(const fs::path& dir, const scenarios::Scenario& repro) {
  std::ofstream trace(dir / "trace.jsonl", std::ios::binary);
  std::ofstream timeline(dir / "timeline.txt", std::ios::binary);
  std::ofstream perfetto_file(dir / "perfetto.json", std::ios::binary);
  if (!trace || !timeline || !perfetto_file) return false;
  sim::JsonLinesSink json_sink(trace);
  sim::TextSink text_sink(timeline);
  scenarios::PerfettoSink perfetto;
  (void)scenarios::RunScenario(repro,
                               {.seed = repro.seed, .sinks = {&json_sink, &text_sink, &perfetto}});
  perfetto_file << perfetto.Json();
  return trace.flush() && timeline.flush() && perfetto_file.flush();
}

std::string ShrinkLog(const scenarios::Shrunk& shrunk) {
  std::string log;
  for (const scenarios::ShrinkStep& step : shrunk.log) {
    log += fmt::format("{} {}\n", step.kept ? "kept   " : "dropped", step.tried);
  }
  return log;
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
        "\"first_seed\":{},\"fault_events\":{},\"repro_fault_events\":{},"
        "\"repro\":\"group-{}/repro.toml\"}}",
        i == 0 ? "" : ",", Escaped(group.signature.checker), Escaped(group.signature.violation),
        faults, group.count, group.first_seed, scenarios::FaultEventCount(group.first),
        scenarios::FaultEventCount(group.repro.scenario), i + 1);
  }
  const double seconds = wall_ms / 1000.0;
  return fmt::format(
      "{{\"scenario\":\"{}\",\"runs\":{},\"first_seed\":{},\"wall_time_ms\":{:.1f},"
      "\"runs_per_second\":{:.1f},\"groups\":[{}]}}\n",
      Escaped(name), shard.runs_done, shard.seed, wall_ms,
      seconds > 0 ? shard.runs_done / seconds : 0.0, list);
}

}  // namespace

int FinishExploration(const scenarios::Scenario& workload, ShardFile shard, const fs::path& out,
                      bool json, double wall_ms_so_far,
                      std::chrono::steady_clock::time_point started) {
  const std::vector<scenarios::FailureGroup> groups =
      scenarios::ShrinkGroups(workload, shard.groups, shard.bounds, shard.expectations);
  std::error_code error;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const fs::path dir = out / fmt::format("group-{}", i + 1);
    fs::create_directories(dir, error);
    if (error || !WriteFile(dir / "repro.toml", scenarios::ToToml(groups[i].repro.scenario)) ||
        !WriteFile(dir / "shrink.log", ShrinkLog(groups[i].repro)) ||
        !WriteReplay(dir, groups[i].repro.scenario)) {
      return CannotWrite("--out", dir.string());
    }
  }
  const double wall_ms =
      wall_ms_so_far +
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  const std::string summary = SummaryJson(workload.name, shard, groups, wall_ms);
  if (!WriteFile(out / "summary.json", summary) ||
      !WriteFile(out / "groups.tsv", scenarios::ShardText(shard))) {
    return CannotWrite("--out", out.string());
  }
  if (json) {
    std::cout << summary;
  } else {
    std::cout << fmt::format(
        "{}: {} runs, {} group(s) of failures ({:.0f} runs/s); results in {}\n", workload.name,
        shard.runs_done, groups.size(), wall_ms > 0 ? shard.runs_done * 1000.0 / wall_ms : 0.0,
        out.string());
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const scenarios::FailureGroup& group = groups[i];
      std::cout << fmt::format(
          "  group {}: {} run(s), first seed {}; {} -> {} fault event(s): {}\n", i + 1, group.count,
          group.first_seed, scenarios::FaultEventCount(group.first),
          scenarios::FaultEventCount(group.repro.scenario), group.signature.Key());
      std::cout << fmt::format("    faultline run {}\n",
                               (out / fmt::format("group-{}", i + 1) / "repro.toml").string());
    }
  }
  return groups.empty() ? kExitOk : kExitFailureFound;
}

std::optional<fs::path> ResultsDirectory(const std::string& flag, const std::string& stem) {
  std::error_code error;
  fs::path out;
  if (!flag.empty()) {
    out = fs::path(flag);
    // Results are never mixed with, or written over, an earlier run's.
    if (fs::exists(out / "summary.json", error) || fs::exists(out / "groups.tsv", error)) {
      BadInput(fmt::format("--out: '{}' already holds results; remove it or name another",
                           out.string()));
      return std::nullopt;
    }
  } else {
    // A new folder: the name made safe for a path, then -2, -3 ... if taken.
    std::string safe = stem;
    for (char& c : safe) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
    }
    const fs::path base = fs::path("faultline-results") / safe;
    out = base;
    constexpr int kMaxTries = 10'000;
    for (int n = 2; fs::exists(out, error) && n < kMaxTries; ++n) {
      out = base.string() + "-" + std::to_string(n);
    }
  }
  fs::create_directories(out, error);
  if (error) {
    BadInput(fmt::format("--out: cannot create '{}': {}", out.string(), error.message()));
    return std::nullopt;
  }
  return out;
}

}  // namespace faultline::app
