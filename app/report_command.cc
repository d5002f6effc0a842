// `faultline report NAME|FILE [--seed N] -o run.html`: one self-contained
// HTML page of a run (scenarios/report.h).
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/command_util.h"
#include "app/scenario_commands.h"
#include "scenarios/report.h"

namespace faultline::app {
namespace {

constexpr std::string_view kReportUsage =
    R"(usage: faultline report NAME|FILE [--seed N] -o FILE.html

Plays a scenario (a catalogue name, or a scenario file: a story of your own,
an explore repro.toml, a check-migrations repro) and writes one HTML page of
the run that opens in any browser, offline: the story, the steps with their
narration, outcomes and verdicts, the store's schema and rows after any step
(a scrubber), a message sequence diagram (a column per service and
incarnation, an arrow per message, crashes, restarts and faults marked), the
whole-run checkers and every service's log. Nothing is fetched: no network,
no external script or font.

  -o FILE     where to write the page (- for standard output)
  --seed N    the seed (default: the scenario's, else 1)

Exit status 0 when the run passed, 1 when it did not (the page says why),
2 for bad input, or a run its budget stopped (the page shows what ran).
)";

// Writes `text` to `path` whole or not at all: beside it first, then renamed.
bool WriteWhole(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return static_cast<bool>(std::cout.flush());
  }
  const std::string staging = path + ".partial";
  {
    std::ofstream out(staging, std::ios::binary | std::ios::trunc);
    if (!out || !(out << text) || !out.flush()) {
      std::remove(staging.c_str());
      return false;
    }
  }
  std::error_code error;
  std::filesystem::rename(staging, path, error);
  if (error) std::remove(staging.c_str());
  return !error;
}

}  // namespace

int RunReportCommand(const std::vector<std::string>& args) {
  std::optional<std::string> name;
  std::optional<std::string> out;
  std::optional<std::uint64_t> seed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kReportUsage;
      return kExitOk;
    }
    if ((arg == "-o" || arg == "--out" || arg == "--seed") && i + 1 >= args.size()) {
      return BadInput(arg + " needs a value", "report");
    }
    if (arg == "-o" || arg == "--out") {
      if (out) return BadInput("-o is given twice", "report");
      out = args[++i];
    } else if (arg == "--seed") {
      seed = ParseSeed(args[++i]);
      if (!seed)
        return BadInput("--seed wants a non-negative integer, got '" + args[i] + "'", "report");
    } else if (!arg.empty() && arg[0] == '-') {
      return BadInput("report: unknown option '" + arg + "'", "report");
    } else if (name) {
      return BadInput("report takes one scenario name", "report");
    } else {
      name = arg;
    }
  }
  if (!name || !out) return BadInput("usage: faultline report NAME|FILE -o FILE.html", "report");
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* scenario = NamedOrFile(*name, from_file);
  if (scenario == nullptr) return kExitBadInput;
  const scenarios::Report report =
      scenarios::RenderReport(*scenario, seed.value_or(scenario->seed));
  if (!WriteWhole(*out, report.html)) return CannotWrite("-o", *out);
  if (*out != "-") {
    std::cerr << fmt::format("{} (seed {}): {}; the report is {} ({} KiB)\n", scenario->name,
                             report.result.seed,
                             report.result.passed            ? "pass"
                             : report.result.stopped.empty() ? "FAIL"
                                                             : "STOPPED",
                             *out, report.html.size() / 1024);
  }
  if (!report.result.stopped.empty()) return kExitBadInput;
  return report.result.passed ? kExitOk : kExitFailureFound;
}

}  // namespace faultline::app
