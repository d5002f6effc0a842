// check-migrations' concurrent check (issue #28): replicas on one keyspace
// in the drawn schedules and in every schedule that pauses one replica at
// one of its statement and version-write boundaries, with the bound said.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenarios/check_migrations/check_migrations.h"
#include "scenarios/harness/runner.h"

namespace faultline::scenarios {
namespace {

using models::migrate::MigrationFile;

// A file neither of whose statements runs twice, and an idempotent one.
std::vector<MigrationFile> ANonIdempotentFile() {
  return {{"1_accounts.up.cql",
           "CREATE TABLE accounts (id text PRIMARY KEY);\nALTER TABLE accounts ADD email text;\n"},
          {"2_sessions.up.cql", "CREATE TABLE IF NOT EXISTS sessions (id text PRIMARY KEY);\n"}};
}

// Two replicas on YCQL, from the default seed alone: only the pauses can
// find what that one schedule does not.
MigrationCheckReport Races(const std::string& runner) {
  MigrationCheckOptions options;
  options.files = ANonIdempotentFile();
  options.keyspace = "app";
  options.runners = {runner};
  options.stores = {"2.20"};
  options.replicas = 2;
  options.race_seeds = 1;
  return CheckMigrations(options);
}

bool PausesAReplica(const Scenario& scenario) {
  for (const FaultSpec& fault : scenario.faults) {
    if (fault.action == sim::FaultAction::kDelay && fault.service.starts_with("kuri-")) return true;
  }
  return false;
}

// The must-show: golang-migrate's replicas are unsafe on YCQL, found by a
// pause, and the repro (a [[fault]] that delays one replica) replays as it
// was seen: every expectation of its last step holds.
TEST(RacesTest, TwoGolangMigrateReplicasAreUnsafeAndThePausesReproReplays) {
  const MigrationCheckReport report = Races("golang-migrate");
  const DynamicFinding* race = nullptr;
  for (const DynamicFinding& finding : report.dynamic) {
    if (finding.check == "concurrent" && InfoOf(finding.verdict).unsafe && finding.repro &&
        PausesAReplica(*finding.repro)) {
      race = &finding;
      break;
    }
  }
  ASSERT_NE(race, nullptr) << "no unsafe race found by a pause";
  EXPECT_TRUE(report.Unsafe());
  const ScenarioResult replayed = RunScenario(*race->repro, {.seed = race->seed});
  ASSERT_FALSE(replayed.steps.empty());
  for (const CheckResult& expectation : replayed.steps.back().checks) {
    EXPECT_TRUE(expectation.held) << expectation.what;
  }
  EXPECT_FALSE(replayed.steps.back().checks.empty());
}

// Replicas whose SetVersions interleaved leave several version rows (the
// loser's dirty one beside the winner's): golang-migrate reads one of
// them, and `migrate force <newest>` leaves one clean row, so the race is
// needs-force to the newest version, not needs-repair.
TEST(RacesTest, ARaceThatLeftSeveralVersionRowsIsForcedToTheNewest) {
  const MigrationCheckReport report = Races("golang-migrate");
  bool several_rows = false;
  for (const DynamicFinding& finding : report.dynamic) {
    if (finding.check != "concurrent" || finding.detail.find(" dirty, ") == std::string::npos) {
      continue;
    }
    several_rows = true;
    EXPECT_EQ(finding.verdict, Verdict::kNeedsForce) << finding.detail;
    EXPECT_EQ(finding.force_to, "2") << finding.detail;
  }
  EXPECT_TRUE(several_rows) << "no race left several version rows";
}

// The safe runner's replicas come up in every schedule tried, and the
// verdict says what was tried: the drawn schedule and the pauses, bounded.
TEST(RacesTest, TheSafeRunnersReplicasAreSafeToTheStatedBound) {
  const MigrationCheckReport report = Races("safe");
  int schedules = 0;
  for (const DynamicFinding& finding : report.dynamic) {
    if (finding.check != "concurrent") continue;
    EXPECT_EQ(finding.verdict, Verdict::kSafe) << finding.detail;
    schedules += static_cast<int>(finding.cases.size());
    EXPECT_NE(finding.detail.find("a 5s pause of one replica at each of its statement and "
                                  "version-write boundaries"),
              std::string::npos)
        << finding.detail;
  }
  // The drawn one and at least a pause of each replica at its lock.
  EXPECT_GE(schedules, 3);
  EXPECT_FALSE(report.Unsafe());
}

}  // namespace
}  // namespace faultline::scenarios
