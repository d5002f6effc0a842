#include "scenarios/check_migrations/clean_contents.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "models/cql/store_snapshot.h"
#include "scenarios/check_migrations/observe.h"
#include "scenarios/harness/cluster.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios::check {

std::optional<std::uint64_t> StoreContent(World& world) {
  const sim::Result<models::cql::StoreSnapshot*> store = ObserveStore(world);
  if (!store.ok()) return std::nullopt;
  return (*store)->ContentHash();
}

std::map<std::uint64_t, sim::Duration> CleanContents(const Scenario& trunk, std::uint64_t seed,
                                                     const std::string& clean_site) {
  constexpr std::size_t kMaxVersions = 1'000'000;
  std::vector<std::pair<std::uint64_t, sim::TimePoint>> clean;  // Content, when.
  // The steps as RunScenario plays them (the same run: the trunk that
  // branches is that run), with the world at hand to read the store.
  Cluster cluster(trunk, {.seed = seed, .checkers = false});
  World& world = cluster.world();
  world.simulation.faults().SetPassOverride(
      [&](const sim::FaultPass& pass) -> std::optional<sim::FaultDecision> {
        if (pass.process != kSubject || pass.site != clean_site) return std::nullopt;
        FL_ASSERT_MSG(clean.size() < kMaxVersions, "more than {} clean versions", kMaxVersions);
        if (const std::optional<std::uint64_t> content = StoreContent(world)) {
          clean.emplace_back(*content, world.simulation.Now());
        }
        return std::nullopt;
      });
  for (const Step& step : trunk.steps) {
    (void)cluster.Play(step);
    if (!cluster.stopped().empty()) break;
  }
  std::map<std::uint64_t, sim::Duration> contents;
  for (const auto& [content, when] : clean) {
    const sim::Duration left = clean.back().second - when;
    auto [kept, added] = contents.try_emplace(content, left);
    if (!added) kept->second = std::max(kept->second, left);
  }
  return contents;
}

}  // namespace faultline::scenarios::check
