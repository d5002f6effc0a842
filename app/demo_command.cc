// `faultline demo`: the catalogue and the kernel's demos, as a table.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/command_util.h"
#include "app/commands.h"
#include "app/kernel_demo.h"
#include "app/output_files.h"
#include "scenarios/catalogue/catalogue.h"
#include "scenarios/harness/runner.h"
#include "scenarios/report/timeline.h"

namespace faultline::app {
namespace {

struct DemoFlags {
  std::optional<std::uint64_t> seed;
  std::string trace_path;  // Empty: no trace; "-": standard output.
  bool timeline = false;
};

void PrintTable(std::FILE* out, const std::vector<DemoResult>& results) {
  std::fprintf(out, "%-34s %-7s %-14s %9s  %s\n", "scenario", "verdict", "virtual time", "wall ms",
               "what happened");
  for (const DemoResult& result : results) {
    const std::string virtual_time =
        result.virtual_time == sim::kTimeZero ? "-" : sim::FormatTime(result.virtual_time);
    std::fprintf(out, "%-34s %-7s %-14s %9.1f  %s\n", result.name.c_str(),
                 result.passed ? "pass" : "FAIL", virtual_time.c_str(), result.wall_ms,
                 result.summary.c_str());
  }
}

int RunDemo(const DemoFlags& flags) {
  const std::uint64_t seed = flags.seed.value_or(1);
  const bool trace_to_stdout = IsStandardOutput(flags.trace_path);
  if (trace_to_stdout && flags.timeline) {
    return BadInput("--trace - and --timeline both want standard output", "demo");
  }
  // The table goes where the trace does not.
  std::FILE* table = trace_to_stdout ? stderr : stdout;
  std::optional<StagedFile> trace_file;  // Whole at its path once the demos are done.
  std::optional<sim::JsonLinesSink> json_sink;
  DemoOptions options{.seed = seed};
  if (!flags.trace_path.empty()) {
    if (!trace_to_stdout) {
      trace_file.emplace(flags.trace_path);
      if (!trace_file->good()) return CannotWrite("demo", "--trace", flags.trace_path);
    }
    json_sink.emplace(trace_to_stdout ? std::cout : trace_file->stream());
    options.sinks.push_back(&*json_sink);
  }
  std::optional<scenarios::ReadableTimeline> timeline;
  if (flags.timeline) {
    timeline.emplace(std::cout, *scenarios::FindScenario("dirty-migration"),
                     scenarios::TimelineFilter{});
    options.sinks.push_back(&*timeline);
    std::printf("timeline of dirty-migration (seed %llu):\n",
                static_cast<unsigned long long>(seed));
  }
  std::vector<DemoResult> results;
  // The catalogue; --trace and --timeline follow the dirty-migration story.
  for (const scenarios::Scenario& scenario : scenarios::Catalogue()) {
    const bool story = scenario.name == "dirty-migration";
    scenarios::RunOptions run{.seed = seed,
                              .sinks = story ? options.sinks : std::vector<sim::TraceSink*>{}};
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
  results.push_back(RunDirtyRestartDemo(DemoOptions{.seed = seed}));
  results.push_back(RunDeterminismDemo(DemoOptions{.seed = seed}));

  std::cout.flush();
  std::fprintf(table,
               "\nfaultline demo, seed %llu: the seed stories, their fixes, and kernel demos\n\n",
               static_cast<unsigned long long>(seed));
  PrintTable(table, results);
  int failed = 0;
  for (const DemoResult& result : results) failed += result.passed ? 0 : 1;
  std::fprintf(table, "\n%s: %zu demos, %d failed\n", failed == 0 ? "ok" : "FAILED", results.size(),
               failed);
  if (!flags.trace_path.empty() && !trace_to_stdout) {
    if (!trace_file->Commit()) return CannotWrite("demo", "--trace", flags.trace_path);
    std::fprintf(table, "trace written to %s\n", flags.trace_path.c_str());
  }
  return failed == 0 ? kExitOk : kExitFailureFound;
}

}  // namespace

CommandRun DefineDemo(CLI::App& command) {
  auto flags = std::make_shared<DemoFlags>();
  AddSeed(command, flags->seed, "the root seed (default 1); the same seed replays the same run");
  command
      .add_option("--trace", flags->trace_path,
                  "also write the dirty-migration story's events to FILE as JSON Lines (-: "
                  "standard output, and the table to standard error)")
      ->type_name(kFileValue)
      ->check(Given());
  command.add_flag("--timeline", flags->timeline, "print the dirty-migration story's events");
  return [flags] { return RunDemo(*flags); };
}

}  // namespace faultline::app
