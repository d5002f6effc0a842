// The image changes on a kept volume (checker.h): upgrades to the folder
// checked from each older state, and the rollback before its newest file.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string_view>

#include "scenarios/check_migrations/checker.h"
#include "scenarios/harness/branches.h"
#include "scenarios/harness/cluster.h"
#include "scenarios/harness/runner.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios::check {
namespace {

// A future's answer when the release it stands for would not serve by
// the first image's moment (UpgradeFutures): the parent plays that
// upgrade from empty, where that is seen and said.
constexpr std::string_view kPlayFromEmpty = "play from empty";

}  // namespace

// Upgrades onto a kept volume: from an older release's folder (--from
// DIR), from one version of this folder (--from VERSION), or from each.
void Checker::UpgradeCheck(const std::string& runner) {
  current_check_ = fmt::format("upgrade with {}", runner);
  const std::uint64_t newest = source_.migrations().rbegin()->first;
  if (options_.older) {
    UpgradeCase(runner, "the older folder", *options_.older);
    return;
  }
  if (options_.from_version == newest) {
    Note(fmt::format("{}: --from {} is the newest version: no upgrade to play", runner,
                     *options_.from_version));
    return;
  }
  std::vector<std::uint64_t> versions;
  if (options_.from_version) {
    versions.push_back(*options_.from_version);
  } else {
    // Each older version; with --since, each a deployed database can be
    // at: the history's (the new files' own steps are not releases).
    for (const auto& [version, migration] : source_.migrations()) {
      if (version == newest) break;
      if (options_.since && version > *options_.since) break;
      versions.push_back(version);
    }
  }
  if (options_.branch && !CleanSiteOf(runner).empty()) {
    UpgradesBranched(runner, versions);
    return;
  }
  for (const std::uint64_t version : versions) {
    UpgradeCase(runner, fmt::format("version {}", version), FilesUpTo(version));
  }
}

Case Checker::UpgradeCaseOf(std::uint64_t index, const std::string& runner, const std::string& from,
                            std::vector<MigrationFile> files) const {
  Case c = NewCase(index, "upgrade", runner, options_.stores.front());
  c.label = "upgrade from " + from;
  c.seed = options_.seed;
  c.scenario = Base("upgrade", runner, c.store, 1, kShipped);
  c.scenario.images.push_back(Image(kShipped, runner, std::move(files)));
  c.scenario.steps = ImageChange(fmt::format("The release before runs ({}).", from), kChecked,
                                 "The new image, with the folder checked.");
  return c;
}

void Checker::UpgradeCase(const std::string& runner, const std::string& from,
                          std::vector<MigrationFile> files) {
  const std::uint64_t index = TakeIndex();
  if (!Mine(index)) return;
  Case c = UpgradeCaseOf(index, runner, from, std::move(files));
  if (Judge(c)) Judged(c);
}

// Every upgrade from a version V of this folder as a future of one run
// (branches.h), so that an upgrade costs the files after V, not the
// release's migration before them (each from empty: the folder's length
// squared). The trunk is the checked image migrating an empty keyspace;
// a future forks where kuri-1 has recorded V clean (its pass of the clean
// site), pauses kuri-1 there for good, as the release at V ends its files,
// and plays the upgrade's steps on: down, the new image set, up. The
// store then holds what that release leaves, which ran the same files in
// the same order on the same cluster (and starts serving: after its
// files kuri-1 only opens its gateway session, on what db-init made, as
// the trunk's did before serving). A future whose kuri-1 records a
// version clean on a store the crash trunk had there joins it, as a crash
// case does (JoinsTheCleanRun): it serves the folder. A release that
// would not serve by the moment the upgrade from empty reads it is played
// from empty (UpgradeFutures). The reports equal every upgrade played
// from empty (--replay-from-empty, the corpus).
void Checker::UpgradesBranched(const std::string& runner,
                               const std::vector<std::uint64_t>& versions) {
  // A pause past the trunk's first wait, which the migration fits in:
  // kuri-1 is stopped by the down at its end, still paused.
  constexpr sim::Duration kPausedForGood = kRetriesGiveUp + kSettle;
  const std::string clean_site = CleanSiteOf(runner);
  FL_ASSERT(!clean_site.empty());
  // golang-migrate's up records each version of the folder clean in turn
  // (runMigrations), so V's pass is its place in the folder.
  std::map<std::uint64_t, std::uint64_t> pass_of;  // Version -> its pass.
  for (const auto& [version, migration] : source_.migrations()) {
    pass_of.emplace(version, pass_of.size() + 1);
  }
  std::vector<BranchPoint> points;
  std::map<std::uint64_t, std::uint64_t> version_of;  // Point's key -> version.
  for (const std::uint64_t version : versions) {
    const std::uint64_t index = TakeIndex();
    if (!Mine(index)) continue;
    FL_ASSERT_MSG(pass_of.contains(version), "no version {} to upgrade from", version);
    points.push_back({.key = index,
                      .site = clean_site,
                      .process = kSubject,
                      .hit = pass_of.at(version),
                      .decision = {.action = sim::FaultAction::kDelay, .delay = kPausedForGood}});
    version_of.emplace(index, version);
  }
  // The trunk: every shard with an upgrade plays it, shard 0 counts it.
  if (!versions.empty() && options_.shard.index == 0) ++played_.runs;
  if (points.empty()) return;
  ReadCleanTrunk(runner);
  const std::map<std::uint64_t, std::string> futures = UpgradeFutures(runner, points, version_of);
  for (const BranchPoint& point : points) {
    const std::uint64_t version = version_of.at(point.key);
    const std::string from = fmt::format("version {}", version);
    const auto future = futures.find(point.key);
    if (future == futures.end() || future->second == kPlayFromEmpty) {
      // The trunk never got there, or that release is slow to come up.
      Case c = UpgradeCaseOf(point.key, runner, from, FilesUpTo(version));
      if (Judge(c)) Judged(c);
      continue;
    }
    JudgedFromFuture(point.key, future->second, [&] {
      return UpgradeCaseOf(point.key, runner, from, FilesUpTo(version)).scenario;
    });
  }
}

// The trunk of UpgradesBranched and a future at each point, judged in the
// child as an upgrade played from empty is (but for the first image's
// moment: paused, it does not serve); one that does not serve the folder
// holds its end for the force search.
std::map<std::uint64_t, std::string> Checker::UpgradeFutures(
    const std::string& runner, const std::vector<BranchPoint>& points,
    const std::map<std::uint64_t, std::uint64_t>& version_of) {
  // The time from recording its last version clean to serving (a session
  // and the delete journal's replay: milliseconds) is well inside this.
  constexpr sim::Duration kServesWithin = std::chrono::seconds(5);
  Scenario trunk = Base("upgrade", runner, options_.stores.front(), 1, kChecked);
  trunk.steps = ImageChange(
      "kuri-1 migrates the folder; each upgrade's future pauses it where "
      "the release it upgrades from ends.",
      kChecked, "The new image, with the folder checked.");
  // Long enough for the whole folder: its first wait ends with a down.
  trunk.steps[Moment::kFirstImageServes].duration = kRetriesGiveUp;
  const std::set<std::size_t> moments = {Moment::kSecondImageStarted};
  Played played;
  InFlight in_flight(options_.keyspace);
  RunOptions run = Observing(played, in_flight, options_.seed, moments, 1);
  // A release whose last file is recorded clean late in the first wait
  // would not serve by the moment the upgrade from empty reads (the end of
  // a wait of kSettle): its future does not stand for that upgrade.
  World* world = nullptr;
  std::optional<sim::TimePoint> first_wait;  // When the trunk's began.
  bool late = false;                         // In a future.
  run.play_on_as = [&](std::size_t step, Cluster& cluster) -> const Scenario* {
    world = &cluster.world();
    if (step == Moment::kFirstImageServes) first_wait = world->simulation.Now();
    return nullptr;  // It plays on as itself.
  };
  const auto judge_future = [&](const BranchPoint& point, const ScenarioResult& result) {
    FL_ASSERT(in_future_);
    if (late) {
      case_end_.reset();
      return std::string(kPlayFromEmpty);
    }
    played.result = result;
    Finished(played, in_flight, trunk, moments, 1);
    SetAsideTheParentsCases();
    CountRun();  // The future's own run.
    const std::uint64_t version = version_of.at(point.key);
    const models::migrate::Migration* migration = source_.Find(version);
    FL_ASSERT(migration != nullptr);
    FL_ASSERT_MSG(played.in_flight == migration->up_name, "the upgrade from {} paused in {}",
                  version, played.in_flight);
    Case c =
        UpgradeCaseOf(point.key, runner, fmt::format("version {}", version), FilesUpTo(version));
    if (JudgeUpgradePlayed(c, played, false)) {
      c.scenario = Scenario();  // The parent makes it again.
      played_.cases.push_back(std::move(c));
    }
    case_end_.reset();
    return ShardToJson(played_);
  };
  const BranchPoint* taken = nullptr;  // In a future: its point.
  BranchCallbacks callbacks{.ended = [&](std::size_t ended) {
    if (options_.on_progress) {
      options_.on_progress(current_check_, report_.runs + played_.runs + static_cast<int>(ended));
    }
  }};
  callbacks.in_child = [&](const BranchPoint& point) {
    in_future_ = true;
    taken = &point;
    FL_ASSERT(world != nullptr);
    late = first_wait && world->simulation.Now() + kServesWithin > *first_wait + kSettle;
  };
  // From the new image's up on: a future that joins the clean run ends
  // there, serving the folder (UpgradesBranched).
  EndWhereItJoins(run, callbacks, Moment::kSecondImageStarted - 1, {}, [&] {
    FL_ASSERT(taken != nullptr);
    played.seen[Moment::kSecondImageStarted] = {clean_trunk_.end};
    return judge_future(*taken, clean_trunk_.result);
  });
  run.after_steps = [&](Cluster& cluster) {
    if (in_future_ && !AllServeTheFolder(played.seen.at(Moment::kSecondImageStarted))) {
      HoldCaseEnd(cluster, 1);
    }
  };
  const BranchedRun branched = RunBranched(trunk, run, points, judge_future, callbacks);
  case_end_.reset();
  return branched.futures;
}

// Back to the image before the newest file, on the volume the new one
// migrated: golang-migrate finds a version its folder does not have.
void Checker::RollbackCheck(const std::string& runner) {
  current_check_ = fmt::format("rollback with {}", runner);
  std::vector<MigrationFile> previous;
  std::string to;
  if (options_.older) {
    previous = *options_.older;
    to = "the older folder";
  } else {
    const auto newest = source_.migrations().rbegin()->first;
    const auto before = source_.Prev(newest);
    if (!before) return;
    previous = FilesUpTo(*before);
    to = fmt::format("version {}", *before);
  }
  const std::uint64_t index = TakeIndex();
  if (!Mine(index)) return;
  Case c = NewCase(index, "rollback", runner, options_.stores.front());
  c.label = "rollback to " + to;
  c.seed = options_.seed;
  c.file = source_.migrations().rbegin()->second.up_name;
  c.scenario = Base("rollback", runner, c.store, 1, kChecked);
  c.scenario.images.push_back(Image(kShipped, runner, previous));
  c.scenario.steps = ImageChange("The new image migrates and serves.", kShipped,
                                 fmt::format("Roll back to {}.", to));
  if (Judge(c)) Judged(c);
}

}  // namespace faultline::scenarios::check
