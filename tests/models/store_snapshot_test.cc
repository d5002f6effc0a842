// StoreSnapshot reads the store's database from its volume in place: what
// the store wrote, with no simulated I/O (no fault point, no trace event) and
// without touching the volume.
#include "models/cql/store_snapshot.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/migrate/schema_check.h"
#include "tests/models/cql_store_fixture.h"

namespace faultline::models::cql {
namespace {

TEST(StoreSnapshotTest, ReadsWhatTheStoreWroteWithoutSimulatedIo) {
  fakes::Volume volume("store-data", fakes::VolumeKind::kNamedVolume);
  EngineOnVolume store(&volume);
  ASSERT_TRUE(std::holds_alternative<QueryResult>(store.Run("CREATE KEYSPACE ks")));
  ASSERT_TRUE(std::holds_alternative<QueryResult>(
      store.Run("CREATE TABLE ks.t (k text PRIMARY KEY, v bigint)")));
  ASSERT_TRUE(
      std::holds_alternative<QueryResult>(store.Run("INSERT INTO ks.t (k, v) VALUES ('a', 7)")));
  const std::uint64_t hash = store.simulation().trace().hash();
  const std::string bytes = volume.Find(kStoreDatabaseFile)->contents();
  const auto hits = store.simulation().faults().Coverage();

  sim::Result<std::unique_ptr<StoreSnapshot>> snapshot = StoreSnapshot::Open(volume, 0);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  Outcome rows = (*snapshot)->Read("SELECT k, v FROM ks.t");
  ASSERT_TRUE(std::holds_alternative<QueryResult>(rows));
  ASSERT_EQ(std::get<QueryResult>(rows).rows.size(), 1u);
  EXPECT_EQ(std::get<QueryResult>(rows).rows[0][1].integer, 7);
  EXPECT_NE((*snapshot)->catalog().FindTable("ks", "t"), nullptr);
  snapshot->reset();

  EXPECT_EQ(store.simulation().trace().hash(), hash) << "a snapshot emitted trace events";
  EXPECT_EQ(volume.Find(kStoreDatabaseFile)->contents(), bytes) << "a snapshot wrote";
  EXPECT_EQ(store.simulation().faults().Coverage().size(), hits.size());
  for (std::size_t i = 0; i < hits.size(); ++i) {
    EXPECT_EQ(store.simulation().faults().Coverage()[i].hits, hits[i].hits) << hits[i].site;
  }
}

std::size_t RowsOf(StoreSnapshot& snapshot, const std::string& select) {
  const Outcome rows = snapshot.Read(select);
  const auto* result = std::get_if<QueryResult>(&rows);
  return result == nullptr ? 999 : result->rows.size();
}

void RunOk(EngineOnVolume& store, const std::string& statement) {
  const Outcome outcome = store.Run(statement);
  ASSERT_TRUE(std::holds_alternative<QueryResult>(outcome))
      << statement << ": " << std::get<CqlError>(outcome).message;
}

// A kept snapshot refreshed after the store wrote reads the bytes as they
// are now, its catalog read again (a column added, a table made); a table
// made by its first write changes SQLite's schema, and the snapshot says
// it must be opened afresh.
TEST(StoreSnapshotTest, ARefreshedSnapshotReadsTheBytesAsTheyAreNow) {
  fakes::Volume volume("store-data", fakes::VolumeKind::kNamedVolume);
  EngineOnVolume store(&volume);
  for (const char* statement :
       {"CREATE KEYSPACE ks", "CREATE TABLE ks.t (k text PRIMARY KEY, v bigint)",
        "INSERT INTO ks.t (k, v) VALUES ('a', 1)"}) {
    RunOk(store, statement);
  }
  sim::Result<std::unique_ptr<StoreSnapshot>> snapshot = StoreSnapshot::Open(volume, 0);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  StoreSnapshot& kept = **snapshot;
  EXPECT_EQ(RowsOf(kept, "SELECT k FROM ks.t"), 1u);
  for (const char* statement :
       {"INSERT INTO ks.t (k, v) VALUES ('b', 2)", "ALTER TABLE ks.t ADD w text",
        "CREATE TABLE ks.u (k int PRIMARY KEY)"}) {
    RunOk(store, statement);
  }
  ASSERT_TRUE(kept.Refresh(volume, 0));
  EXPECT_EQ(RowsOf(kept, "SELECT k, w FROM ks.t"), 2u);
  EXPECT_NE(kept.catalog().FindTable("ks", "u"), nullptr);
  EXPECT_EQ(RowsOf(kept, "SELECT k FROM ks.u"), 0u);
  RunOk(store, "INSERT INTO ks.u (k) VALUES (1)");
  EXPECT_FALSE(kept.Refresh(volume, 0)) << "a table made since, and the parsed schema kept";
  sim::Result<std::unique_ptr<StoreSnapshot>> again = StoreSnapshot::Open(volume, 0);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(RowsOf(**again, "SELECT k FROM ks.u"), 1u);
}

// The bytes may go back (a power loss keeps the synced ones) and move on
// to other bytes behind the same header: a refreshed snapshot reads them
// all again, never pages it read before.
TEST(StoreSnapshotTest, ARefreshReadsBytesThatWentBackAndOnAgain) {
  fakes::Volume volume("store-data", fakes::VolumeKind::kNamedVolume);
  EngineOnVolume store(&volume);
  for (const char* statement :
       {"CREATE KEYSPACE ks", "CREATE TABLE ks.t (k text PRIMARY KEY, v bigint)",
        "INSERT INTO ks.t (k, v) VALUES ('first', 1)"}) {
    RunOk(store, statement);
  }
  const std::string before = volume.Find(kStoreDatabaseFile)->contents();
  RunOk(store, "INSERT INTO ks.t (k, v) VALUES ('lost', 2)");
  sim::Result<std::unique_ptr<StoreSnapshot>> snapshot = StoreSnapshot::Open(volume, 0);
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ(RowsOf(**snapshot, "SELECT k FROM ks.t WHERE k = 'lost'"), 1u);
  // Back to the bytes before, and on to others by the same count of commits.
  fakes::SimFile* file = volume.Find(kStoreDatabaseFile);
  file->Truncate(0);
  file->Write(0, before);
  file->Sync();
  store.Reopen();
  RunOk(store, "INSERT INTO ks.t (k, v) VALUES ('kept', 3)");
  ASSERT_TRUE((*snapshot)->Refresh(volume, 0));
  EXPECT_EQ(RowsOf(**snapshot, "SELECT k FROM ks.t WHERE k = 'lost'"), 0u);
  EXPECT_EQ(RowsOf(**snapshot, "SELECT k FROM ks.t WHERE k = 'kept'"), 1u);
}

TEST(StoreSnapshotTest, AVolumeWithoutADatabaseIsNotFound) {
  const fakes::Volume volume("store-data", fakes::VolumeKind::kNamedVolume);
  sim::Result<std::unique_ptr<StoreSnapshot>> snapshot = StoreSnapshot::Open(volume, 0);
  ASSERT_FALSE(snapshot.ok());
  EXPECT_EQ(snapshot.status().code(), sim::StatusCode::kNotFound);
}

TEST(StoreSnapshotTest, BytesThatAreNoDatabaseAreAnErrorNotACrash) {
  fakes::Volume volume("store-data", fakes::VolumeKind::kNamedVolume);
  volume.OpenOrCreate(kStoreDatabaseFile).Write(0, std::string(4096, 'x'));
  sim::Result<std::unique_ptr<StoreSnapshot>> snapshot = StoreSnapshot::Open(volume, 0);
  ASSERT_FALSE(snapshot.ok());
  EXPECT_NE(snapshot.status().code(), sim::StatusCode::kNotFound);
}

// The content hash: the same rows by another path (inserted in another
// order, a row written twice, a statement that changed nothing) hash
// alike; another value, another row or another column does not.
std::uint64_t ContentAfter(const std::vector<std::string>& statements) {
  fakes::Volume volume("store-data", fakes::VolumeKind::kNamedVolume);
  EngineOnVolume store(&volume);
  for (const std::string& statement : statements) {
    EXPECT_TRUE(std::holds_alternative<QueryResult>(store.Run(statement))) << statement;
  }
  sim::Result<std::unique_ptr<StoreSnapshot>> snapshot = StoreSnapshot::Open(volume, 0);
  EXPECT_TRUE(snapshot.ok());
  return snapshot.ok() ? (*snapshot)->ContentHash() : 0;
}

TEST(StoreSnapshotTest, TheContentHashIsTheRowsNotTheirHistory) {
  const std::vector<std::string> table = {"CREATE KEYSPACE ks",
                                          "CREATE TABLE ks.t (k text PRIMARY KEY, v bigint)"};
  const auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> all = table;
    all.insert(all.end(), more.begin(), more.end());
    return ContentAfter(all);
  };
  const std::uint64_t base =
      with({"INSERT INTO ks.t (k, v) VALUES ('a', 1)", "INSERT INTO ks.t (k, v) VALUES ('b', 2)"});
  EXPECT_EQ(
      with({"INSERT INTO ks.t (k, v) VALUES ('b', 2)", "INSERT INTO ks.t (k, v) VALUES ('a', 1)",
            "CREATE TABLE IF NOT EXISTS ks.t (k text PRIMARY KEY, v bigint)",
            "INSERT INTO ks.t (k, v) VALUES ('a', 1)"}),
      base);
  EXPECT_NE(
      with({"INSERT INTO ks.t (k, v) VALUES ('a', 1)", "INSERT INTO ks.t (k, v) VALUES ('b', 3)"}),
      base);
  EXPECT_NE(with({"INSERT INTO ks.t (k, v) VALUES ('a', 1)"}), base);
  EXPECT_NE(with({"INSERT INTO ks.t (k, v) VALUES ('a', 1)",
                  "INSERT INTO ks.t (k, v) VALUES ('b', 2)", "ALTER TABLE ks.t ADD w text"}),
            base);
  EXPECT_NE(base, 0u);
}

// The schema check reads a keyspace's schema from the snapshot's catalog
// (SchemaFromCatalog), not by running system_schema's views: on a keyspace
// with every kind of column, option, index and type, both give one model.
void ExpectBothReadingsAgree(Dialect dialect, const std::vector<std::string>& statements) {
  fakes::Volume volume("store-data", fakes::VolumeKind::kNamedVolume);
  EngineOnVolume store(&volume);
  store.UseDialect(dialect);
  for (const std::string& statement : statements) {
    const Outcome outcome = store.Run(statement);
    ASSERT_TRUE(std::holds_alternative<QueryResult>(outcome))
        << statement << ": " << std::get<CqlError>(outcome).message;
  }
  sim::Result<std::unique_ptr<StoreSnapshot>> snapshot = StoreSnapshot::Open(volume, 0);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  const auto by_catalog = migrate::SchemaFromCatalog((*snapshot)->catalog(), "ks");
  const auto by_queries = migrate::SnapshotSchemaByQueries(**snapshot, "ks");
  ASSERT_TRUE(by_catalog.has_value());
  ASSERT_TRUE(by_queries.ok()) << by_queries.status().ToString();
  EXPECT_EQ(*by_catalog, *by_queries);
  EXPECT_GE(by_catalog->size(), 3u);
  EXPECT_FALSE(by_catalog->contains("schema_migrations"));  // Bookkeeping: left out by both.
  EXPECT_EQ(by_catalog->indexes.size(), by_queries->indexes.size());
  EXPECT_EQ(by_catalog->indexes, by_queries->indexes);
  EXPECT_EQ(by_catalog->types, by_queries->types);
  EXPECT_EQ(by_catalog->options, by_queries->options);
  EXPECT_FALSE(by_catalog->types.empty());
  EXPECT_FALSE(by_catalog->indexes.empty());
  const auto missing = migrate::SchemaFromCatalog((*snapshot)->catalog(), "nothing");
  ASSERT_TRUE(missing.has_value());
  EXPECT_TRUE(missing->empty());
}

const std::vector<std::string> kRichKeyspace = {
    "CREATE KEYSPACE ks",
    "CREATE TYPE ks.address (street text, zip int)",
    "CREATE TYPE ks.place (name text, at frozen<address>)",
    "CREATE TABLE ks.events (id uuid, at timestamp, kind text, tags set<text>, "
    "attrs map<text, bigint>, home frozen<place>, note_of text, PRIMARY KEY ((id), at)) WITH "
    "CLUSTERING ORDER "
    "BY (at DESC) AND default_time_to_live = 3600 AND comment = 'it''s the events'",
    "CREATE TABLE ks.buckets (owner text, name text, total bigint static, note text, "
    "PRIMARY KEY ((owner), name)) WITH gc_grace_seconds = 100",
    "ALTER TABLE ks.buckets ADD size varchar",
    "CREATE TABLE ks.plain (k int PRIMARY KEY, v blob)",
    "CREATE TABLE ks.schema_migrations (version bigint PRIMARY KEY, dirty boolean)",
};

TEST(StoreSnapshotTest, TheSchemaFromTheCatalogIsTheSchemaTheViewsShowOnYcql) {
  std::vector<std::string> statements = kRichKeyspace;
  statements.push_back(
      "CREATE TABLE ks.spans (id text PRIMARY KEY, service text, ts bigint) WITH "
      "transactions = {'enabled': true}");
  statements.push_back("CREATE INDEX by_service ON ks.spans (service) INCLUDE (ts)");
  statements.push_back("CREATE INDEX ON ks.spans (ts)");
  ExpectBothReadingsAgree(Dialect::kYcql, statements);
}

TEST(StoreSnapshotTest, TheSchemaFromTheCatalogIsTheSchemaTheViewsShowOnCassandra) {
  std::vector<std::string> statements = kRichKeyspace;
  statements.push_back("CREATE INDEX by_attr ON ks.events (keys(attrs))");
  statements.push_back("CREATE INDEX ON ks.buckets (note)");
  ExpectBothReadingsAgree(Dialect::kCassandra, statements);
}

// An option the views' SQL would read its own way (CAST of text that is not
// plain digits) is left to the queries.
TEST(StoreSnapshotTest, AnOptionThatIsNotPlainDigitsIsLeftToTheQueries) {
  Catalog catalog;
  catalog.ApplyKeyspace(KeyspaceInfo{"ks", {}, {}, false});
  TableInfo table;
  table.keyspace = "ks";
  table.name = "t";
  table.id = 1;
  table.columns.push_back(ColumnInfo{.name = "k",
                                     .type = CqlType{CqlType::Kind::kInt, false, {}},
                                     .role = ColumnInfo::Role::kPartitionKey,
                                     .position = 0,
                                     .sql_name = "c0"});
  table.options = {{"default_time_to_live", "'+5'"}};
  catalog.ApplyTable(table);
  EXPECT_FALSE(migrate::SchemaFromCatalog(catalog, "ks").has_value());
  catalog.ApplyTable([&] {
    TableInfo plain = table;
    plain.options = {{"default_time_to_live", "5"}, {"comment", "'x'"}};
    return plain;
  }());
  const auto read = migrate::SchemaFromCatalog(catalog, "ks");
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->options.at("t").at("default_time_to_live"), "5");
  EXPECT_EQ(read->options.at("t").at("gc_grace_seconds"), "864000");
  EXPECT_EQ(read->options.at("t").at("comment"), "x");
}

}  // namespace
}  // namespace faultline::models::cql
