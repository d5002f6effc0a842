// The concurrent check: replicas that start together on one keyspace, in
// schedules drawn from seeds, and in every schedule that pauses one
// replica at one of its runner's boundaries (checker.h).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <set>

#include "models/migrate/runner.h"
#include "scenarios/check_migrations/checker.h"
#include "scenarios/harness/branches.h"
#include "scenarios/harness/cluster.h"
#include "scenarios/harness/runner.h"
#include "sim/assert.h"

namespace faultline::scenarios::check {

// The replicas starting together on one keyspace (`pause`: one of them
// paused at one pass of a fault site, for kRacePause).
Case Checker::ConcurrentCaseOf(std::uint64_t index, const std::string& runner,
                               const std::string& store, std::uint64_t seed,
                               const std::optional<FaultSpec>& pause) const {
  Case c = NewCase(index, "concurrent", runner, store);
  c.seed = seed;
  c.label = fmt::format("{} replicas on {}, seed {}", options_.replicas, store, seed);
  if (pause) {
    c.label = fmt::format("{} replicas on {}, {} paused at {}, pass {}", options_.replicas, store,
                          pause->service, pause->site, pause->hit);
  }
  c.scenario = Base("concurrent", runner, store, options_.replicas, kChecked);
  if (pause) c.scenario.faults.push_back(*pause);
  c.scenario.steps = {
      Do(Step::Kind::kUp,
         fmt::format("{} replicas start together on one keyspace.", options_.replicas)),
      Wait(kRetriesGiveUp, "Let their start-up retries finish (the policy restarts them)."),
  };
  FL_ASSERT(c.scenario.steps.size() == Moment::kStarted + 1);
  return c;
}

void Checker::ConcurrentCheck(const std::string& runner) {
  current_check_ = fmt::format("concurrent with {}", runner);
  if (options_.replicas < 2) {
    Note(fmt::format("{}: --replicas 1: no replicas race", runner));
    return;
  }
  for (const std::string& store : options_.stores) {
    for (int i = 0; i < options_.race_seeds; ++i) {
      const std::uint64_t index = TakeIndex();
      if (!Mine(index)) continue;
      Case c = ConcurrentCaseOf(index, runner, store, options_.seed + static_cast<std::uint64_t>(i),
                                std::nullopt);
      if (Judge(c)) Judged(c);
    }
    PauseSchedules(runner, store);
  }
}

// Where a replica may be paused: each pass of each of its runner's fault
// sites (its statement and version-write boundaries) that the clean run
// made, for each replica, the history's passes left out (--since), in the
// order of the passes' numbers so that a bound keeps the earliest of every
// site; at most kMaxRacePauses.
std::vector<FaultSpec> Checker::PausePoints(const std::string& runner, bool* cut) const {
  std::vector<FaultSpec> points;
  const auto made = models::migrate::MakeRunner(runner);
  FL_ASSERT(made != nullptr);
  const std::vector<std::string> sites = made->FaultSites(options_.keyspace);
  std::uint64_t most = 0;
  for (const std::string& site : sites) {
    if (const auto hits = site_hits_.find(site); hits != site_hits_.end()) {
      most = std::max(most, hits->second);
    }
  }
  for (std::uint64_t hit = 1; hit <= most; ++hit) {
    for (const std::string& site : sites) {
      const auto hits = site_hits_.find(site);
      if (hits == site_hits_.end() || hit > hits->second) continue;
      const auto history = history_hits_.find(site);
      if (history != history_hits_.end() && hit <= history->second) continue;
      for (int replica = 1; replica <= options_.replicas; ++replica) {
        if (points.size() == kMaxRacePauses) {  // And this one more: the bound cuts.
          if (cut != nullptr) *cut = true;
          return points;
        }
        points.push_back(FaultSpec{.site = site,
                                   .hit = hit,
                                   .action = sim::FaultAction::kDelay,
                                   .delay = kRacePause,
                                   .service = NodeName(replica)});
      }
    }
  }
  return points;
}

// What the concurrent check tried, for a safe verdict: the drawn
// schedules, and the pauses with their bound.
std::string Checker::RaceBound(const std::string& runner) const {
  bool cut = false;
  const std::size_t pauses = PausePoints(runner, &cut).size();
  const std::string bounded = cut ? ": the bound, not all of them" : "";
  return fmt::format(
      "the {} drawn from seeds per store, and a {}s pause of one replica at each of its "
      "statement and version-write boundaries that a run reached (of {} per store{})",
      options_.race_seeds, std::chrono::duration_cast<std::chrono::seconds>(kRacePause).count(),
      pauses, bounded);
}

// Every schedule that pauses one replica for kRacePause at one of its
// boundaries (PausePoints): the run of the replicas from the first seed
// plays once, and each pause is a future forked at its pass
// (branches.h), judged in the child as a concurrent case is. A pause the
// run never reaches (a replica that failed before it) makes no case.
void Checker::PauseSchedules(const std::string& runner, const std::string& store) {
  if (options_.since && history_hits_.empty()) return;  // As CrashCheck: no new file's pass known.
  std::vector<FaultSpec> pauses = PausePoints(runner);
  if (!options_.branch) {  // The reference: each played from an empty world.
    for (const FaultSpec& pause : pauses) {
      const std::uint64_t index = TakeIndex();
      if (!Mine(index)) continue;
      Case c = ConcurrentCaseOf(index, runner, store, options_.seed, pause);
      if (Judge(c)) Judged(c);
    }
    return;
  }
  std::vector<BranchPoint> points;
  std::vector<std::pair<std::uint64_t, FaultSpec>> planned;
  for (FaultSpec& pause : pauses) {
    const std::uint64_t index = TakeIndex();
    if (!Mine(index)) continue;
    points.push_back({.key = index,
                      .site = pause.site,
                      .process = pause.service,
                      .hit = pause.hit,
                      .decision = {.action = sim::FaultAction::kDelay, .delay = pause.delay}});
    planned.emplace_back(index, std::move(pause));
  }
  // The run they branch from: every shard with a pause plays it, shard 0
  // counts it (with a pause or not), so the count is the same for any --jobs.
  if (!pauses.empty() && options_.shard.index == 0) ++played_.runs;
  if (points.empty()) return;
  const BranchedRun branched = PausedFutures(runner, store, points, planned);
  for (const auto& [index, pause] : planned) {
    const auto future = branched.futures.find(index);
    if (future == branched.futures.end()) continue;  // Never paused there.
    JudgedFromFuture(index, future->second, [&, index = index, &pause = pause] {
      return ConcurrentCaseOf(index, runner, store, options_.seed, pause).scenario;
    });
  }
}

// The first seed's run of the replicas, and a future forked at each point
// (each `planned` pause's), judged in the child as a concurrent case is;
// one whose replicas do not all serve holds its end for the force search.
BranchedRun Checker::PausedFutures(
    const std::string& runner, const std::string& store, const std::vector<BranchPoint>& points,
    const std::vector<std::pair<std::uint64_t, FaultSpec>>& planned) {
  const Case trunk = ConcurrentCaseOf(points.front().key, runner, store, options_.seed, {});
  const std::set<std::size_t> moments = {Moment::kStarted};
  Played played;
  InFlight in_flight(options_.keyspace);
  const FaultSpec* taken = nullptr;  // In a future: its pause.
  const auto judge_future = [&](const BranchPoint& point, const ScenarioResult& result) {
    FL_ASSERT(in_future_ && taken != nullptr);
    played.result = result;
    Finished(played, in_flight, trunk.scenario, moments, options_.replicas);
    SetAsideTheParentsCases();
    CountRun();  // The future's own run.
    Case c = ConcurrentCaseOf(point.key, runner, store, options_.seed, *taken);
    if (JudgeConcurrentPlayed(c, played)) {
      c.scenario = Scenario();  // The parent makes it again.
      played_.cases.push_back(std::move(c));
    }
    case_end_.reset();
    return ShardToJson(played_);
  };
  BranchCallbacks callbacks;
  callbacks.in_child = [&](const BranchPoint& point) {
    in_future_ = true;
    const auto it = std::find_if(planned.begin(), planned.end(),
                                 [&](const auto& p) { return p.first == point.key; });
    FL_ASSERT(it != planned.end());
    taken = &it->second;
  };
  RunOptions run = Observing(played, in_flight, options_.seed, moments, options_.replicas);
  run.after_steps = [&](Cluster& cluster) {
    if (in_future_ && !AllServeTheFolder(played.seen.at(Moment::kStarted))) {
      HoldCaseEnd(cluster, options_.replicas);
    }
  };
  BranchedRun branched = RunBranched(trunk.scenario, run, points, judge_future, callbacks);
  case_end_.reset();
  return branched;
}

}  // namespace faultline::scenarios::check
