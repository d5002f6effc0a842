// `faultline report NAME|FILE [--seed N] -o run.html`: one self-contained
// HTML page of a run (scenarios/report/report.h).
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/command_util.h"
#include "app/commands.h"
#include "app/output_files.h"
#include "scenarios/report/report.h"

namespace faultline::app {
namespace {

// Writes `text` to `path` (or standard output) whole or not at all.
bool WriteReport(const std::string& path, const std::string& text) {
  if (IsStandardOutput(path)) {
    std::cout << text;
    return static_cast<bool>(std::cout.flush());
  }
  return WriteWhole(path, text);
}

struct ReportFlags {
  std::string name;
  std::string out;
  std::optional<std::uint64_t> seed;
  scenarios::InputLimits limits;
};

int RunReportCommand(const ReportFlags& flags) {
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* scenario = NamedOrFile(flags.name, from_file, flags.limits);
  if (scenario == nullptr) return kExitBadInput;
  const scenarios::Report report =
      scenarios::RenderReport(*scenario, flags.seed.value_or(scenario->seed));
  if (!WriteReport(flags.out, report.html)) return CannotWrite("report", "-o", flags.out);
  if (!IsStandardOutput(flags.out)) {
    std::cerr << fmt::format("{} (seed {}): {}; the report is {} ({} KiB)\n", scenario->name,
                             report.result.seed,
                             report.result.passed            ? "pass"
                             : report.result.stopped.empty() ? "FAIL"
                                                             : "STOPPED",
                             flags.out, report.html.size() / 1024);
  }
  if (!report.result.stopped.empty()) {
    return BadInput("the run stopped: " + report.result.stopped, "report");
  }
  return report.result.passed ? kExitOk : kExitFailureFound;
}

}  // namespace

CommandRun DefineReport(CLI::App& command) {
  auto flags = std::make_shared<ReportFlags>();
  command.add_option("scenario", flags->name, "a catalogue name or a scenario file")
      ->required()
      ->type_name(kScenarioValue);
  command.add_option("-o,--out", flags->out, "where to write the page (-: standard output)")
      ->required()
      ->type_name(kFileValue)
      ->check(Given());
  AddSeed(command, flags->seed, "the seed (default: the scenario's, else 1)");
  AddLimits(command, flags->limits);
  return [flags] { return RunReportCommand(*flags); };
}

}  // namespace faultline::app
