// `faultline explore`: exploration from the command line
// (scenarios/explore/explore.h), its shards and worker processes. Each
// worker is a process of its own (fork), so no two simulations share
// SQLite's process-wide random generator; the parent merges their groups
// and shrinks each group's first failure, drawn again from its seed, so the
// results are the same whatever --jobs is.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/auto_shard.h"
#include "app/build_id.h"
#include "app/command_util.h"
#include "app/commands.h"
#include "app/explore_journal.h"
#include "app/explore_progress.h"
#include "app/explore_results.h"
#include "app/interrupt.h"
#include "app/worker_processes.h"
#include "scenarios/explore/event_kinds.h"
#include "scenarios/explore/explore.h"
#include "scenarios/explore/shard_file.h"

namespace faultline::app {
namespace {

namespace fs = std::filesystem;
using scenarios::DrawnGroup;
using scenarios::kMaxRuns;
using scenarios::ShardFile;

constexpr int kMaxJobs = 64;

struct ExploreFlags {
  std::string scenario;
  int runs = 100;
  std::uint64_t seed = 1;
  std::string out;
  bool json = false;
  bool expectations = false;  // The scenario's own expectations count too.
  scenarios::Shard shard;
  int jobs = 1;
  int batch = scenarios::kDefaultBatch;
  bool replay_from_empty = false;
  bool fork_runs = false;
  int top = kDefaultTop;
  std::optional<std::string> faults;     // --faults KIND,...
  std::optional<std::string> no_faults;  // --no-faults KIND,...
  std::optional<std::chrono::seconds> time;
  std::string resume;  // --resume DIR
  // The options that say what to explore, given beside --resume.
  std::vector<std::string> given_with_resume;
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
      ->type_name(kScenarioValue);
  command
      .add_option("--resume", flags.resume,
                  "continue the exploration a killed or interrupted explore left in DIR (its "
                  "--out): the runs it played are not played again, and the results are those "
                  "of an exploration that never stopped")
      ->type_name(kDirValue);
  AddNumber(command, "--runs", flags.runs, 1, kMaxRuns, "how many runs (default 100)");
  AddNumber(command, "--seed", flags.seed, 0, UINT64_MAX,
            "the first run's seed (default 1; run r draws its faults from seed N + r)");
  AddNumber(command, "--batch", flags.batch, 1, scenarios::kMaxBatch,
            fmt::format("runs that share one world seed (the simulated world's timing: "
                        "latencies, scheduling), their batch's first run's seed; the workload "
                        "is played once per batch and each run forks from it at its first "
                        "fault, where that costs less than playing each from empty (1 to {}, "
                        "default {}; 1: every run on its own seed)",
                        scenarios::kMaxBatch, scenarios::kDefaultBatch));
  command.add_flag("--replay-from-empty", flags.replay_from_empty,
                   "play each run from an empty world on its batch's seed (the same results); "
                   "by default each batch is played the way that has cost less per run on this "
                   "machine, forked or from empty");
  command.add_flag("--fork-runs", flags.fork_runs,
                   "fork each run of a batch where it parts from the batch's workload run (the "
                   "same results), whatever it costs: to measure or to check");
  command
      .add_option("--out", flags.out,
                  "where to write the results (default: "
                  "faultline-results/explore-<name>-...)")
      ->type_name(kDirValue)
      ->check(FolderToWrite());
  command.add_flag("--json", flags.json, "print summary.json instead of the text report");
  AddTop(command, flags.top);
  command
      .add_option_function<std::string>(
          "--shard",
          [&flags](const std::string& text) {
            if (auto automatic = AutoShard(text, ProcessEnvironment())) {
              if (auto* error = std::get_if<std::string>(&*automatic)) {
                throw CLI::ValidationError(*error);
              }
              flags.shard = std::get<scenarios::Shard>(*automatic);
              return;
            }
            const std::optional<scenarios::Shard> shard = scenarios::ParseShard(text);
            if (!shard) {
              throw CLI::ValidationError(
                  "--shard is I/N with 0 <= I < N (e.g. 0/4), or auto/N, "
                  "not '" +
                  text + "'");
            }
            flags.shard = *shard;
          },
          "play only every N-th batch of runs from batch I (a batch is --batch runs, "
          "never split); fold the shards' directories with `faultline merge DIR...`. "
          "auto/N: I from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or "
          "SLURM_ARRAY_TASK_ID (a Slurm job array, less SLURM_ARRAY_TASK_MIN)")
      ->type_name("I/N|auto/N");
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
  command
      .add_option(
          "--faults", flags.faults,
          "draw only these kinds of fault event, comma-separated: " + scenarios::EventKindNames())
      ->type_name("KIND,...");
  command
      .add_option("--no-faults", flags.no_faults,
                  "draw every kind of fault event but these, comma-separated")
      ->type_name("KIND,...");
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
                  int jobs, ExploreProgress& progress, std::vector<DrawnGroup>& merged,
                  int& runs_done) {
  FL_ASSERT(jobs >= 2 && jobs <= ExploreProgress::kMaxWorkers);
  const auto work = [&](int job) {
    scenarios::ExploreOptions mine = options;
    // Each worker's counts to the page it shares with the parent, which
    // prints them summed as it waits.
    mine.on_progress = [&progress, job](int done, int failed) {
      progress.Played(job, done, failed);
    };
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
      RunInWorkerProcesses(jobs, work, "explore", [&progress] { progress.Tick(); });
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

// How a scenario given on the command line is written in groups.tsv: a
// file as an absolute path (merge may run elsewhere), a name as it is.
std::string ScenarioReference(const std::string& given, bool from_file) {
  if (!from_file) return given;
  std::error_code error;
  const fs::path absolute = fs::absolute(given, error);
  return error ? given : absolute.string();
}

// Plays the exploration `shard` describes into `out` and finishes it:
// the runs (here or in workers), each batch journaled as it ends, then
// the groups shrunk and written. `prior`: a resumed exploration's runs
// played before, not played again and counted in.
int PlayExploration(const scenarios::Scenario& workload, ShardFile shard, ResultsFolder& out,
                    const ExploreFlags& flags, const Journal* prior) {
  const auto started = std::chrono::steady_clock::now();
  scenarios::ExploreOptions options{.seed = shard.seed,
                                    .runs = shard.runs,
                                    .batch = shard.batch,
                                    .play = flags.replay_from_empty
                                                ? scenarios::BatchPlay::kFromEmpty
                                            : flags.fork_runs ? scenarios::BatchPlay::kForked
                                                              : scenarios::BatchPlay::kAuto,
                                    .shard = shard.shard,
                                    .bounds = shard.bounds,
                                    .expectations = shard.expectations};
  if (flags.time) options.wall_time_limit = *flags.time;
  if (prior != nullptr) {
    options.played_before = [prior](std::uint64_t first) { return prior->played.contains(first); };
  }
  if (!StartJournal(out.path(), shard)) {
    const int status = CannotWrite("explore", "--out", (out.path() / kJournalFolder).string());
    out.Abandon();
    return status;
  }
  // A new exploration's journal goes with it if it cannot finish writing;
  // a resumed one's stays, for the next --resume.
  if (prior == nullptr) out.Made(out.path() / kJournalFolder);
  auto journal = std::make_shared<JournalWriter>(out.path());
  options.on_batch = [journal](std::uint64_t first, std::size_t runs,
                               const std::vector<DrawnGroup>& failed) {
    journal->Played(first, runs, failed);
  };
  // Progress from every worker (or this process, job 0), in the counts
  // the report ends with: runs played and runs failed.
  int failed_before = 0;
  if (prior != nullptr) {
    for (const DrawnGroup& group : prior->groups) failed_before += static_cast<int>(group.count);
  }
  ExploreProgress progress(
      !flags.json,
      scenarios::RunsInShard(static_cast<std::uint64_t>(shard.runs), shard.shard, shard.batch),
      prior != nullptr ? prior->runs_done : 0, failed_before);
  options.on_progress = [&progress](int done, int failed) {
    progress.Played(0, done, failed);
    progress.Tick();
  };
  // Ctrl-C or SIGTERM: the runs under way finish, what was found is
  // written, marked interrupted (app/interrupt.h).
  const StopOnInterrupt stop;
  options.should_stop = &StopOnInterrupt::Requested;
  std::vector<DrawnGroup> found;
  int done = 0;
  if (flags.jobs > 1) {
    if (!RunInWorkers(workload, options, flags.jobs, progress, found, done)) {
      // The batches the workers journaled are not lost with them.
      std::cerr << fmt::format(
          "faultline: explore: the runs played are kept in {}; `faultline explore --resume {}` "
          "continues them\n",
          out.path().string(), out.final_path().string());
      return kExitBadInput;
    }
  } else {
    found = scenarios::ExploreRuns(workload, options, &done);
  }
  progress.RunsEnded();
  shard.runs_done = (prior != nullptr ? prior->runs_done : 0) + done;
  shard.groups =
      prior != nullptr ? scenarios::MergeDrawnGroups({prior->groups, found}) : std::move(found);
  return FinishExploration(workload, std::move(shard), out, flags.json, flags.top, {started, done},
                           &StopOnInterrupt::Requested, &progress);
}

// `explore --resume DIR`: the exploration DIR's journal describes, its
// batches played not played again.
int ResumeExploration(const ExploreFlags& flags) {
  // DIR.partial (killed), or DIR (interrupted, completed and marked),
  // however written (a trailing '/' from the shell's completion).
  const std::string given = ResultsFolderNamed(flags.resume).string();
  const std::string named = given.ends_with(".partial") ? given.substr(0, given.size() - 8) : given;
  std::error_code error;
  fs::path holding;
  for (const fs::path& candidate : {fs::path(named + ".partial"), fs::path(named)}) {
    if (fs::exists(candidate / kJournalFolder, error)) {
      holding = candidate;
      break;
    }
  }
  if (holding.empty()) {
    return BadInput(
        fs::exists(fs::path(named) / "summary.json", error)
            ? fmt::format("--resume: {} is a finished exploration; there is nothing to resume",
                          named)
            : fmt::format("--resume: {} holds no exploration to resume (no {}/ in it or in "
                          "{}.partial): give the --out of an explore that was killed or "
                          "interrupted",
                          named, kJournalFolder, named),
        "explore");
  }
  // Checked before the folder is reopened: a refused resume changes nothing.
  std::variant<Journal, std::string> read = ReadJournal(holding, flags.limits);
  if (auto* problem = std::get_if<std::string>(&read)) return BadInput(*problem, "explore");
  const ShardFile header = std::get<Journal>(read).header;
  // Explored for a time (--time alone): its runs are as many as fit, so
  // continuing it needs a time too, or it would play 10^8 runs.
  if (header.runs == static_cast<int>(kMaxRuns) && !flags.time) {
    return BadInput(fmt::format("--resume: {} explored for a time (--time with no --runs); give "
                                "--time again to say how long to go on",
                                named),
                    "explore");
  }
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* workload = NamedOrFile(header.scenario, from_file, flags.limits);
  if (workload == nullptr) return kExitBadInput;
  if (std::string problem = NotThisExploration(header, *workload); !problem.empty()) {
    return BadInput(fmt::format("--resume: {}: {}", named, problem), "explore");
  }
  std::optional<ResultsFolder> out =
      ResultsFolder::Open(named, "", ResultsFolder::Earlier::kContinue);
  if (!out) return kExitBadInput;
  // Read again under the folder's lock: what it holds now.
  read = ReadJournal(out->path(), flags.limits);
  if (auto* problem = std::get_if<std::string>(&read)) return BadInput(*problem, "explore");
  const Journal& journal = std::get<Journal>(read);
  if (!flags.json) {
    std::cerr << fmt::format("resuming {}: {} run(s) played before, {} group(s) found\n", named,
                             journal.runs_done, journal.groups.size());
  }
  return PlayExploration(*workload, journal.header, *out, flags, &journal);
}

int RunExploreCommand(const ExploreFlags& flags) {
  if (flags.fork_runs && flags.replay_from_empty) {
    return BadInput("give --fork-runs or --replay-from-empty, not both", "explore");
  }
  if (!flags.resume.empty()) {
    if (!flags.given_with_resume.empty()) {
      return BadInput(
          fmt::format("--resume takes what to explore from the folder; {} cannot change it "
                      "(only --jobs, --time, --json, --top and how runs are played may be given)",
                      fmt::join(flags.given_with_resume, ", ")),
          "explore");
    }
    return ResumeExploration(flags);
  }
  if (flags.scenario.empty()) {
    return BadInput("give the scenario to explore (a catalogue name or a file), or --resume DIR",
                    "explore");
  }
  scenarios::ExploreBounds bounds = flags.bounds;
  {
    scenarios::ChosenEventKinds chosen = scenarios::ChooseEventKinds(flags.faults, flags.no_faults);
    if (!chosen.error.empty()) return BadInput(chosen.error, "explore");
    bounds.kinds = std::move(chosen.names);
  }
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* workload = NamedOrFile(flags.scenario, from_file, flags.limits);
  if (workload == nullptr) return kExitBadInput;
  if (flags.faults) {
    const std::string idle = scenarios::KindsWithNothingToActOn(*workload, bounds.kinds);
    if (!idle.empty()) return BadInput("--faults: " + idle, "explore");
  }
  // A shard without a run would find nothing and say so with exit 0: it
  // is a mistake in the shard set-up, said before anything runs.
  if (scenarios::RunsInShard(static_cast<std::uint64_t>(flags.runs), flags.shard, flags.batch) ==
      0) {
    return BadInput(
        fmt::format("--shard {}/{} holds no run: shards take whole batches of --batch {} runs, "
                    "and {} run(s) make {} batch(es); use fewer shards, more --runs or a "
                    "smaller --batch",
                    flags.shard.index, flags.shard.count, flags.batch, flags.runs,
                    (flags.runs + flags.batch - 1) / flags.batch),
        "explore");
  }
  std::optional<ResultsFolder> out =
      ResultsFolder::Open(flags.out, fmt::format("explore-{}-{}-shard-{}-of-{}", workload->name,
                                                 flags.seed, flags.shard.index, flags.shard.count));
  if (!out) return kExitBadInput;
  ShardFile shard;
  shard.scenario = ScenarioReference(flags.scenario, from_file.has_value());
  shard.seed = flags.seed;
  shard.runs = flags.runs;
  shard.shard = flags.shard;
  shard.batch = flags.batch;
  shard.expectations = flags.expectations;
  shard.bounds = bounds;
  shard.build = BuildId();
  shard.scenario_digest = ScenarioDigest(*workload);
  return PlayExploration(*workload, std::move(shard), *out, flags, nullptr);
}

}  // namespace

CommandRun DefineExplore(CLI::App& command) {
  auto flags = std::make_shared<ExploreFlags>();
  DeclareExploreFlags(command, *flags);
  return [flags, &command] {
    // --time alone: as many runs as fit in it.
    if (flags->time && command.count("--runs") == 0) flags->runs = static_cast<int>(kMaxRuns);
    for (const char* name :
         {"scenario", "--runs", "--seed", "--batch", "--shard", "--faults", "--no-faults",
          "--max-events", "--max-crashes", "--max-power-losses", "--expectations", "--out"}) {
      if (command.count(name) > 0) flags->given_with_resume.emplace_back(name);
    }
    return RunExploreCommand(*flags);
  };
}

}  // namespace faultline::app
