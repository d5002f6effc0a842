// StoreSnapshot reads the store's database from its volume in place: what
// the store wrote, with no simulated I/O (no fault point, no trace event) and
// without touching the volume.
#include "models/cql/store_snapshot.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

}  // namespace
}  // namespace faultline::models::cql
