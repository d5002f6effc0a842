#include "app/scenario_commands.h"

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

#include "scenarios/catalogue.h"
#include "scenarios/explore.h"
#include "scenarios/perfetto.h"
#include "scenarios/runner.h"
#include "scenarios/scenario_file.h"

namespace faultline::app {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailureFound = 1;
constexpr int kExitBadInput = 2;

int BadInput(const std::string& message) {
  std::cerr << "faultline: " << message << "\n(run `faultline help` for usage)\n";
  return kExitBadInput;
}

int CannotWrite(std::string_view flag, const std::string& path) {
  const int error = errno;
  return BadInput(fmt::format("{}: cannot write '{}': {}", flag, path,
                              error != 0 ? std::strerror(error) : "write failed"));
}

const scenarios::Scenario* Named(const std::string& name) {
  const scenarios::Scenario* scenario = scenarios::FindScenario(name);
  if (scenario == nullptr) {
    std::cerr << "faultline: no scenario named '" << name << "'; `faultline list` shows them\n";
  }
  return scenario;
}

// `text` escaped for inside a JSON string.
std::string Escaped(std::string_view text) {
  const std::string quoted = sim::JsonQuoted(text);
  return quoted.substr(1, quoted.size() - 2);
}

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

std::optional<std::uint64_t> ParseSeed(const std::string& text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) return std::nullopt;
  return value;
}

}  // namespace

int RunList(const std::vector<std::string>& args) {
  if (!args.empty()) return BadInput("list takes no arguments");
  for (const scenarios::Scenario& scenario : scenarios::Catalogue()) {
    std::cout << fmt::format("{:<28} {}\n", scenario.name, scenario.title);
  }
  return kExitOk;
}

// A scenario of the catalogue by name, or one read from a file (a path, a
// name ending in .toml, or a file that no catalogue name shadows); nullptr
// after saying what was wrong (file:line:col for a file).
const scenarios::Scenario* NamedOrFile(const std::string& name,
                                       std::optional<scenarios::Scenario>& from_file) {
  std::error_code exists_error;
  const bool file =
      name.find('/') != std::string::npos || name.ends_with(".toml") ||
      (scenarios::FindScenario(name) == nullptr && std::filesystem::exists(name, exists_error));
  if (!file) return Named(name);
  std::variant<scenarios::Scenario, scenarios::FileError> loaded =
      scenarios::LoadScenarioFile(name);
  if (const auto* error = std::get_if<scenarios::FileError>(&loaded)) {
    std::cerr << error->message << "\n";
    return nullptr;
  }
  from_file = std::move(std::get<scenarios::Scenario>(loaded));
  return &*from_file;
}

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
  std::cout << scenario->name << ": " << scenario->title << "\n\nWhat happened\n  "
            << scenario->story << "\n\nThe steps\n";
  int number = 0;
  for (const scenarios::Step& step : scenario->steps) {
    if (step.narration.empty()) continue;
    std::cout << fmt::format("  {:>2}. {}\n", ++number, step.narration);
  }
  std::cout << "\nThe lesson\n  " << scenario->lesson << "\n";
  return kExitOk;
}

int RunScenarioCommand(const std::vector<std::string>& args) {
  std::optional<std::string> name;
  std::optional<std::uint64_t> seed_flag;
  bool json = false;
  bool timeline = false;
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
  // A name from the catalogue (which wins over a file of that name in the
  // directory), or a scenario file.
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* scenario = NamedOrFile(*name, from_file);
  if (scenario == nullptr) return kExitBadInput;
  const std::uint64_t seed = seed_flag.value_or(scenario->seed);

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
  if (timeline) {
    // With --json, stdout holds the JSON object alone.
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

namespace {

struct ExploreFlags {
  std::string scenario;
  int runs = 100;
  std::uint64_t seed = 1;
  std::string out;
  bool json = false;
};

// The flags, or the message that says what was wrong.
std::variant<ExploreFlags, std::string> ParseExploreFlags(const std::vector<std::string>& args) {
  ExploreFlags flags;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!arg.starts_with("--")) {
      if (!flags.scenario.empty()) return "explore takes one scenario, got '" + arg + "' too";
      flags.scenario = arg;
      continue;
    }
    if (!seen.insert(arg).second) return arg + " is given twice";
    if (arg == "--json") {
      flags.json = true;
      continue;
    }
    if (arg != "--runs" && arg != "--seed" && arg != "--out") return "unknown option " + arg;
    if (i + 1 == args.size()) return arg + " needs a value";
    const std::string& value = args[++i];
    if (arg == "--out") {
      flags.out = value;
      continue;
    }
    const std::optional<std::uint64_t> number = ParseSeed(value);
    if (!number) return fmt::format("{} needs a number, not '{}'", arg, value);
    if (arg == "--seed") flags.seed = *number;
    constexpr std::uint64_t kMaxRuns = 100'000'000;
    if (arg == "--runs") {
      if (*number > kMaxRuns) return fmt::format("--runs is at most {}", kMaxRuns);
      flags.runs = static_cast<int>(*number);
    }
  }
  if (flags.scenario.empty()) return "usage: faultline explore NAME|FILE [options]";
  return flags;
}

std::string SummaryJson(const scenarios::Scenario& workload, const ExploreFlags& flags,
                        const scenarios::ExploreResult& result) {
  std::string groups;
  for (std::size_t i = 0; i < result.groups.size(); ++i) {
    const scenarios::FailureGroup& group = result.groups[i];
    std::string faults;
    for (const std::string& fault : group.signature.faults) {
      faults += fmt::format("{}\"{}\"", faults.empty() ? "" : ",", Escaped(fault));
    }
    groups += fmt::format(
        "{}{{\"checker\":\"{}\",\"violation\":\"{}\",\"faults\":[{}],\"count\":{},"
        "\"first_seed\":{},\"fault_events\":{},\"repro_fault_events\":{},"
        "\"repro\":\"group-{}/repro.toml\"}}",
        i == 0 ? "" : ",", Escaped(group.signature.checker), Escaped(group.signature.violation),
        faults, group.count, group.first_seed, scenarios::FaultEventCount(group.first),
        scenarios::FaultEventCount(group.repro.scenario), i + 1);
  }
  const double seconds = result.wall_ms / 1000.0;
  return fmt::format(
      "{{\"scenario\":\"{}\",\"runs\":{},\"first_seed\":{},\"last_seed\":{},"
      "\"wall_time_ms\":{:.1f},\"runs_per_second\":{:.1f},\"groups\":[{}]}}\n",
      Escaped(workload.name), result.runs, flags.seed,
      flags.seed + static_cast<std::uint64_t>(std::max(result.runs, 1)) - 1, result.wall_ms,
      seconds > 0 ? result.runs / seconds : 0.0, groups);
}

std::string ShrinkLog(const scenarios::Shrunk& shrunk) {
  std::string log;
  for (const scenarios::ShrinkStep& step : shrunk.log) {
    log += fmt::format("{} {}\n", step.kept ? "kept   " : "dropped", step.tried);
  }
  return log;
}

bool WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

}  // namespace

int RunExploreCommand(const std::vector<std::string>& args) {
  std::variant<ExploreFlags, std::string> parsed = ParseExploreFlags(args);
  if (const auto* error = std::get_if<std::string>(&parsed)) return BadInput(*error);
  const ExploreFlags& flags = std::get<ExploreFlags>(parsed);
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* workload = NamedOrFile(flags.scenario, from_file);
  if (workload == nullptr) return kExitBadInput;
  const std::filesystem::path out =
      flags.out.empty() ? std::filesystem::path("faultline-results") /
                              fmt::format("explore-{}-{}", workload->name, flags.seed)
                        : std::filesystem::path(flags.out);
  std::error_code error;
  std::filesystem::create_directories(out, error);
  if (error)
    return BadInput(fmt::format("--out: cannot create '{}': {}", out.string(), error.message()));
  scenarios::ExploreOptions options{.seed = flags.seed, .runs = flags.runs};
  const bool terminal = !flags.json;
  options.on_new_group = [&](const scenarios::Signature& signature, std::uint64_t seed) {
    if (terminal) std::cerr << fmt::format("new group (seed {}): {}\n", seed, signature.Key());
  };
  options.on_progress = [&](int done, int groups) {
    if (terminal && (done % 100 == 0 || done == flags.runs)) {
      std::cerr << fmt::format("{} of {} runs, {} group(s)\n", done, flags.runs, groups);
    }
  };
  const scenarios::ExploreResult result = scenarios::Explore(*workload, options);
  for (std::size_t i = 0; i < result.groups.size(); ++i) {
    const std::filesystem::path dir = out / fmt::format("group-{}", i + 1);
    std::filesystem::create_directories(dir, error);
    if (error ||
        !WriteFile(dir / "repro.toml", scenarios::ToToml(result.groups[i].repro.scenario)) ||
        !WriteFile(dir / "shrink.log", ShrinkLog(result.groups[i].repro))) {
      return CannotWrite("--out", dir.string());
    }
  }
  const std::string summary = SummaryJson(*workload, flags, result);
  if (!WriteFile(out / "summary.json", summary))
    return CannotWrite("--out", (out / "summary.json").string());
  if (flags.json) {
    std::cout << summary;
  } else {
    std::cout << fmt::format(
        "{}: {} runs, {} group(s) of failures ({:.0f} runs/s); results in {}\n", workload->name,
        result.runs, result.groups.size(),
        result.wall_ms > 0 ? result.runs * 1000.0 / result.wall_ms : 0.0, out.string());
    for (std::size_t i = 0; i < result.groups.size(); ++i) {
      const scenarios::FailureGroup& group = result.groups[i];
      std::cout << fmt::format(
          "  group {}: {} run(s), first seed {}; {} -> {} fault event(s): {}\n", i + 1, group.count,
          group.first_seed, scenarios::FaultEventCount(group.first),
          scenarios::FaultEventCount(group.repro.scenario), group.signature.Key());
      std::cout << fmt::format("    faultline run {}\n",
                               (out / fmt::format("group-{}", i + 1) / "repro.toml").string());
    }
  }
  return result.groups.empty() ? kExitOk : kExitFailureFound;
}

}  // namespace faultline::app
