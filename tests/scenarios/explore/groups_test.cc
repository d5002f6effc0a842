// explore's groups (issue #29): one per failure (checker and violation)
// and kinds of fault left in its repro, whatever sites the faults were at;
// every failed run counted in exactly one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "scenarios/catalogue/catalogue.h"
#include "scenarios/checkers/checkers.h"
#include "scenarios/explore/explore.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/shrink/signature.h"

namespace faultline::scenarios {
namespace {

TEST(FaultKindsTest, ASiteFaultIsItsActionAndAStepIsItsKind) {
  EXPECT_EQ(FaultKinds({"crash@migrate.k.statement.after", "kill", "crash@disk.sync",
                        "error@s3.put", "down -v"}),
            (std::vector<std::string>{"crash", "down -v", "error", "kill"}));
  EXPECT_TRUE(FaultKinds({}).empty());
}

// dirty-migration's story without its crash: golang-migrate's runners,
// which a crash at many of their sites leaves dirty.
Scenario DirtyMigrationWorkload() {
  const Scenario* found = FindScenario("dirty-migration");
  EXPECT_NE(found, nullptr);
  Scenario workload = *found;
  workload.crash_site.clear();
  workload.faults.clear();
  workload.checkers.clear();  // Every checker must hold.
  for (Step& step : workload.steps) step.expect.clear();
  return workload;
}

TEST(ExploreGroupsTest, OnePerFailureAndKindsOfFaultEveryFailedRunInOne) {
  const Scenario workload = DirtyMigrationWorkload();
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

// A drawn down -v or clean exempts the data checkers for its run; a repro
// that no longer has such an event is held to them again, so replaying it
// does not fail checkers that hold (issue #30: checker rows that agree).
TEST(ExploreGroupsTest, AReproIsExemptOnlyForTheEventsItKeeps) {
  // kuri-2's slow migration: a crash of its runner fails `converges`,
  // whatever down -v or clean was drawn beside it.
  std::variant<Scenario, FileError> loaded =
      LoadScenarioFile(std::string(FAULTLINE_TEST_FILES_DIR) + "/slow-migration.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(loaded));
  const Scenario workload = std::get<Scenario>(std::move(loaded));
  const ExploreOptions options{.seed = 1, .runs = 48, .bounds = {.max_events = 3}};
  // Each drawn group whose run was exempt, shrunk alone (merged, only a
  // kind's first group would show), the first few.
  constexpr std::size_t kShrunk = 4;
  std::size_t shrunk = 0;
  std::size_t dropped = 0;  // Repros that lost the event that exempted them.
  for (const DrawnGroup& group : ExploreRuns(workload, options)) {
    const Scenario first = DrawSchedule(workload, group.first_seed, options.bounds);
    if (first.checkers == workload.checkers || shrunk == kShrunk) continue;
    ++shrunk;
    const std::vector<FailureGroup> alone = ShrinkGroups(workload, {group}, options.bounds);
    ASSERT_EQ(alone.size(), 1u);
    const Scenario& repro = alone.front().repro.scenario;
    const std::multiset<std::string> kept = DrawnFaultEvents(repro, workload);
    bool exempt = false;
    for (const auto& [checker, holds] : repro.checkers) {
      if (holds || workload.checkers.contains(checker)) continue;
      exempt = true;
      const CheckerSpec* spec = FindChecker(checker);
      ASSERT_NE(spec, nullptr);
      EXPECT_TRUE(std::any_of(kept.begin(), kept.end(),
                              [&](const std::string& event) { return ExemptedBy(*spec, event); }))
          << checker << " stays exempt in " << alone.front().signature.Key();
    }
    dropped += exempt ? 0 : 1;
  }
  EXPECT_GT(shrunk, 0u) << "no drawn failure was exempt: nothing was checked";
  EXPECT_GT(dropped, 0u) << "no repro lost its exempting event: nothing was checked";
}

}  // namespace
}  // namespace faultline::scenarios
