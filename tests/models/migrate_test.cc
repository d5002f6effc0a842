// golang-migrate's Cassandra driver and Migrate, pinned behaviour by
// behaviour (../shared/reference/golang-migrate.md), including the driver's
// own test cases written in our terms, crashes at every fault point of a
// three-file migration, and what operators' fixes do next.
#include <gtest/gtest.h>

#include <map>

#include "tests/models/migrate_fixture.h"

namespace faultline::models::migrate {
namespace {

using sim::Awaitable;
using std::chrono::milliseconds;
using std::chrono::seconds;

std::string Show(const sim::Result<VersionState>& version) {
  if (!version.ok()) return version.status().message();
  return fmt::format("{} {}", version->version, version->dirty ? "dirty" : "clean");
}

// Multi-statement bodies split on ';', each piece keeping its ';'; past the
// bound the rest stays one piece (it then fails as a statement) rather than
// being dropped.
TEST(SplitStatementsTest, SplitsOnSemicolonsAndDropsNothingPastTheBound) {
  EXPECT_EQ(SplitStatements("CREATE TABLE a (k int PRIMARY KEY); DROP TABLE a;"),
            (std::vector<std::string>{"CREATE TABLE a (k int PRIMARY KEY);", " DROP TABLE a;"}));
  EXPECT_EQ(SplitStatements("SELECT 1"), (std::vector<std::string>{"SELECT 1"}));
  std::string many;
  for (int i = 0; i < 100'005; ++i) many += "x;";
  const std::vector<std::string> pieces = SplitStatements(many);
  ASSERT_EQ(pieces.size(), 100'000u);
  EXPECT_EQ(pieces.back(), "x;x;x;x;x;x;");
  std::size_t total = 0;
  for (const std::string& piece : pieces) total += piece.size();
  EXPECT_EQ(total, many.size());
}

TEST(CassandraDriverTest, NilVersionIsMinusOneAndTheLockIsInProcessOnly) {
  MigrateWorld world;
  std::optional<std::string> out =
      world.Run([&](cql::CqlSession& session) -> Awaitable<std::string> {
        CassandraDriver driver(session, "ks");
        std::string log = Describe(co_await driver.Open());
        log += " | " + Show(co_await driver.Version());
        log += " | " + Describe(driver.Lock());
        log += " | " + Describe(driver.Lock());
        cql::CqlSession other_session(world.cluster.network);
        CassandraDriver other(other_session, "ks");  // Another process's driver.
        log += " | other: " + Describe(other.Lock());
        log += " | " + Describe(driver.Unlock());
        log += " | " + Describe(driver.Unlock());
        co_return log;
      });
  EXPECT_EQ(out,
            "ok | -1 clean | ok | can't acquire lock | other: ok | ok | can't unlock, as not "
            "currently locked");
}

TEST(CassandraDriverTest, SetVersionRoundTripsCleanDirtyAndNil) {
  MigrateWorld world;
  std::optional<std::string> out =
      world.Run([&](cql::CqlSession& session) -> Awaitable<std::string> {
        CassandraDriver driver(session, "ks");
        const sim::Status opened = co_await driver.Open();
        EXPECT_TRUE(opened.ok()) << opened.ToString();
        std::string log;
        const std::pair<std::int64_t, bool> cases[] = {
            {1, false}, {2, true}, {-1, true}, {-1, false}, {1754293669, false}};
        for (const auto& [version, dirty] : cases) {
          const sim::Status set = co_await driver.SetVersion(version, dirty);
          EXPECT_TRUE(set.ok()) << set.ToString();
          log += Show(co_await driver.Version()) + "; ";
        }
        co_return log;
      });
  EXPECT_EQ(out, "1 clean; 2 dirty; -1 dirty; -1 clean; 1754293669 clean; ");
}

TEST(CassandraDriverTest, NoKeyspaceAndAMissingKeyspaceFailToOpen) {
  MigrateWorld world;
  auto open = [&](std::string keyspace) {
    return world.Run([keyspace](cql::CqlSession& session) -> Awaitable<std::string> {
      CassandraDriver driver(session, keyspace);
      co_return Describe(co_await driver.Open());
    });
  };
  EXPECT_EQ(open(""), "no keyspace provided");
  EXPECT_EQ(cql::Headline(open("filecoingw_kuri1").value_or("")), "Keyspace Not Found");
}

// golang-migrate v4's Cassandra Version() returns a server error as
// "<message> in line 0: <query>": its branch that reads *gocql.Error as the
// nil version never runs, since gocql never makes a gocql.Error.
TEST(CassandraDriverTest, VersionReturnsAServerErrorAsGolangMigrateDoes) {
  MigrateWorld world;
  ASSERT_EQ(world.Up(), "ok");
  EXPECT_EQ(world.Cql("DROP TABLE ks.schema_migrations"), "");
  std::optional<std::string> out =
      world.Run([](cql::CqlSession& session) -> Awaitable<std::string> {
        CassandraDriver driver(session, "ks");
        co_await session.Query("USE ks");
        co_return Show(co_await driver.Version());
      });
  ASSERT_TRUE(out.has_value());
  EXPECT_NE(*out, "-1 clean") << "a server error read as the nil version";
  EXPECT_NE(out->find("Object Not Found"), std::string::npos) << *out;
  EXPECT_TRUE(
      out->ends_with(" in line 0: SELECT version, dirty FROM \"schema_migrations\" LIMIT 1"))
      << *out;
  // Up opens the driver first, which creates the version table again (IF
  // NOT EXISTS), finds no version, and re-applies everything.
  EXPECT_EQ(world.Up(),
            "migration failed in line 0: CREATE TABLE a (k int PRIMARY KEY); (details: Duplicate "
            "Object. Object 'ks.a' already exists\nCREATE TABLE a (k int PRIMARY KEY)\n"
            "             ^\n (ql error -202))");
}

TEST(MigrateTest, UpAppliesEveryFileInOrderThenSaysNoChange) {
  MigrateWorld world;
  EXPECT_EQ(world.Up(), "ok");
  EXPECT_EQ(world.VersionRows(),
            " version | dirty\n---------+-------\n       3 | False\n\n(1 rows)\n");
  EXPECT_EQ(world.Up(), "no change");
  EXPECT_EQ(world.Cql("SELECT k, node_id FROM ks.a"), " k | node_id\n---+---------\n\n(0 rows)\n");
  EXPECT_EQ(world.Cql("SELECT * FROM ks.c"), " k\n---\n\n(0 rows)\n");
}

TEST(MigrateTest, AFailingStatementLeavesEarlierOnesAppliedAndTheTargetDirty) {
  MigrateWorld world;
  std::vector<MigrationFile> files;
  files.emplace_back("1_a.up.cql", "CREATE TABLE a (k int PRIMARY KEY);");
  files.emplace_back("2_b.up.cql", "CREATE TABLE b (k int PRIMARY KEY);\nSELECT nope FROM b;");
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  EXPECT_EQ(world.Up(),
            "migration failed in line 0: \nSELECT nope FROM b; (details: Undefined Column. Column "
            "doesn't exist\nSELECT nope FROM b\n       ^^^^\n (ql error -203))");
  EXPECT_EQ(world.VersionRows(),
            " version | dirty\n---------+-------\n       2 |  True\n\n(1 rows)\n");
  EXPECT_EQ(world.Cql("SELECT * FROM ks.b"), " k\n---\n\n(0 rows)\n");  // Stays applied.
  EXPECT_EQ(world.Up(), "Dirty database version 2. Fix and force version.");
}

TEST(MigrateTest, StepsGotoDownForceAndVersion) {
  MigrateWorld world;
  auto run = [&](std::function<Awaitable<sim::Status>(Migrate&)> command) {
    return world.Command(std::move(command)).value_or("crashed");
  };
  auto version = [&] {
    return world.Run([&](cql::CqlSession& session) -> Awaitable<std::string> {
      CassandraDriver driver(session, "ks");
      const sim::Status opened = co_await driver.Open();
      EXPECT_TRUE(opened.ok()) << opened.ToString();
      Migrate migrate(world.source, driver);
      co_return Show(co_await migrate.Version());
    });
  };
  EXPECT_EQ(version(), "no migration");
  EXPECT_EQ(run([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Steps(2); }), "ok");
  EXPECT_EQ(version(), "2 clean");
  // Short of migrations: the ones there are run, then the error.
  EXPECT_EQ(run([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Steps(5); }),
            "limit 4 short");
  EXPECT_EQ(version(), "3 clean");
  EXPECT_EQ(run([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Steps(1); }),
            "file does not exist");  // None at all.
  EXPECT_EQ(run([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Goto(3); }),
            "no change");
  EXPECT_EQ(run([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Steps(-1); }),
            "ok");
  EXPECT_EQ(version(), "2 clean");
  EXPECT_EQ(world.Cql("SELECT node_id FROM ks.a"), "Undefined Column. Column doesn't exist");
  EXPECT_EQ(run([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Goto(1); }), "ok");
  EXPECT_EQ(world.Cql("SELECT * FROM ks.b"), "Object Not Found");
  EXPECT_EQ(run([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Goto(7); }),
            "no migration found for version 7: read down for version 7 .: file does not exist");
  EXPECT_EQ(run([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Down(); }), "ok");
  EXPECT_EQ(version(), "no migration");
  EXPECT_EQ(run([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Steps(-1); }),
            "file does not exist");
  EXPECT_EQ(run([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Down(); }),
            "no change");
  EXPECT_EQ(run([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Force(-2); }),
            "version must be >= -1");
  EXPECT_EQ(run([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Force(9); }), "ok");
  EXPECT_EQ(version(), "9 clean");
  // An image older than the database: the recorded version has no file.
  EXPECT_EQ(world.Up(),
            "no migration found for version 9: read down for version 9 .: file does not exist");
  EXPECT_EQ(run([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Steps(0); }),
            "no change");
}

TEST(MigrateTest, EdgeCasesOfTheSourceAndTheOrderOfChecks) {
  MigrateWorld world;
  const MigrationSource full = world.source;
  world.source = MigrationSource();
  EXPECT_EQ(world.Up(), "first .: file does not exist");  // An empty folder.
  world.source = full;
  EXPECT_EQ(world.Cql("INSERT INTO ks.schema_migrations (version, dirty) VALUES (2, true)"), "");
  // The dirty version is reported before a missing target.
  EXPECT_EQ(
      world.Command([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Goto(9); }),
      "Dirty database version 2. Fix and force version.");
}

TEST(MigrateTest, AMigrationWithoutADownFileStillGoesThroughDirty) {
  std::vector<MigrationFile> files;
  files.emplace_back("1_a.up.cql", "CREATE TABLE a (k int PRIMARY KEY);");
  files.emplace_back("2_b.up.cql", "CREATE TABLE b (k int PRIMARY KEY);");
  auto plan = std::make_shared<sim::ExplicitFaultPlan>();
  plan->CrashAt("migrate.ks.after_set_dirty", 3);  // Up 1, up 2, then the down of 2.
  MigrateWorld world({.fault_plan = plan});
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  ASSERT_EQ(world.Up(), "ok");
  EXPECT_EQ(
      world.Command([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Steps(-1); }),
      std::nullopt);
  EXPECT_EQ(world.VersionRows(),
            " version | dirty\n---------+-------\n       1 |  True\n\n(1 rows)\n");
}

TEST(MigrateTest, AHandClearedFlagSkipsTheRestOfTheMigration) {
  // Crash after the first statement of file 2: b exists, c does not.
  auto plan = std::make_shared<sim::ExplicitFaultPlan>();
  plan->CrashAt("migrate.ks.statement.after", 2);
  MigrateWorld world({.fault_plan = plan});
  EXPECT_EQ(world.Up(), std::nullopt);  // Crashed.
  EXPECT_EQ(world.VersionRows(),
            " version | dirty\n---------+-------\n       2 |  True\n\n(1 rows)\n");
  EXPECT_EQ(world.Up(), "Dirty database version 2. Fix and force version.");
  // The seed's fix: clear the flag by hand.
  EXPECT_EQ(world.Cql("UPDATE ks.schema_migrations SET dirty = false WHERE version = 2"), "");
  EXPECT_EQ(world.Up(), "ok");                                     // Goes on with 3 ...
  EXPECT_EQ(world.Cql("SELECT * FROM ks.c"), "Object Not Found");  // ... and c never comes.
}

TEST(MigrateTest, ForcingThePreviousVersionRerunsTheFileAndHitsDuplicateObject) {
  auto plan = std::make_shared<sim::ExplicitFaultPlan>();
  plan->CrashAt("migrate.ks.statement.after", 2);
  MigrateWorld world({.fault_plan = plan});
  EXPECT_EQ(world.Up(), std::nullopt);
  EXPECT_EQ(
      world.Command([](Migrate& m) -> Awaitable<sim::Status> { co_return co_await m.Force(1); }),
      "ok");
  EXPECT_EQ(world.Up(),
            "migration failed in line 0: CREATE TABLE b (k int PRIMARY KEY); (details: Duplicate "
            "Object. Object 'ks.b' already exists\nCREATE TABLE b (k int PRIMARY KEY)\n"
            "             ^\n (ql error -202))");
}

// Where golang-migrate can crash during a three-file Up, and what the next
// Up then does. Hits of each site in a clean run, counted first.
TEST(MigrateTest, ACrashAtEveryFaultPointThenARestart) {
  std::map<std::string, std::uint64_t> hits;
  {
    MigrateWorld world;
    ASSERT_EQ(world.Up(), "ok");
    for (const sim::SiteCoverage& site : world.cluster.simulation.faults().Coverage()) {
      if (site.site.starts_with("migrate.")) hits[site.site] = site.hits;
    }
  }
  ASSERT_EQ(hits.size(), 10u);              // kGolangMigrateFaultPoints, each passed.
  std::map<std::string, std::string> seen;  // "site#hit" -> the next Up's outcome.
  for (const auto& [site, count] : hits) {
    for (std::uint64_t hit = 1; hit <= count; ++hit) {
      auto plan = std::make_shared<sim::ExplicitFaultPlan>();
      plan->CrashAt(site, hit);
      MigrateWorld world({.fault_plan = plan});
      const std::string where = fmt::format("{}#{}", site, hit);
      ASSERT_EQ(world.Up(), std::nullopt) << where << " did not crash";
      const std::string next = world.Up().value_or("crashed");
      seen[where] = next;
      const bool complete = world.Cql("SELECT node_id FROM ks.a").starts_with(" node_id") &&
                            world.Cql("SELECT * FROM ks.c").starts_with(" k");
      if (next == "ok" || next == "no change") {
        EXPECT_TRUE(complete) << where << ": Up said ok but the schema is incomplete";
      } else {
        EXPECT_TRUE(next.starts_with("Dirty database version") ||
                    next.find("(details: Duplicate") != std::string::npos)
            << where << ": " << next;
      }
    }
  }
  // The ones the seed stories turn on.
  EXPECT_EQ(seen["migrate.ks.before_set_dirty#1"], "ok");
  EXPECT_EQ(seen["migrate.ks.after_set_clean#3"], "no change");  // It had finished.
  EXPECT_EQ(seen["migrate.ks.after_set_dirty#1"],
            "Dirty database version 1. Fix and force version.");
  EXPECT_EQ(seen["migrate.ks.statement.after#2"],
            "Dirty database version 2. Fix and force version.");
  // The non-atomic SetVersion: its rows deleted, the new one not yet written,
  // so the next Up believes the keyspace is empty.
  EXPECT_EQ(seen["migrate.ks.set_version.after_delete#1"],
            "migration failed in line 0: CREATE TABLE a (k int PRIMARY KEY); (details: Duplicate "
            "Object. Object 'ks.a' already exists\nCREATE TABLE a (k int PRIMARY KEY)\n"
            "             ^\n (ql error -202))");
}

TEST(MigrateTest, TwoRunnersOnOneKeyspaceAreNotExcluded) {
  int collided = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    MigrateWorld world({.seed = seed});
    std::vector<std::string> outcomes;
    for (const char* host : {"kuri-1", "db-init"}) {
      world.cluster.Client(host, [&](cql::CqlSession& session) -> Awaitable<void> {
        CassandraDriver driver(session, "ks");
        const sim::Status opened = co_await driver.Open();
        EXPECT_TRUE(opened.ok()) << opened.ToString();
        Migrate migrate(world.source, driver);
        outcomes.push_back(Describe(co_await migrate.Up()));
      });
    }
    world.cluster.simulation.RunFor(seconds(5));
    ASSERT_EQ(outcomes.size(), 2u);
    for (const std::string& outcome : outcomes) {
      if (outcome.find("Duplicate") != std::string::npos) ++collided;
    }
  }
  EXPECT_GT(collided, 0);  // No lock between processes: they collide.
}

TEST(DbInitTest, IgnoresWhatExistsAndReportsSuccessEitherWay) {
  MigrateWorld world;
  EXPECT_EQ(world.Cql("CREATE KEYSPACE filecoingw_s3"), "");
  EXPECT_EQ(world.Cql("CREATE TABLE filecoingw_s3.s3objects (bucket text, key text, cid text, "
                      "size bigint, updated timestamp, PRIMARY KEY (bucket, key))"),
            "");
  std::vector<MigrationFile> files;
  files.emplace_back("1754293669_init_s3_object_index.up.cql",
                     "CREATE TABLE IF NOT EXISTS S3Objects (bucket text, key text, cid text, size "
                     "bigint, updated timestamp, node_id text, expires_at timestamp, PRIMARY KEY "
                     "(bucket, key));\nCREATE TABLE cidgroups (id int PRIMARY KEY);");
  DbInitPlan plan;
  plan.keyspaces = {"filecoingw_s3", "filecoingw_kuri1"};
  plan.sources.emplace_back("filecoingw_s3", std::move(MigrationSource::FromFiles(files)).value());
  std::vector<std::string> log;
  std::optional<std::string> out =
      world.Run([&](cql::CqlSession& session) -> Awaitable<std::string> {
        co_return Describe(co_await RunDbInit(
            session, plan, [&](const std::string& line) { log.push_back(line); }));
      });
  EXPECT_EQ(out, "ok");
  EXPECT_EQ(log.back(), "db-init: done");
  // The stale-schema failure: the old table stayed.
  EXPECT_EQ(world.Cql("SELECT node_id FROM filecoingw_s3.s3objects"),
            "Undefined Column. Column doesn't exist");
  EXPECT_EQ(world.Cql("SELECT * FROM filecoingw_s3.cidgroups"), " id\n----\n\n(0 rows)\n");
  // Run again: every CREATE now fails, is ignored, and it still says done.
  log.clear();
  out = world.Run([&](cql::CqlSession& session) -> Awaitable<std::string> {
    co_return Describe(
        co_await RunDbInit(session, plan, [&](const std::string& line) { log.push_back(line); }));
  });
  EXPECT_EQ(out, "ok");
  EXPECT_NE(std::find(log.begin(), log.end(),
                      "db-init: 1754293669_init_s3_object_index.up.cql: ignored: Duplicate "
                      "Object. Object 'filecoingw_s3.cidgroups' already exists"),
            log.end());
}

TEST(GolangMigrateRunnerTest, NoChangeIsSuccessAndDirtyIsNot) {
  MigrateWorld world;
  GolangMigrateRunner runner;
  std::vector<std::string> log;
  auto migrate = [&] {
    return world.Run([&](cql::CqlSession& session) -> Awaitable<std::string> {
      co_return Describe(
          co_await runner.Migrate(session, "ks", world.source, "kuri-1",
                                  [&](const std::string& line) { log.push_back(line); }));
    });
  };
  EXPECT_EQ(migrate(), "ok");
  EXPECT_EQ(migrate(), "ok");  // "no change" is success, as runMigrations treats it.
  EXPECT_TRUE(log.empty()) << "golang-migrate as a library logs nothing: " << log.front();
  EXPECT_EQ(world.Cql("UPDATE ks.schema_migrations SET dirty = true WHERE version = 3"), "");
  // runMigrations's own words around migrate's error.
  EXPECT_EQ(migrate(), "run cql migrations: Dirty database version 3. Fix and force version.");
}

}  // namespace
}  // namespace faultline::models::migrate
