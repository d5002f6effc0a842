// `faultline run NAME|FILE`: play a scenario from a seed and print each
// step, its outcome and its verdicts (or JSON), with the readable timeline,
// the trace and the Perfetto file on request.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/build_id.h"
#include "app/command_util.h"
#include "app/commands.h"
#include "app/output_files.h"
#include "scenarios/core/topology.h"
#include "scenarios/harness/runner.h"
#include "scenarios/report/perfetto.h"
#include "scenarios/report/timeline.h"
#include "scenarios/shrink/signature.h"
#include "sim/assert.h"
#include "sim/trace.h"

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

// Each fault a run injected as it fired (its trace's fault.fire events),
// to show under the step it fired in: a [[fault]] or [crash] is no step
// of its own, and a run whose fault never fires must not look like one
// whose fault did.
class FaultsFired : public sim::TraceSink {
 public:
  struct Fired {
    sim::TimePoint at;
    std::string words;
  };
  void Write(const sim::TraceEvent& event) override {
    if (event.name != "fault.fire") return;
    // Bounded: a run's faults fire at most once per pass of a site.
    constexpr std::size_t kMaxShown = 10'000;
    if (fired_.size() >= kMaxShown) return;
    fired_.push_back(
        {event.time, fmt::format("{} at {} (hit {}) in {}", event.FieldText("action"),
                                 event.FieldText("site"), event.FieldText("hit"), event.process)});
  }
  const std::vector<Fired>& fired() const { return fired_; }

 private:
  std::vector<Fired> fired_;
};

// The faults fired after `from` up to and including `to`, one line each.
void PrintFired(std::ostream& out, const std::vector<FaultsFired::Fired>& fired,
                std::optional<sim::TimePoint> from, std::optional<sim::TimePoint> to) {
  for (const FaultsFired::Fired& fault : fired) {
    if ((from && fault.at <= *from) || (to && fault.at > *to)) continue;
    out << fmt::format("    ! fault fired: {} [{}]\n", fault.words, sim::FormatTime(fault.at));
  }
}

void PrintSteps(std::ostream& out, const scenarios::ScenarioResult& result,
                const std::vector<FaultsFired::Fired>& fired) {
  int number = 0;
  std::optional<sim::TimePoint> before;  // When the step before ended.
  for (const scenarios::StepResult& step : result.steps) {
    out << fmt::format("{:>2}. [{}] {}\n", ++number, sim::FormatTime(step.at), step.action);
    if (!step.narration.empty()) out << "    " << step.narration << "\n";
    out << "    -> " << scenarios::OneLine(step.outcome, 160) << "\n";
    PrintFired(out, fired, before, step.at);
    for (const scenarios::CheckResult& check : step.checks) {
      out << fmt::format("    {} {}{}\n", check.held ? "ok  " : "FAIL", check.what,
                         check.held ? "" : " (got: " + check.actual + ")");
    }
    before = step.at;
  }
  const bool after = std::any_of(fired.begin(), fired.end(), [&](const FaultsFired::Fired& f) {
    return !before || f.at > *before;
  });
  if (after) {
    out << "\nAfter the steps, while the cluster settles\n";
    PrintFired(out, fired, before, std::nullopt);
  }
}

// Whether a repro's run failed as its file recorded: the same checker and
// kind of first violation.
struct Replayed {
  bool reproduced = false;
  std::optional<scenarios::Signature> found;  // What this run failed on, if anything.
};
Replayed ReplayedAsRecorded(const scenarios::Scenario& scenario,
                            const scenarios::ScenarioResult& result) {
  FL_ASSERT(scenario.recorded.has_value());
  const scenarios::RecordedFailure& recorded = *scenario.recorded;
  Replayed replayed;
  replayed.found = scenarios::SignatureOf(scenario, result, recorded.checker == "expectation");
  replayed.reproduced = replayed.found && replayed.found->checker == recorded.checker &&
                        replayed.found->violation == recorded.violation;
  return replayed;
}

// The same, in words.
std::string Reproduced(const scenarios::Scenario& scenario,
                       const scenarios::ScenarioResult& result) {
  const scenarios::RecordedFailure& recorded = *scenario.recorded;
  const Replayed replayed = ReplayedAsRecorded(scenario, result);
  if (replayed.reproduced) {
    return fmt::format("reproduced: {} failed as recorded ({})", recorded.checker,
                       recorded.violation);
  }
  const std::optional<scenarios::Signature>& found = replayed.found;
  return fmt::format(
      "NOT reproduced: recorded {} failing ({}); this run: {}{}", recorded.checker,
      recorded.violation,
      found ? fmt::format("{} failed ({})", found->checker, found->violation)
            : std::string("nothing failed"),
      !recorded.build.empty() && recorded.build != BuildId()
          ? fmt::format(" (recorded by build {}, and this is build {}: the build may be why)",
                        recorded.build, BuildId())
          : "");
}

// The same, as run --json's "recorded" member: what the file recorded,
// whether this run reproduced it, and what this run failed on (null: nothing).
std::string ReproducedJson(const scenarios::Scenario& scenario,
                           const scenarios::ScenarioResult& result) {
  const scenarios::RecordedFailure& recorded = *scenario.recorded;
  const Replayed replayed = ReplayedAsRecorded(scenario, result);
  const std::string found =
      replayed.found
          ? fmt::format("{{\"checker\":\"{}\",\"violation\":\"{}\"}}",
                        Escaped(replayed.found->checker), Escaped(replayed.found->violation))
          : "null";
  return fmt::format(
      "\"recorded\":{{\"checker\":\"{}\",\"violation\":\"{}\",\"build\":\"{}\","
      "\"reproduced\":{},\"this_run\":{},\"this_build\":\"{}\"}}",
      Escaped(recorded.checker), Escaped(recorded.violation), Escaped(recorded.build),
      replayed.reproduced, found, BuildId());
}

// The text report of a run: its steps, the checkers, the verdict.
void PrintReport(std::ostream& out, const scenarios::Scenario& scenario,
                 const scenarios::ScenarioResult& result,
                 const std::vector<FaultsFired::Fired>& fired) {
  out << fmt::format("{} (seed {}): {}\n\n", scenario.name, result.seed, scenario.title);
  PrintSteps(out, result, fired);
  out << "\nCheckers over the whole run\n";
  for (const scenarios::CheckResult& check : result.checkers) {
    out << fmt::format("    {} {}{}\n", check.held ? "ok  " : "FAIL", check.what,
                       check.actual.empty() ? "" : ": " + scenarios::OneLine(check.actual, 140));
  }
  for (const std::string& note : result.notes) out << "\nnote: " << note << "\n";
  if (scenario.recorded) out << "\n" << Reproduced(scenario, result) << "\n";
  out << fmt::format("\n{}: {} steps, virtual time {}, trace hash {:016x}\n",
                     result.passed            ? "pass"
                     : result.stopped.empty() ? "FAIL"
                                              : "STOPPED",
                     result.steps.size(), sim::FormatTime(result.virtual_time), result.trace_hash);
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

// `run`'s flags, as parsed.
struct RunFlags {
  std::string name;
  std::optional<std::uint64_t> seed;
  bool json = false;
  bool timeline = false;
  bool raw_timeline = false;
  std::string only;
  std::string kinds;
  bool probes = false;
  bool check_determinism = false;
  std::string trace_path;     // Empty: none; "-": standard output.
  std::string perfetto_path;  // Likewise.
  scenarios::InputLimits limits;
};

// What is wrong with a comma-separated list flag, or empty.
std::string ReadList(std::string_view flag, const std::string& text, std::set<std::string>& into) {
  std::vector<std::string> items = SplitCommas(text);
  if (items.empty()) return fmt::format("{} needs at least one name, got '{}'", flag, text);
  for (std::string& item : items) into.insert(std::move(item));
  return {};
}

// What is wrong with the timeline flags, or empty; `filter` and whether a
// timeline was asked for, when nothing is.
std::string ReadTimelineFlags(const RunFlags& flags, scenarios::TimelineFilter& filter,
                              bool& timeline) {
  filter.probes = flags.probes;
  timeline = flags.timeline || flags.probes || !flags.only.empty() || !flags.kinds.empty();
  for (const auto& [flag, text, into] : {std::tuple{"--only", &flags.only, &filter.services},
                                         std::tuple{"--kinds", &flags.kinds, &filter.kinds}}) {
    if (text->empty()) continue;
    if (std::string problem = ReadList(flag, *text, *into); !problem.empty()) return problem;
  }
  if (timeline && flags.raw_timeline) {
    return "give --timeline (or --only, --kinds, --probes) or --raw-timeline, not both";
  }
  for (const std::string& kind : filter.kinds) {
    const auto& kinds = scenarios::TimelineKinds();
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
      return fmt::format("--kinds: no kind '{}' (kinds: {})", kind, fmt::join(kinds, ", "));
    }
  }
  return {};
}

// What is wrong with where the outputs go, or empty: standard output holds
// one thing, and two files are two.
std::string CheckOutputs(const RunFlags& flags) {
  const bool trace_out = IsStandardOutput(flags.trace_path);
  const bool perfetto_out = IsStandardOutput(flags.perfetto_path);
  if (!flags.trace_path.empty() && !flags.perfetto_path.empty() &&
      std::filesystem::path(flags.trace_path).lexically_normal() ==
          std::filesystem::path(flags.perfetto_path).lexically_normal()) {
    return "--trace and --perfetto name the same file, '" + flags.trace_path + "'";
  }
  if ((trace_out || perfetto_out) && flags.json) {
    return fmt::format("{} - and --json both want standard output",
                       trace_out ? "--trace" : "--perfetto");
  }
  return {};
}

// The sinks a run writes to, as the flags ask, and their files. `side` is
// where the timelines go (standard error when standard output holds the
// JSON or a trace).
class RunSinks {
 public:
  // False after saying which file could not be opened.
  bool Open(const RunFlags& flags, const scenarios::Scenario& scenario,
            const scenarios::TimelineFilter& filter, bool timeline, std::ostream& side,
            scenarios::RunOptions& options) {
    if (!flags.trace_path.empty()) {
      const bool out = IsStandardOutput(flags.trace_path);
      if (!out && !OpenFile(trace_file_, "--trace", flags.trace_path)) return false;
      json_sink_.emplace(out ? std::cout : trace_file_->stream());
      options.sinks.push_back(&*json_sink_);
    }
    if (timeline) {
      readable_.emplace(side, scenario, filter);
      options.sinks.push_back(&*readable_);
      options.before_step = [this](std::size_t step) { readable_->MarkStep(step); };
      options.observe = [this, steps = scenario.steps.size()](std::size_t step, scenarios::World&) {
        if (step == steps) readable_->Close();
      };
    }
    if (flags.raw_timeline) {
      text_sink_.emplace(side);
      options.sinks.push_back(&*text_sink_);
    }
    if (!flags.perfetto_path.empty()) {
      if (!IsStandardOutput(flags.perfetto_path) &&
          !OpenFile(perfetto_file_, "--perfetto", flags.perfetto_path)) {
        return false;
      }
      options.sinks.push_back(&perfetto_);
    }
    return true;
  }

  // After the run: the timeline's last words, the Perfetto file. False
  // after saying which file could not be written (a full disk must not
  // pass for a written file).
  bool Close(const RunFlags& flags, std::ostream& side) {
    if (readable_) {
      readable_->Finish();
      side << "\n";
    }
    if (!flags.perfetto_path.empty()) {
      (IsStandardOutput(flags.perfetto_path) ? std::cout : perfetto_file_->stream())
          << perfetto_.Json();
    }
    for (auto [flag, path, file] :
         {std::tuple{"--trace", &flags.trace_path, &trace_file_},
          std::tuple{"--perfetto", &flags.perfetto_path, &perfetto_file_}}) {
      // Each file appears whole at its path, or not at all.
      if (!path->empty() && !IsStandardOutput(*path) && !(*file)->Commit()) {
        CannotWrite("run", flag, *path);
        return false;
      }
    }
    return true;
  }

 private:
  static bool OpenFile(std::optional<StagedFile>& file, std::string_view flag,
                       const std::string& path) {
    file.emplace(path);
    if (file->good()) return true;
    CannotWrite("run", flag, path);
    return false;
  }

  std::optional<StagedFile> trace_file_;
  std::optional<sim::JsonLinesSink> json_sink_;
  std::optional<sim::TextSink> text_sink_;
  std::optional<scenarios::ReadableTimeline> readable_;
  std::optional<StagedFile> perfetto_file_;
  scenarios::PerfettoSink perfetto_;
};

// Whether two more runs from `seed` give `result`'s trace hash; when not,
// the first event where they part.
std::pair<bool, std::string> CheckDeterminism(const scenarios::Scenario& scenario,
                                              std::uint64_t seed,
                                              const scenarios::ScenarioResult& result) {
  const scenarios::ScenarioResult again = scenarios::RunScenario(scenario, {.seed = seed});
  if (again.trace_hash == result.trace_hash) return {true, {}};
  // Run both again, recorded, to name the first event where they part.
  constexpr std::size_t kRecorded = 1'000'000;
  sim::RecordingSink left(kRecorded);
  sim::RecordingSink right(kRecorded);
  (void)scenarios::RunScenario(scenario, {.seed = seed, .sinks = {&left}});
  (void)scenarios::RunScenario(scenario, {.seed = seed, .sinks = {&right}});
  const std::optional<sim::Divergence> first =
      sim::FindFirstDivergence(left.events(), right.events());
  return {false, first ? first->Describe() : "(the recorded prefixes agree)"};
}

int RunScenarioCommand(const RunFlags& flags) {
  scenarios::TimelineFilter filter;
  bool timeline = false;
  if (std::string problem = ReadTimelineFlags(flags, filter, timeline); !problem.empty()) {
    return BadInput(problem, "run");
  }
  if (std::string problem = CheckOutputs(flags); !problem.empty()) return BadInput(problem, "run");
  // Standard output holds one thing: the JSON object, a trace named -, or
  // the report. Everything else (a timeline, the report) goes to stderr.
  const bool trace_elsewhere =
      IsStandardOutput(flags.trace_path) || IsStandardOutput(flags.perfetto_path);
  std::ostream& report = trace_elsewhere ? std::cerr : std::cout;
  std::ostream& side = flags.json || trace_elsewhere ? std::cerr : std::cout;
  // A name from the catalogue (which wins over a file of that name in the
  // directory), or a scenario file.
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* scenario = NamedOrFile(flags.name, from_file, flags.limits);
  if (scenario == nullptr) return kExitBadInput;
  const std::uint64_t seed = flags.seed.value_or(scenario->seed);
  if (const std::string unknown = UnknownHost(*scenario, filter.services); !unknown.empty()) {
    return BadInput(unknown, "run");
  }
  scenarios::RunOptions options{.seed = seed};
  FaultsFired fired;
  options.sinks.push_back(&fired);
  RunSinks sinks;
  if (!sinks.Open(flags, *scenario, filter, timeline, side, options)) return kExitBadInput;
  const scenarios::ScenarioResult result = scenarios::RunScenario(*scenario, options);
  if (!sinks.Close(flags, side)) return kExitBadInput;
  const auto [deterministic, divergence] = flags.check_determinism
                                               ? CheckDeterminism(*scenario, seed, result)
                                               : std::pair<bool, std::string>{true, {}};
  if (flags.json) {
    std::string object = Json(result);
    if (scenario->recorded)
      object.insert(object.size() - 2, "," + ReproducedJson(*scenario, result));
    if (flags.check_determinism) {
      object.insert(object.size() - 2,
                    fmt::format(",\"deterministic\":{},\"divergence\":\"{}\"",
                                deterministic ? "true" : "false", Escaped(divergence)));
    }
    std::cout << object;
  } else {
    PrintReport(report, *scenario, result, fired.fired());
    if (flags.check_determinism) {
      report << (deterministic ? "determinism: the same seed gave the same trace hash twice\n"
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
    return BadInput("the run stopped: " + result.stopped, "run");
  }
  return result.passed && deterministic ? kExitOk : kExitFailureFound;
}

}  // namespace

CommandRun DefineRun(CLI::App& command) {
  auto flags = std::make_shared<RunFlags>();
  command.add_option("scenario", flags->name, "a catalogue name or a scenario file")
      ->required()
      ->type_name(kScenarioValue);
  AddSeed(command, flags->seed, "the seed (default: the scenario's, else 1)");
  command.add_flag("--json", flags->json,
                   "print one JSON object instead (scenario, seed, verdict, trace_hash, "
                   "virtual_time_ns, wall_time_ms, steps, ...)");
  command.add_flag("--timeline", flags->timeline,
                   "print the run as a readable timeline (to stderr with --json): a marker at each "
                   "step, one line per message, statements with their bound values, logs, "
                   "crashes and faults");
  command
      .add_option("--only", flags->only,
                  "the timeline of these services (or hosts: client, ycqlsh, migrate, dockerd) "
                  "only; implies --timeline")
      ->type_name("S1,S2")
      ->check(Given());
  command
      .add_option("--kinds", flags->kinds,
                  "the timeline of these kinds only: net, cql, log, container, process, "
                  "migrate, fault, operator, volume, other; implies --timeline")
      ->type_name("K1,K2")
      ->check(Given());
  command.add_flag("--probes", flags->probes,
                   "the timeline with the health probes (hidden by default)");
  command.add_flag("--raw-timeline", flags->raw_timeline,
                   "every trace event as text, one line each");
  command
      .add_option("--trace", flags->trace_path,
                  "write every trace event to FILE as JSON Lines (-: standard output)")
      ->type_name(kFileValue)
      ->check(Given());
  command
      .add_option("--perfetto", flags->perfetto_path,
                  "write Chrome Trace Event JSON for ui.perfetto.dev (-: standard output)")
      ->type_name(kFileValue)
      ->check(Given());
  command.add_flag("--check-determinism", flags->check_determinism,
                   "run twice more; fail, naming the first divergent event, if the trace hashes "
                   "differ");
  AddLimits(command, flags->limits);
  return [flags] { return RunScenarioCommand(*flags); };
}

}  // namespace faultline::app
