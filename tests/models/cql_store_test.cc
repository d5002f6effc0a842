// The store as a service: clients over the network, restarts, outages,
// concurrent schema changes, paging and prepared statements.
#include <gtest/gtest.h>

#include "tests/models/cql_cluster_fixture.h"

namespace faultline::models::cql {
namespace {

using sim::Awaitable;
using std::chrono::milliseconds;
using std::chrono::seconds;

// Bound values. A function, not a braced list at the call: GCC 12 rejects
// initializer lists inside coroutines ("array used as initializer").
template <typename... Values>
std::vector<Value> Args(Values... values) {
  std::vector<Value> args;
  (args.push_back(std::move(values)), ...);
  return args;
}

TEST(CqlStoreTest, AClientCreatesWritesAndReadsOverTheNetwork) {
  StoreCluster cluster;
  cluster.Up();
  std::vector<std::string> log;
  cluster.Client("kuri-1", [&](CqlSession& session) -> Awaitable<void> {
    log.push_back((co_await session.Query("CREATE KEYSPACE s3")).ToString());
    log.push_back((co_await session.Query("USE s3")).ToString());
    log.push_back(
        (co_await session.Query("CREATE TABLE objects (bucket text, key text, size bigint, "
                                "PRIMARY KEY (bucket, key))"))
            .ToString());
    PreparedStatement insert;
    log.push_back((co_await session.Prepare(
                       "INSERT INTO objects (bucket, key, size) VALUES (?, ?, ?)", &insert))
                      .ToString());
    for (int i = 0; i < 3; ++i) {
      std::vector<Value> values =
          Args(Value::Text("b"), Value::Text("k" + std::to_string(i)), Value::Int(i * 10));
      log.push_back((co_await session.Execute(insert, std::move(values))).ToString());
    }
    ClientResult rows = co_await session.Query("SELECT key, size FROM objects WHERE bucket = ?",
                                               Args(Value::Text("b")));
    log.push_back(FormatResult(rows.result));
    log.push_back(session.keyspace());
  });
  cluster.simulation.RunFor(seconds(1));
  ASSERT_EQ(log.size(), 9u);
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(log[i], "ok") << i;
  EXPECT_EQ(log[7],
            " key | size\n-----+------\n  k0 |    0\n  k1 |   10\n  k2 |   20\n\n(3 rows)\n");
  EXPECT_EQ(log[8], "s3");
}

// A statement only Cassandra's grammar takes (`end` is a name there, a
// reserved word in YCQL) fails at PREPARE on YCQL's store, as a driver
// expects a syntax error to, not later at EXECUTE.
TEST(CqlStoreTest, AStatementTheStoresGrammarRefusesFailsToPrepare) {
  StoreCluster cluster;
  cluster.Up();
  std::vector<std::string> log;
  cluster.Client("kuri-1", [&](CqlSession& session) -> Awaitable<void> {
    co_await session.Query("CREATE KEYSPACE ks");
    co_await session.Query("CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
    PreparedStatement select;
    log.push_back(
        (co_await session.Prepare("SELECT end FROM ks.t WHERE k = ?", &select)).ToString());
  });
  cluster.simulation.RunFor(seconds(1));
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("Invalid SQL Statement. syntax error, unexpected END"), std::string::npos)
      << log[0];
}

TEST(CqlStoreTest, EveryStatementAppearsInTheTrace) {
  StoreCluster cluster;
  sim::RingSink events(10'000);
  cluster.simulation.trace().AddSink(&events);
  cluster.Up();
  cluster.Client("kuri-1", [&](CqlSession& session) -> Awaitable<void> {
    co_await session.Query("CREATE KEYSPACE ks");
    co_await session.Query("SELECT node_id FROM ks.t");
    co_await session.Query("SELECT * FROM system_schema.keyspaces");
  });
  cluster.simulation.RunFor(seconds(1));
  cluster.simulation.trace().RemoveSink(&events);
  std::vector<std::string> seen;
  for (const sim::TraceEvent& event : events.Events()) {
    if (event.name != "cql.statement") continue;
    seen.push_back(event.Find("statement")->AsString() + " -> " +
                   event.Find("outcome")->AsString());
  }
  EXPECT_EQ(seen,
            (std::vector<std::string>{"CREATE KEYSPACE ks -> ok",
                                      "SELECT node_id FROM ks.t -> error -301 Object Not Found",
                                      "SELECT * FROM system_schema.keyspaces -> 4 rows"}));
}

// A syntax error keeps its place over the wire, like any other error.
TEST(CqlStoreTest, ASyntaxErrorPointsAtItsTokenOverTheNetwork) {
  StoreCluster cluster;
  cluster.Up();
  ClientResult result;
  cluster.Client("kuri-1", [&](CqlSession& session) -> Awaitable<void> {
    result = co_await session.Query("SELECT * FORM t");
  });
  cluster.simulation.RunFor(seconds(1));
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kSyntaxError);
  EXPECT_EQ(result.error->offset, std::optional<std::size_t>(9));
}

TEST(CqlStoreTest, EachSessionHasItsOwnKeyspace) {
  StoreCluster cluster;
  cluster.Up();
  std::string first, second;
  cluster.Client("migrate-a", [&](CqlSession& session) -> Awaitable<void> {
    co_await session.Query("CREATE KEYSPACE a");
    co_await session.Query("CREATE KEYSPACE b");
    co_await session.Query("USE a");
    co_await sim::SleepFor(milliseconds(100));
    first = (co_await session.Query("CREATE TABLE t (k int PRIMARY KEY)")).ToString();
  });
  cluster.Client("migrate-b", [&](CqlSession& session) -> Awaitable<void> {
    co_await sim::SleepFor(milliseconds(50));
    co_await session.Query("USE b");
    co_await sim::SleepFor(milliseconds(100));
    second = (co_await session.Query("CREATE TABLE t (k int PRIMARY KEY)")).ToString();
  });
  cluster.simulation.RunFor(seconds(1));
  EXPECT_EQ(first, "ok");
  EXPECT_EQ(second, "ok");  // b.t, not a duplicate of a.t.
}

TEST(CqlStoreTest, OfTwoConcurrentCreatesOneWinsTheOtherGetsDuplicateObject) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    StoreCluster cluster(seed);
    cluster.Up();
    cluster.Client("setup", [&](CqlSession& session) -> Awaitable<void> {
      co_await session.Query("CREATE KEYSPACE ks");
    });
    cluster.simulation.RunFor(milliseconds(10));
    std::vector<ClientResult> results;
    for (const char* host : {"migrate-1", "migrate-2"}) {
      cluster.Client(host, [&, host](CqlSession& session) -> Awaitable<void> {
        const std::string columns = std::string(host) == "migrate-1" ? "a int" : "b int";
        results.push_back(
            co_await session.Query("CREATE TABLE ks.t (k int PRIMARY KEY, " + columns + ")"));
      });
    }
    cluster.simulation.RunFor(seconds(1));
    ASSERT_EQ(results.size(), 2u);
    const int winners = results[0].ok() + results[1].ok();
    EXPECT_EQ(winners, 1) << "seed " << seed;
    const ClientResult& loser = results[0].ok() ? results[1] : results[0];
    ASSERT_TRUE(loser.error) << "seed " << seed;
    EXPECT_EQ(loser.error->code, ErrorCode::kDuplicateObject);
    EXPECT_EQ(Headline(loser.error->message), "Duplicate Object. Object 'ks.t' already exists");
  }
}

TEST(CqlStoreTest, DataAndPreparedStatementsSurviveAStoreCrash) {
  StoreCluster cluster;
  cluster.Up();
  std::vector<std::string> log;
  cluster.Client("kuri-1", [&](CqlSession& session) -> Awaitable<void> {
    co_await session.Query("CREATE KEYSPACE ks");
    co_await session.Query("CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
    PreparedStatement insert;
    co_await session.Prepare("INSERT INTO ks.t (k, v) VALUES (?, ?)", &insert);
    log.push_back(
        (co_await session.Execute(insert, Args(Value::Int(1), Value::Text("one")))).ToString());
    cluster.runtime.Kill("yugabyte");
    log.push_back(
        (co_await session.Execute(insert, Args(Value::Int(2), Value::Text("two")))).ToString());
    co_await sim::SleepFor(seconds(1));  // The restart policy brings it back.
    log.push_back(
        (co_await session.Execute(insert, Args(Value::Int(2), Value::Text("two")))).ToString());
    ClientResult count = co_await session.Query("SELECT count(*) FROM ks.t");
    log.push_back(count.ok() ? FormatResult(count.result) : count.ToString());
  });
  cluster.simulation.RunFor(seconds(5));
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[0], "ok");
  EXPECT_EQ(log[1], "gocql: no hosts available in the pool");  // gocql's ErrNoConnections.
  EXPECT_EQ(log[2], "ok");  // Re-prepared on the restarted store.
  EXPECT_EQ(log[3], " count\n-------\n     2\n\n(1 rows)\n");
  EXPECT_EQ(cluster.runtime.restart_count("yugabyte"), 1);
}

// A prepared statement resolves its names in the keyspace of its PREPARE,
// whatever USE came after, also once re-prepared on a restarted store.
TEST(CqlStoreTest, APreparedStatementKeepsTheKeyspaceItWasPreparedIn) {
  StoreCluster cluster;
  cluster.Up();
  std::vector<std::string> log;
  cluster.Client("kuri-1", [&](CqlSession& session) -> Awaitable<void> {
    for (const char* setup :
         {"CREATE KEYSPACE a", "CREATE KEYSPACE b", "CREATE TABLE a.t (k int PRIMARY KEY)",
          "CREATE TABLE b.t (k int PRIMARY KEY)", "USE a"}) {
      co_await session.Query(setup);
    }
    PreparedStatement insert;
    co_await session.Prepare("INSERT INTO t (k) VALUES (?)", &insert);
    co_await session.Query("USE b");
    log.push_back((co_await session.Execute(insert, Args(Value::Int(1)))).ToString());
    cluster.runtime.Kill("yugabyte");
    co_await sim::SleepFor(seconds(1));  // The restart policy brings it back.
    log.push_back((co_await session.Execute(insert, Args(Value::Int(2)))).ToString());
    for (const char* count : {"SELECT count(*) FROM a.t", "SELECT count(*) FROM b.t"}) {
      ClientResult rows = co_await session.Query(count);
      log.push_back(rows.ok() ? FormatResult(rows.result) : rows.ToString());
    }
  });
  cluster.simulation.RunFor(seconds(5));
  EXPECT_EQ(log, (std::vector<std::string>{"ok", "ok", " count\n-------\n     2\n\n(1 rows)\n",
                                           " count\n-------\n     0\n\n(1 rows)\n"}));
}

TEST(CqlStoreTest, APartitionedStoreTimesOut) {
  StoreCluster cluster;
  cluster.Up();
  std::string outcome;
  cluster.Client("kuri-1", [&](CqlSession& session) -> Awaitable<void> {
    cluster.network.Partition({"kuri-1"}, {"yugabyte"});
    outcome = (co_await session.Query("CREATE KEYSPACE ks")).ToString();
  });
  cluster.simulation.RunFor(seconds(5));
  EXPECT_EQ(outcome, kGocqlTimeout);  // gocql's ErrTimeoutNoResponse.
}

// A statement without a keyspace: YCQL says "No Namespace Used" (errcodes.cc)
// and sends the statement with it; Cassandra says its own sentence
// (ClientState.java), without the statement.
TEST(CqlStoreTest, NoKeyspaceIsWordedAsEachStoreWordsIt) {
  for (const char* version : {"2.20", "cassandra"}) {
    StoreCluster cluster;
    cluster.Up(version);
    std::string outcome;
    cluster.Client("kuri-1", [&](CqlSession& session) -> Awaitable<void> {
      outcome = (co_await session.Query("SELECT * FROM t")).ToString();
    });
    cluster.simulation.RunFor(seconds(1));
    if (std::string_view(version) == "cassandra") {
      EXPECT_EQ(outcome, kCassandraNoKeyspaceText);
    } else {
      EXPECT_EQ(outcome, "No Namespace Used\nSELECT * FROM t\n              ^\n (ql error -215)");
    }
  }
}

TEST(CqlStoreTest, KeptVolumesKeepTheDataAndDownVWipesIt) {
  StoreCluster cluster;
  cluster.Up();
  cluster.Client("setup", [&](CqlSession& session) -> Awaitable<void> {
    co_await session.Query("CREATE KEYSPACE ks");
  });
  cluster.simulation.RunFor(milliseconds(100));
  int checks = 0;
  auto keyspaces = [&] {
    std::string names;
    cluster.Client("check-" + std::to_string(++checks),
                   [&](CqlSession& session) -> Awaitable<void> {
                     names = (co_await session.Query("DESCRIBE KEYSPACES")).result.text;
                   });
    cluster.simulation.RunFor(milliseconds(100));
    return names;
  };
  cluster.runtime.Down(false);
  cluster.simulation.RunFor(seconds(11));
  cluster.Up();
  EXPECT_EQ(keyspaces(), "ks  system  system_auth  system_schema\n");
  cluster.runtime.Down(true);
  cluster.simulation.RunFor(seconds(11));
  cluster.Up();
  EXPECT_EQ(keyspaces(), "system  system_auth  system_schema\n");
}

TEST(CqlStoreTest, QueryAllPagesThroughEveryRow) {
  StoreCluster cluster;
  cluster.Up();
  std::size_t rows = 0;
  std::string last;
  cluster.Client("kuri-1", [&](CqlSession& session) -> Awaitable<void> {
    co_await session.Query("CREATE KEYSPACE ks");
    co_await session.Query("CREATE TABLE ks.t (p int, c int, PRIMARY KEY (p, c))");
    for (int c = 0; c < 10; ++c) {
      co_await session.Query("INSERT INTO ks.t (p, c) VALUES (1, ?)", Args(Value::Int(c)));
    }
    ClientResult all = co_await session.QueryAll("SELECT c FROM ks.t WHERE p = 1", {}, 3);
    rows = all.result.rows.size();
    last = FormatCell(all.result.rows.back().at(0), all.result.columns.at(0).type);
  });
  cluster.simulation.RunFor(seconds(1));
  EXPECT_EQ(rows, 10u);
  EXPECT_EQ(last, "9");
}

}  // namespace
}  // namespace faultline::models::cql
