// Exploration: schedules drawn from seeds, failures grouped and shrunk to
// scenarios that replay (scenarios/explore.h).
#include "scenarios/explore/explore.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <utility>

#include "scenarios/catalogue/catalogue.h"
#include "scenarios/core/topology.h"
#include "scenarios/explore/event_kinds.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/harness/runner.h"
#include "scenarios/shrink/shrink.h"
#include "scenarios/steps/steps.h"

namespace faultline::scenarios {
namespace {

// dirty-migration's steps with no written fault: the workload alone.
Scenario StartUpWorkload(const char* name = "dirty-migration") {
  const Scenario* story = FindScenario(name);
  EXPECT_NE(story, nullptr);
  Scenario workload = *story;
  workload.crash_site.clear();
  workload.faults.clear();
  workload.checkers.clear();  // Every checker must hold.
  // Up, a wait, a PUT and a GET: the start-up workload.
  workload.steps.clear();
  Step up;
  up.kind = Step::Kind::kUp;
  Step wait;
  wait.kind = Step::Kind::kWait;
  wait.duration = std::chrono::minutes(1);
  Step put;
  put.kind = Step::Kind::kS3;
  put.method = "PUT";
  put.path = "/b/k";
  put.body = "bytes";
  Step get = put;
  get.method = "GET";
  get.body.clear();
  workload.steps = {up, wait, put, get};
  return workload;
}

// The start-up workload, then kuri-1 moved to the other built-in release
// and up again: a story that uses two versions of the node image, so an
// upgrade or a rollback has somewhere to go (DrawContextOf).
Scenario StartUpThenAnotherRelease() {
  Scenario workload = StartUpWorkload();
  std::string version;
  for (const fakes::ServiceSpec& service : ComposeSpecOf(workload).services) {
    if (service.name == "kuri-1") version = service.version;
  }
  EXPECT_FALSE(version.empty());
  Step set_image;
  set_image.kind = Step::Kind::kSetImage;
  set_image.service = "kuri-1";
  set_image.version = version == "v1" ? "v2" : "v1";
  Step up;
  up.kind = Step::Kind::kUp;
  workload.steps.push_back(set_image);
  workload.steps.push_back(up);
  return workload;
}

TEST(ExploreTest, TheSameSeedDrawsTheSameScheduleAndOthersDiffer) {
  const Scenario workload = StartUpWorkload();
  EXPECT_EQ(ToToml(DrawSchedule(workload, 7, {})), ToToml(DrawSchedule(workload, 7, {})));
  std::set<std::string> different;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Scenario drawn = DrawSchedule(workload, seed, {});
    EXPECT_GE(FaultEventCount(drawn), 1u);
    EXPECT_LE(FaultEventCount(drawn), 3u);
    different.insert(ToToml(drawn));
    // A drawn schedule is an ordinary scenario file: it reads back as written.
    std::variant<Scenario, FileError> again = ParseScenario(ToToml(drawn), "drawn.toml");
    ASSERT_TRUE(std::holds_alternative<Scenario>(again)) << std::get<FileError>(again).message;
  }
  EXPECT_GT(different.size(), 15u);
}

// The bounds hold for every draw: events, crashes (kills and power losses
// count), power losses.
TEST(ExploreTest, DrawsStayWithinTheirBounds) {
  const Scenario workload = StartUpWorkload();
  for (const ExploreBounds& bounds : {ExploreBounds{1, 1, 0}, ExploreBounds{3, 0, 0}}) {
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
      const Scenario drawn = DrawSchedule(workload, seed, bounds);
      EXPECT_LE(FaultEventCount(drawn), static_cast<std::size_t>(bounds.max_events));
      int crashes = 0;
      int power_losses = 0;
      for (const FaultSpec& fault : drawn.faults)
        crashes += fault.action == sim::FaultAction::kCrash;
      for (const Step& step : drawn.steps) {
        crashes += step.kind == Step::Kind::kKill || step.kind == Step::Kind::kPowerLoss;
        power_losses += step.kind == Step::Kind::kPowerLoss;
      }
      EXPECT_LE(crashes, bounds.max_crashes) << "seed " << seed;
      EXPECT_LE(power_losses, bounds.max_power_losses) << "seed " << seed;
    }
  }
}

// Upgrades and rollbacks go among the versions the story uses (issue
// #29): none in a story of one version; in one that sets another version
// or defines an image of its own, to those, and never to a built-in
// release it does not name.
TEST(ExploreTest, UpgradesGoOnlyToVersionsTheStoryUses) {
  EXPECT_TRUE(DrawContextOf(StartUpWorkload()).upgradable.empty());
  const Scenario two = StartUpThenAnotherRelease();
  const std::string other = two.steps[two.steps.size() - 2].version;
  const DrawContext upgrading = DrawContextOf(two);
  ASSERT_FALSE(upgrading.upgradable.empty());
  for (const auto& [service, version] : upgrading.upgradable) {
    EXPECT_EQ(version, other) << service;  // The proxy keeps its one version.
    EXPECT_EQ(service.rfind("kuri-", 0), 0u) << service;
  }
  Scenario own = StartUpWorkload();
  ImageSpec mine;
  mine.service = "node";
  mine.version = "v2-mine";
  own.images.push_back(mine);
  const DrawContext owned = DrawContextOf(own);
  ASSERT_FALSE(owned.upgradable.empty());
  for (const auto& [service, version] : owned.upgradable) EXPECT_EQ(version, "v2-mine") << service;
}

// A workload's own fault steps and faults are never counted or named as
// drawn faults (issue #29: a user's own set-image step was listed as a
// fault in 83 of 84 groups).
TEST(ExploreTest, TheWorkloadsOwnFaultsAreNotDrawnFaults) {
  Scenario workload = StartUpWorkload();
  Step kill;
  kill.kind = Step::Kind::kKill;
  kill.service = "kuri-1";
  workload.steps.push_back(kill);
  workload.faults.push_back({.site = "s3.put", .action = sim::FaultAction::kError});
  Scenario run = workload;
  run.steps.push_back(kill);  // Drawn: a second kill.
  run.faults.push_back({.site = "kuri.put", .action = sim::FaultAction::kCrash});
  EXPECT_EQ(DrawnFaultEvents(run, workload),
            (std::multiset<std::string>{"crash@kuri.put", "kill"}));
  EXPECT_TRUE(DrawnFaultEvents(workload, workload).empty());
  // A shrunk run that lost one of the workload's own events.
  Scenario shrunk = run;
  shrunk.faults.erase(shrunk.faults.begin());
  EXPECT_EQ(DrawnFaultEvents(shrunk, workload),
            (std::multiset<std::string>{"crash@kuri.put", "kill"}));
  EXPECT_EQ(FaultEventNames(run).size(), FaultEventCount(run));
}

// Explored, a story with a power loss of its own, drawing only crashes:
// no group names a power loss, and its counts are of drawn events alone.
TEST(ExploreTest, GroupsOfAStoryWithItsOwnFaultNameOnlyTheDrawnOnes) {
  const Scenario* story = FindScenario("ack-before-fsync-fixed");
  ASSERT_NE(story, nullptr);
  ASSERT_EQ(FaultEventNames(*story).count("power-loss"), 1u);
  const ExploreOptions crashes{.seed = 1, .runs = 48, .bounds = {.kinds = {"crash"}}};
  for (const DrawnGroup& group : ExploreRuns(*story, crashes)) {  // As drawn.
    for (const std::string& fault : group.signature.faults) {
      EXPECT_EQ(fault.rfind("crash@", 0), 0u) << group.signature.Key();
    }
  }
  const ExploreResult found = Explore(*story, crashes);  // Shrunk.
  ASSERT_FALSE(found.groups.empty());
  for (const FailureGroup& group : found.groups) {
    for (const std::string& fault : group.signature.faults) {
      EXPECT_EQ(fault.rfind("crash@", 0), 0u) << group.signature.Key();
    }
    EXPECT_GE(group.drawn_events, 1u);
    EXPECT_LE(group.drawn_events, 3u);
    EXPECT_LE(group.repro_drawn_events, group.drawn_events);
    EXPECT_NE(group.repro.scenario.story.find("fault events drawn"), std::string::npos);
  }
}

// What a drawn schedule adds to its workload: the names of the steps it
// put in (a split wait aside), and the actions of its [[fault]]s.
std::multiset<std::string> AddedEvents(const Scenario& workload, const Scenario& drawn) {
  std::multiset<std::string> added;
  for (const Step& step : drawn.steps) {
    if (step.kind != Step::Kind::kWait) added.insert(std::string(StepKindOf(step).name));
  }
  for (const Step& step : workload.steps) {
    if (step.kind == Step::Kind::kWait) continue;
    const auto own = added.find(std::string(StepKindOf(step).name));
    if (own != added.end()) added.erase(own);
  }
  for (std::size_t i = workload.faults.size(); i < drawn.faults.size(); ++i) {
    added.insert(std::string(sim::FaultActionName(drawn.faults[i].action)));
  }
  return added;
}

// --faults KIND (issue #29): a schedule draws only the kinds chosen, and
// every kind of the registry, chosen alone, is drawn on some seed.
TEST(ExploreTest, EachKindChosenAloneIsTheOnlyOneDrawnAndIsReachable) {
  const Scenario workload = StartUpThenAnotherRelease();
  for (const EventKind& kind : EventKinds()) {
    const ExploreBounds bounds{.kinds = {std::string(kind.name)}};
    std::set<std::string> allowed(kind.inserts.begin(), kind.inserts.end());
    if (kind.inserts.empty()) allowed = {std::string(kind.name)};  // crash, error, delay.
    int drawn_with_it = 0;
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
      const std::multiset<std::string> added =
          AddedEvents(workload, DrawSchedule(workload, seed, bounds));
      for (const std::string& event : added) {
        EXPECT_TRUE(allowed.contains(event)) << kind.name << " drew " << event << ", seed " << seed;
      }
      drawn_with_it += added.empty() ? 0 : 1;
    }
    EXPECT_GT(drawn_with_it, 0) << kind.name << " is never drawn";
  }
}

TEST(ExploreTest, TwoKindsChosenAreTheOnlyOnesDrawnAndEveryKindLeftOutIsNot) {
  const Scenario workload = StartUpWorkload();
  const ChosenEventKinds only = ChooseEventKinds("latency,loss", std::nullopt);
  ASSERT_EQ(only.error, "");
  EXPECT_EQ(only.names, (std::vector<std::string>{"latency", "loss"}));
  const ChosenEventKinds but = ChooseEventKinds(std::nullopt, "crash,kill,power-loss");
  ASSERT_EQ(but.error, "");
  EXPECT_EQ(but.names.size(), EventKinds().size() - 3);
  std::set<std::string> seen;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    for (const std::string& event :
         AddedEvents(workload, DrawSchedule(workload, seed, {.kinds = only.names}))) {
      seen.insert(event);
    }
    for (const std::string& event :
         AddedEvents(workload, DrawSchedule(workload, seed, {.kinds = but.names}))) {
      EXPECT_NE(event, "crash");
      EXPECT_NE(event, "kill");
      EXPECT_NE(event, "power-loss");
    }
  }
  EXPECT_EQ(seen, (std::set<std::string>{"latency", "loss"}));
}

TEST(ExploreTest, KindsChosenWronglyAreSaidSo) {
  EXPECT_EQ(ChooseEventKinds("latency", "loss").error, "give --faults or --no-faults, not both");
  EXPECT_NE(ChooseEventKinds("latncy", std::nullopt).error.find("did you mean 'latency'?"),
            std::string::npos);
  EXPECT_NE(ChooseEventKinds("latency,,loss", std::nullopt).error.find("an empty name"),
            std::string::npos);
  std::string every;
  for (const EventKind& kind : EventKinds())
    every += (every.empty() ? "" : ",") + std::string(kind.name);
  EXPECT_NE(ChooseEventKinds(std::nullopt, every).error.find("leaves no kind"), std::string::npos);
  EXPECT_TRUE(ChooseEventKinds(std::nullopt, std::nullopt).names.empty());  // Every kind.
  // Every kind named is the exploration none named (merge takes them as one).
  EXPECT_EQ(ChooseEventKinds(every, std::nullopt).error, "");
  EXPECT_TRUE(ChooseEventKinds(every, std::nullopt).names.empty());
}

// A kind named in --faults that the story's cluster has nothing for would
// silently explore less than asked: it is said, with the kind's meaning.
TEST(ExploreTest, KindsWithNothingToActOnAreSaid) {
  const Scenario& one_version = *FindScenario("dirty-migration");  // v2 for node and proxy.
  const std::string said = KindsWithNothingToActOn(one_version, {"kill", "upgrade"});
  EXPECT_NE(said.find("dirty-migration's cluster has nothing for 'upgrade' (a node or the proxy"),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find("'kill'"), std::string::npos) << said;
  EXPECT_EQ(KindsWithNothingToActOn(one_version, {}), "");  // Every kind: nothing said.
  // A story that moves between versions has something for it.
  EXPECT_EQ(KindsWithNothingToActOn(*FindScenario("stale-schema"), {"upgrade"}), "");
  for (const EventKind& kind : EventKinds()) {
    if (kind.name == "upgrade") continue;
    EXPECT_EQ(KindsWithNothingToActOn(one_version, {std::string(kind.name)}), "") << kind.name;
  }
}

// With every kind allowed, a seed draws the schedule it drew before kinds
// could be chosen: naming every kind draws what naming none draws.
TEST(ExploreTest, EveryKindNamedDrawsWhatNoneNamedDraws) {
  const Scenario workload = StartUpWorkload();
  ExploreBounds every;
  for (const EventKind& kind : EventKinds()) every.kinds.emplace_back(kind.name);
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    EXPECT_EQ(ToToml(DrawSchedule(workload, seed, every)), ToToml(DrawSchedule(workload, seed, {})))
        << "seed " << seed;
  }
}

// Explore finds a crash that leaves a keyspace dirty on the golang-migrate
// cluster, and shrinks it to one fault event that replays to the failure.
TEST(ExploreTest, FindsADirtyKeyspaceAndShrinksItToOneFault) {
  const Scenario workload = StartUpWorkload();
  const ExploreResult found = Explore(workload, {.seed = 1, .runs = 60});
  ASSERT_FALSE(found.groups.empty()) << "nothing found in 60 runs";
  bool dirty = false;
  for (const FailureGroup& group : found.groups) {
    const Scenario& repro = group.repro.scenario;
    // Shrinking never adds: at most the events of the run it came from.
    EXPECT_LE(FaultEventCount(repro), FaultEventCount(group.first));
    EXPECT_GE(FaultEventCount(repro), 1u) << group.signature.Key();
    // The repro file replays, from its own seed, to the same failure.
    std::variant<Scenario, FileError> again = ParseScenario(ToToml(repro), "repro.toml");
    ASSERT_TRUE(std::holds_alternative<Scenario>(again)) << std::get<FileError>(again).message;
    const Scenario& reread = std::get<Scenario>(again);
    const ScenarioResult replayed = RunScenario(reread, {.seed = reread.seed});
    const std::optional<Signature> signature = SignatureOf(reread, replayed);
    ASSERT_TRUE(signature.has_value()) << group.signature.Key();
    EXPECT_EQ(signature->checker, group.signature.checker);
    EXPECT_EQ(signature->violation, group.signature.violation);
    const bool crash_left_dirty = FaultEventCount(repro) == 1 && repro.faults.size() == 1 &&
                                  repro.faults[0].action == sim::FaultAction::kCrash &&
                                  repro.faults[0].site.starts_with("migrate.") &&
                                  group.signature.checker == "converges";
    dirty = dirty || crash_left_dirty;
  }
  EXPECT_TRUE(dirty) << "no group shrank to one crash at a migration site";
}

// Every kind of fault event in explore's table is drawn within a bounded
// number of seeds, and every fault step of the step table is one an event
// kind inserts: a kind the schedule never switches on would be no test at
// all (network and disk events were once left out of the list that did).
TEST(ExploreTest, EveryEventKindIsDrawnWithinAHundredSeeds) {
  Scenario workload = StartUpThenAnotherRelease();
  std::set<std::string_view> inserted;
  for (const EventKind& kind : EventKinds()) {
    for (const std::string_view step : kind.inserts) inserted.insert(step);
  }
  for (const StepKind& kind : StepKinds()) {
    if (kind.fault) {
      EXPECT_TRUE(inserted.contains(kind.name)) << "no event kind inserts " << kind.name;
    }
  }
  std::set<std::string> drawn;  // Event kinds seen: a [[fault]]'s action, a step's event.
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const Scenario schedule = DrawSchedule(workload, seed, {});
    for (const FaultSpec& fault : schedule.faults) {
      drawn.insert(std::string(sim::FaultActionName(fault.action)));
    }
    for (const Step& each : schedule.steps) {
      const StepKind& step = StepKindOf(each);
      if (!step.fault) continue;
      for (const EventKind& kind : EventKinds()) {
        if (std::find(kind.inserts.begin(), kind.inserts.end(), step.name) != kind.inserts.end()) {
          drawn.insert(std::string(kind.name));
        }
      }
    }
  }
  for (const EventKind& kind : EventKinds()) {
    EXPECT_TRUE(drawn.contains(std::string(kind.name)))
        << "event kind " << kind.name << " never drawn in 100 seeds";
  }
}

// Network and disk faults find failures too, shrunk to repros that keep
// them and replay: here a full disk or lost messages while the proxy
// restarts leave it down.
TEST(ExploreTest, ANetworkOrDiskFaultShrinksToAReproThatReplays) {
  const Scenario* workload = FindScenario("ack-before-fsync-fixed");
  ASSERT_NE(workload, nullptr);
  const ExploreResult found = Explore(*workload, {.seed = 1, .runs = 200});
  int kept = 0;
  for (const FailureGroup& group : found.groups) {
    const Scenario& repro = group.repro.scenario;
    const bool network_or_disk =
        std::any_of(repro.steps.begin(), repro.steps.end(), [](const Step& s) {
          return s.kind == Step::Kind::kLatency || s.kind == Step::Kind::kLoss ||
                 s.kind == Step::Kind::kDiskFull || s.kind == Step::Kind::kDiskErrors;
        });
    if (!network_or_disk) continue;
    ++kept;
    std::variant<Scenario, FileError> again = ParseScenario(ToToml(repro), "repro.toml");
    ASSERT_TRUE(std::holds_alternative<Scenario>(again)) << std::get<FileError>(again).message;
    const Scenario& reread = std::get<Scenario>(again);
    const std::optional<Signature> signature =
        SignatureOf(reread, RunScenario(reread, {.seed = reread.seed}));
    ASSERT_TRUE(signature.has_value()) << group.signature.Key();
    EXPECT_TRUE(SameFailure(*signature, group.signature)) << signature->Key();
  }
  EXPECT_GE(kept, 1) << "no repro of " << found.groups.size()
                     << " groups keeps a network or disk fault";
}

TEST(ExploreTest, TheSameExploreSeedGivesTheSameGroupsAndRepros) {
  const Scenario workload = StartUpWorkload();
  const ExploreResult first = Explore(workload, {.seed = 5, .runs = 20});
  const ExploreResult again = Explore(workload, {.seed = 5, .runs = 20});
  ASSERT_EQ(first.groups.size(), again.groups.size());
  for (std::size_t i = 0; i < first.groups.size(); ++i) {
    EXPECT_EQ(first.groups[i].signature, again.groups[i].signature);
    EXPECT_EQ(first.groups[i].count, again.groups[i].count);
    EXPECT_EQ(ToToml(first.groups[i].repro.scenario), ToToml(again.groups[i].repro.scenario));
  }
}

// With a kept volume and a restart in the workload (down, up, restart),
// explore finds a fault between two statements of one migration: the
// migration partially applied (its first table there, its second not), the
// version dirty, the node down.
TEST(ExploreTest, WithAKeptVolumeAndARestartFindsAPartiallyAppliedMigration) {
  Scenario workload = StartUpWorkload();
  Step down;
  down.kind = Step::Kind::kDown;  // Volumes kept.
  Step up;
  up.kind = Step::Kind::kUp;
  Step restart;
  restart.kind = Step::Kind::kRestart;
  restart.service = "kuri-1";
  workload.steps.insert(workload.steps.begin() + 2, {down, up, restart});
  // The runs' groups as drawn, one per fault site (the shrunk groups are
  // one per kind of fault, and shrinking may move a fault to the first
  // statement, where nothing is applied yet): a fault around a statement
  // of a node's migration.
  const ExploreBounds bounds;
  const std::vector<DrawnGroup> found = ExploreRuns(workload, {.seed = 1, .runs = 200});
  bool partial = false;
  for (const DrawnGroup& group : found) {
    const Scenario drawn = DrawSchedule(workload, group.first_seed, bounds);
    if (drawn.faults.empty()) continue;
    const std::string& site = drawn.faults[0].site;
    const std::size_t statement = site.find(".statement.");
    if (!site.starts_with("migrate.filecoingw_kuri") || statement == std::string::npos) continue;
    // Which node's keyspace, and what its store holds after the run.
    const std::string keyspace =
        site.substr(std::string("migrate.").size(), statement - std::string("migrate.").size());
    Scenario check = drawn;
    Step first_table;
    first_table.kind = Step::Kind::kCql;
    first_table.statement = "SELECT * FROM " + keyspace + ".cidgroups";
    first_table.expect.push_back({.kind = Expectation::Kind::kOutputContains, .text = "(0 rows)"});
    Step second_table = first_table;
    second_table.statement = "SELECT * FROM " + keyspace + ".multihashtogroup";
    second_table.expect = {
        {.kind = Expectation::Kind::kOutputContains, .text = "Object Not Found"}};
    check.steps.push_back(first_table);
    check.steps.push_back(second_table);
    // On the world that run played on (its batch's).
    const ScenarioResult result = RunScenario(check, {.seed = group.world_seed});
    bool held = true;
    for (std::size_t i = result.steps.size() - 2; i < result.steps.size(); ++i) {
      for (const CheckResult& c : result.steps[i].checks) held = held && c.held;
    }
    partial = partial || held;
  }
  EXPECT_TRUE(partial) << "no failed run left a migration half-applied";
}

// The fixed story, with safe runners and a patient db-init, holds under
// drawn faults (20,000 runs in docs/explore.md; a few hundred here).
TEST(ExploreTest, TheFixedStoryHoldsUnderDrawnFaults) {
  const ExploreResult found =
      Explore(*FindScenario("dirty-migration-fixed"), {.seed = 1, .runs = 300});
  EXPECT_EQ(found.runs, 300);
  for (const FailureGroup& group : found.groups) {
    ADD_FAILURE() << "seed " << group.first_seed << ": " << group.signature.Key() << "\n"
                  << ToToml(group.repro.scenario);
  }
}

// A batch's runs, forked where each parts from the workload, find what
// the same runs played from empty find: the same groups, counts and seeds.
// Each plays on its batch's world; in batches of 1, on its own seed.
TEST(ExploreTest, BatchesForkedFindWhatRunsFromEmptyFind) {
  const Scenario workload = StartUpWorkload();
  const ExploreOptions forked{.seed = 3, .runs = 24, .batch = 8, .play = BatchPlay::kForked};
  ExploreOptions from_empty = forked;
  from_empty.play = BatchPlay::kFromEmpty;
  const std::vector<DrawnGroup> a = ExploreRuns(workload, forked);
  const std::vector<DrawnGroup> b = ExploreRuns(workload, from_empty);
  ASSERT_FALSE(a.empty());
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].signature, b[i].signature);
    EXPECT_EQ(a[i].count, b[i].count);
    EXPECT_EQ(a[i].first_seed, b[i].first_seed);
    EXPECT_EQ(a[i].world_seed, 3 + (a[i].first_seed - 3) / 8 * 8);
    EXPECT_EQ(a[i].world_seed, b[i].world_seed);
  }
  for (const DrawnGroup& group : ExploreRuns(workload, {.seed = 3, .runs = 6, .batch = 1})) {
    EXPECT_EQ(group.world_seed, group.first_seed);
  }
}

TEST(ExploreTest, AShardTakesWholeBatchesAndKnowsHowManyRuns) {
  for (const int batch : {1, 3, 16}) {
    for (const std::uint64_t count : {1u, 2u, 5u}) {
      for (const std::uint64_t runs : {0u, 1u, 7u, 40u, 49u}) {
        std::uint64_t total = 0;
        for (std::uint64_t index = 0; index < count; ++index) {
          const Shard shard{index, count};
          std::uint64_t mine = 0;
          for (std::uint64_t run = 0; run < runs; ++run) {
            if (!InShard(run, shard, batch)) continue;
            ++mine;
            // Its whole batch is here.
            EXPECT_TRUE(InShard(run / batch * batch, shard, batch));
          }
          EXPECT_EQ(RunsInShard(runs, shard, batch), mine)
              << runs << " runs, batch " << batch << ", shard " << index << "/" << count;
          total += mine;
        }
        EXPECT_EQ(total, runs);
      }
    }
  }
}

// Three shards (every third run) merged are the run unsharded: the same
// groups, counts, first seeds, and (shrunk again from those seeds) repros.
TEST(ExploreTest, ShardsMergedAreTheUnshardedRun) {
  const Scenario workload = StartUpWorkload();
  const ExploreOptions whole{.seed = 3, .runs = 30, .batch = 4};
  const std::vector<DrawnGroup> unsharded = ExploreRuns(workload, whole);
  ASSERT_FALSE(unsharded.empty());
  std::vector<std::vector<DrawnGroup>> parts;
  int runs = 0;
  for (std::uint64_t index = 0; index < 3; ++index) {
    ExploreOptions shard = whole;
    shard.shard = {index, 3};
    int done = 0;
    parts.push_back(ExploreRuns(workload, shard, &done));
    runs += done;
  }
  EXPECT_EQ(runs, 30);
  const std::vector<DrawnGroup> merged = MergeDrawnGroups(parts);
  ASSERT_EQ(merged.size(), unsharded.size());
  for (std::size_t i = 0; i < merged.size(); ++i) {
    EXPECT_EQ(merged[i].signature, unsharded[i].signature);
    EXPECT_EQ(merged[i].count, unsharded[i].count);
    EXPECT_EQ(merged[i].first_seed, unsharded[i].first_seed);
    EXPECT_EQ(merged[i].world_seed, unsharded[i].world_seed);
  }
  const std::vector<FailureGroup> a = ShrinkGroups(workload, merged, {});
  const std::vector<FailureGroup> b = ShrinkGroups(workload, unsharded, {});
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(ToToml(a[i].repro.scenario), ToToml(b[i].repro.scenario));
  }
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// stale-schema, changed by `change`, with its failure now unexpected (no
// [checkers]): the scenario and its signature.
std::pair<Scenario, Signature> UnexpectedFailure(const std::function<void(Scenario&)>& change) {
  const Scenario* story = FindScenario("stale-schema");
  EXPECT_NE(story, nullptr);
  Scenario failing = *story;
  failing.checkers.clear();
  change(failing);
  const ScenarioResult result = RunScenario(failing, {.seed = failing.seed});
  const std::optional<Signature> signature = SignatureOf(failing, result);
  EXPECT_TRUE(signature.has_value());
  return {failing, signature.value_or(Signature{})};
}

// Issue #25: shrinking that never dropped a [crash] survived the suite. A
// [crash] the failure does not need (its pass never comes) is dropped, and
// the log says so.
TEST(ShrinkTest, ACrashTheFailureDoesNotNeedIsDropped) {
  const auto [failing, signature] = UnexpectedFailure([](Scenario& s) {
    s.crash_site = "migrate.filecoingw_kuri1.statement.after";
    s.crash_hit = 1000;  // Never reached.
  });
  EXPECT_NE(std::find(signature.faults.begin(), signature.faults.end(),
                      "crash@migrate.filecoingw_kuri1.statement.after"),
            signature.faults.end());
  const Shrunk shrunk = Shrink(failing, failing.seed, signature);
  EXPECT_TRUE(shrunk.scenario.crash_site.empty());
  EXPECT_TRUE(std::any_of(shrunk.log.begin(), shrunk.log.end(), [](const ShrinkStep& step) {
    return step.tried == "drop the [crash]" && step.kept;
  }));
}

// Shrinking's other passes, each pinned: a workload step the failure does
// not need goes, and so does a node nothing names.
TEST(ShrinkTest, AStepAndANodeTheFailureDoesNotNeedAreDropped) {
  const auto [failing, signature] = UnexpectedFailure([](Scenario& s) {
    s.nodes = 3;
    Step wait;
    wait.kind = Step::Kind::kWait;
    wait.duration = std::chrono::seconds(7);
    s.steps.push_back(wait);
  });
  const Shrunk shrunk = Shrink(failing, failing.seed, signature);
  EXPECT_LT(shrunk.scenario.nodes, 3);
  EXPECT_LT(shrunk.scenario.steps.size(), failing.steps.size());
  EXPECT_TRUE(std::none_of(
      shrunk.scenario.steps.begin(), shrunk.scenario.steps.end(), [](const Step& step) {
        return step.kind == Step::Kind::kWait && step.duration == std::chrono::seconds(7);
      }));
}

// A candidate is read back without its images' statements (the failing
// scenario's, read whole once): a failing scenario whose image holds a
// statement the reader refuses keeps no change, as when each candidate was
// read whole.
TEST(ShrinkTest, NoChangeIsKeptWhenTheImagesDoNotReadBack) {
  const auto [failing, signature] = UnexpectedFailure([](Scenario& s) {
    s.crash_site = "migrate.filecoingw_kuri1.statement.after";
    s.crash_hit = 1000;  // Never reached: dropping it would be kept.
    ImageSpec unused;
    unused.service = "node";
    unused.version = "unused";
    unused.files = {{"1_first.up.cql", "CREATE TABLZ nothing (id int PRIMARY KEY);\n"}};
    s.images.push_back(unused);
  });
  const Shrunk shrunk = Shrink(failing, failing.seed, signature);
  EXPECT_EQ(shrunk.scenario.crash_site, failing.crash_site);
  EXPECT_FALSE(shrunk.log.empty());
  EXPECT_TRUE(std::none_of(shrunk.log.begin(), shrunk.log.end(),
                           [](const ShrinkStep& step) { return step.kept; }));
  EXPECT_EQ(shrunk.runs, 0);
}

}  // namespace
}  // namespace faultline::scenarios
