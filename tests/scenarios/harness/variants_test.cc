// A family of runs (scenarios/harness/variants.h): a variant forked where
// it parts from the trunk has the trace and the verdicts of the same run
// played from an empty world, over explore's drawn schedules (faults at
// sites, steps put between the workload's, waits split); a variant that
// never parts is the trunk's run; what is no variant is said.
#include "scenarios/harness/variants.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenarios/catalogue/catalogue.h"
#include "scenarios/explore/explore.h"
#include "scenarios/steps/steps.h"

namespace faultline::scenarios {
namespace {

const Scenario& Story(std::string_view name) {
  const Scenario* found = FindScenario(name);
  EXPECT_NE(found, nullptr) << name;
  static const Scenario kNone;
  return found != nullptr ? *found : kNone;
}

// A run's trace hash and its verdicts, as one text to compare.
std::string WhatHappened(const ScenarioResult& result) {
  std::string text = sim::FormatHash(result.trace_hash);
  for (const CheckResult& verdict : result.checkers) {
    text += "\n" + verdict.what + (verdict.held ? " held" : " broke: " + verdict.actual);
  }
  for (const StepResult& step : result.steps) {
    for (const CheckResult& check : step.checks)
      text += "\n" + check.what + (check.held ? "" : " X");
  }
  return text + (result.stopped.empty() ? "" : "\nstopped: " + result.stopped);
}

// Explore's schedules `first` .. `first + count - 1` of `workload`, each
// forked from one trunk on `world_seed` and each from empty: the same.
void ExpectEachVariantIsItsRunFromEmpty(const Scenario& workload, std::uint64_t first,
                                        std::uint64_t count, std::uint64_t world_seed) {
  std::vector<Scenario> drawn;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    drawn.push_back(DrawSchedule(workload, seed, {}));
  }
  std::vector<const Scenario*> variants;
  for (const Scenario& run : drawn) variants.push_back(&run);
  const std::vector<std::string> forked =
      RunVariants(workload, {.seed = world_seed}, variants,
                  [](std::size_t, const ScenarioResult& result) { return WhatHappened(result); });
  ASSERT_EQ(forked.size(), drawn.size());
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    const ScenarioResult from_empty = RunScenario(drawn[i], {.seed = world_seed});
    EXPECT_EQ(forked[i], WhatHappened(from_empty))
        << workload.name << ", schedule of seed " << first + i << " on world seed " << world_seed
        << ": " << drawn[i].story;
  }
}

// The "100 explore seeds": 100 drawn schedules of a story whose
// steps explore splits and puts events between (its waits), on two worlds.
TEST(VariantsTest, HundredExploreSchedulesForkedHaveTheirTraceFromEmpty) {
  ExpectEachVariantIsItsRunFromEmpty(Story("dirty-migration-fixed"), 1, 50, 1);
  ExpectEachVariantIsItsRunFromEmpty(Story("ack-before-fsync-fixed"), 51, 50, 51);
}

TEST(VariantsTest, AVariantThatNeverPartsIsTheTrunksRun) {
  const Scenario& trunk = Story("dirty-migration-fixed");
  Scenario same = trunk;
  same.story = "the same run, told otherwise";
  Scenario never = trunk;  // A fault at a pass the run never reaches.
  never.faults.push_back(FaultSpec{.site = trunk.crash_site, .hit = 1'000'000});
  const std::vector<std::string> texts =
      RunVariants(trunk, {.seed = 3}, {&same, &never},
                  [](std::size_t, const ScenarioResult& result) { return WhatHappened(result); });
  const std::string trunk_run = WhatHappened(RunScenario(trunk, {.seed = 3}));
  EXPECT_EQ(texts, std::vector<std::string>({trunk_run, trunk_run}));
}

// A variant whose steps are the trunk's but whose checkers expect
// otherwise parts at the trunk's end: its verdicts are by its checkers.
TEST(VariantsTest, AVariantWithOtherCheckersIsJudgedByThem) {
  const Scenario& trunk = Story("dirty-migration");
  ASSERT_FALSE(trunk.checkers.empty());
  Scenario expects_all_to_hold = trunk;
  expects_all_to_hold.checkers.clear();
  const std::vector<std::string> texts =
      RunVariants(trunk, {.seed = 1}, {&expects_all_to_hold},
                  [](std::size_t, const ScenarioResult& result) { return WhatHappened(result); });
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0], WhatHappened(RunScenario(expects_all_to_hold, {.seed = 1})));
  EXPECT_NE(texts[0], WhatHappened(RunScenario(trunk, {.seed = 1})));
}

// Variants with fewer faults than the trunk, another [crash] hit, none:
// each parts where its faults decide otherwise (the trunk's crash that it
// lacks, say), and plays as it would from empty. How the shrinker's
// candidates are played.
TEST(VariantsTest, AVariantWithFewerOrOtherFaultsHasItsTraceFromEmpty) {
  const Scenario trunk = DrawSchedule(Story("dirty-migration"), 4, {.max_events = 3});
  ASSERT_FALSE(trunk.crash_site.empty());
  std::vector<Scenario> others;
  Scenario no_crash = trunk;
  no_crash.crash_site.clear();
  others.push_back(no_crash);
  Scenario later_crash = trunk;
  later_crash.crash_hit = trunk.crash_hit + 1;
  others.push_back(later_crash);
  for (std::size_t i = 0; i < trunk.faults.size(); ++i) {
    Scenario fewer = trunk;
    fewer.faults.erase(fewer.faults.begin() + static_cast<std::ptrdiff_t>(i));
    others.push_back(fewer);
  }
  std::vector<const Scenario*> variants;
  for (const Scenario& other : others) variants.push_back(&other);
  const std::vector<std::string> forked =
      RunVariants(trunk, {.seed = 2}, variants,
                  [](std::size_t, const ScenarioResult& result) { return WhatHappened(result); });
  ASSERT_EQ(forked.size(), others.size());
  for (std::size_t i = 0; i < others.size(); ++i) {
    EXPECT_EQ(forked[i], WhatHappened(RunScenario(others[i], {.seed = 2}))) << "variant " << i;
  }
  EXPECT_NE(forked[0], forked[1]);  // The crash matters: the test can tell.
}

TEST(VariantsTest, WhatIsNoVariantIsSaid) {
  const Scenario& trunk = Story("dirty-migration-fixed");
  Scenario more_nodes = trunk;
  more_nodes.nodes = 3;
  EXPECT_EQ(NotAVariant(trunk, more_nodes), "its cluster, seed or budget is not the trunk's");
  Scenario scoped = trunk;
  scoped.faults.push_back(FaultSpec{.site = "disk.write", .service = "kuri-1"});
  EXPECT_EQ(NotAVariant(trunk, scoped),
            "one of the two has faults of one service's own hits, the other none");
  Scenario scoped_more = scoped;
  scoped_more.faults.push_back(FaultSpec{.site = "disk.sync", .service = "kuri-2"});
  EXPECT_TRUE(NotAVariant(scoped, scoped_more).starts_with("its fault at "))
      << NotAVariant(scoped, scoped_more);
  Scenario fewer = trunk;
  fewer.faults.push_back(FaultSpec{.site = "disk.write"});
  EXPECT_EQ(NotAVariant(fewer, trunk), "");
  EXPECT_EQ(NotAVariant(trunk, DrawSchedule(trunk, 9, {})), "");
}

}  // namespace
}  // namespace faultline::scenarios
