// The store's durability promise: a write the store acknowledged is there
// after any crash. A client streams INSERTs; the store is killed at a random
// moment (with a power loss that drops, tears or keeps a prefix of the
// unsynced writes) or crashes inside a random disk sync; the runtime
// restarts it; every acknowledged row must then be readable, intact.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <set>

#include "tests/models/cql_cluster_fixture.h"

namespace faultline::models::cql {
namespace {

using sim::Awaitable;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kWrites = 40;

std::string ValueFor(int k) { return "value-" + std::to_string(k * 7919); }

struct CrashCase {
  std::uint64_t seed = 1;
  bool crash_in_sync = false;  // Else: a kill at kill_after plus a power loss.
  std::uint64_t sync_hit = 1;  // Which disk.sync crashes (after set-up).
  sim::Duration kill_after{};
  fakes::CrashModel::Mode power_loss = fakes::CrashModel::Mode::kDropAll;
};

std::ostream& operator<<(std::ostream& out, const CrashCase& c) {
  return out << "seed=" << c.seed << (c.crash_in_sync ? " crash at disk.sync hit " : " kill after ")
             << (c.crash_in_sync ? c.sync_hit : static_cast<std::uint64_t>(c.kill_after.count()))
             << " power_loss=" << static_cast<int>(c.power_loss);
}

struct CrashOutcome {
  std::size_t acknowledged = 0;
  std::vector<std::string> problems;  // Acknowledged rows missing or damaged afterwards.
};

CrashOutcome RunCrashCase(const CrashCase& c) {
  sim::SimulationOptions options{.seed = c.seed};
  // Set-up takes some syncs before the first write; count crash hits after them.
  constexpr std::uint64_t kSetupSyncs = 8;
  if (c.crash_in_sync) {
    auto plan = std::make_shared<sim::ExplicitFaultPlan>();
    plan->CrashAt(fakes::SqliteVfs::kSiteSync, kSetupSyncs + c.sync_hit);
    options.fault_plan = plan;
  }
  StoreCluster cluster(std::move(options));
  sim::Simulation& simulation = cluster.simulation;
  cluster.Up();
  std::set<int> acknowledged;
  bool writer_done = false;
  cluster.Client("writer", [&](CqlSession& session) -> Awaitable<void> {
    // Set-up may meet the crash too: retry it until it is done.
    for (const char* statement : {"CREATE KEYSPACE IF NOT EXISTS ks",
                                  "CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY, v text)"}) {
      for (int attempt = 0; attempt < 100; ++attempt) {
        if ((co_await session.Query(statement)).ok()) break;
        co_await sim::SleepFor(milliseconds(50));
      }
    }
    PreparedStatement insert;
    for (int attempt = 0; attempt < 100 && insert.id.empty(); ++attempt) {
      if (!(co_await session.Prepare("INSERT INTO ks.t (k, v) VALUES (?, ?)", &insert)).ok()) {
        co_await sim::SleepFor(milliseconds(50));
      }
    }
    for (int k = 0; k < kWrites; ++k) {
      std::vector<Value> values;
      values.push_back(Value::Int(k));
      values.push_back(Value::Text(ValueFor(k)));
      ClientResult result = co_await session.Execute(insert, std::move(values));
      if (result.ok()) acknowledged.insert(k);
      if (!result.ok()) co_await sim::SleepFor(milliseconds(20));
    }
    writer_done = true;
  });
  if (!c.crash_in_sync) {
    sim::Process& chaos = simulation.AddProcess("chaos");
    chaos.Start([&]() -> Awaitable<int> {
      co_await sim::SleepFor(c.kill_after);
      cluster.runtime.Kill("yugabyte");
      sim::Rng random(c.seed ^ 0x9e3779b97f4a7c15ull);
      fakes::CrashModel model;
      model.mode = c.power_loss;
      cluster.runtime.FindVolume("yugabyte-data", fakes::VolumeKind::kNamedVolume)
          ->LoseUnsynced(random, model);
      co_return 0;
    });
  }
  simulation.RunUntil([&] { return writer_done; });
  simulation.RunFor(seconds(2));  // Let a crashed store come back.

  std::vector<std::string> problems;
  bool checked = false;
  cluster.Client("checker", [&](CqlSession& session) -> Awaitable<void> {
    ClientResult rows = co_await session.QueryAll("SELECT k, v FROM ks.t", {}, 16);
    if (!rows.ok()) {
      problems.push_back("cannot read back: " + rows.ToString());
      co_return;
    }
    std::map<std::int64_t, std::string> found;
    for (const Row& row : rows.result.rows) found[row.at(0).integer] = row.at(1).bytes;
    for (int k : acknowledged) {
      auto it = found.find(k);
      if (it == found.end()) {
        problems.push_back("acknowledged k=" + std::to_string(k) + " is missing");
      } else if (it->second != ValueFor(k)) {
        problems.push_back("k=" + std::to_string(k) + " holds " + it->second);
      }
    }
    checked = true;
  });
  simulation.RunFor(seconds(1));
  if (!checked && problems.empty()) problems.push_back("the checker did not finish");
  return CrashOutcome{acknowledged.size(), std::move(problems)};
}

rc::Gen<CrashCase> GenCrashCase() {
  return rc::gen::apply(
      [](std::uint64_t seed, bool in_sync, std::uint64_t hit, int kill_us, int mode) {
        CrashCase c;
        c.seed = seed;
        c.crash_in_sync = in_sync;
        c.sync_hit = hit;
        c.kill_after = std::chrono::microseconds(kill_us);
        c.power_loss = static_cast<fakes::CrashModel::Mode>(mode);
        return c;
      },
      rc::gen::inRange<std::uint64_t>(1, 1'000'000), rc::gen::arbitrary<bool>(),
      rc::gen::inRange<std::uint64_t>(1, 2 * kWrites), rc::gen::inRange(12'000, 40'000),
      rc::gen::inRange(0, 3));
}

RC_GTEST_PROP(CqlCrashProperty, AcknowledgedWritesSurviveACrash, ()) {
  const CrashCase c = *GenCrashCase();
  RC_TAG(c.crash_in_sync ? "crash in sync" : "kill + power loss");
  const std::vector<std::string> problems = RunCrashCase(c).problems;
  if (!problems.empty()) {
    RC_FAIL(fmt::format("{}: {}", (std::ostringstream() << c).str(), problems.front()));
  }
}

// The harness itself: without a crash every write is acknowledged and found;
// with one, some writes fail (the crash did land in the write stream).
TEST(CqlCrashHarness, WithoutACrashEveryWriteIsAcknowledgedAndFound) {
  CrashCase c;
  c.kill_after = seconds(100);  // After the run.
  const CrashOutcome outcome = RunCrashCase(c);
  EXPECT_TRUE(outcome.problems.empty()) << outcome.problems.front();
  EXPECT_EQ(outcome.acknowledged, static_cast<std::size_t>(kWrites));
}

TEST(CqlCrashHarness, ACrashLandsInTheWriteStream) {
  CrashCase c;
  c.kill_after = milliseconds(20);
  const CrashOutcome outcome = RunCrashCase(c);
  EXPECT_TRUE(outcome.problems.empty()) << outcome.problems.front();
  EXPECT_LT(outcome.acknowledged, static_cast<std::size_t>(kWrites));
  c.crash_in_sync = true;
  c.sync_hit = 40;
  EXPECT_LT(RunCrashCase(c).acknowledged, static_cast<std::size_t>(kWrites));
}

}  // namespace
}  // namespace faultline::models::cql
