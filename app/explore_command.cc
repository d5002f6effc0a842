// `faultline explore` and `faultline merge`: exploration from the command
// line (scenarios/explore/explore.h), its results directory, shards, and worker
// processes. Each worker is a process of its own (fork), so no two
// simulations share SQLite's process-wide random generator; the parent
// merges their groups and shrinks each group's first failure, drawn again
// from its seed, so the results are the same whatever --jobs is.
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <variant>

#include <fmt/format.h>

#include "app/command_util.h"
#include "app/commands.h"
#include "app/worker_processes.h"
#include "scenarios/explore/explore.h"
#include "scenarios/explore/shard_file.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/harness/runner.h"
#include "scenarios/report/perfetto.h"
#include "sim/trace.h"

namespace faultline::app {
namespace {

namespace fs = std::filesystem;
using scenarios::DrawnGroup;

constexpr int kMaxJobs = 64;
using scenarios::kMaxRuns;
using scenarios::ShardFile;

struct ExploreFlags {
  std::string scenario;
  int runs = 100;
  std::uint64_t seed = 1;
  std::string out;
  bool json = false;
  bool expectations = false;  // The scenario's own expectations count too.
  scenarios::Shard shard;
  int jobs = 1;
  std::optional<std::chrono::seconds> time;
  scenarios::ExploreBounds bounds;
  scenarios::InputLimits limits;
};

// "90s", "10m", "2h".
std::optional<std::chrono::seconds> ParseWallTime(const std::string& text) {
  if (text.size() < 2) return std::nullopt;
  const std::optional<std::uint64_t> number = ParseSeed(text.substr(0, text.size() - 1));
  if (!number || *number == 0 || *number > 7 * 24 * 3600) return std::nullopt;
  const char unit = text.back();
  if (unit == 's') return std::chrono::seconds(*number);
  if (unit == 'm') return std::chrono::minutes(*number);
  if (unit == 'h') return std::chrono::hours(*number);
  return std::nullopt;
}

// explore's flags on `command`, into `flags`.
void DeclareExploreFlags(CLI::App& command, ExploreFlags& flags) {
  command.add_option("scenario", flags.scenario, "a catalogue name or a scenario file")
      ->required()
      ->type_name(kScenarioValue);
  AddNumber(command, "--runs", flags.runs, 0, kMaxRuns, "how many runs (default 100)");
  AddNumber(command, "--seed", flags.seed, 0, UINT64_MAX,
            "the first run's seed (default 1; run r uses seed N + r)");
  command
      .add_option("--out", flags.out,
                  "where to write the results (default: "
                  "faultline-results/explore-<name>-...)")
      ->type_name(kDirValue)
      ->check(FolderToWrite());
  command.add_flag("--json", flags.json, "print summary.json instead of the text report");
  command
      .add_option_function<std::string>(
          "--shard",
          [&flags](const std::string& text) {
            const std::optional<scenarios::Shard> shard = scenarios::ParseShard(text);
            if (!shard) {
              throw CLI::ValidationError("--shard is I/N with 0 <= I < N (e.g. 0/4), not '" + text +
                                         "'");
            }
            flags.shard = *shard;
          },
          "play only every N-th run from run I; fold the shards' directories with "
          "`faultline merge DIR...`")
      ->type_name("I/N");
  AddNumber(command, "--jobs", flags.jobs, 1, kMaxJobs,
            "play the runs in N worker processes (the results are the same)");
  command
      .add_option_function<std::string>(
          "--time",
          [&flags](const std::string& text) {
            flags.time = ParseWallTime(text);
            if (!flags.time) {
              throw CLI::ValidationError(
                  "--time is a wall-clock duration such as 90s, 10m or 2h, not '" + text + "'");
            }
          },
          "stop starting runs after D of wall time (90s, 10m, 2h); alone, as many runs as fit")
      ->type_name("D");
  command.add_flag("--expectations", flags.expectations,
                   "a failed expectation of the scenario's steps is a failure too (by default "
                   "only the whole-run checkers are the oracle)");
  constexpr std::uint64_t kMaxBound = 100;
  AddNumber(command, "--max-events", flags.bounds.max_events, 1, kMaxBound,
            "the schedule's events at most (default 3, after studies of real cluster failures)");
  AddNumber(command, "--max-crashes", flags.bounds.max_crashes, 0, kMaxBound,
            "its crashes at most (default 3)");
  AddNumber(command, "--max-power-losses", flags.bounds.max_power_losses, 0, kMaxBound,
            "its power losses at most (default 1)");
  AddLimits(command, flags.limits);
}

// --- Running: here, or in worker processes ---------------------------------

// Runs the exploration's share of `shard` in `jobs` worker processes, each
// taking every jobs-th of those runs; their groups merged. False when a
// worker failed (said on standard error).
bool RunInWorkers(const scenarios::Scenario& workload, const scenarios::ExploreOptions& options,
                  int jobs, std::vector<DrawnGroup>& merged, int& runs_done) {
  FL_ASSERT(jobs >= 2);
  const auto work = [&](int job) {
    scenarios::ExploreOptions mine = options;
    // Worker 0 speaks for all: its share of the runs, scaled, is the
    // estimate a person watching needs (its groups are a lower bound).
    mine.on_progress = nullptr;
    if (job == 0 && options.on_progress) {
      mine.on_progress = [&options, jobs](int done, int groups) {
        options.on_progress(done * jobs, groups);
      };
    }
    mine.on_new_group = nullptr;
    // Shard I/N split J ways: I + j*N of N*J.
    mine.shard = {options.shard.index + static_cast<std::uint64_t>(job) * options.shard.count,
                  options.shard.count * static_cast<std::uint64_t>(jobs)};
    int done = 0;
    const std::vector<DrawnGroup> groups = scenarios::ExploreRuns(workload, mine, &done);
    std::string text = fmt::format("runs_done\t{}\n", done);
    for (const DrawnGroup& group : groups) text += scenarios::GroupLine(group);
    return text;
  };
  const std::optional<std::vector<std::string>> answers =
      RunInWorkerProcesses(jobs, work, "explore");
  if (!answers) return false;
  std::vector<std::vector<DrawnGroup>> parts;
  runs_done = 0;
  for (const std::string& text : *answers) {
    std::vector<DrawnGroup> part;
    std::stringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with("runs_done\t")) {
        runs_done += static_cast<int>(ParseSeed(line.substr(10)).value_or(0));
      } else if (std::optional<DrawnGroup> group = scenarios::ParseGroupLine(line)) {
        part.push_back(std::move(*group));
      }
    }
    parts.push_back(std::move(part));
  }
  merged = scenarios::MergeDrawnGroups(parts);
  return true;
}

// --- Writing the results directory -----------------------------------------

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

// Shrinks the groups and writes every file of the results directory `out`;
// prints the report (or the summary with `json`). The exit status.
int Finish(const scenarios::Scenario& workload, ShardFile shard, const fs::path& out, bool json,
           double wall_ms_so_far, std::chrono::steady_clock::time_point started) {
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

// The results directory, created: --out, or a new one under
// faultline-results/. Empty after saying why it could not be.
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

// How a scenario given on the command line is written in groups.tsv: a
// file as an absolute path (merge may run elsewhere), a name as it is.
std::string ScenarioReference(const std::string& given, bool from_file) {
  if (!from_file) return given;
  std::error_code error;
  const fs::path absolute = fs::absolute(given, error);
  return error ? given : absolute.string();
}

int RunExploreCommand(const ExploreFlags& flags) {
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* workload = NamedOrFile(flags.scenario, from_file, flags.limits);
  if (workload == nullptr) return kExitBadInput;
  const std::optional<fs::path> out =
      ResultsDirectory(flags.out, fmt::format("explore-{}-{}-shard-{}-of-{}", workload->name,
                                              flags.seed, flags.shard.index, flags.shard.count));
  if (!out) return kExitBadInput;
  const auto started = std::chrono::steady_clock::now();
  scenarios::ExploreOptions options{.seed = flags.seed,
                                    .runs = flags.runs,
                                    .shard = flags.shard,
                                    .bounds = flags.bounds,
                                    .expectations = flags.expectations};
  if (flags.time) options.wall_time_limit = *flags.time;
  const bool terminal = !flags.json;
  options.on_new_group = [&](const scenarios::Signature& signature, std::uint64_t seed) {
    if (terminal) std::cerr << fmt::format("new group (seed {}): {}\n", seed, signature.Key());
  };
  // This shard's runs: every count-th of --runs.
  const std::uint64_t mine =
      (static_cast<std::uint64_t>(flags.runs) + flags.shard.count - 1 - flags.shard.index) /
      flags.shard.count;
  options.on_progress = [&](int done, int groups) {
    if (!terminal || done % 500 != 0) return;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double rate = seconds > 0 ? done / seconds : 0.0;
    const double left = rate > 0 ? (static_cast<double>(mine) - done) / rate : 0.0;
    std::cerr << fmt::format("{} of {} runs, {:.0f} runs/s, {} group(s), about {:.0f}s left\n",
                             done, mine, rate, groups, left);
  };
  ShardFile shard;
  shard.scenario = ScenarioReference(flags.scenario, from_file.has_value());
  shard.seed = flags.seed;
  shard.runs = flags.runs;
  shard.shard = flags.shard;
  shard.expectations = flags.expectations;
  shard.bounds = flags.bounds;
  if (flags.jobs > 1) {
    if (!RunInWorkers(*workload, options, flags.jobs, shard.groups, shard.runs_done)) {
      return kExitBadInput;
    }
  } else {
    shard.groups = scenarios::ExploreRuns(*workload, options, &shard.runs_done);
  }
  return Finish(*workload, std::move(shard), *out, flags.json, 0, started);
}

int RunMergeCommand(const std::vector<std::string>& directories, const std::string& out_flag,
                    bool json, const scenarios::InputLimits& limits) {
  std::vector<ShardFile> shards;
  for (const std::string& directory : directories) {
    std::variant<ShardFile, std::string> read =
        scenarios::ReadShardFile(fs::path(directory) / "groups.tsv", limits);
    if (const auto* error = std::get_if<std::string>(&read)) return BadInput(*error);
    shards.push_back(std::move(std::get<ShardFile>(read)));
    const ShardFile& first = shards.front();
    const ShardFile& last = shards.back();
    const auto bounds = [](const scenarios::ExploreBounds& b) {
      return std::tuple(b.max_events, b.max_crashes, b.max_power_losses);
    };
    if (last.scenario != first.scenario || last.seed != first.seed || last.runs != first.runs ||
        last.expectations != first.expectations || bounds(last.bounds) != bounds(first.bounds)) {
      return BadInput(fmt::format("{} is of another exploration ({} from seed {}, {} runs) than {}",
                                  directory, last.scenario, last.seed, last.runs, directories[0]));
    }
  }
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* workload = NamedOrFile(shards.front().scenario, from_file, limits);
  if (workload == nullptr) return kExitBadInput;
  const std::optional<fs::path> out = ResultsDirectory(
      out_flag, fmt::format("explore-{}-{}-merged", workload->name, shards.front().seed));
  if (!out) return kExitBadInput;
  // The merge is one exploration again: all of its runs, no shard.
  ShardFile merged = shards.front();
  merged.runs_done = 0;
  merged.shard = {};
  merged.groups.clear();
  std::set<std::uint64_t> indexes;
  std::vector<std::vector<DrawnGroup>> parts;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    ShardFile& shard = shards[i];
    if (shard.shard.count != shards.front().shard.count) {
      return BadInput(fmt::format("{} is a shard of {}, {} of {}", directories[i],
                                  shard.shard.count, directories[0], shards.front().shard.count));
    }
    if (!indexes.insert(shard.shard.index).second) {
      return BadInput(fmt::format("{}: shard {}/{} is given twice", directories[i],
                                  shard.shard.index, shard.shard.count));
    }
    std::int64_t failed = 0;
    for (const DrawnGroup& group : shard.groups) {
      const bool in_range = group.first_seed >= shard.seed &&
                            group.first_seed - shard.seed < static_cast<std::uint64_t>(shard.runs);
      if (!in_range || !scenarios::InShard(group.first_seed - shard.seed, shard.shard)) {
        return BadInput(fmt::format("{}: seed {} is not one of this shard's runs", directories[i],
                                    group.first_seed));
      }
      failed += group.count;
    }
    if (shard.runs_done > shard.runs || failed > shard.runs_done) {
      return BadInput(
          fmt::format("{}: more runs or failures than the exploration had", directories[i]));
    }
    merged.runs_done += shard.runs_done;
    parts.push_back(std::move(shard.groups));
  }
  merged.groups = scenarios::MergeDrawnGroups(parts);
  return Finish(*workload, std::move(merged), *out, json, 0, std::chrono::steady_clock::now());
}

}  // namespace

CommandRun DefineExplore(CLI::App& command) {
  auto flags = std::make_shared<ExploreFlags>();
  DeclareExploreFlags(command, *flags);
  return [flags, &command] {
    // --time alone: as many runs as fit in it.
    if (flags->time && command.count("--runs") == 0) flags->runs = static_cast<int>(kMaxRuns);
    return RunExploreCommand(*flags);
  };
}

CommandRun DefineMerge(CLI::App& command) {
  struct MergeFlags {
    std::vector<std::string> directories;
    std::string out;
    bool json = false;
    scenarios::InputLimits limits;
  };
  auto flags = std::make_shared<MergeFlags>();
  command.add_option("directories", flags->directories, "the shards' results directories")
      ->required()
      ->type_name(kDirValue);
  command.add_option("--out", flags->out, "where to write the merged results")
      ->type_name(kDirValue)
      ->check(FolderToWrite());
  command.add_flag("--json", flags->json, "print summary.json instead of the text report");
  AddLimits(command, flags->limits);
  return [flags] {
    return RunMergeCommand(flags->directories, flags->out, flags->json, flags->limits);
  };
}

}  // namespace faultline::app
