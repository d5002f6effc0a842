// The safe runner: a real lock, per-statement progress, checksums and the
// start-up schema check; and that it recovers from a crash anywhere with no
// operator action.
#include "models/migrate/safe_runner.h"

#include <gtest/gtest.h>

#include <map>

#include "models/migrate/schema_check.h"
#include "tests/models/migrate_fixture.h"

namespace faultline::models::migrate {
namespace {

using sim::Awaitable;
using std::chrono::seconds;

std::optional<std::string> RunSafe(MigrateWorld& world, const std::string& owner = "kuri-1",
                                   std::vector<std::string>* log = nullptr) {
  return world.Run([&world, owner, log](cql::CqlSession& session) -> Awaitable<std::string> {
    SafeRunner runner;
    co_return Describe(
        co_await runner.Migrate(session, "ks", world.source, owner, [log](const std::string& line) {
          if (log != nullptr) log->push_back(line);
        }));
  });
}

bool Complete(MigrateWorld& world) {
  return world.Cql("SELECT node_id FROM ks.a").starts_with(" node_id") &&
         world.Cql("SELECT * FROM ks.c").starts_with(" k");
}

TEST(SafeRunnerTest, AppliesRecordsAndChecksTheSchema) {
  MigrateWorld world;
  EXPECT_EQ(RunSafe(world), "ok");
  EXPECT_TRUE(Complete(world));
  EXPECT_EQ(world.Cql("SELECT version, statements_done, complete FROM ks.faultline_migrations"),
            " version | statements_done | complete\n"
            "---------+-----------------+----------\n"
            "       1 |               1 |     True\n"
            "       2 |               2 |     True\n"
            "       3 |               1 |     True\n\n(3 rows)\n");
  EXPECT_EQ(RunSafe(world), "ok");  // Nothing to do, schema still right.
  EXPECT_EQ(world.Cql("SELECT * FROM ks.faultline_migration_lock"),
            " id | owner\n----+-------\n\n(0 rows)\n");
}

TEST(SafeRunnerTest, AnEditedAppliedMigrationIsRefused) {
  MigrateWorld world;
  ASSERT_EQ(RunSafe(world), "ok");
  std::vector<MigrationFile> files;
  files.emplace_back("1_create_a.up.cql", "CREATE TABLE a (k int PRIMARY KEY, extra text);");
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  const std::string out = RunSafe(world).value_or("crashed");
  EXPECT_TRUE(
      out.starts_with("migration 1 (1_create_a.up.cql) changed after it was applied "
                      "(checksum "))
      << out;
}

TEST(SafeRunnerTest, AStatementAddedToACompleteMigrationIsRefused) {
  MigrateWorld world;
  ASSERT_EQ(RunSafe(world), "ok");
  std::vector<MigrationFile> files;
  files.emplace_back("1_create_a.up.cql", std::string(world.source.Find(1)->up.value()) +
                                              "\nALTER TABLE a ADD late text;");
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  EXPECT_EQ(RunSafe(world).value_or("crashed"),
            "migration 1 (1_create_a.up.cql) changed after it was applied (1 statements applied, "
            "the file now has 2); restore the file or write a new migration");
}

// "Already exists" is forgiven only where a crash may have hidden a success:
// the first statement of a migration begun before. A fresh migration that
// meets a table somebody else made stops, naming it.
TEST(SafeRunnerTest, AFreshMigrationMeetingAStaleTableStops) {
  MigrateWorld world;
  EXPECT_EQ(world.Cql("CREATE TABLE ks.a (k int PRIMARY KEY)"), "");
  std::vector<MigrationFile> files;
  files.emplace_back("1_create_a.up.cql", "CREATE TABLE a (k int PRIMARY KEY, node_id text);");
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  EXPECT_EQ(RunSafe(world).value_or("crashed"),
            "migration 1_create_a.up.cql statement 1 failed: CREATE TABLE a (k int PRIMARY KEY, "
            "node_id text) (Duplicate Object. Object 'ks.a' already exists\nCREATE TABLE a (k int "
            "PRIMARY KEY, node_id text)\n             ^\n (ql error -202))");
}

// Each migration is a step in the trace: begun, then ended with its outcome.
TEST(SafeRunnerTest, EachMigrationIsAStepInTheTrace) {
  MigrateWorld world;
  sim::RingSink events(100'000);
  world.cluster.simulation.trace().AddSink(&events);
  ASSERT_EQ(RunSafe(world), "ok");
  world.cluster.simulation.trace().RemoveSink(&events);
  std::vector<std::string> steps;
  for (const sim::TraceEvent& event : events.Events()) {
    if (event.name == "migrate.begin") {
      steps.push_back("begin " + event.Find("file")->AsString());
    } else if (event.name == "migrate.end") {
      steps.push_back("end " + event.Find("version")->ToString() + " " +
                      event.Find("outcome")->AsString());
    }
  }
  EXPECT_EQ(steps, (std::vector<std::string>{"begin 1_create_a.up.cql", "end 1 OK",
                                             "begin 2_create_b_c.up.cql", "end 2 OK",
                                             "begin 3_add_node_id.up.cql", "end 3 OK"}));
}

TEST(SafeRunnerTest, TheSchemaCheckRefusesAStaleTableWithADiff) {
  MigrateWorld world;
  EXPECT_EQ(world.Cql("CREATE TABLE ks.s3objects (bucket text, key text, cid text, PRIMARY KEY "
                      "(bucket, key))"),
            "");
  std::vector<MigrationFile> files;
  files.emplace_back("1754293669_init_s3_object_index.up.cql",
                     "CREATE TABLE IF NOT EXISTS S3Objects (bucket text, key text, cid text, "
                     "node_id text, PRIMARY KEY (bucket, key));");
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  EXPECT_EQ(RunSafe(world),
            "schema check failed for keyspace ks:\n  - table s3objects: column node_id (text) is "
            "missing");
}

TEST(SafeRunnerTest, TwoRunnersTakeTurnsUnderTheLock) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    MigrateWorld world({.seed = seed});
    std::vector<std::string> outcomes;
    for (const char* host : {"kuri-1", "kuri-2"}) {
      world.cluster.Client(host, [&, host](cql::CqlSession& session) -> Awaitable<void> {
        SafeRunner runner;
        outcomes.push_back(Describe(
            co_await runner.Migrate(session, "ks", world.source, host, [](const std::string&) {})));
      });
    }
    world.cluster.simulation.RunFor(seconds(10));
    EXPECT_EQ(outcomes, (std::vector<std::string>{"ok", "ok"})) << "seed " << seed;
    EXPECT_TRUE(Complete(world)) << "seed " << seed;
  }
}

TEST(SafeRunnerTest, ACrashedHoldersLeaseExpires) {
  auto plan = std::make_shared<sim::ExplicitFaultPlan>();
  plan->CrashAt("safe.ks.lock.after", 1);
  MigrateWorld world({.fault_plan = plan});
  EXPECT_EQ(RunSafe(world, "kuri-1"), std::nullopt);  // Crashed holding the lock.
  std::vector<std::string> log;
  EXPECT_EQ(world.Run(
                [&](cql::CqlSession& session) -> Awaitable<std::string> {
                  SafeRunner runner;
                  co_return Describe(co_await runner.Migrate(
                      session, "ks", world.source, "kuri-2",
                      [&](const std::string& line) { log.push_back(line); }));
                },
                seconds(60)),
            "ok");
  EXPECT_EQ(log.front(), "migrate: waiting for the migration lock held by kuri-1");
}

// A crash at every hit of every fault site of a three-file migration, then
// a restart: the safe runner always finishes, with no operator action.
TEST(SafeRunnerTest, ACrashAnywhereThenARestartConverges) {
  std::map<std::string, std::uint64_t> hits;
  {
    MigrateWorld world;
    ASSERT_EQ(RunSafe(world), "ok");
    for (const sim::SiteCoverage& site : world.cluster.simulation.faults().Coverage()) {
      if (site.site.starts_with("safe.")) hits[site.site] = site.hits;
    }
  }
  ASSERT_EQ(hits.size(), 4u);
  int cases = 0;
  for (const auto& [site, count] : hits) {
    for (std::uint64_t hit = 1; hit <= count; ++hit) {
      auto plan = std::make_shared<sim::ExplicitFaultPlan>();
      plan->CrashAt(site, hit);
      MigrateWorld world({.fault_plan = plan});
      ASSERT_EQ(RunSafe(world), std::nullopt) << site << "#" << hit << " did not crash";
      EXPECT_EQ(RunSafe(world), "ok") << site << "#" << hit;
      EXPECT_TRUE(Complete(world)) << site << "#" << hit;
      ++cases;
    }
  }
  EXPECT_EQ(cases, 1 + 3 * 4);  // The lock, then before/after/recorded for each of 4 statements.
}

TEST(SafeRunnerTest, AResumedDropThatHadRunIsNotAnError) {
  std::vector<MigrationFile> files;
  files.emplace_back("1_a.up.cql", "CREATE TABLE a (k int PRIMARY KEY, v text);");
  files.emplace_back("2_drop.up.cql",
                     "ALTER TABLE a DROP v; CREATE TABLE old (k int PRIMARY KEY); DROP TABLE old;");
  for (std::uint64_t hit = 2; hit <= 4; ++hit) {  // After each statement of file 2.
    auto plan = std::make_shared<sim::ExplicitFaultPlan>();
    plan->CrashAt("safe.ks.statement.after", hit);
    MigrateWorld world({.fault_plan = plan});
    world.source = std::move(MigrationSource::FromFiles(files)).value();
    ASSERT_EQ(RunSafe(world), std::nullopt) << hit;
    EXPECT_EQ(RunSafe(world), "ok") << hit;
  }
}

TEST(SafeRunnerTest, AFileMayBeFixedAfterTheStatementItFailedAt) {
  MigrateWorld world;
  std::vector<MigrationFile> files;
  files.emplace_back("1_a.up.cql", "CREATE TABLE a (k int PRIMARY KEY); SELECT nope FROM a;");
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  EXPECT_TRUE(RunSafe(world).value_or("").starts_with("migration 1_a.up.cql statement 2 failed"));
  files[0].contents = "CREATE TABLE a (k int PRIMARY KEY); ALTER TABLE a ADD v text;";
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  EXPECT_EQ(RunSafe(world), "ok");
  // But not before it: the first statement ran as it was written.
  files[0].contents = "CREATE TABLE a (k bigint PRIMARY KEY); ALTER TABLE a ADD v text;";
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  EXPECT_TRUE(RunSafe(world).value_or("").starts_with("migration 1 (1_a.up.cql) changed after"));
}

// A rollback: the image before the newest file starts on the keyspace the
// newer image migrated, when its schema holds all this image's migrations
// define (the newer one only added); not when the newer one dropped a
// column the older code reads.
TEST(SafeRunnerTest, ARollbackStartsOnANewerSchemaThatOnlyAdded) {
  MigrateWorld world;
  ASSERT_EQ(RunSafe(world), "ok");  // Versions 1-3: file 3 adds a.node_id.
  std::vector<MigrationFile> older;
  older.emplace_back("1_create_a.up.cql", "CREATE TABLE a (k int PRIMARY KEY);");
  older.emplace_back("2_create_b_c.up.cql",
                     "CREATE TABLE b (k int PRIMARY KEY);\nCREATE TABLE c (k int PRIMARY KEY);");
  world.source = std::move(MigrationSource::FromFiles(older)).value();
  std::vector<std::string> log;
  EXPECT_EQ(RunSafe(world, "kuri-1", &log), "ok");
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log.front().find("at version 3, newer than this image's 2 (a rollback)"),
            std::string::npos)
      << log.front();
}

// With no newer version recorded, a column nobody's migration made is
// drift, refused as before (the rollback rule does not let it through).
TEST(SafeRunnerTest, AHandAddedColumnWithoutANewerVersionIsStillRefused) {
  MigrateWorld world;
  ASSERT_EQ(RunSafe(world), "ok");
  world.Cql("ALTER TABLE ks.b ADD by_hand text");
  const std::string out = RunSafe(world).value_or("crashed");
  EXPECT_NE(out.find("table b: column by_hand (text) is not in the migrations"), std::string::npos)
      << out;
}

TEST(SafeRunnerTest, ARollbackOntoADroppedColumnIsRefused) {
  MigrateWorld world;
  std::vector<MigrationFile> files;
  files.emplace_back("1_create_a.up.cql", "CREATE TABLE a (k int PRIMARY KEY, old text);");
  files.emplace_back("2_drop_old.up.cql", "ALTER TABLE a DROP old;");
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  ASSERT_EQ(RunSafe(world), "ok");
  files.pop_back();
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  const std::string out = RunSafe(world).value_or("crashed");
  EXPECT_NE(out.find("table a: column old (text) is missing"), std::string::npos) << out;
}

// Same columns, another key: not the table the migrations made.
TEST(SafeRunnerTest, TheSchemaCheckSeesADifferentPrimaryKey) {
  MigrateWorld world;
  EXPECT_EQ(world.Cql("CREATE TABLE ks.objects (bucket text, key text, cid text, PRIMARY KEY "
                      "(bucket, key))"),
            "");
  std::vector<MigrationFile> files;
  files.emplace_back("1_objects.up.cql",
                     "CREATE TABLE IF NOT EXISTS objects (bucket text, key text, cid text, "
                     "PRIMARY KEY ((bucket, key)));");
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  EXPECT_EQ(RunSafe(world),
            "schema check failed for keyspace ks:\n  - table objects: column key is text, "
            "clustering, the migrations say text, partition key");
}

// A schema's tables and columns alone (no options, indexes or types).
SchemaModel TablesOf(const SchemaModel& schema) {
  SchemaModel tables;
  for (const auto& [table, columns] : schema) tables[table] = columns;
  return tables;
}

// An index or a type made by hand before the migrations ran, under the
// name they use with IF NOT EXISTS, hides their definition: the start-up
// check reads system_schema.indexes and .types and sees it.
TEST(SafeRunnerTest, TheSchemaCheckSeesAnIndexAndATypeHiddenByIfNotExists) {
  MigrateWorld world;
  EXPECT_EQ(world.Cql("CREATE TABLE ks.objects (bucket text, key text, owner text, size int, "
                      "PRIMARY KEY ((bucket), key)) WITH transactions = {'enabled': true}"),
            "");
  EXPECT_EQ(world.Cql("CREATE INDEX by_owner ON ks.objects (size)"), "");
  EXPECT_EQ(world.Cql("CREATE TYPE ks.address (street text)"), "");
  std::vector<MigrationFile> files;
  files.emplace_back("1_objects.up.cql",
                     "CREATE TABLE IF NOT EXISTS objects (bucket text, key text, owner text, size "
                     "int, PRIMARY KEY ((bucket), key)) WITH transactions = {'enabled': true};");
  files.emplace_back("2_by_owner.up.cql",
                     "CREATE INDEX IF NOT EXISTS by_owner ON objects (owner) INCLUDE (size);");
  files.emplace_back("3_address.up.cql",
                     "CREATE TYPE IF NOT EXISTS address (street text, zip int);");
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  EXPECT_EQ(RunSafe(world),
            "schema check failed for keyspace ks:\n"
            "  - index by_owner is objects (size), the migrations say objects (owner) INCLUDE "
            "(size)\n"
            "  - type address is street text, the migrations say street text, zip int");
}

// A table made by hand with another TTL, under the name the migrations use
// with IF NOT EXISTS: its rows expire as the migrations never said; the
// start-up check reads system_schema.tables and sees it. A later ALTER
// TABLE ... WITH is followed.
TEST(SafeRunnerTest, TheSchemaCheckSeesTableOptionsHiddenByIfNotExists) {
  MigrateWorld world;
  EXPECT_EQ(world.Cql("CREATE TABLE ks.events (id int PRIMARY KEY, body text) WITH "
                      "default_time_to_live = 60"),
            "");
  std::vector<MigrationFile> files;
  files.emplace_back("1_events.up.cql",
                     "CREATE TABLE IF NOT EXISTS events (id int PRIMARY KEY, body text) WITH "
                     "comment = 'kept a day';");
  files.emplace_back("2_ttl.up.cql", "ALTER TABLE events WITH default_time_to_live = 86400;");
  world.source = std::move(MigrationSource::FromFiles(files)).value();
  EXPECT_EQ(RunSafe(world),
            "schema check failed for keyspace ks:\n"
            "  - table events: options are comment = '', default_time_to_live = 86400, "
            "gc_grace_seconds = 864000, the migrations say comment = 'kept a day', "
            "default_time_to_live = 86400, gc_grace_seconds = 864000");
}

// Indexes and types, as a folder's statements leave them: an unnamed index
// by the store's name for it, a dropped table's indexes gone with it, ALTER
// TYPE's ADD and RENAME; the key columns YCQL lists in an index's target do
// not count (IndexShape).
TEST(SchemaCheckTest, TheExpectedSchemaFollowsIndexesAndTypes) {
  std::vector<MigrationFile> files;
  files.emplace_back("1_a.up.cql",
                     "CREATE TABLE a (k int, c int, v text, w text, PRIMARY KEY (k, c)); "
                     "CREATE INDEX ON a (v); CREATE INDEX by_w ON a (w, c); "
                     "CREATE TABLE gone (k int PRIMARY KEY, v int); CREATE INDEX g ON gone (v); "
                     "CREATE TYPE t (x int, y frozen<map<text, int>>);");
  files.emplace_back("2_b.up.cql",
                     "DROP TABLE gone; ALTER TYPE t ADD z text; ALTER TYPE t RENAME x TO xx AND "
                     "y TO yy; CREATE TYPE u (n int); DROP TYPE u; DROP INDEX by_w;");
  const SchemaModel expected =
      ExpectedSchema(std::move(MigrationSource::FromFiles(files)).value(), "ks");
  EXPECT_EQ(expected.indexes, (std::map<std::string, std::string>{{"a_v_idx", "a (v)"}}));
  EXPECT_EQ(
      expected.types,
      (std::map<std::string, std::string>{{"t", "xx int, yy frozen<map<text, int>>, z text"}}));
  SchemaModel live = expected;
  live.indexes["a_v_idx"] = IndexShape("a", {"v", "k", "c"}, {}, live["a"]);
  EXPECT_EQ(live, expected);  // YCQL's target names the key columns too.
  live.indexes["extra"] = "a (w)";
  live.types.erase("t");
  EXPECT_EQ(
      SchemaDiff(expected, live),
      (std::vector<std::string>{"index extra (a (w)): not in the migrations",
                                "type t (xx int, yy frozen<map<text, int>>, z text) is missing"}));
}

TEST(SchemaCheckTest, TheExpectedSchemaFollowsCreateAlterAndDrop) {
  std::vector<MigrationFile> files;
  files.emplace_back("1_a.up.cql",
                     "CREATE TABLE a (k int PRIMARY KEY, v text); CREATE TABLE other.x (k int "
                     "PRIMARY KEY); CREATE TABLE gone (k int PRIMARY KEY);");
  files.emplace_back("2_b.up.cql",
                     "ALTER TABLE a ADD tags set<varchar>; ALTER TABLE a DROP v; DROP TABLE gone; "
                     "CREATE TABLE a (k int PRIMARY KEY, refused int);");
  const SchemaModel expected =
      ExpectedSchema(std::move(MigrationSource::FromFiles(files)).value(), "ks");
  EXPECT_EQ(TablesOf(expected),
            (SchemaModel{{"a", {{"k", "int, partition key"}, {"tags", "set<text>"}}}}));
  SchemaModel live = expected;
  live["a"]["tags"] = "list<text>";
  live["a"]["extra"] = "int";
  live["old"]["k"] = "int";
  EXPECT_EQ(
      SchemaDiff(expected, live),
      (std::vector<std::string>{"table a: column tags is list<text>, the migrations say set<text>",
                                "table a: column extra (int) is not in the migrations",
                                "table old: not in the migrations"}));
}

// The store ignores CREATE TABLE IF NOT EXISTS of an existing table without
// a word (the stale-schema story), but its author meant the new definition
// and the image's code expects it: the expected schema is the new one, so a
// check against it finds the missing column.
TEST(SchemaCheckTest, AnIfNotExistsRedeclarationIsTheTablesNewDefinition) {
  std::vector<MigrationFile> files;
  files.emplace_back("1_a.up.cql", "CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY, v text);");
  files.emplace_back("2_b.up.cql",
                     "CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY, v text, size bigint);");
  const SchemaModel expected =
      ExpectedSchema(std::move(MigrationSource::FromFiles(files)).value(), "ks");
  EXPECT_EQ(TablesOf(expected),
            (SchemaModel{{"a", {{"k", "int, partition key"}, {"v", "text"}, {"size", "bigint"}}}}));
  const SchemaModel live{{"a", {{"k", "int, partition key"}, {"v", "text"}}}};
  EXPECT_EQ(SchemaDiff(expected, live),
            std::vector<std::string>{"table a: column size (bigint) is missing"});
}

}  // namespace
}  // namespace faultline::models::migrate
