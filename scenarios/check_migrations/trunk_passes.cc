#include "scenarios/check_migrations/trunk_passes.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>

#include "models/cql/store_snapshot.h"
#include "scenarios/check_migrations/observe.h"
#include "scenarios/harness/cluster.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios::check {
namespace {

constexpr std::size_t kMaxPlaced = 10'000'000;

// Where kuri-1's passes are, in the order it makes them.
struct Placed {
  std::size_t group = 0;
  std::size_t order = 0;
};

// Each point's group's first point (by pass order).
std::map<std::uint64_t, std::uint64_t> FirstOfEachGroup(
    const std::map<std::pair<std::string, std::uint64_t>, Placed>& placed, std::size_t groups,
    const std::vector<BranchPoint>& points) {
  std::map<std::size_t, std::pair<std::size_t, std::uint64_t>> first_of_group;  // Order, key.
  std::map<std::uint64_t, std::size_t> group_of;
  for (const BranchPoint& point : points) {
    FL_ASSERT(point.process == kSubject);
    const auto found = placed.find({point.site, point.hit});
    // A pass the trunk never made (none in a check: its cases are the
    // clean run's passes) is a group of its own.
    const std::size_t group = found != placed.end() ? found->second.group : ++groups;
    const std::size_t order = found != placed.end() ? found->second.order : SIZE_MAX;
    group_of[point.key] = group;
    auto [first, added] = first_of_group.try_emplace(group, order, point.key);
    if (!added && order < first->second.first) first->second = {order, point.key};
  }
  std::map<std::uint64_t, std::uint64_t> same_as;
  for (const auto& [key, group] : group_of) same_as[key] = first_of_group.at(group).second;
  return same_as;
}

}  // namespace

std::uint64_t StoreContent(World& world) {
  const sim::Result<models::cql::StoreSnapshot*> store = ObserveStore(world);
  return store.ok() ? (*store)->ContentHash() : 0;
}

TrunkPasses PlaceTrunkPasses(const Scenario& trunk, std::uint64_t seed,
                             const std::vector<BranchPoint>& points,
                             const std::string& clean_site) {
  std::map<std::pair<std::string, std::uint64_t>, Placed> placed;  // By site and own hit.
  std::map<std::string, std::uint64_t> own_hits;
  std::optional<sim::FaultPass> previous;
  std::string previous_process;
  std::size_t groups = 0;
  TrunkPasses passes;
  std::vector<std::pair<std::uint64_t, sim::TimePoint>> clean;  // Content, when.
  // The steps as RunScenario plays them (the same passes: the trunk that
  // branches is that run), with the world at hand to read the store.
  Cluster cluster(trunk, {.seed = seed, .checkers = false});
  World& world = cluster.world();
  world.simulation.faults().SetPassOverride(
      [&](const sim::FaultPass& pass) -> std::optional<sim::FaultDecision> {
        const bool same = previous && previous_process == pass.process &&
                          pass.step == previous->step + 1 && pass.events == previous->events;
        if (!same) ++groups;
        previous = pass;
        previous_process = std::string(pass.process);
        if (pass.process != kSubject) return std::nullopt;
        std::string site(pass.site);
        if (!clean_site.empty() && site == clean_site) {
          clean.emplace_back(StoreContent(world), world.simulation.Now());
        }
        const std::uint64_t hit = ++own_hits[site];
        FL_ASSERT_MSG(placed.size() < kMaxPlaced, "more than {} passes of kuri-1's", kMaxPlaced);
        placed[{std::move(site), hit}] = {groups, placed.size()};
        return std::nullopt;
      });
  for (const Step& step : trunk.steps) {
    (void)cluster.Play(step);
    if (!cluster.stopped().empty()) break;
  }
  passes.same_as = FirstOfEachGroup(placed, groups, points);
  for (const auto& [content, when] : clean) {
    const sim::Duration left = clean.back().second - when;
    auto [kept, added] = passes.clean_contents.try_emplace(content, left);
    if (!added) kept->second = std::max(kept->second, left);
  }
  return passes;
}

}  // namespace faultline::scenarios::check
