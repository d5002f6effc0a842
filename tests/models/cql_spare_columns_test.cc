// Spare columns (models/cql/spare_columns.cc): ALTER TABLE ... ADD takes a
// column CREATE TABLE laid out beforehand, so SQLite's schema, whose every
// change SQLite parses again whole, does not change; what no spare fits
// still gets its own SQLite column. Either way the table reads as before.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "models/cql/engine.h"
#include "tests/models/cql_store_fixture.h"

namespace faultline::models::cql {
namespace {

void RunAll(EngineOnVolume& store, std::initializer_list<const char*> statements) {
  for (const char* statement : statements) {
    ASSERT_EQ(Shown(store.Run(statement)), "ok") << statement;
  }
}

TEST(CqlSpareColumnsTest, AddingCommonTypesChangesNoSqliteSchema) {
  EngineOnVolume store;
  RunAll(store, {"CREATE KEYSPACE ks", "CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
                 "INSERT INTO ks.t (k, v) VALUES (1, 'before')"});
  const std::int64_t before = SqliteSchemaVersion(store);
  RunAll(store, {"ALTER TABLE ks.t ADD a text", "ALTER TABLE ks.t ADD b bigint",
                 "ALTER TABLE ks.t ADD c list<text>", "ALTER TABLE ks.t ADD d boolean",
                 "ALTER TABLE ks.t ADD e double"});
  EXPECT_EQ(SqliteSchemaVersion(store), before) << "an ADD a spare fits ran SQLite DDL";
  RunAll(store, {"INSERT INTO ks.t (k, v, a, b, c, d, e) VALUES (2, 'after', 'x', 3, ['y'], "
                 "true, 1.5)"});
  const char* expected =
      " k |      v |    a |    b |     c |    d |    e\n"
      "---+--------+------+------+-------+------+------\n"
      " 1 | before | null | null |  null | null | null\n"
      " 2 |  after |    x |    3 | ['y'] | True |  1.5\n"
      "\n(2 rows)\n";
  EXPECT_EQ(Shown(store.Run("SELECT * FROM ks.t")), expected);
  store.Reopen();
  EXPECT_EQ(Shown(store.Run("SELECT * FROM ks.t")), expected);
}

// A decimal sorts by its collation, which no spare declares; and once the
// spares are used up, every ADD gets a SQLite column of its own, named past
// them, and the table still reads and reopens (its catalog is checked).
TEST(CqlSpareColumnsTest, WhatNoSpareFitsGetsItsOwnColumnPastTheSpares) {
  EngineOnVolume store;
  // A row first: a table's SQLite table comes with its first write.
  RunAll(store, {"CREATE KEYSPACE ks", "CREATE TABLE ks.t (k int PRIMARY KEY)",
                 "INSERT INTO ks.t (k) VALUES (0)"});
  const std::int64_t before = SqliteSchemaVersion(store);
  RunAll(store, {"ALTER TABLE ks.t ADD price decimal"});
  EXPECT_GT(SqliteSchemaVersion(store), before);
  std::string insert = "INSERT INTO ks.t (k, price";
  std::string values = "VALUES (1, 2.50";
  for (int i = 0; i < 12; ++i) {
    ASSERT_EQ(Shown(store.Run(fmt::format("ALTER TABLE ks.t ADD n{} text", i))), "ok") << i;
    insert += fmt::format(", n{}", i);
    values += fmt::format(", 'v{}'", i);
  }
  ASSERT_EQ(Shown(store.Run(insert + ") " + values + ")")), "ok");
  const std::string row = Shown(store.Run("SELECT * FROM ks.t WHERE k = 1"));
  EXPECT_NE(row.find(" 1 |  2.50 | v0 | v1 | v2 | v3 | v4 | v5 | v6 | v7 | v8 | v9 | v10 | v11\n"),
            std::string::npos)
      << row;
  store.Reopen();
  EXPECT_EQ(Shown(store.Run("SELECT * FROM ks.t WHERE k = 1")), row);
  EXPECT_EQ(Shown(store.Run("SELECT k FROM ks.t WHERE price = 2.5 ALLOW FILTERING")),
            " k\n---\n 1\n\n(1 rows)\n");
}

// Cassandra's rule: a column dropped and added again does not bring back
// what it held (the new one is another SQLite column, spare or not).
TEST(CqlSpareColumnsTest, AColumnDroppedAndAddedAgainIsEmpty) {
  EngineOnVolume store;
  RunAll(store, {"CREATE KEYSPACE ks", "CREATE TABLE ks.t (k int PRIMARY KEY)",
                 "ALTER TABLE ks.t ADD x text", "INSERT INTO ks.t (k, x) VALUES (1, 'old')",
                 "ALTER TABLE ks.t DROP x", "ALTER TABLE ks.t ADD x text"});
  EXPECT_EQ(Shown(store.Run("SELECT x FROM ks.t")), "    x\n------\n null\n\n(1 rows)\n");
}

// An index on a column that took a spare finds its rows.
TEST(CqlSpareColumnsTest, AnIndexOnASpareColumnFindsItsRows) {
  EngineOnVolume store;
  RunAll(store, {"CREATE KEYSPACE ks",
                 "CREATE TABLE ks.t (k int PRIMARY KEY) WITH transactions = {'enabled': true}",
                 "ALTER TABLE ks.t ADD owner text", "CREATE INDEX by_owner ON ks.t (owner)",
                 "INSERT INTO ks.t (k, owner) VALUES (1, 'ann')",
                 "INSERT INTO ks.t (k, owner) VALUES (2, 'bob')"});
  EXPECT_EQ(Shown(store.Run("SELECT k FROM ks.t WHERE owner = 'bob'")),
            " k\n---\n 2\n\n(1 rows)\n");
}

}  // namespace
}  // namespace faultline::models::cql
