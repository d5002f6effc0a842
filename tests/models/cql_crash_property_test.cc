// The store's durability promise: a write the store acknowledged is there
// after any crash. A client streams INSERTs; the store is killed at a random
// moment (with a power loss that drops, tears or keeps a prefix of the
// unsynced writes), or crashes or loses power inside a random disk write or
// sync, that is in the middle of a transaction; the runtime restarts it;
// every acknowledged row must then be readable, intact. The same property
// run on a store weakened on purpose (no journal, or no syncs) must find a
// counterexample, or it would not be testing durability at all.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <iostream>
#include <optional>
#include <set>

#include "tests/models/cql_cluster_fixture.h"

namespace faultline::models::cql {
namespace {

using sim::Awaitable;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kWrites = 40;

// Long enough that the table spans several pages: inserts split pages, so
// one transaction writes several of them.
std::string ValueFor(int k) { return fmt::format("value-{}-{:x>300}", k * 7919, ""); }

// The stores under test: the real one and two weakened on purpose.
constexpr const char* kRealStore = "2.20";
constexpr const char* kStoreWithoutJournal = "journal-off";
constexpr const char* kStoreWithoutSyncs = "synchronous-off";

struct CrashCase {
  enum class Kind : unsigned char {
    kKillThenPowerLoss,  // A kill at kill_after, then a power loss.
    kCrashInSync,        // The process crashes at disk.sync hit `hit`.
    kCrashInWrite,       // ... at disk.write hit `hit`: mid-transaction.
    kPowerLossInSync,    // The machine loses power at disk.sync hit `hit`.
    kPowerLossInWrite,   // ... at disk.write hit `hit`.
  };
  std::uint64_t seed = 1;
  Kind kind = Kind::kKillThenPowerLoss;
  std::uint64_t hit = 1;  // Which disk.sync or disk.write (after set-up).
  sim::Duration kill_after{};
  sim::Survivors survivors = sim::Survivors::kNothingUnsynced;
  std::string store = kRealStore;
};

constexpr const char* kKindNames[] = {"kill then power loss", "crash at disk.sync",
                                      "crash at disk.write", "power loss at disk.sync",
                                      "power loss at disk.write"};

std::ostream& operator<<(std::ostream& out, const CrashCase& c) {
  out << "store=" << c.store << " seed=" << c.seed << " " << kKindNames[static_cast<int>(c.kind)];
  if (c.kind == CrashCase::Kind::kKillThenPowerLoss) {
    out << " after " << c.kill_after.count() << "ns";
  } else {
    out << " hit " << c.hit;
  }
  return out << " keeping " << sim::SurvivorsName(c.survivors);
}

// The disk site and the plan of a case's fault, counted after set-up's I/O.
std::shared_ptr<sim::ExplicitFaultPlan> FaultPlanOf(const CrashCase& c) {
  constexpr std::uint64_t kSetupSyncs = 8;
  constexpr std::uint64_t kSetupWrites = 16;
  auto plan = std::make_shared<sim::ExplicitFaultPlan>();
  switch (c.kind) {
    case CrashCase::Kind::kKillThenPowerLoss:
      break;
    case CrashCase::Kind::kCrashInSync:
      plan->CrashAt(fakes::SqliteVfs::kSiteSync, kSetupSyncs + c.hit);
      break;
    case CrashCase::Kind::kCrashInWrite:
      plan->CrashAt(fakes::SqliteVfs::kSiteWrite, kSetupWrites + c.hit);
      break;
    case CrashCase::Kind::kPowerLossInSync:
      plan->PowerLossAt(fakes::SqliteVfs::kSiteSync, kSetupSyncs + c.hit, c.survivors);
      break;
    case CrashCase::Kind::kPowerLossInWrite:
      plan->PowerLossAt(fakes::SqliteVfs::kSiteWrite, kSetupWrites + c.hit, c.survivors);
      break;
  }
  return plan;
}

struct CrashOutcome {
  std::size_t acknowledged = 0;
  std::vector<std::string> problems;  // Acknowledged rows missing or damaged afterwards.
};

CrashOutcome RunCrashCase(const CrashCase& c) {
  sim::SimulationOptions options{.seed = c.seed};
  options.fault_plan = FaultPlanOf(c);
  StoreCluster cluster(std::move(options));
  StoreOptions without_journal;
  without_journal.durability.journal_mode = "OFF";
  cluster.runtime.RegisterImage(kStoreImage, kStoreWithoutJournal,
                                StoreEntryPoint(without_journal));
  StoreOptions without_syncs;
  without_syncs.durability.synchronous = "OFF";
  cluster.runtime.RegisterImage(kStoreImage, kStoreWithoutSyncs, StoreEntryPoint(without_syncs));
  sim::Simulation& simulation = cluster.simulation;
  cluster.Up(c.store);
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
  if (c.kind == CrashCase::Kind::kKillThenPowerLoss) {
    sim::Process& chaos = simulation.AddProcess("chaos");
    chaos.Start([&]() -> Awaitable<int> {
      co_await sim::SleepFor(c.kill_after);
      cluster.runtime.Kill("yugabyte");
      sim::Rng random(c.seed ^ 0x9e3779b97f4a7c15ull);
      const fakes::CrashModel model = fakes::CrashModel::Of(c.survivors);
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

CrashCase MakeCase(std::uint64_t seed, int kind, std::uint64_t hit, int kill_us, int survivors) {
  CrashCase c;
  c.seed = seed;
  c.kind = static_cast<CrashCase::Kind>(kind);
  c.hit = hit;
  c.kill_after = std::chrono::microseconds(kill_us);
  c.survivors = static_cast<sim::Survivors>(survivors);
  return c;
}

// Hits up to about three per write: every one lands inside the write stream.
constexpr std::uint64_t kMaxHit = 3 * kWrites;

rc::Gen<CrashCase> GenCrashCase() {
  return rc::gen::apply(MakeCase, rc::gen::inRange<std::uint64_t>(1, 1'000'000),
                        rc::gen::inRange(0, 5), rc::gen::inRange<std::uint64_t>(1, kMaxHit),
                        rc::gen::inRange(12'000, 40'000), rc::gen::inRange(0, 3));
}

RC_GTEST_PROP(CqlCrashProperty, AcknowledgedWritesSurviveACrash, ()) {
  const CrashCase c = *GenCrashCase();
  RC_TAG(kKindNames[static_cast<int>(c.kind)]);
  const std::vector<std::string> problems = RunCrashCase(c).problems;
  if (!problems.empty()) {
    RC_FAIL(fmt::format("{}: {}", (std::ostringstream() << c).str(), problems.front()));
  }
}

// Every power loss inside the write stream, for `store`: each kind at each
// hit, each model of what survives. Deterministic, so a weakened store's
// counterexample is found on every run, not by luck.
std::vector<CrashCase> PowerLossesInTransactions(const std::string& store) {
  std::vector<CrashCase> cases;
  for (int kind : {3, 4}) {
    for (std::uint64_t hit = 1; hit <= kMaxHit; hit += 7) {
      for (int survivors = 0; survivors < 3; ++survivors) {
        cases.push_back(MakeCase(hit, kind, hit, 0, survivors));
        cases.back().store = store;
      }
    }
  }
  return cases;
}

// The first case whose acknowledged writes did not survive, as text.
std::optional<std::string> FirstCounterexample(const std::vector<CrashCase>& cases) {
  for (const CrashCase& c : cases) {
    const std::vector<std::string> problems = RunCrashCase(c).problems;
    if (!problems.empty()) return (std::ostringstream() << c << ": " << problems.front()).str();
  }
  return std::nullopt;
}

TEST(CqlCrashProperty, TheRealStoreSurvivesEveryPowerLossInATransaction) {
  const std::optional<std::string> found =
      FirstCounterexample(PowerLossesInTransactions(kRealStore));
  EXPECT_FALSE(found.has_value()) << *found;
}

TEST(CqlCrashProperty, FindsTheCounterexampleOfAStoreWithoutJournal) {
  const std::optional<std::string> found =
      FirstCounterexample(PowerLossesInTransactions(kStoreWithoutJournal));
  ASSERT_TRUE(found.has_value()) << "journal_mode=OFF survived every power loss: the property "
                                    "does not test durability";
  std::cout << "counterexample: " << *found << "\n";
}

TEST(CqlCrashProperty, FindsTheCounterexampleOfAStoreWithoutSyncs) {
  const std::optional<std::string> found =
      FirstCounterexample(PowerLossesInTransactions(kStoreWithoutSyncs));
  ASSERT_TRUE(found.has_value()) << "synchronous=OFF survived every power loss: the property "
                                    "does not test durability";
  std::cout << "counterexample: " << *found << "\n";
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
  c.kind = CrashCase::Kind::kCrashInSync;
  c.hit = 40;
  EXPECT_LT(RunCrashCase(c).acknowledged, static_cast<std::size_t>(kWrites));
}

}  // namespace
}  // namespace faultline::models::cql
