// The store cluster replays exactly from a seed: two runs of the same seed
// give the same trace hash (and the same answers), over many seeds, with
// concurrent clients, a store crash and restart, and reordering latency.
#include <gtest/gtest.h>

#include <set>

#include "tests/models/cql_cluster_fixture.h"

namespace faultline::models::cql {
namespace {

using sim::Awaitable;
using std::chrono::milliseconds;

struct RunResult {
  std::uint64_t hash = 0;
  std::vector<std::string> answers;
};

RunResult RunWorkload(std::uint64_t seed) {
  StoreCluster cluster(seed);
  cluster.Up();
  RunResult result;
  for (int client = 0; client < 3; ++client) {
    const std::string host = "migrate-" + std::to_string(client);
    cluster.Client(host, [&result, client](CqlSession& session) -> Awaitable<void> {
      co_await session.Query("CREATE KEYSPACE IF NOT EXISTS ks");
      result.answers.push_back(
          (co_await session.Query("CREATE TABLE ks.t (k int PRIMARY KEY, who int)")).ToString());
      for (int k = 0; k < 5; ++k) {
        std::vector<Value> values;
        values.push_back(Value::Int(k));
        values.push_back(Value::Int(client));
        result.answers.push_back(
            (co_await session.Query("INSERT INTO ks.t (k, who) VALUES (?, ?) IF NOT EXISTS",
                                    std::move(values)))
                .ToString());
        co_await sim::SleepFor(milliseconds(1));
      }
    });
  }
  cluster.simulation.RunFor(milliseconds(3));
  cluster.runtime.Kill("yugabyte");
  cluster.simulation.RunFor(std::chrono::seconds(5));
  result.hash = cluster.simulation.trace().hash();
  return result;
}

TEST(CqlDeterminismTest, TheSameSeedGivesTheSameTraceOverManySeeds) {
  std::set<std::uint64_t> hashes;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const RunResult first = RunWorkload(seed);
    const RunResult second = RunWorkload(seed);
    EXPECT_EQ(first.hash, second.hash) << "seed " << seed;
    EXPECT_EQ(first.answers, second.answers) << "seed " << seed;
    hashes.insert(first.hash);
  }
  EXPECT_GT(hashes.size(), 20u);  // Different seeds explore different schedules.
}

}  // namespace
}  // namespace faultline::models::cql
