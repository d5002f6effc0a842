#include "scenarios/harness/variants.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "scenarios/harness/branches.h"
#include "scenarios/harness/cluster.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

// The step before which `variant` parts from `trunk`: the first that
// differs (or that one of them lacks); the trunk's end when only the
// checkers differ; none when neither does.
std::optional<std::size_t> PartingStep(const Scenario& trunk, const Scenario& variant) {
  const auto [at, unused] = std::mismatch(trunk.steps.begin(), trunk.steps.end(),
                                          variant.steps.begin(), variant.steps.end());
  const auto step = static_cast<std::size_t>(at - trunk.steps.begin());
  if (step < trunk.steps.size() || variant.steps.size() != trunk.steps.size()) return step;
  if (variant.checkers != trunk.checkers) return trunk.steps.size();
  return std::nullopt;
}

// The passes at which the variant's [crash] and [[fault]]s decide
// otherwise than the trunk's: each (site, hit) a rule of either names,
// where the two plans' decisions differ (a fault of either's that the
// other has too, first, decides alike). `scoped`: such a pass of one
// service's own hits, which RunVariants cannot count.
struct Differences {
  std::vector<std::pair<std::string, std::uint64_t>> passes;
  std::string scoped;
};

Differences DifferingPasses(const Scenario& trunk, const Scenario& variant) {
  std::set<std::tuple<std::string, std::uint64_t, std::string>>
      named;  // Site as planned, hit, service.
  for (const Scenario* scenario : {&trunk, &variant}) {
    if (!scenario->crash_site.empty()) named.emplace(scenario->crash_site, scenario->crash_hit, "");
    for (const FaultSpec& fault : scenario->faults) {
      named.emplace(fault.service.empty() ? fault.site : sim::ScopedSite(fault.service, fault.site),
                    fault.hit, fault.service);
    }
  }
  const std::shared_ptr<const sim::FaultPlan> trunk_plan = FaultPlanOf(trunk);
  const std::shared_ptr<const sim::FaultPlan> variant_plan = FaultPlanOf(variant);
  sim::Rng unused(0);  // An explicit plan draws nothing.
  Differences differences;
  for (const auto& [site, hit, service] : named) {
    if (trunk_plan->Decide(site, hit, unused) == variant_plan->Decide(site, hit, unused)) continue;
    if (!service.empty()) {
      differences.scoped = fmt::format("its fault at {} of {} is not the trunk's", site, service);
    }
    differences.passes.emplace_back(site, hit);
  }
  return differences;
}

// What keeps `variant` from being a variant of `trunk`, its faults aside:
// its setting, or faults of one service's own hits in one of the two
// only. Empty when nothing does.
std::string SettingProblem(const Scenario& trunk, const Scenario& variant) {
  ScenarioSetting same = variant;
  same.name = trunk.name;
  same.title = trunk.title;
  same.story = trunk.story;
  same.lesson = trunk.lesson;
  same.crash_site = trunk.crash_site;
  same.crash_hit = trunk.crash_hit;
  same.faults = trunk.faults;
  same.checkers = trunk.checkers;
  if (!(same == static_cast<const ScenarioSetting&>(trunk))) {
    return "its cluster, seed or budget is not the trunk's";
  }
  if (FaultPlanOf(trunk)->ScopesByProcess() != FaultPlanOf(variant)->ScopesByProcess()) {
    return "one of the two has faults of one service's own hits, the other none";
  }
  return {};
}

// Where each variant parts from the trunk: at a step, or at a pass of a
// site (every pass at which its faults decide otherwise; the first
// reached is it).
struct PartingPoints {
  std::map<std::size_t, std::vector<std::size_t>> at_step;
  // Site -> hit -> the variants whose faults decide otherwise there.
  std::map<std::string, std::map<std::uint64_t, std::vector<std::size_t>>, std::less<>> at_pass;
};

PartingPoints PartingPointsOf(const Scenario& trunk, const std::vector<const Scenario*>& variants) {
  PartingPoints points;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Scenario& variant = *variants[i];
    const Differences differences = DifferingPasses(trunk, variant);
    const std::string problem = SettingProblem(trunk, variant) + differences.scoped;
    FL_ASSERT_MSG(problem.empty(), "{} is no variant of {}: {}", variant.name, trunk.name, problem);
    if (const std::optional<std::size_t> step = PartingStep(trunk, variant)) {
      points.at_step[*step].push_back(i);
    }
    for (const auto& [site, hit] : differences.passes) {
      points.at_pass[site][hit].push_back(i);
    }
  }
  return points;
}

}  // namespace

std::string NotAVariant(const Scenario& trunk, const Scenario& variant) {
  const std::string problem = SettingProblem(trunk, variant);
  return problem.empty() ? DifferingPasses(trunk, variant).scoped : problem;
}

std::vector<std::string> RunVariants(
    const Scenario& trunk, const RunOptions& options, const std::vector<const Scenario*>& variants,
    const std::function<std::string(std::size_t variant, const ScenarioResult& result)>& finish,
    int max_beside) {
  FL_ASSERT(options.at_fault_pass == nullptr && options.play_on_as == nullptr);  // Set here.
  FL_ASSERT(variants.size() <= Branches::kMaxBranches);
  const PartingPoints points = PartingPointsOf(trunk, variants);
  Branches branches(max_beside, variants.size());
  std::vector<bool> forked(variants.size(), false);
  std::optional<std::size_t> taken;  // In a child: its variant.
  bool playing_its_steps = false;    // In a child: play_on_as has given its steps.
  sim::FaultInjector* faults = nullptr;
  // Forks variant i unless it was: true in the child, whose faults are the
  // variant's from here on.
  const auto fork = [&](std::size_t i) {
    if (forked[i]) return false;
    forked[i] = true;
    if (!branches.Fork(i)) return false;
    taken = i;
    FL_ASSERT(faults != nullptr);  // Set before the first step.
    faults->SetPlan(FaultPlanOf(*variants[i]));
    return true;
  };
  RunOptions run = options;
  run.play_on_as = [&](std::size_t step, Cluster& cluster) -> const Scenario* {
    faults = &cluster.world().simulation.faults();
    if (taken) {
      // Forked at a pass: its steps are the trunk's up to here (it would
      // have parted at an earlier step otherwise).
      if (playing_its_steps) return nullptr;
      playing_its_steps = true;
      return variants[*taken];
    }
    const auto here = points.at_step.find(step);
    if (here == points.at_step.end()) return nullptr;
    for (const std::size_t i : here->second) {
      if (fork(i)) {
        playing_its_steps = true;
        return variants[i];
      }
    }
    return nullptr;
  };
  run.at_fault_pass = [&](const sim::FaultPass& pass) -> std::optional<sim::FaultDecision> {
    if (taken) return std::nullopt;  // The variant's plan decides.
    const auto site = points.at_pass.find(pass.site);
    if (site == points.at_pass.end()) return std::nullopt;
    const auto here = site->second.find(pass.hit);
    if (here == site->second.end()) return std::nullopt;
    for (const std::size_t i : here->second) {
      if (fork(i)) break;  // The child: its plan (just set) decides this pass too.
    }
    return std::nullopt;
  };
  run.with_result = [&](const ScenarioResult& result) {
    if (options.with_result) options.with_result(result);
    if (!branches.in_child()) return;
    FL_ASSERT(taken && *taken == branches.child_key());
    branches.Return(finish(*taken, result));  // The world is left standing: the child ends.
  };
  const ScenarioResult played = RunScenario(trunk, run);
  FL_ASSERT(!branches.in_child());
  std::map<std::uint64_t, std::string> futures = branches.Gather();
  std::vector<std::string> texts;
  texts.reserve(variants.size());
  for (std::size_t i = 0; i < variants.size(); ++i) {
    if (!forked[i]) {
      texts.push_back(finish(i, played));
      continue;
    }
    const auto future = futures.find(i);
    FL_ASSERT(future != futures.end());
    texts.push_back(std::move(future->second));
  }
  return texts;
}

}  // namespace faultline::scenarios
