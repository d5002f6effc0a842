#include "app/explore_results.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/build_id.h"
#include "app/command_util.h"
#include "app/interrupt.h"
#include "scenarios/explore/explore.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/harness/runner.h"
#include "scenarios/report/perfetto.h"
#include "scenarios/report/timeline.h"
#include "sim/assert.h"
#include "sim/fnv.h"
#include "sim/trace.h"

namespace faultline::app {
namespace {

namespace fs = std::filesystem;
using scenarios::ShardFile;

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// How long the exploration took: the runs this process played, in how
// long (the rate a person compares with progress), and in all.
struct Timing {
  int played_here = 0;
  double runs_ms = 0;
  double wall_ms = 0;
  double RunsPerSecond() const { return runs_ms > 0 ? played_here * 1000.0 / runs_ms : 0.0; }
};

std::string ShrinkLog(const scenarios::Shrunk& shrunk) {
  std::string log;
  for (const scenarios::ShrinkStep& step : shrunk.log) {
    log += fmt::format("{} {}\n", step.kept ? "kept   " : "dropped", step.tried);
  }
  return log;
}

// The repro replayed once more, recorded: trace.jsonl, perfetto.json and
// timeline.txt beside it, and in `example` its first violation in its own
// words. False when a file cannot be written.
bool WriteReplay(const fs::path& dir, const scenarios::Scenario& repro, bool expectations,
                 std::string& example) {
  StagedFile trace(dir / "trace.jsonl");
  StagedFile timeline(dir / "timeline.txt");
  if (!trace.good() || !timeline.good()) return false;
  sim::JsonLinesSink json_sink(trace.stream());
  // The timeline as `run --timeline` shows it: steps marked, messages as
  // requests and answers (the raw events are in trace.jsonl).
  scenarios::ReadableTimeline readable(timeline.stream(), repro, {});
  scenarios::PerfettoSink perfetto;
  scenarios::RunOptions options{.seed = repro.seed, .sinks = {&json_sink, &readable, &perfetto}};
  options.before_step = [&readable](std::size_t step) { readable.MarkStep(step); };
  options.observe = [&readable, steps = repro.steps.size()](std::size_t step, scenarios::World&) {
    if (step == steps) readable.Close();
  };
  const scenarios::ScenarioResult replayed = scenarios::RunScenario(repro, options);
  readable.Finish();
  example = scenarios::FirstViolation(replayed, expectations);
  return trace.Commit() && timeline.Commit() && WriteWhole(dir / "perfetto.json", perfetto.Json());
}

// Group `number`'s folder, whole: written under a staging name, renamed
// into place once every file is there.
bool WriteGroup(ResultsFolder& out, std::size_t number, const scenarios::FailureGroup& group,
                bool expectations, std::string& example) {
  const fs::path dir = out.path() / fmt::format("group-{}", number);
  const fs::path staging = dir.string() + ".partial";
  out.Made(staging);
  std::error_code error;
  fs::remove_all(staging, error);
  fs::create_directories(staging, error);
  // The repro says which build recorded its failure (run compares).
  scenarios::Scenario repro = group.repro.scenario;
  if (repro.recorded) repro.recorded->build = BuildId();
  if (error || !WriteWhole(staging / "repro.toml", scenarios::ToToml(repro)) ||
      !WriteWhole(staging / "shrink.log", ShrinkLog(group.repro)) ||
      !WriteReplay(staging, group.repro.scenario, expectations, example)) {
    return false;
  }
  fs::rename(staging, dir, error);
  if (!error) out.Made(dir);  // Never a folder of someone else's.
  return !error;
}

// What failed first, and the groups (fault sets) that led there: the
// report's headings, the most runs first.
struct Failure {
  std::string checker;
  std::string violation;  // Its kind, as the signature has it.
  std::string example;    // Its first group's, in its own words.
  std::int64_t runs = 0;
  std::vector<std::size_t> groups;  // Indices, the most runs first.
};

std::vector<Failure> FailuresOf(const std::vector<scenarios::FailureGroup>& groups,
                                const std::vector<std::string>& examples) {
  FL_ASSERT(examples.size() == groups.size());
  std::vector<Failure> failures;
  std::map<std::pair<std::string, std::string>, std::size_t> by_kind;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const scenarios::Signature& signature = groups[i].signature;
    const auto [at, added] =
        by_kind.emplace(std::pair(signature.checker, signature.violation), failures.size());
    if (added) failures.push_back({signature.checker, signature.violation, examples[i]});
    Failure& failure = failures[at->second];
    failure.runs += groups[i].count;
    failure.groups.push_back(i);
  }
  for (Failure& failure : failures) {
    std::stable_sort(
        failure.groups.begin(), failure.groups.end(),
        [&](std::size_t a, std::size_t b) { return groups[a].count > groups[b].count; });
  }
  std::stable_sort(failures.begin(), failures.end(),
                   [](const Failure& a, const Failure& b) { return a.runs > b.runs; });
  return failures;
}

std::string JsonStrings(const std::vector<std::string>& texts) {
  std::string list;
  for (const std::string& text : texts) {
    list += fmt::format("{}\"{}\"", list.empty() ? "" : ",", Escaped(text));
  }
  return "[" + list + "]";
}

std::string SummaryJson(const std::string& name, const ShardFile& shard,
                        const std::vector<scenarios::FailureGroup>& groups,
                        const std::vector<std::string>& examples, const Timing& timing,
                        std::uint64_t runs_asked, bool interrupted) {
  std::string list;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const scenarios::FailureGroup& group = groups[i];
    list += fmt::format(
        "{}{{\"checker\":\"{}\",\"violation\":\"{}\",\"example\":\"{}\",\"kinds\":{},"
        "\"faults\":{},\"fault_sets\":{},"
        "\"count\":{},\"first_seed\":{},\"world_seed\":{},\"fault_events\":{},"
        "\"repro_fault_events\":{},\"shrunk\":{},\"repro\":\"group-{}/repro.toml\"}}",
        i == 0 ? "" : ",", Escaped(group.signature.checker), Escaped(group.signature.violation),
        Escaped(examples[i]), JsonStrings(group.kinds), JsonStrings(group.signature.faults),
        group.fault_sets, group.count, group.first_seed, group.world_seed, group.drawn_events,
        group.repro_drawn_events, group.shrunk, i + 1);
  }
  std::string failures;
  for (const Failure& failure : FailuresOf(groups, examples)) {
    std::vector<std::string> numbers;
    for (const std::size_t i : failure.groups) numbers.push_back(std::to_string(i + 1));
    failures += fmt::format(
        "{}{{\"checker\":\"{}\",\"violation\":\"{}\",\"example\":\"{}\",\"runs\":{},"
        "\"groups\":[{}]}}",
        failures.empty() ? "" : ",", Escaped(failure.checker), Escaped(failure.violation),
        Escaped(failure.example), failure.runs, fmt::join(numbers, ","));
  }
  return fmt::format(
      "{{\"scenario\":\"{}\",\"runs\":{},\"runs_asked\":{},\"interrupted\":{},\"first_seed\":{},"
      "\"batch\":{},\"wall_time_ms\":{:.1f},\"runs_time_ms\":{:.1f},\"runs_per_second\":{:.1f},"
      "\"failures\":[{}],\"groups\":[{}]}}\n",
      Escaped(name), shard.runs_done, runs_asked, interrupted, shard.seed, shard.batch,
      timing.wall_ms, timing.runs_ms, timing.RunsPerSecond(), failures, list);
}

// The report, top-down: each failure (what failed first, an example in
// its own words, its runs), then under it its groups, the most runs
// first, at most `top` of them, each with the drawn faults that remain
// and the command that replays its repro.
void PrintReport(const scenarios::Scenario& workload, const ShardFile& shard,
                 const ResultsFolder& out, const std::vector<scenarios::FailureGroup>& groups,
                 const std::vector<std::string>& examples, const Timing& timing, int top,
                 std::uint64_t runs_asked, bool interrupted) {
  const std::vector<Failure> failures = FailuresOf(groups, examples);
  if (interrupted) {
    const auto unshrunk = std::count_if(groups.begin(), groups.end(),
                                        [](const scenarios::FailureGroup& g) { return !g.shrunk; });
    std::cout << fmt::format(
        "interrupted: {} of {} runs played; {} group(s) left unshrunk (each repro is its first "
        "failure as drawn)\n",
        shard.runs_done, runs_asked, unshrunk);
  } else if (static_cast<std::uint64_t>(shard.runs_done) < runs_asked) {
    // Only --time ends an exploration early otherwise (said, as a user asked:
    // "624 runs" alone read as if 624 were asked).
    // (--time alone asks for kMaxRuns: as many as fit.)
    std::cout << (shard.runs == static_cast<int>(scenarios::kMaxRuns)
                      ? fmt::format("the --time limit ended it after {} runs\n", shard.runs_done)
                      : fmt::format("the --time limit ended it after {} of the {} runs asked\n",
                                    shard.runs_done, runs_asked));
  }
  std::int64_t failed = 0;
  for (const scenarios::FailureGroup& group : groups) failed += group.count;
  std::cout << fmt::format(
      "{}: {} run{}, {} failed: {} failure(s) in {} group(s){}; results in {}\n", workload.name,
      shard.runs_done, shard.runs_done == 1 ? "" : "s", failed, failures.size(), groups.size(),
      timing.played_here > 0 ? fmt::format(" ({:.0f} runs/s)", timing.RunsPerSecond()) : "",
      out.path().string());
  for (const Failure& failure : failures) {
    std::cout << fmt::format("\n{} failed: {} ({} run(s), {} group(s))\n", failure.checker,
                             failure.example.empty() ? failure.violation : failure.example,
                             failure.runs, failure.groups.size());
    std::int64_t hidden_runs = 0;
    for (std::size_t shown = 0; shown < failure.groups.size(); ++shown) {
      const std::size_t i = failure.groups[shown];
      const scenarios::FailureGroup& group = groups[i];
      if (shown >= static_cast<std::size_t>(top)) {
        hidden_runs += group.count;
        continue;
      }
      const std::string kinds =
          group.kinds.empty() ? "no drawn fault" : fmt::format("{}", fmt::join(group.kinds, ", "));
      std::cout << fmt::format("  {} run(s): {} (group {}, seed {}; {} -> {} drawn event(s))\n",
                               group.count, kinds, i + 1, group.first_seed, group.drawn_events,
                               group.repro_drawn_events);
      // The repro's own faults, where the kinds do not say them whole.
      if (group.kinds != group.signature.faults) {
        std::cout << fmt::format(
            "    repro: {}{}\n", fmt::join(group.signature.faults, ", "),
            group.fault_sets > 1 ? fmt::format(" (one of {} fault sets)", group.fault_sets) : "");
      }
      std::cout << fmt::format(
          "    faultline run {}\n",
          (out.path() / fmt::format("group-{}", i + 1) / "repro.toml").string());
    }
    if (failure.groups.size() > static_cast<std::size_t>(top)) {
      std::cout << fmt::format("  and {} more group(s), {} run(s): --top or summary.json\n",
                               failure.groups.size() - static_cast<std::size_t>(top), hidden_runs);
    }
  }
}

}  // namespace

std::string ScenarioDigest(const scenarios::Scenario& scenario) {
  return fmt::format("{:016x}", sim::Fnv1a64(scenarios::ToToml(scenario)));
}

std::string NotThisExploration(const ShardFile& shard, const scenarios::Scenario& workload) {
  if (!shard.build.empty() && shard.build != BuildId()) {
    return fmt::format(
        "explored by another build of faultline (build {}; this is build {}): its runs would "
        "not replay the same here; finish it with the build that explored it",
        shard.build, BuildId());
  }
  if (const std::string digest = ScenarioDigest(workload);
      !shard.scenario_digest.empty() && shard.scenario_digest != digest) {
    return fmt::format(
        "{} has changed since it was explored (digest {}, now {}): its runs would not replay "
        "the same; explore it again",
        shard.scenario, shard.scenario_digest, digest);
  }
  return {};
}

void AddTop(CLI::App& command, int& top) {
  AddNumber(command, "--top", top, 1, kMaxTop,
            fmt::format("the groups the report shows under each failure, the most runs first "
                        "(default {}; summary.json holds every group)",
                        kDefaultTop));
}

int FinishExploration(const scenarios::Scenario& workload, ShardFile shard, ResultsFolder& out,
                      bool json, int top, const RunsPlayed& played,
                      const std::function<bool()>& should_stop, ExploreProgress* progress,
                      std::string_view command) {
  FL_ASSERT(top >= 1);
  FL_ASSERT(played.here >= 0 && played.here <= shard.runs_done);
  Timing timing{.played_here = played.here, .runs_ms = MillisecondsSince(played.started)};
  scenarios::ShrinkProgress on_shrink;
  if (progress != nullptr) {
    on_shrink = [progress](std::size_t group, std::size_t groups, int tried) {
      progress->Shrinking(group, groups, tried);
    };
  }
  const std::vector<scenarios::FailureGroup> groups = scenarios::ShrinkGroups(
      workload, shard.groups, shard.bounds, shard.expectations, should_stop, on_shrink);
  if (progress != nullptr) progress->ShrinkingEnded(groups.size());
  const bool interrupted = should_stop && should_stop();
  // This shard's own runs (with --time alone, every run --runs allows).
  const std::uint64_t runs_asked =
      scenarios::RunsInShard(static_cast<std::uint64_t>(shard.runs), shard.shard, shard.batch);
  std::vector<std::string> examples(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (!WriteGroup(out, i + 1, groups[i], shard.expectations, examples[i])) {
      const int status =
          CannotWrite(command, "--out", (out.path() / fmt::format("group-{}", i + 1)).string());
      out.Abandon();
      return status;
    }
  }
  timing.wall_ms = MillisecondsSince(played.started);
  const std::string summary =
      SummaryJson(workload.name, shard, groups, examples, timing, runs_asked, interrupted);
  // summary.json last: its presence says the folder is complete.
  out.Made(out.path() / "groups.tsv");
  out.Made(out.path() / "summary.json");
  if (!WriteWhole(out.path() / "groups.tsv", scenarios::ShardText(shard)) ||
      !WriteWhole(out.path() / "summary.json", summary)) {
    const int status = CannotWrite(command, "--out", out.path().string());
    out.Abandon();
    return status;
  }
  // Finished: the folder moves into place whole (a failure keeps it where
  // it is, complete: nothing is lost), then the runs' journal is spent
  // (kept when interrupted, for --resume).
  if (!out.Complete()) {
    const int why = errno;
    const int status = CannotWrite(command, "--out", out.final_path().string());
    std::cerr << fmt::format(
        "faultline: {}: the results are complete in {} ({}); move them "
        "there yourself\n",
        command, out.path().string(), std::strerror(why));
    return status;
  }
  std::error_code ignored;
  if (!interrupted) fs::remove_all(out.path() / kJournalFolder, ignored);
  if (json) {
    std::cout << summary;
  } else {
    PrintReport(workload, shard, out, groups, examples, timing, top, runs_asked, interrupted);
  }
  if (!groups.empty()) return kExitFailureFound;
  // Stopped with nothing found: the property was not checked whole.
  return interrupted ? 128 + StopOnInterrupt::Signal() : kExitOk;
}

}  // namespace faultline::app
