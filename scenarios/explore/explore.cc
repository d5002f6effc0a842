#include "scenarios/explore/explore.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>
#include <variant>

#include "scenarios/steps/steps.h"
#include "sim/assert.h"

namespace faultline::scenarios {

bool InShard(std::uint64_t run, const Shard& shard) {
  FL_ASSERT(shard.count >= 1 && shard.index < shard.count);
  return run % shard.count == shard.index;
}

std::vector<DrawnGroup> ExploreRuns(const Scenario& workload, const ExploreOptions& options,
                                    int* runs_done) {
  FL_ASSERT(options.runs >= 0);
  const auto started = std::chrono::steady_clock::now();
  std::vector<DrawnGroup> groups;
  std::map<std::string, std::size_t> by_key;  // Signature::Key -> index in groups.
  int done = 0;
  for (int run = 0; run < options.runs; ++run) {
    if (!InShard(static_cast<std::uint64_t>(run), options.shard)) continue;
    if (options.wall_time_limit &&
        std::chrono::steady_clock::now() - started >= *options.wall_time_limit) {
      break;
    }
    const std::uint64_t seed = options.seed + static_cast<std::uint64_t>(run);
    const Scenario drawn = DrawSchedule(workload, seed, options.bounds);
    const ScenarioResult played = RunScenario(drawn, {.seed = seed});
    ++done;
    if (const std::optional<Signature> signature =
            SignatureOf(drawn, played, options.expectations)) {
      auto [found, inserted] = by_key.emplace(signature->Key(), groups.size());
      if (inserted) {
        groups.push_back(DrawnGroup{*signature, 0, seed});
        if (options.on_new_group) options.on_new_group(*signature, seed);
      }
      ++groups[found->second].count;
    }
    if (options.on_progress) options.on_progress(done, static_cast<int>(groups.size()));
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
      found->second.first_seed = std::min(found->second.first_seed, group.first_seed);
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

// The repro's story: where it was found, the schedule that remains after
// shrinking (each fault and fault step, in order), and what fails.
std::string RemainingSchedule(const FailureGroup& group, const std::string& workload) {
  const Scenario& repro = group.repro.scenario;
  std::vector<std::string> events;
  if (!repro.crash_site.empty()) {
    events.push_back(fmt::format("crash at {} (hit {})", repro.crash_site, repro.crash_hit));
  }
  for (const FaultSpec& fault : repro.faults) events.push_back(DescribeFault(fault));
  for (std::size_t i = 0; i < repro.steps.size(); ++i) {
    const Step& step = repro.steps[i];
    if (StepKindOf(step).fault) {
      events.push_back(fmt::format("{} at step {}", StepKindOf(step).show(step), i + 1));
    }
  }
  return fmt::format(
      "Found by faultline explore in {} from seed {} ({} fault events drawn), shrunk to {}: {}. "
      "Then {} fails: {}.",
      workload, group.first_seed, FaultEventCount(group.first), FaultEventCount(repro),
      fmt::join(events, "; "), group.signature.checker, group.signature.violation);
}

}  // namespace

std::vector<FailureGroup> ShrinkGroups(const Scenario& workload,
                                       const std::vector<DrawnGroup>& drawn,
                                       const ExploreBounds& bounds, bool expectations) {
  std::vector<FailureGroup> merged;
  std::map<std::string, std::size_t> by_repro;  // The repro's Signature::Key -> index in merged.
  for (const DrawnGroup& found : drawn) {
    FailureGroup group{found.signature,
                       found.count,
                       found.first_seed,
                       DrawSchedule(workload, found.first_seed, bounds),
                       {}};
    group.repro =
        Shrink(group.first, group.first_seed, group.signature, {.expectations = expectations});
    group.repro.scenario.seed = group.first_seed;
    group.repro.scenario.name = workload.name + "-repro";
    group.repro.scenario.title =
        fmt::format("Found by faultline explore in {}: {} fails ({})", workload.name,
                    group.signature.checker, group.signature.violation);
    group.repro.scenario.lesson.clear();  // The workload's lesson is not this failure's.
    group.repro.scenario.story = RemainingSchedule(group, workload.name);
    // The signature of what remains: the same failure, fewer faults.
    group.signature.faults = SignatureFaults(group.repro.scenario);
    auto [at, inserted] = by_repro.emplace(group.signature.Key(), merged.size());
    if (inserted) {
      merged.push_back(std::move(group));
    } else {
      // Groups come by first seed, so the one kept has the first seed.
      merged[at->second].count += group.count;
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
