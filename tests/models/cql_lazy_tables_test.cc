// A table's SQLite tables come with its first write (Engine::Materialize):
// CREATE TABLE, ALTER TABLE and CREATE INDEX on a table never written
// change the catalog alone, and every read of it answers as an empty
// table does, before and after a restart.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "models/cql/engine.h"
#include "tests/models/cql_store_fixture.h"

namespace faultline::models::cql {
namespace {

void RunEach(EngineOnVolume& store, std::initializer_list<const char*> statements) {
  for (const char* statement : statements) {
    ASSERT_EQ(Shown(store.Run(statement)), "ok") << statement;
  }
}

// The reads a client makes of a table, with {} for its name.
constexpr const char* kReads[] = {
    "SELECT * FROM ks.{}",
    "SELECT count(*) FROM ks.{}",
    "SELECT v FROM ks.{} WHERE p = 1",
    "SELECT * FROM ks.{} WHERE p = 1 AND c > 2 ORDER BY c DESC",
    "SELECT * FROM ks.{} WHERE v = 'x' ALLOW FILTERING",
    "SELECT s FROM ks.{} WHERE p = 1",
    "SELECT * FROM ks.{} WHERE extra = 3 ALLOW FILTERING",
    "SELECT p, c FROM ks.{} LIMIT 2",
};

void MakeTable(EngineOnVolume& store, const std::string& name) {
  for (const std::string& statement :
       {fmt::format("CREATE TABLE ks.{} (p int, c int, v text, s text static, PRIMARY KEY (p, c)) "
                    "WITH CLUSTERING ORDER BY (c DESC) AND transactions = {{'enabled': true}}",
                    name),
        fmt::format("ALTER TABLE ks.{} ADD extra int", name),
        fmt::format("CREATE UNIQUE INDEX {}_by_v ON ks.{} (v)", name, name)}) {
    ASSERT_EQ(Shown(store.Run(statement)), "ok") << statement;
  }
}

TEST(CqlLazyTablesTest, DdlOnATableNeverWrittenChangesNoSqliteSchema) {
  EngineOnVolume store;
  RunEach(store, {"CREATE KEYSPACE ks"});
  const std::int64_t before = SqliteSchemaVersion(store);
  MakeTable(store, "never");
  RunEach(store,
          {"ALTER TABLE ks.never DROP extra", "ALTER TABLE ks.never ADD extra int",
           "DROP INDEX ks.never_by_v", "CREATE UNIQUE INDEX never_by_v ON ks.never (v)",
           "TRUNCATE ks.never", "CREATE TABLE ks.gone (k int PRIMARY KEY)", "DROP TABLE ks.gone"});
  EXPECT_EQ(SqliteSchemaVersion(store), before) << "DDL on unwritten tables ran SQLite DDL";
}

// Each read of a table never written answers as the same read of a table
// whose rows were all deleted: the same columns, no rows; after a restart
// too.
TEST(CqlLazyTablesTest, ATableNeverWrittenReadsAsAnEmptiedOne) {
  EngineOnVolume store;
  RunEach(store, {"CREATE KEYSPACE ks"});
  MakeTable(store, "never");
  MakeTable(store, "emptied");
  RunEach(store, {"INSERT INTO ks.emptied (p, c, v, s) VALUES (1, 3, 'x', 'st')",
                  "DELETE FROM ks.emptied WHERE p = 1"});
  for (int pass = 0; pass < 2; ++pass) {
    for (const char* read : kReads) {
      const std::string never = Shown(store.Run(fmt::format(fmt::runtime(read), "never")));
      EXPECT_EQ(never, Shown(store.Run(fmt::format(fmt::runtime(read), "emptied")))) << read;
      EXPECT_EQ(never.find("error"), std::string::npos) << read << ": " << never;
    }
    store.Reopen();
  }
}

// The first write makes the table as the catalog has it by then: the
// column added later, the static row, and the UNIQUE index, enforced.
TEST(CqlLazyTablesTest, TheFirstWriteMakesTheTableAsItIsThen) {
  EngineOnVolume store;
  RunEach(store, {"CREATE KEYSPACE ks"});
  MakeTable(store, "t");
  const std::int64_t before = SqliteSchemaVersion(store);
  RunEach(store, {"INSERT INTO ks.t (p, c, v, s, extra) VALUES (1, 2, 'x', 'st', 7)"});
  EXPECT_GT(SqliteSchemaVersion(store), before);
  EXPECT_EQ(Shown(store.Run("INSERT INTO ks.t (p, c, v) VALUES (1, 3, 'x')")),
            "error: Execution Error. Duplicate value disallowed by unique index t_by_v");
  store.Reopen();
  EXPECT_EQ(Shown(store.Run("SELECT p, c, v, s, extra FROM ks.t")),
            " p | c | v |  s | extra\n"
            "---+---+---+----+-------\n"
            " 1 | 2 | x | st |     7\n"
            "\n(1 rows)\n");
}

// A first write that fails takes its SQLite tables with it (they are made
// in its transaction): the table is still unwritten, and a later write
// makes it.
TEST(CqlLazyTablesTest, AFailedFirstWriteLeavesTheTableUnwritten) {
  EngineOnVolume store;
  RunEach(store, {"CREATE KEYSPACE ks", "CREATE TABLE ks.t (k int PRIMARY KEY, v text)"});
  const std::int64_t before = SqliteSchemaVersion(store);
  // The batch's second statement fails (no such column): all of it goes.
  EXPECT_NE(Shown(store.Run("BEGIN BATCH INSERT INTO ks.t (k, v) VALUES (1, 'a'); "
                            "INSERT INTO ks.t (k, nope) VALUES (2, 'b'); APPLY BATCH")),
            "ok");
  EXPECT_EQ(Shown(store.Run("SELECT * FROM ks.t")), " k | v\n---+---\n\n(0 rows)\n");
  EXPECT_EQ(SqliteSchemaVersion(store), before);
  RunEach(store, {"INSERT INTO ks.t (k, v) VALUES (3, 'c')"});
  EXPECT_EQ(Shown(store.Run("SELECT * FROM ks.t")), " k | v\n---+---\n 3 | c\n\n(1 rows)\n");
}

}  // namespace
}  // namespace faultline::models::cql
