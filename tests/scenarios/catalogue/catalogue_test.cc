// Every catalogue scenario passes from the default seed and from 100 other
// seeds, and replays: the same seed gives the same trace hash.
#include "scenarios/catalogue/catalogue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "scenarios/core/failure_classes.h"
#include "scenarios/harness/runner.h"
#include "tests/scenarios/failures.h"
#include "tests/scenarios/sweep.h"

namespace faultline::scenarios {
namespace {

class CatalogueTest : public testing::TestWithParam<std::string> {};

TEST_P(CatalogueTest, PassesFromTheDefaultSeedAnd100Others) {
  const Scenario& scenario = *FindScenario(GetParam());
  std::set<std::uint64_t> hashes;
  for (std::uint64_t seed = 1; seed <= SweepSeeds(); ++seed) {
    const ScenarioResult result = RunScenario(scenario, {.seed = seed});
    ASSERT_TRUE(result.passed) << scenario.name << " failed with --seed " << seed << "\n"
                               << Failures(result);
    // A story's crash happens on every seed (else it tells another story).
    EXPECT_TRUE(result.notes.empty())
        << scenario.name << " --seed " << seed << ": " << result.notes.front();
    hashes.insert(result.trace_hash);
  }
  EXPECT_GT(hashes.size(), 50u) << "the seeds should explore different schedules";
}

TEST_P(CatalogueTest, TheSameSeedGivesTheSameTrace) {
  const Scenario& scenario = *FindScenario(GetParam());
  for (std::uint64_t seed : {1u, 7u, 4242u}) {
    EXPECT_EQ(RunScenario(scenario, {.seed = seed}).trace_hash,
              RunScenario(scenario, {.seed = seed}).trace_hash)
        << scenario.name << " --seed " << seed;
  }
}

// The soak label's determinism sweep (tests/CMakeLists.txt sets
// FAULTLINE_SOAK_SEEDS): every catalogue story from that many seeds, each
// played twice to the same trace hash. Skipped in the everyday suite.
TEST_P(CatalogueTest, SoakEverySeedReplaysToTheSameHash) {
  const char* seeds = std::getenv("FAULTLINE_SOAK_SEEDS");
  if (seeds == nullptr) GTEST_SKIP() << "the soak label's sweep (FAULTLINE_SOAK_SEEDS)";
  const std::uint64_t count = std::strtoull(seeds, nullptr, 10);
  ASSERT_GT(count, 0u) << "FAULTLINE_SOAK_SEEDS=" << seeds;
  const Scenario& scenario = *FindScenario(GetParam());
  for (std::uint64_t seed = 1; seed <= count; ++seed) {
    const std::uint64_t first = RunScenario(scenario, {.seed = seed, .checkers = false}).trace_hash;
    ASSERT_EQ(RunScenario(scenario, {.seed = seed, .checkers = false}).trace_hash, first)
        << scenario.name << " --seed " << seed << " gave two traces";
  }
}

std::vector<std::string> Names() {
  std::vector<std::string> names;
  for (const Scenario& scenario : Catalogue()) names.push_back(scenario.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, CatalogueTest, testing::ValuesIn(Names()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

TEST(CatalogueTest, HoldsTheFiveSeedStoriesAndTheirFixes) {
  for (const char* name : {"stale-schema", "dirty-migration", "hand-cleared-flag", "wrong-keyspace",
                           "version-drift", "stale-schema-fixed", "dirty-migration-fixed"}) {
    EXPECT_NE(FindScenario(name), nullptr) << name;
  }
}

// The teaching catalogue: every failure class has a story that breaks a
// whole-run checker and a -fixed companion of the same class that breaks
// none (../shared/reference/failure-catalog.md).
TEST(CatalogueTest, EveryFailureClassHasAStoryThatBreaksACheckerAndAFixThatBreaksNone) {
  for (const FailureClass& failure : FailureClasses()) {
    int stories = 0;
    for (const Scenario& scenario : Catalogue()) {
      if (scenario.failure_class != failure.id || scenario.name.ends_with("-fixed")) continue;
      ++stories;
      const Scenario* fixed = FindScenario(scenario.name + "-fixed");
      ASSERT_NE(fixed, nullptr) << scenario.name << " has no -fixed companion";
      EXPECT_EQ(fixed->failure_class, scenario.failure_class) << fixed->name;
      for (const auto& [checker, holds] : fixed->checkers) {
        EXPECT_TRUE(holds) << fixed->name << " still breaks " << checker;
      }
      if (failure.id == "repair-by-hand") continue;  // The seeds' repairs break their own way.
      EXPECT_TRUE(std::any_of(scenario.checkers.begin(), scenario.checkers.end(),
                              [](const auto& entry) { return !entry.second; }))
          << scenario.name << " names no checker it breaks";
    }
    EXPECT_GE(stories, 1) << "no story of class " << failure.id;
  }
}

// A scenario can fail: a wrong expectation is reported, with what was there.
TEST(CatalogueTest, AnExpectationThatDoesNotHoldFailsTheRun) {
  Scenario scenario = *FindScenario("stale-schema");
  scenario.steps[1].expect[0].number = 404;  // The first PUT succeeds, in fact.
  const ScenarioResult result = RunScenario(scenario, {.seed = 1});
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(Failures(result), "PUT /photos/cat.jpg: status 404 (got 200)\n");
}

}  // namespace
}  // namespace faultline::scenarios
