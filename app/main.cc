// faultline: the command line tool. Exit status 0 when the checked property
// held, 1 when a failure was found, 2 for bad input.
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "app/cql_shell.h"
#include "app/kernel_demo.h"
#include "app/scenario_commands.h"
#include "scenarios/catalogue.h"
#include "scenarios/runner.h"
#include "scenarios/timeline.h"

namespace faultline::app {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailureFound = 1;
constexpr int kExitBadInput = 2;

constexpr std::string_view kUsage =
    R"(faultline: replay cluster restart and migration failures from a seed.

usage: faultline <command> [options]

commands:
  demo        run the scenario catalogue and print a table; exit 0 when all pass
  cql         a ycqlsh-like shell on the metadata store (`faultline cql --help`)
  list        the scenario catalogue, one line each
  explain N   scenario N's story, steps and lesson (--toml: as a scenario file)
  run N|FILE  play a catalogue scenario or a scenario file (docs/scenario-format.md):
              each step, its outcome, each expectation's verdict
              options: --seed N, --json, --timeline [--only S] [--kinds K],
              --raw-timeline, --trace FILE (JSON Lines),
              --perfetto FILE (open in ui.perfetto.dev), --check-determinism
  explore N|FILE  draw fault schedules around a scenario's steps, group the
              failures, shrink each to a scenario file (`faultline explore --help`)
  report N|FILE -o run.html  one self-contained HTML page of the run: its
              steps, the store at any step, a message diagram, checkers, logs
  shell N|FILE --at STEP  a ycqlsh-like prompt on the store as it was after
              that step of the run (`faultline shell --help`)
  merge DIR...  fold the results of explore's shards into one
  check-migrations DIR  is this migration folder safe to ship? static rules, then
              crashes, upgrades, rollbacks and races in the simulated cluster
              (`faultline check-migrations --help`)
  help        show this help
  version     print the version

demo options:
  --seed N        the root seed (default 1); the same seed replays the same run
  --trace FILE    also write the dirty-migration story's events to FILE as JSON Lines
  --timeline      print the dirty-migration story's events as text

Exit status: 0 every check held, 1 a check failed, 2 bad input.
)";

// Each command's own help, for `faultline COMMAND --help`.
constexpr std::string_view kDemoUsage =
    R"(usage: faultline demo [--seed N] [--trace FILE] [--timeline]

Runs every scenario of the catalogue (the seed stories and their fixes) and
the kernel's demos, and prints a table: scenario, verdict, virtual time
covered, wall time, what happened. Exit 0 when all pass, 1 when one fails.

  --seed N        the root seed (default 1); the same seed replays the same run
  --trace FILE    also write the dirty-migration story's events to FILE (JSON Lines)
  --timeline      print the dirty-migration story's events as text
)";
constexpr std::string_view kListUsage =
    R"(usage: faultline list

The scenario catalogue, one line each: its name, then what it shows.
)";
constexpr std::string_view kExplainUsage =
    R"(usage: faultline explain NAME|FILE [--toml]

A scenario's story, its steps and its lesson (a catalogue name, or a
scenario file, read and checked as `run` reads it); with --toml, the
scenario as a file (docs/scenario-format.md) to copy and change.
)";
constexpr std::string_view kRunUsage =
    R"(usage: faultline run NAME|FILE [options]

Plays a catalogue scenario, or a scenario file (docs/scenario-format.md),
and prints each step, its outcome and each expectation's verdict, then the
whole-run checkers. Exit 0 when every expectation held, 1 when one did not,
2 for bad input (a broken file says file:line:col).

  --seed N             the seed (default: the scenario's, else 1)
  --json               print one JSON object instead (scenario, seed, verdict,
                       trace_hash, virtual_time_ns, wall_time_ms, steps, ...)
  --timeline           print the run as a readable timeline (to stderr with
                       --json): a marker at each step with its narration, one
                       line per message (send and delivery folded), statements
                       with their bound values, logs, crashes and faults
  --only S1,S2         the timeline of these services (or hosts: client,
                       ycqlsh, migrate, dockerd) only; implies --timeline
  --kinds K1,K2        the timeline of these kinds only: net, cql, log,
                       container, process, migrate, fault, operator, volume,
                       other; implies --timeline
  --probes             the timeline with the health probes (hidden by default)
  --raw-timeline       every trace event as text, one line each
  --trace FILE         write every trace event to FILE as JSON Lines
  --perfetto FILE      write Chrome Trace Event JSON for ui.perfetto.dev
  --check-determinism  run twice more; fail, naming the first divergent
                       event, if the trace hashes differ
)";

constexpr std::string_view kExploreUsage =
    R"(usage: faultline explore NAME|FILE [options]

Takes a scenario's steps as the workload; each run draws a fault schedule
from its seed (crashes, errors and delays at fault sites; kills, restarts,
partitions, latency and loss, power losses, full and failing disks,
upgrades and rollbacks, down/up and clean between or during the steps; each
fault kind switched on or off for the whole run; at most 3 events, 3
crashes and 1 power loss),
plays it, and asks the whole-run checkers. Failures are grouped by the
failing checker, the kind of its first violation and the faults involved;
each group's first failure is shrunk to a scenario file that `faultline run`
replays. Exit 0 when nothing failed, 1 when a group was found, 2 for bad
input.

  --runs N     how many runs (default 100)
  --seed S     the first run's seed (default 1; run r uses S + r)
  --out DIR    where to write summary.json, groups.tsv and, per group,
               repro.toml, shrink.log, trace.jsonl, perfetto.json and
               timeline.txt (default: faultline-results/explore-<name>-...)
  --json       print summary.json instead of the text report
  --shard I/N  play only every N-th run from run I (0 <= I < N); fold the
               shards' directories with `faultline merge DIR...`
  --jobs N     play the runs in N worker processes (the results are the same)
  --time D     stop starting runs after D of wall time (90s, 10m, 2h)
  --expectations  a failed expectation of the scenario's steps is a failure
               too (by default only the whole-run checkers are the oracle)
  --max-events N, --max-crashes N, --max-power-losses N
               the schedule's bounds (defaults 3, 3 and 1, after studies of
               real cluster failures)
)";

constexpr std::string_view kCheckMigrationsUsage =
    R"(usage: faultline check-migrations DIR [options]

Is this migration folder (golang-migrate's layout: {version}_{title}.up.cql
and .down.cql) safe to ship? First the static rules (each with an id, see
docs/check-migrations.md), then the folder runs in the simulated cluster as
a node image of its own, with each runner asked for: a crash at every fault
site it passes (every statement, every step of SetVersion) and a restart;
an upgrade from each older version on a kept volume; a rollback to the image
before the newest file; replicas starting together (on YCQL and on the
Cassandra store); and up, down -all, up when every file has a down. Each
outcome is safe, recovers, needs-force, needs-repair, silent-drift or
lost-version; each unsafe one comes with a scenario file that
`faultline run` replays. Exit 0 when nothing unsafe was found (warnings and
notes do not count), 1 when something was, 2 for bad input.

  --runner R       golang-migrate (default), safe, db-init, or all
  --keyspace KS    the keyspace it migrates (default: the one its statements
                   name, else app)
  --replicas N     replicas that start together (default 2; 1: no race check)
  --store S        yugabyte or cassandra: every check on that store only
                   (default: yugabyte, and the race check on both)
  --from DIR|V     the folder as the release before shipped it (the upgrade
                   starts from it and the rollback goes back to it), or the
                   version of this folder a deployed database is at (the
                   upgrade starts there); default: from each older version
  --sum FILE       the sum file written when the files shipped (--write-sum):
                   edited, removed and out-of-order files are errors
  --write-sum FILE write this folder's sum file
  --format F       text (default), json, sarif (2.1.0) or junit: what standard
                   output gets
  --out DIR        a new folder for every format (report.txt, report.json,
                   report.sarif, report.junit.xml) and each repro scenario
  --seed N         the simulations' seed (default 1)
  --jobs N         play the cases in N worker processes (the report is the same)
  --static         the static rules only: nothing is simulated
)";

bool AsksForHelp(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") return true;
  }
  return false;
}

struct DemoFlags {
  std::uint64_t seed = 1;
  std::optional<std::string> trace_path;
  bool timeline = false;
};

[[noreturn]] void BadInput(const std::string& message) {
  std::cerr << "faultline: " << message << "\n(run `faultline help` for usage)\n";
  std::exit(kExitBadInput);
}

std::uint64_t ParseSeed(const char* text) {
  if (!std::isdigit(static_cast<unsigned char>(text[0]))) {
    BadInput(fmt::format("--seed wants a non-negative integer, got '{}'", text));
  }
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || errno == ERANGE) {
    BadInput(fmt::format("--seed wants a non-negative integer below 2^64, got '{}'", text));
  }
  return value;
}

DemoFlags ParseDemoFlags(const std::vector<std::string>& args) {
  DemoFlags flags;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) BadInput(fmt::format("{} needs a value", flag));
      return args[++i];
    };
    if (flag == "--seed") {
      flags.seed = ParseSeed(value().c_str());
    } else if (flag == "--trace") {
      flags.trace_path = value();
    } else if (flag == "--timeline") {
      flags.timeline = true;
    } else {
      BadInput(fmt::format("demo: unknown option '{}'", flag));
    }
  }
  return flags;
}

void PrintTable(const std::vector<DemoResult>& results) {
  std::printf("%-34s %-7s %-14s %9s  %s\n", "scenario", "verdict", "virtual time", "wall ms",
              "what happened");
  for (const DemoResult& result : results) {
    const std::string virtual_time =
        result.virtual_time == sim::kTimeZero ? "-" : sim::FormatTime(result.virtual_time);
    std::printf("%-34s %-7s %-14s %9.1f  %s\n", result.name.c_str(),
                result.passed ? "pass" : "FAIL", virtual_time.c_str(), result.wall_ms,
                result.summary.c_str());
  }
}

int RunDemo(const DemoFlags& flags) {
  std::ofstream trace_file;
  std::optional<sim::JsonLinesSink> json_sink;
  DemoOptions options{.seed = flags.seed};
  if (flags.trace_path) {
    trace_file.open(*flags.trace_path);
    if (!trace_file) {
      BadInput(
          fmt::format("cannot write trace file '{}': {}", *flags.trace_path, std::strerror(errno)));
    }
    json_sink.emplace(trace_file);
    options.sinks.push_back(&*json_sink);
  }
  std::optional<scenarios::ReadableTimeline> timeline;
  DemoOptions dirty_options = options;
  if (flags.timeline) {
    timeline.emplace(std::cout, *scenarios::FindScenario("dirty-migration"),
                     scenarios::TimelineFilter{});
    dirty_options.sinks.push_back(&*timeline);
    std::printf("timeline of dirty-migration (seed %llu):\n",
                static_cast<unsigned long long>(flags.seed));
  }
  std::vector<DemoResult> results;
  // The catalogue; --trace and --timeline follow the dirty-migration story.
  for (const scenarios::Scenario& scenario : scenarios::Catalogue()) {
    const bool story = scenario.name == "dirty-migration";
    scenarios::RunOptions run{
        .seed = flags.seed, .sinks = story ? dirty_options.sinks : std::vector<sim::TraceSink*>{}};
    if (story && timeline) {
      run.before_step = [&](std::size_t step) { timeline->MarkStep(step); };
      run.observe = [&](std::size_t step, scenarios::World&) {
        if (step == scenario.steps.size()) timeline->Close();
      };
    }
    const scenarios::ScenarioResult result = scenarios::RunScenario(scenario, run);
    if (story && timeline) timeline->Finish();
    results.push_back(DemoResult{scenario.name, result.passed, result.virtual_time, result.wall_ms,
                                 scenario.title, result.trace_hash});
  }
  // The kernel's own demos: a dirty restart told with sim/ alone, and a
  // determinism sweep over a hundred seeds (no extra sinks: its traces would
  // drown the file).
  results.push_back(RunDirtyRestartDemo(DemoOptions{.seed = flags.seed}));
  results.push_back(RunDeterminismDemo(DemoOptions{.seed = flags.seed}));

  std::printf("\nfaultline demo, seed %llu: the seed stories, their fixes, and kernel demos\n\n",
              static_cast<unsigned long long>(flags.seed));
  PrintTable(results);
  int failed = 0;
  for (const DemoResult& result : results) failed += result.passed ? 0 : 1;
  std::printf("\n%s: %zu demos, %d failed\n", failed == 0 ? "ok" : "FAILED", results.size(),
              failed);
  if (flags.trace_path) {
    if (!trace_file.flush()) {
      BadInput(
          fmt::format("cannot write trace file '{}': {}", *flags.trace_path, std::strerror(errno)));
    }
    std::printf("trace written to %s\n", flags.trace_path->c_str());
  }
  return failed == 0 ? kExitOk : kExitFailureFound;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return kExitBadInput;
  }
  const std::string command = args.front();
  args.erase(args.begin());
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return kExitOk;
  }
  if (command == "version" || command == "--version") {
    if (!args.empty()) BadInput("version takes no arguments");
    std::cout << "faultline 0.1.0\n";
    return kExitOk;
  }
  const std::pair<std::string_view, std::string_view> helps[] = {
      {"demo", kDemoUsage},       {"list", kListUsage},
      {"explain", kExplainUsage}, {"run", kRunUsage},
      {"explore", kExploreUsage}, {"check-migrations", kCheckMigrationsUsage}};
  for (const auto& [name, usage] : helps) {
    if (command == name && AsksForHelp(args)) {
      std::cout << usage;
      return kExitOk;
    }
  }
  if (command == "demo") return RunDemo(ParseDemoFlags(args));
  if (command == "cql") return RunCqlShell(args);
  if (command == "list") return RunList(args);
  if (command == "explain") return RunExplain(args);
  if (command == "run") return RunScenarioCommand(args);
  if (command == "explore") return RunExploreCommand(args);
  if (command == "merge") return RunMergeCommand(args);
  if (command == "check-migrations") return RunCheckMigrationsCommand(args);
  if (command == "shell") return RunShellCommand(args);
  if (command == "report") return RunReportCommand(args);
  BadInput(fmt::format("unknown command '{}'", command));
}

}  // namespace
}  // namespace faultline::app

// Whatever a command did, output that never reached standard output (a full
// disk, a closed pipe) is bad input, said on standard error: never a silent
// exit 0 with half an answer.
int main(int argc, char** argv) {
  const int status = faultline::app::Main(argc, argv);
  errno = 0;
  std::cout.flush();
  const bool written = std::cout.good() && std::fflush(stdout) == 0 && std::ferror(stdout) == 0;
  if (!written) {
    std::fprintf(stderr, "faultline: cannot write to standard output: %s\n",
                 errno != 0 ? std::strerror(errno) : "write failed");
    return 2;
  }
  return status;
}
