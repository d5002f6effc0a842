#include "app/scenario_commands.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <tuple>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/command_util.h"
#include "scenarios/catalogue.h"
#include "scenarios/failure_classes.h"
#include "scenarios/perfetto.h"
#include "scenarios/runner.h"
#include "scenarios/scenario_file.h"
#include "scenarios/steps.h"
#include "scenarios/timeline.h"
#include "scenarios/topology.h"

namespace faultline::app {
namespace {

std::string Json(const scenarios::ScenarioResult& result) {
  std::string steps;
  for (const scenarios::StepResult& step : result.steps) {
    std::string checks;
    for (const scenarios::CheckResult& check : step.checks) {
      checks += fmt::format("{}{{\"expect\":\"{}\",\"held\":{},\"actual\":\"{}\"}}",
                            checks.empty() ? "" : ",", Escaped(check.what),
                            check.held ? "true" : "false", Escaped(check.actual));
    }
    steps += fmt::format(
        "{}{{\"action\":\"{}\",\"outcome\":\"{}\",\"virtual_time_ns\":{},"
        "\"checks\":[{}]}}",
        steps.empty() ? "" : ",", Escaped(step.action),
        Escaped(scenarios::OneLine(step.outcome, 2000)), step.at.time_since_epoch().count(),
        checks);
  }
  std::string checkers;
  for (const scenarios::CheckResult& check : result.checkers) {
    // "held": whether the checker did what the scenario expects of it.
    checkers +=
        fmt::format("{}{{\"checker\":\"{}\",\"expected\":\"{}\",\"held\":{},\"detail\":\"{}\"}}",
                    checkers.empty() ? "" : ",", Escaped(check.checker),
                    check.expected_to_hold ? "holds" : "fails", check.held ? "true" : "false",
                    Escaped(check.actual));
  }
  std::string notes;
  for (const std::string& note : result.notes) {
    notes += fmt::format("{}\"{}\"", notes.empty() ? "" : ",", Escaped(note));
  }
  return fmt::format(
      "{{\"scenario\":\"{}\",\"seed\":{},\"verdict\":\"{}\",\"trace_hash\":\"{:016x}\","
      "\"virtual_time_ns\":{},\"wall_time_ms\":{:.1f},\"steps\":[{}],\"checkers\":[{}],"
      "\"notes\":[{}],\"stopped\":\"{}\"}}\n",
      Escaped(result.name), result.seed,
      result.passed            ? "pass"
      : result.stopped.empty() ? "fail"
                               : "stopped",
      result.trace_hash, result.virtual_time.time_since_epoch().count(), result.wall_ms, steps,
      checkers, notes, Escaped(result.stopped));
}

void PrintSteps(const scenarios::ScenarioResult& result) {
  int number = 0;
  for (const scenarios::StepResult& step : result.steps) {
    std::cout << fmt::format("{:>2}. [{}] {}\n", ++number, sim::FormatTime(step.at), step.action);
    if (!step.narration.empty()) std::cout << "    " << step.narration << "\n";
    std::cout << "    -> " << scenarios::OneLine(step.outcome, 160) << "\n";
    for (const scenarios::CheckResult& check : step.checks) {
      std::cout << fmt::format("    {} {}{}\n", check.held ? "ok  " : "FAIL", check.what,
                               check.held ? "" : " (got: " + check.actual + ")");
    }
  }
}

// "a,b,,c" as {a, b, c}.
std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

// What is wrong with a --only list for this scenario's cluster, or empty.
std::string UnknownHost(const scenarios::Scenario& scenario, const std::set<std::string>& hosts) {
  // The cluster's services, and the hosts the runner adds around them.
  std::vector<std::string> known = {"client", "ycqlsh", "migrate", "dockerd", "sim"};
  for (const scenarios::ServiceImage& service : scenarios::ServicesOf(scenario)) {
    known.push_back(service.name);
  }
  for (const std::string& host : hosts) {
    if (std::find(known.begin(), known.end(), host) == known.end()) {
      return fmt::format("--only: no service or host '{}' (there are: {})", host,
                         fmt::join(known, ", "));
    }
  }
  return {};
}

}  // namespace

int RunList(const std::vector<std::string>& args) {
  if (!args.empty()) return BadInput("list takes no arguments");
  // By failure class, in the classes' order; each story with its fix.
  bool first = true;
  for (const scenarios::FailureClass& failure : scenarios::FailureClasses()) {
    bool header = false;
    for (const scenarios::Scenario& scenario : scenarios::Catalogue()) {
      if (scenario.failure_class != failure.id) continue;
      if (!header) {
        std::cout << fmt::format("{}{} ({}): {}\n", first ? "" : "\n", failure.title, failure.id,
                                 failure.mechanism);
        header = true;
        first = false;
      }
      std::cout << fmt::format("  {:<34} {}\n", scenario.name, scenario.title);
    }
  }
  return kExitOk;
}

namespace {

// "breaks acknowledged-writes and converges", or empty.
std::string BrokenCheckers(const scenarios::Scenario& scenario) {
  std::vector<std::string> broken;
  for (const auto& [checker, holds] : scenario.checkers) {
    if (!holds) broken.push_back(checker);
  }
  std::string text;
  for (std::size_t i = 0; i < broken.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == broken.size() ? " and " : ", ") + broken[i];
  }
  return text;
}

}  // namespace

int RunExplain(const std::vector<std::string>& args) {
  const bool toml = args.size() == 2 && args[1] == "--toml";
  if (args.size() != 1 && !toml) return BadInput("usage: faultline explain NAME|FILE [--toml]");
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* scenario = NamedOrFile(args[0], from_file);
  if (scenario == nullptr) return kExitBadInput;
  if (toml) {
    std::cout << scenarios::ToToml(*scenario);
    return kExitOk;
  }
  std::cout << scenario->name << ": " << scenario->title << "\n";
  if (const scenarios::FailureClass* failure =
          scenarios::FindFailureClass(scenario->failure_class)) {
    std::cout << fmt::format("\nThe class\n  {}: {}\n", failure->title, failure->mechanism);
  }
  const std::string broken = BrokenCheckers(*scenario);
  std::cout << "\nWhat happened\n  " << scenario->story << "\n";
  std::cout << (broken.empty() ? "\n  It breaks no whole-run checker: every one must hold.\n"
                               : "\n  It breaks " + broken + "; the other checkers must hold.\n");
  std::cout << "\nThe steps\n";
  // Numbered as `run` plays them and `shell --at` takes them; a step with
  // no narration is shown by what it does.
  int number = 0;
  for (const scenarios::Step& step : scenario->steps) {
    ++number;
    std::cout << fmt::format("  {:>2}. {}\n", number,
                             step.narration.empty()
                                 ? "(" + scenarios::StepKindOf(step).show(step) + ")"
                                 : step.narration);
  }
  std::cout << "\nThe lesson\n  " << scenario->lesson << "\n";
  return kExitOk;
}

int RunScenarioCommand(const std::vector<std::string>& args) {
  std::optional<std::string> name;
  std::optional<std::uint64_t> seed_flag;
  bool json = false;
  bool timeline = false;
  bool raw_timeline = false;
  scenarios::TimelineFilter filter;
  bool check_determinism = false;
  std::optional<std::string> trace_path;
  std::optional<std::string> perfetto_path;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--seed") {
      if (i + 1 >= args.size()) return BadInput("--seed needs a value");
      const std::optional<std::uint64_t> parsed = ParseSeed(args[++i]);
      if (!parsed) return BadInput("--seed wants a non-negative integer, got '" + args[i] + "'");
      seed_flag = *parsed;
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--timeline") {
      timeline = true;
    } else if (arg == "--probes") {
      timeline = true;
      filter.probes = true;
    } else if (arg == "--raw-timeline") {
      raw_timeline = true;
    } else if (arg == "--only" || arg == "--kinds") {
      if (i + 1 >= args.size()) return BadInput(arg + " needs a comma-separated list");
      timeline = true;
      std::set<std::string>& into = arg == "--only" ? filter.services : filter.kinds;
      std::vector<std::string> items = SplitCommas(args[++i]);
      if (items.empty()) return BadInput(arg + " needs at least one name, got '" + args[i] + "'");
      for (std::string& item : items) into.insert(std::move(item));
    } else if (arg == "--check-determinism") {
      check_determinism = true;
    } else if (arg == "--trace") {
      if (i + 1 >= args.size()) return BadInput("--trace needs a file");
      trace_path = args[++i];
    } else if (arg == "--perfetto") {
      if (i + 1 >= args.size()) return BadInput("--perfetto needs a file");
      perfetto_path = args[++i];
    } else if (!arg.empty() && arg[0] == '-') {
      return BadInput("run: unknown option '" + arg + "'");
    } else if (name) {
      return BadInput("run takes one scenario name");
    } else {
      name = arg;
    }
  }
  if (!name) return BadInput("usage: faultline run NAME|FILE [--seed N] [--json] [--timeline] ...");
  if (timeline && raw_timeline)
    return BadInput("give --timeline (or --only, --kinds, --probes) or --raw-timeline, not both");
  for (const std::string& kind : filter.kinds) {
    const auto& kinds = scenarios::TimelineKinds();
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
      return BadInput(
          fmt::format("--kinds: no kind '{}' (kinds: {})", kind, fmt::join(kinds, ", ")));
    }
  }
  // A name from the catalogue (which wins over a file of that name in the
  // directory), or a scenario file.
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* scenario = NamedOrFile(*name, from_file);
  if (scenario == nullptr) return kExitBadInput;
  const std::uint64_t seed = seed_flag.value_or(scenario->seed);
  if (const std::string unknown = UnknownHost(*scenario, filter.services); !unknown.empty()) {
    return BadInput(unknown);
  }

  scenarios::RunOptions options{.seed = seed};
  std::ofstream trace_file;
  std::optional<sim::JsonLinesSink> json_sink;
  std::optional<sim::TextSink> text_sink;
  if (trace_path && perfetto_path &&
      std::filesystem::path(*trace_path).lexically_normal() ==
          std::filesystem::path(*perfetto_path).lexically_normal()) {
    return BadInput("--trace and --perfetto name the same file, '" + *trace_path + "'");
  }
  if (trace_path) {
    trace_file.open(*trace_path);
    if (!trace_file) return CannotWrite("--trace", *trace_path);
    json_sink.emplace(trace_file);
    options.sinks.push_back(&*json_sink);
  }
  // With --json, stdout holds the JSON object alone: a timeline goes to stderr.
  std::optional<scenarios::ReadableTimeline> readable;
  if (timeline) {
    readable.emplace(json ? std::cerr : std::cout, *scenario, filter);
    options.sinks.push_back(&*readable);
    options.before_step = [&](std::size_t step) { readable->MarkStep(step); };
    options.observe = [&](std::size_t step, scenarios::World&) {
      if (step == scenario->steps.size()) readable->Close();
    };
  }
  if (raw_timeline) {
    text_sink.emplace(json ? std::cerr : std::cout);
    options.sinks.push_back(&*text_sink);
  }
  std::ofstream perfetto_file;
  scenarios::PerfettoSink perfetto;
  if (perfetto_path) {
    perfetto_file.open(*perfetto_path);
    if (!perfetto_file) return CannotWrite("--perfetto", *perfetto_path);
    options.sinks.push_back(&perfetto);
  }
  const scenarios::ScenarioResult result = scenarios::RunScenario(*scenario, options);
  if (readable) {
    readable->Finish();
    (json ? std::cerr : std::cout) << "\n";
  }
  if (perfetto_path) perfetto_file << perfetto.Json();
  // A full disk must not pass for a written file.
  for (auto [flag, path, file] : {std::tuple{"--trace", &trace_path, &trace_file},
                                  std::tuple{"--perfetto", &perfetto_path, &perfetto_file}}) {
    if (*path && !file->flush()) return CannotWrite(flag, **path);
  }
  bool deterministic = true;
  std::string divergence;
  if (check_determinism) {
    const scenarios::ScenarioResult again = scenarios::RunScenario(*scenario, {.seed = seed});
    deterministic = again.trace_hash == result.trace_hash;
    if (!deterministic) {
      // Run both again, recorded, to name the first event where they part.
      constexpr std::size_t kRecorded = 1'000'000;
      sim::RecordingSink left(kRecorded);
      sim::RecordingSink right(kRecorded);
      (void)scenarios::RunScenario(*scenario, {.seed = seed, .sinks = {&left}});
      (void)scenarios::RunScenario(*scenario, {.seed = seed, .sinks = {&right}});
      const std::optional<sim::Divergence> first =
          sim::FindFirstDivergence(left.events(), right.events());
      divergence = first ? first->Describe() : "(the recorded prefixes agree)";
    }
  }
  if (json) {
    std::string object = Json(result);
    if (check_determinism) {
      object.insert(object.size() - 2,
                    fmt::format(",\"deterministic\":{},\"divergence\":\"{}\"",
                                deterministic ? "true" : "false", Escaped(divergence)));
    }
    std::cout << object;
  } else {
    std::cout << fmt::format("{} (seed {}): {}\n\n", scenario->name, seed, scenario->title);
    PrintSteps(result);
    std::cout << "\nCheckers over the whole run\n";
    for (const scenarios::CheckResult& check : result.checkers) {
      std::cout << fmt::format(
          "    {} {}{}\n", check.held ? "ok  " : "FAIL", check.what,
          check.actual.empty() ? "" : ": " + scenarios::OneLine(check.actual, 140));
    }
    for (const std::string& note : result.notes) std::cout << "\nnote: " << note << "\n";
    std::cout << fmt::format("\n{}: {} steps, virtual time {}, trace hash {:016x}\n",
                             result.passed            ? "pass"
                             : result.stopped.empty() ? "FAIL"
                                                      : "STOPPED",
                             result.steps.size(), sim::FormatTime(result.virtual_time),
                             result.trace_hash);
    if (check_determinism) {
      std::cout << (deterministic ? "determinism: the same seed gave the same trace hash twice\n"
                                  : "determinism: FAILED, a second run gave another trace hash; "
                                    "first divergence: " +
                                        divergence + "\n");
    }
  }
  if (!std::cout.flush()) {
    std::cerr << "faultline: run: cannot write to standard output: " << std::strerror(errno)
              << "\n";
    return kExitBadInput;
  }
  // A run its budget stopped checked nothing: neither a pass nor a failure.
  if (!result.stopped.empty()) {
    std::cerr << "faultline: run stopped: " << result.stopped << "\n";
    return kExitBadInput;
  }
  return result.passed && deterministic ? kExitOk : kExitFailureFound;
}

}  // namespace faultline::app
