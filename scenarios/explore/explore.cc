#include "scenarios/explore/explore.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>
#include <tuple>
#include <variant>

#include "scenarios/checkers/checkers.h"
#include "scenarios/harness/variants.h"
#include "scenarios/steps/steps.h"
#include "sim/assert.h"

namespace faultline::scenarios {

std::uint64_t WorldSeedOf(std::uint64_t seed, std::uint64_t run, int batch) {
  FL_ASSERT(batch >= 1 && batch <= kMaxBatch);
  const auto size = static_cast<std::uint64_t>(batch);
  return seed + run / size * size;
}

bool InShard(std::uint64_t run, const Shard& shard, int batch) {
  FL_ASSERT(shard.count >= 1 && shard.index < shard.count);
  FL_ASSERT(batch >= 1 && batch <= kMaxBatch);
  return run / static_cast<std::uint64_t>(batch) % shard.count == shard.index;
}

std::uint64_t RunsInShard(std::uint64_t runs, const Shard& shard, int batch) {
  FL_ASSERT(shard.count >= 1 && shard.index < shard.count);
  FL_ASSERT(batch >= 1 && batch <= kMaxBatch);
  const auto size = static_cast<std::uint64_t>(batch);
  const std::uint64_t batches = (runs + size - 1) / size;
  // Batch b is this shard's when b % count == index; the last may be short.
  const std::uint64_t mine =
      batches > shard.index ? (batches - 1 - shard.index) / shard.count + 1 : 0;
  if (mine == 0) return 0;
  const std::uint64_t last = shard.index + (mine - 1) * shard.count;
  return (mine - 1) * size + std::min(size, runs - last * size);
}

namespace {

// What failed in a run, as a child sends it: empty when nothing did;
// otherwise the checker's length, ':', the checker and the violation.
std::string FailureText(const Scenario& drawn, const ScenarioResult& played, bool expectations) {
  const std::optional<Signature> signature = SignatureOf(drawn, played, expectations);
  if (!signature) return {};
  return fmt::format("{}:{}{}", signature->checker.size(), signature->checker,
                     signature->violation);
}

// The signature of a run whose failure a child sent as `text`: its faults
// those drawn, not the workload's own.
std::optional<Signature> SignatureOfText(const Scenario& workload, const Scenario& drawn,
                                         std::string_view text) {
  if (text.empty()) return std::nullopt;
  const std::size_t colon = text.find(':');
  FL_ASSERT_MSG(colon != std::string_view::npos, "a run's failure without its checker: {}", text);
  const std::size_t length = std::stoul(std::string(text.substr(0, colon)));
  FL_ASSERT(colon + 1 + length <= text.size());
  return Signature{std::string(text.substr(colon + 1, length)),
                   std::string(text.substr(colon + 1 + length)),
                   Distinct(DrawnFaultEvents(drawn, workload))};
}

// What failed in each of a batch's runs, all on `world_seed`: the
// workload played once, each run forked where it parts from it; or each
// from empty.
std::vector<std::string> PlayBatch(const Scenario& workload, const std::vector<Scenario>& drawn,
                                   std::uint64_t world_seed, const ExploreOptions& options,
                                   bool forked) {
  FL_ASSERT(!drawn.empty());
  if (!forked || drawn.size() == 1) {
    std::vector<std::string> failed;
    for (const Scenario& run : drawn) {
      failed.push_back(
          FailureText(run, RunScenario(run, {.seed = world_seed}), options.expectations));
    }
    return failed;
  }
  std::vector<const Scenario*> variants;
  for (const Scenario& run : drawn) variants.push_back(&run);
  return RunVariants(workload, {.seed = world_seed}, variants,
                     [&](std::size_t i, const ScenarioResult& played) {
                       return FailureText(drawn[i], played, options.expectations);
                     });
}

}  // namespace

std::vector<DrawnGroup> ExploreRuns(const Scenario& workload, const ExploreOptions& options,
                                    int* runs_done) {
  FL_ASSERT(options.runs >= 0);
  FL_ASSERT(options.batch >= 1 && options.batch <= kMaxBatch);
  const auto started = std::chrono::steady_clock::now();
  std::vector<DrawnGroup> groups;
  std::map<std::string, std::size_t> by_key;  // Signature::Key -> index in groups.
  int done = 0;
  int failed_runs = 0;
  const auto runs = static_cast<std::uint64_t>(options.runs);
  const auto batch = static_cast<std::uint64_t>(options.batch);
  BatchPlayChooser chooser(options.play);
  for (std::uint64_t first = 0; first < runs; first += batch) {
    if (!InShard(first, options.shard, options.batch)) continue;
    if (options.wall_time_limit &&
        std::chrono::steady_clock::now() - started >= *options.wall_time_limit) {
      break;
    }
    if (options.should_stop && options.should_stop()) break;
    if (options.played_before && options.played_before(first)) continue;
    std::vector<Scenario> drawn;
    for (std::uint64_t run = first; run < std::min(runs, first + batch); ++run) {
      drawn.push_back(DrawSchedule(workload, options.seed + run, options.bounds));
    }
    const std::uint64_t world = WorldSeedOf(options.seed, first, options.batch);
    const bool forked = chooser.Forks(drawn.size());
    const auto batch_started = std::chrono::steady_clock::now();
    const std::vector<std::string> failed = PlayBatch(workload, drawn, world, options, forked);
    chooser.Played(forked, drawn.size(), std::chrono::steady_clock::now() - batch_started);
    FL_ASSERT(failed.size() == drawn.size());
    std::vector<DrawnGroup> batch_failed;
    for (std::size_t i = 0; i < drawn.size(); ++i) {
      ++done;
      const std::uint64_t seed = options.seed + first + i;
      if (const std::optional<Signature> signature =
              SignatureOfText(workload, drawn[i], failed[i])) {
        batch_failed.push_back(DrawnGroup{*signature, 1, seed, world});
        ++failed_runs;
        auto [found, inserted] = by_key.emplace(signature->Key(), groups.size());
        if (inserted) groups.push_back(DrawnGroup{*signature, 0, seed, world});
        ++groups[found->second].count;
      }
      if (options.on_progress) options.on_progress(done, failed_runs);
    }
    if (options.on_batch) options.on_batch(first, drawn.size(), batch_failed);
  }
  if (runs_done != nullptr) *runs_done = done;
  return groups;
}

std::vector<DrawnGroup> MergeDrawnGroups(const std::vector<std::vector<DrawnGroup>>& parts) {
  std::map<std::string, DrawnGroup> by_key;
  for (const std::vector<DrawnGroup>& part : parts) {
    for (const DrawnGroup& group : part) {
      auto [found, inserted] = by_key.emplace(group.signature.Key(), group);
      if (inserted) continue;
      found->second.count += group.count;
      if (group.first_seed < found->second.first_seed) {
        found->second.first_seed = group.first_seed;
        found->second.world_seed = group.world_seed;
      }
    }
  }
  std::vector<DrawnGroup> merged;
  for (auto& [key, group] : by_key) merged.push_back(std::move(group));
  // In the order a single run would have found them: by first seed.
  std::sort(merged.begin(), merged.end(),
            [](const DrawnGroup& a, const DrawnGroup& b) { return a.first_seed < b.first_seed; });
  return merged;
}

namespace {

// The repro's story: where it was found, the drawn events that remain
// after shrinking (each fault and fault step, in order), the workload's
// own that remain, said apart, and what fails.
std::string RemainingSchedule(const FailureGroup& group, const Scenario& workload) {
  // The workload's own events are its first of each name (DrawnFaultEvents).
  std::multiset<std::string> own = FaultEventNames(workload);
  std::vector<std::string> drawn_words;
  std::vector<std::string> own_words;
  for (FaultEvent& event : FaultEventsOf(group.repro.scenario)) {
    if (const auto found = own.find(event.name); found != own.end()) {
      own.erase(found);
      own_words.push_back(std::move(event.words));
    } else {
      drawn_words.push_back(std::move(event.words));
    }
  }
  FL_ASSERT(drawn_words.size() == group.repro_drawn_events);
  return fmt::format(
      "Found by faultline explore in {} from seed {}{} ({} fault events drawn), {} {}: "
      "{}{}. Then {} fails: {}.",
      workload.name, group.first_seed,
      group.world_seed == group.first_seed
          ? ""
          : fmt::format(" (on the world of seed {})", group.world_seed),
      group.drawn_events,
      group.shrunk ? "shrunk to" : "not shrunk (the exploration was interrupted), all",
      group.repro_drawn_events,
      drawn_words.empty() ? "none" : fmt::format("{}", fmt::join(drawn_words, "; ")),
      own_words.empty() ? ""
                        : fmt::format(" (with the workload's own: {})", fmt::join(own_words, "; ")),
      group.signature.checker, group.signature.violation);
}

// The checkers a shrunk run is held to: the workload's, less those its
// drawn events that remain exempt (a down -v takes the data away by the
// operator's hand). The drawn schedule exempted them for events shrinking
// may have dropped; a repro that keeps none has no reason to.
std::map<std::string, bool> CheckersOfWhatRemains(const Scenario& run, const Scenario& workload) {
  std::map<std::string, bool> checkers = workload.checkers;
  for (const std::string& event : DrawnFaultEvents(run, workload)) {
    for (const CheckerSpec& checker : WholeRunCheckers()) {
      if (ExemptedBy(checker, event)) checkers[std::string(checker.name)] = false;
    }
  }
  return checkers;
}

// The repro held to the checkers of what remains in it, if it fails the
// same way so (one more run); otherwise as the shrinker left it.
void DropSpentExemptions(Shrunk& repro, const Scenario& workload, std::uint64_t world_seed,
                         const Signature& signature, bool expectations) {
  std::map<std::string, bool> checkers = CheckersOfWhatRemains(repro.scenario, workload);
  if (checkers == repro.scenario.checkers) return;
  Scenario held = repro.scenario;
  held.checkers = std::move(checkers);
  const ScenarioResult played = RunScenario(held, {.seed = world_seed});
  const std::optional<Signature> found = SignatureOf(held, played, expectations);
  if (!found || found->checker != signature.checker || found->violation != signature.violation) {
    return;
  }
  // Every checker held to again must hold, not only those before the
  // first that fails: the repro fails only as recorded.
  for (const CheckResult& verdict : played.checkers) {
    const auto was = repro.scenario.checkers.find(verdict.checker);
    const bool exempt_before = was != repro.scenario.checkers.end() && !was->second;
    if (exempt_before && verdict.expected_to_hold && !verdict.held) return;
  }
  repro.scenario = std::move(held);
}

}  // namespace

std::vector<FailureGroup> ShrinkGroups(const Scenario& workload,
                                       const std::vector<DrawnGroup>& drawn,
                                       const ExploreBounds& bounds, bool expectations,
                                       const std::function<bool()>& should_stop,
                                       const ShrinkProgress& on_shrink) {
  std::vector<FailureGroup> merged;
  // The failure and its repro's kinds of fault -> index in merged.
  std::map<std::tuple<std::string, std::string, std::vector<std::string>>, std::size_t> by_kinds;
  std::set<std::string> fault_sets;  // Signature::Key of each repro merged.
  for (std::size_t index = 0; index < drawn.size(); ++index) {
    const DrawnGroup& found = drawn[index];
    FailureGroup group{found.signature,
                       found.count,
                       found.first_seed,
                       found.world_seed,
                       DrawSchedule(workload, found.first_seed, bounds),
                       {}};
    if (should_stop && should_stop()) {
      group.shrunk = false;  // Its first failure as drawn: it replays, whole.
      group.repro.scenario = group.first;
    } else {
      ShrinkOptions shrinking{.expectations = expectations};
      if (on_shrink) {
        on_shrink(index, drawn.size(), 0);
        shrinking.on_try = [&](int tried) { on_shrink(index, drawn.size(), tried); };
      }
      group.repro = Shrink(group.first, group.world_seed, group.signature, shrinking);
      DropSpentExemptions(group.repro, workload, group.world_seed, group.signature, expectations);
    }
    group.repro.scenario.seed = group.world_seed;
    group.repro.scenario.name = workload.name + "-repro";
    group.repro.scenario.title =
        fmt::format("Found by faultline explore in {}: {} fails ({})", workload.name,
                    group.signature.checker, group.signature.violation);
    group.repro.scenario.lesson.clear();  // The workload's lesson is not this failure's.
    // What `run` holds a replay to (it says whether it failed so).
    group.repro.scenario.recorded =
        RecordedFailure{group.signature.checker, group.signature.violation};
    group.drawn_events = DrawnFaultEvents(group.first, workload).size();
    const std::multiset<std::string> remaining = DrawnFaultEvents(group.repro.scenario, workload);
    group.repro_drawn_events = remaining.size();
    FL_ASSERT(group.repro_drawn_events <= group.drawn_events);
    group.repro.scenario.story = RemainingSchedule(group, workload);
    // The signature of what remains: the same failure, fewer drawn faults.
    group.signature.faults = Distinct(remaining);
    group.kinds = FaultKinds(group.signature.faults);
    auto [at, inserted] = by_kinds.emplace(
        std::tuple(group.signature.checker, group.signature.violation, group.kinds), merged.size());
    const bool new_fault_set = fault_sets.insert(group.signature.Key()).second;
    if (inserted) {
      merged.push_back(std::move(group));
    } else {
      // Groups come by first seed, so the one kept has the first seed.
      FailureGroup& kept = merged[at->second];
      kept.count += group.count;
      if (new_fault_set) ++kept.fault_sets;
    }
  }
  return merged;
}

ExploreResult Explore(const Scenario& workload, const ExploreOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  ExploreResult result;
  const std::vector<DrawnGroup> drawn = ExploreRuns(workload, options, &result.runs);
  result.groups = ShrinkGroups(workload, drawn, options.bounds, options.expectations);
  result.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace faultline::scenarios
