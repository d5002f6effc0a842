// The store's optional Cassandra mode: schema changes reach the other
// coordinators only after a delay, so concurrent creates of one table on two
// coordinators end in "Column family ID mismatch", IF NOT EXISTS or not.
#include <gtest/gtest.h>

#include "tests/models/cql_cluster_fixture.h"

namespace faultline::models::cql {
namespace {

using sim::Awaitable;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr const char* kMismatch = "Column family ID mismatch (found ";

// Two clients (on their own coordinators) create ks.t, the second `gap`
// after the first; returns their results in that order.
std::vector<ClientResult> RaceCreates(StoreCluster& cluster, sim::Duration gap,
                                      const std::string& create) {
  cluster.Client("setup", [&](CqlSession& session) -> Awaitable<void> {
    co_await session.Query("CREATE KEYSPACE ks");
  });
  cluster.simulation.RunFor(seconds(2));
  std::vector<ClientResult> results(2);
  cluster.Client("kuri-1", [&](CqlSession& session) -> Awaitable<void> {
    results[0] = co_await session.Query(create);
  });
  cluster.Client("kuri-2", [&, gap](CqlSession& session) -> Awaitable<void> {
    co_await sim::SleepFor(gap);
    results[1] = co_await session.Query(create);
  });
  cluster.simulation.RunFor(seconds(3));
  return results;
}

TEST(CqlSchemaAgreementTest, ConcurrentCreatesOnTwoCoordinatorsMismatch) {
  for (const char* create : {"CREATE TABLE ks.t (k int PRIMARY KEY)",
                             "CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY)"}) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      StoreCluster cluster(seed);
      cluster.Up("cassandra");
      std::vector<ClientResult> results = RaceCreates(cluster, milliseconds(20), create);
      EXPECT_TRUE(results[0].ok()) << create << " seed " << seed << ": " << results[0].ToString();
      ASSERT_TRUE(results[1].error) << create << " seed " << seed;
      EXPECT_EQ(results[1].error->code, ErrorCode::kServerError);
      EXPECT_NE(results[1].error->message.find(kMismatch), std::string::npos)
          << results[1].error->message;
    }
  }
}

TEST(CqlSchemaAgreementTest, YcqlsCatalogHasNoSuchRace) {
  StoreCluster cluster;
  cluster.Up();
  std::vector<ClientResult> results =
      RaceCreates(cluster, milliseconds(20), "CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY)");
  EXPECT_TRUE(results[0].ok()) << results[0].ToString();
  EXPECT_TRUE(results[1].ok()) << results[1].ToString();
}

TEST(CqlSchemaAgreementTest, OnceTheSchemaHasSpreadIfNotExistsIsANoOp) {
  StoreCluster cluster;
  cluster.Up("cassandra");
  std::vector<ClientResult> results = RaceCreates(
      cluster, milliseconds(600), "CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY)");
  EXPECT_TRUE(results[0].ok()) << results[0].ToString();
  EXPECT_TRUE(results[1].ok()) << results[1].ToString();
}

TEST(CqlSchemaAgreementTest, OneClientsOwnSchemaChangesWaitForAgreementAndNeverRace) {
  StoreCluster cluster;
  cluster.Up("cassandra");
  std::vector<std::string> log;
  sim::TimePoint started{}, finished{};
  cluster.Client("kuri-1", [&](CqlSession& session) -> Awaitable<void> {
    started = cluster.simulation.Now();
    log.push_back((co_await session.Query("CREATE KEYSPACE ks")).ToString());
    log.push_back((co_await session.Query("CREATE TABLE ks.t (k int PRIMARY KEY)")).ToString());
    log.push_back((co_await session.Query("DROP TABLE ks.t")).ToString());
    log.push_back((co_await session.Query("CREATE TABLE ks.t (k int PRIMARY KEY)")).ToString());
    log.push_back(
        (co_await session.Query("CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY)")).ToString());
    finished = cluster.simulation.Now();
  });
  cluster.simulation.RunFor(seconds(5));
  EXPECT_EQ(log, (std::vector<std::string>(5, "ok")));
  // Four schema changes, each answered after the 500 ms propagation; the
  // no-op IF NOT EXISTS changes nothing and answers at once.
  EXPECT_GE(finished - started, milliseconds(2000));
  EXPECT_LT(finished - started, milliseconds(2100));
}

// The model's choice: a table dropped within the window no longer races;
// a create elsewhere makes a new table.
TEST(CqlSchemaAgreementTest, ACreateElsewhereAfterADropIsANewTable) {
  StoreCluster cluster;
  cluster.Up("cassandra");
  cluster.Client("setup", [&](CqlSession& session) -> Awaitable<void> {
    co_await session.Query("CREATE KEYSPACE ks");
  });
  cluster.simulation.RunFor(seconds(2));
  std::string dropped, recreated;
  cluster.Client("kuri-1", [&](CqlSession& session) -> Awaitable<void> {
    co_await session.Query("CREATE TABLE ks.t (k int PRIMARY KEY)");
  });
  cluster.Client("kuri-2", [&](CqlSession& session) -> Awaitable<void> {
    co_await sim::SleepFor(milliseconds(10));
    dropped = (co_await session.Query("DROP TABLE ks.t")).ToString();
  });
  cluster.Client("kuri-3", [&](CqlSession& session) -> Awaitable<void> {
    co_await sim::SleepFor(milliseconds(20));
    recreated = (co_await session.Query("CREATE TABLE ks.t (k int PRIMARY KEY)")).ToString();
  });
  cluster.simulation.RunFor(seconds(3));
  EXPECT_EQ(dropped, "ok");
  EXPECT_EQ(recreated, "ok");
}

}  // namespace
}  // namespace faultline::models::cql
