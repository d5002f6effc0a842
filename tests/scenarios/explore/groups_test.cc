// explore's groups (issue #29): one per failure (checker and violation)
// and kinds of fault left in its repro, whatever sites the faults were at;
// every failed run counted in exactly one.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "scenarios/catalogue/catalogue.h"
#include "scenarios/explore/explore.h"
#include "scenarios/shrink/signature.h"

namespace faultline::scenarios {
namespace {

TEST(FaultKindsTest, ASiteFaultIsItsActionAndAStepIsItsKind) {
  EXPECT_EQ(FaultKinds({"crash@migrate.k.statement.after", "kill", "crash@disk.sync",
                        "error@s3.put", "down -v"}),
            (std::vector<std::string>{"crash", "down -v", "error", "kill"}));
  EXPECT_TRUE(FaultKinds({}).empty());
}

TEST(ExploreGroupsTest, OnePerFailureAndKindsOfFaultEveryFailedRunInOne) {
  // dirty-migration's story without its crash: golang-migrate's runners,
  // which a crash at many of their sites leaves dirty.
  const Scenario* found = FindScenario("dirty-migration");
  ASSERT_NE(found, nullptr);
  Scenario workload = *found;
  workload.crash_site.clear();
  workload.faults.clear();
  workload.checkers.clear();  // Every checker must hold.
  for (Step& step : workload.steps) step.expect.clear();
  const Scenario* story = &workload;
  // Crashes and errors at fault sites: many sites, few kinds.
  const ExploreOptions options{
      .seed = 1, .runs = 96, .bounds = {.max_events = 2, .kinds = {"crash", "error"}}};
  const std::vector<DrawnGroup> drawn = ExploreRuns(*story, options);
  std::int64_t failed = 0;
  for (const DrawnGroup& group : drawn) failed += group.count;
  ASSERT_GT(drawn.size(), 1u) << "too few groups drawn to merge any";
  const std::vector<FailureGroup> groups = ShrinkGroups(*story, drawn, options.bounds);
  std::set<std::tuple<std::string, std::string, std::vector<std::string>>> seen;
  std::int64_t counted = 0;
  std::size_t fault_sets = 0;
  for (const FailureGroup& group : groups) {
    EXPECT_EQ(group.kinds, FaultKinds(group.signature.faults)) << group.signature.Key();
    EXPECT_TRUE(
        seen.emplace(group.signature.checker, group.signature.violation, group.kinds).second)
        << "two groups of " << group.signature.Key();
    EXPECT_GE(group.fault_sets, 1u);
    counted += group.count;
    fault_sets += group.fault_sets;
  }
  EXPECT_EQ(counted, failed);
  // Fewer groups than fault sets: sites of one kind were merged.
  EXPECT_LT(groups.size(), fault_sets) << "no two sites of one kind to merge in 96 runs";
}

}  // namespace
}  // namespace faultline::scenarios
