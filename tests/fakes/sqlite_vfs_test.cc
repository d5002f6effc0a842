// SQLite on simulated volumes: what survives crashes, power losses and
// injected I/O errors (SQLite's own testing approach: fault loops and crash
// tests), and that no real time or entropy leaks in.
#include "fakes/sqlite_vfs.h"

#include <functional>
#include <memory>
#include <optional>

#include <gtest/gtest.h>

#include "sim/sim.h"

namespace faultline::fakes {
namespace {

using sim::Awaitable;
using sim::Simulation;
using sim::SimulationOptions;

constexpr const char* kDatabase = "/var/lib/store/meta.db";
constexpr int kRowsPerTransaction = 10;

// A simulation with a SQLite VFS whose /var/lib/store is `volume`.
struct Storage {
  explicit Storage(Volume& volume, SimulationOptions options = {})
      : simulation(std::move(options)), vfs(simulation) {
    vfs.Mount("/var/lib/store", volume);
  }
  Simulation simulation;
  SqliteVfs vfs;
};

// What is on `volume` seen without faults: the integrity check's verdict and
// the number of rows in t (or -1 when there is no table).
struct Verdict {
  std::string integrity;
  std::int64_t rows = -1;
};

Verdict Inspect(Volume& volume) {
  Storage storage(volume);
  sim::Result<SqliteDatabase> db = SqliteDatabase::Open(storage.vfs, kDatabase);
  if (!db.ok()) return {"cannot open: " + db.status().ToString(), -1};
  Verdict verdict;
  sqlite3_stmt* statement = nullptr;
  sqlite3_prepare_v2(db->handle(), "PRAGMA integrity_check", -1, &statement, nullptr);
  verdict.integrity = sqlite3_step(statement) == SQLITE_ROW
                          ? reinterpret_cast<const char*>(sqlite3_column_text(statement, 0))
                          : sqlite3_errmsg(db->handle());
  sqlite3_finalize(statement);
  const sim::Result<std::int64_t> rows = db->QueryInt("SELECT count(*) FROM t");
  verdict.rows = rows.ok() ? *rows : -1;
  return verdict;
}

std::string InsertTransaction(int transaction) {
  std::string sql = "BEGIN;";
  for (int i = 0; i < kRowsPerTransaction; ++i) {
    sql += fmt::format("INSERT INTO t VALUES ({}, '{}');", transaction * kRowsPerTransaction + i,
                       std::string(300, static_cast<char>('a' + transaction % 26)));
  }
  return sql + "COMMIT;";
}

// Creates t and commits `transactions` transactions; returns how many were
// acknowledged before the first failure.
int RunWorkload(SqliteVfs& vfs, int transactions) {
  sim::Result<SqliteDatabase> db = SqliteDatabase::Open(vfs, kDatabase);
  if (!db.ok()) return 0;
  // A one-page cache makes SQLite write pages before commit, so a crash or
  // fault can land in the middle of a transaction.
  if (!db->Exec("PRAGMA cache_size=1; CREATE TABLE IF NOT EXISTS t(k INTEGER PRIMARY KEY, v TEXT)")
           .ok()) {
    return 0;
  }
  int acknowledged = 0;
  for (int i = 0; i < transactions; ++i) {
    if (!db->Exec(InsertTransaction(i)).ok()) break;
    ++acknowledged;
  }
  return acknowledged;
}

TEST(SqliteVfsTest, KeptVolumeKeepsACommittedRowAcrossPowerLoss) {
  Volume volume("yugabyte-data", VolumeKind::kNamedVolume);
  {
    Storage storage(volume);
    EXPECT_EQ(RunWorkload(storage.vfs, 1), 1);
  }
  sim::Rng random(7);
  volume.LoseUnsynced(random, {CrashModel::Mode::kTornBlocks});
  const Verdict verdict = Inspect(volume);
  EXPECT_EQ(verdict.integrity, "ok");
  EXPECT_EQ(verdict.rows, kRowsPerTransaction);
}

TEST(SqliteVfsTest, WipedVolumeLosesTheTable) {
  Volume volume("/data/fgw2/kuri-1", VolumeKind::kHostDirectory);
  {
    Storage storage(volume);
    EXPECT_EQ(RunWorkload(storage.vfs, 1), 1);
  }
  volume.Wipe();
  EXPECT_EQ(Inspect(volume).rows, -1);
}

TEST(SqliteVfsTest, AKilledProcessesUncommittedTransactionIsRolledBack) {
  Volume volume("yugabyte-data", VolumeKind::kNamedVolume);
  Storage storage(volume);
  sim::Process& store = storage.simulation.AddProcess("yugabyte");
  store.Start([&]() -> Awaitable<int> {
    sim::Result<SqliteDatabase> db = SqliteDatabase::Open(storage.vfs, kDatabase);
    EXPECT_TRUE(db.ok());
    EXPECT_TRUE(
        db->Exec("PRAGMA cache_size=1; CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)").ok());
    EXPECT_TRUE(db->Exec(InsertTransaction(0)).ok());
    // Half a transaction: pages written, no commit, then the process hangs.
    std::string partial = InsertTransaction(1);
    partial.resize(partial.size() - std::string("COMMIT;").size());
    EXPECT_TRUE(db->Exec(partial).ok());
    co_await sim::SleepFor(std::chrono::hours(1));
    co_return 0;
  });
  storage.simulation.RunFor(std::chrono::seconds(1));
  EXPECT_TRUE(volume.Exists("/meta.db-journal"));  // The transaction is in flight.
  store.Kill();  // Its connection closes now, but cannot touch the disk any more.
  EXPECT_TRUE(volume.Exists("/meta.db-journal"));
  sim::Rng random(3);
  volume.LoseUnsynced(random, {CrashModel::Mode::kTornBlocks});
  const Verdict verdict = Inspect(volume);  // Opening rolls the hot journal back.
  EXPECT_EQ(verdict.integrity, "ok");
  EXPECT_EQ(verdict.rows, kRowsPerTransaction);
}

// SQLite's fault loop: fail the Nth I/O of a kind, for N = 1, 2, ... until the
// workload runs through without meeting the fault; after each run every
// acknowledged transaction is there whole, no other is there in part, and the
// database passes its integrity check.
void RunFaultLoop(const char* site, bool persistent) {
  constexpr int kTransactions = 3;
  constexpr std::uint64_t kMaxN = 2000;
  std::uint64_t n = 1;
  for (; n <= kMaxN; ++n) {
    Volume volume("yugabyte-data", VolumeKind::kNamedVolume);
    auto plan = std::make_shared<sim::ExplicitFaultPlan>();
    if (persistent) {
      plan->FailFrom(site, n);
    } else {
      plan->FailAt(site, n);
    }
    int acknowledged = 0;
    bool fired = false;
    {
      Storage storage(volume, {.seed = n, .fault_plan = plan});
      acknowledged = RunWorkload(storage.vfs, kTransactions);
      for (const sim::SiteCoverage& coverage : storage.simulation.faults().Coverage()) {
        fired |= coverage.fires > 0;
      }
    }
    const Verdict verdict = Inspect(volume);
    SCOPED_TRACE(
        fmt::format("site {} {} from I/O #{}", site, persistent ? "fails" : "fails once", n));
    if (verdict.rows >= 0) {
      ASSERT_EQ(verdict.integrity, "ok");
      ASSERT_EQ(verdict.rows % kRowsPerTransaction, 0);  // All or nothing.
      ASSERT_GE(verdict.rows, acknowledged * kRowsPerTransaction);
      ASSERT_LE(verdict.rows, (acknowledged + 1) * kRowsPerTransaction);
    } else {
      ASSERT_EQ(acknowledged, 0);
    }
    if (!fired) {
      ASSERT_EQ(acknowledged, kTransactions);  // Past the last I/O: nothing failed.
      break;
    }
  }
  EXPECT_GT(n, 3u) << "the loop should meet several I/Os of kind " << site;
  EXPECT_LE(n, kMaxN);
}

TEST(SqliteVfsFaultLoopTest, TransientWriteErrors) { RunFaultLoop(SqliteVfs::kSiteWrite, false); }
TEST(SqliteVfsFaultLoopTest, PersistentWriteErrors) { RunFaultLoop(SqliteVfs::kSiteWrite, true); }
TEST(SqliteVfsFaultLoopTest, TransientSyncErrors) { RunFaultLoop(SqliteVfs::kSiteSync, false); }
TEST(SqliteVfsFaultLoopTest, PersistentSyncErrors) { RunFaultLoop(SqliteVfs::kSiteSync, true); }
TEST(SqliteVfsFaultLoopTest, TransientReadErrors) { RunFaultLoop(SqliteVfs::kSiteRead, false); }
TEST(SqliteVfsFaultLoopTest, PersistentReadErrors) { RunFaultLoop(SqliteVfs::kSiteRead, true); }

// Crash tests: over 60 seeds, the store process runs a workload of
// transactions under `plan_for(seed)` (a crash or power loss at its Nth
// write, N drawn from the seed); `after(seed, volume, killed)` then acts as
// the machine (or checks it); every transaction must be there whole or not
// at all. Returns in how many seeds the fault ended the process.
int RunCrashLoop(const std::function<std::shared_ptr<sim::FaultPlan>(std::uint64_t)>& plan_for,
                 const std::function<void(std::uint64_t, Volume&, bool)>& after) {
  constexpr int kTransactions = 4;
  int ended_mid_workload = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    Volume volume("yugabyte-data", VolumeKind::kNamedVolume);
    int acknowledged = 0;
    {
      Storage storage(volume, {.seed = seed, .fault_plan = plan_for(seed)});
      sim::Process& store = storage.simulation.AddProcess("yugabyte");
      store.Start([&]() -> Awaitable<int> {
        sim::Result<SqliteDatabase> db = SqliteDatabase::Open(storage.vfs, kDatabase);
        if (!db.ok()) co_return 1;
        if (!db->Exec("PRAGMA cache_size=1; CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)").ok()) {
          co_return 1;
        }
        for (int i = 0; i < kTransactions; ++i) {
          co_await sim::SleepFor(std::chrono::milliseconds(1));
          if (!db->Exec(InsertTransaction(i)).ok()) co_return 1;
          ++acknowledged;
        }
        co_return 0;
      });
      storage.simulation.RunUntilIdle();
      const bool killed = store.state() == sim::ProcessState::kKilled;
      if (killed) ++ended_mid_workload;
      after(seed, volume, killed);
    }
    const Verdict verdict = Inspect(volume);
    SCOPED_TRACE(fmt::format("seed {}: {} acknowledged", seed, acknowledged));
    if (verdict.rows < 0) {
      EXPECT_EQ(acknowledged, 0);
      continue;
    }
    EXPECT_EQ(verdict.integrity, "ok");
    EXPECT_EQ(verdict.rows % kRowsPerTransaction, 0);
    EXPECT_GE(verdict.rows, acknowledged * kRowsPerTransaction);
    EXPECT_LE(verdict.rows, (acknowledged + 1) * kRowsPerTransaction);
  }
  return ended_mid_workload;
}

std::uint64_t WriteHitFor(std::uint64_t seed) { return sim::Rng(seed).UniformInt(1, 80); }

// The process crashes at a write, then the machine loses unsynced writes
// (torn, in any order).
TEST(SqliteVfsCrashTest, EveryTransactionIsWholeOrAbsentAfterACrash) {
  const int crashed = RunCrashLoop(
      [](std::uint64_t seed) {
        auto plan = std::make_shared<sim::ExplicitFaultPlan>();
        plan->CrashAt(SqliteVfs::kSiteWrite, WriteHitFor(seed));
        return plan;
      },
      [](std::uint64_t seed, Volume& volume, bool) {
        sim::Rng random(seed);
        volume.LoseUnsynced(random, {CrashModel::Mode::kTornBlocks});
      });
  EXPECT_GT(crashed, 40);  // Most seeds crash before the workload ends.
}

// A power loss as a fault decision: at the Nth write the store process ends
// and the volume drops its unsynced writes there and then (torn), so the
// loss lands between two writes of one transaction; SQLite's journal must
// still give every transaction whole or not at all.
TEST(SqliteVfsCrashTest, APowerLossAtAWriteKeepsEveryTransactionWholeOrAbsent) {
  const int lost_power = RunCrashLoop(
      [](std::uint64_t seed) {
        auto plan = std::make_shared<sim::ExplicitFaultPlan>();
        plan->PowerLossAt(SqliteVfs::kSiteWrite, WriteHitFor(seed), sim::Survivors::kTornBlocks);
        return plan;
      },
      [](std::uint64_t, Volume& volume, bool killed) {
        if (!killed) return;
        // The loss already happened: nothing unsynced is left to lose.
        for (const std::string& path : volume.List()) {
          EXPECT_FALSE(volume.Find(path)->has_pending()) << path;
        }
      });
  EXPECT_GT(lost_power, 40);
}

TEST(SqliteVfsTest, SqliteRandomnessAndTimeComeFromTheSimulation) {
  auto query = [](std::uint64_t seed) {
    Volume volume("v", VolumeKind::kNamedVolume);
    Storage storage(volume, {.seed = seed});
    storage.simulation.RunFor(std::chrono::hours(49));
    sim::Result<SqliteDatabase> db = SqliteDatabase::Open(storage.vfs, kDatabase);
    EXPECT_TRUE(db.ok());
    const std::int64_t random = *db->QueryInt("SELECT random()");
    const std::int64_t day = *db->QueryInt("SELECT CAST(strftime('%d', 'now') AS INTEGER)");
    return std::pair{random, day};
  };
  EXPECT_EQ(query(5), query(5));
  EXPECT_NE(query(5).first, query(6).first);
  EXPECT_EQ(query(5).second, 3);  // 2025-01-01 plus 49 hours is the 3rd.
}

TEST(SqliteVfsTest, AFullVolumeFailsTheTransactionAndKeepsTheDatabase) {
  Volume volume("small", VolumeKind::kNamedVolume, /*capacity_bytes=*/24 * 1024);
  int acknowledged = 0;
  {
    Storage storage(volume);
    acknowledged = RunWorkload(storage.vfs, 50);
  }
  EXPECT_GT(acknowledged, 0);
  EXPECT_LT(acknowledged, 50);
  const Verdict verdict = Inspect(volume);
  EXPECT_EQ(verdict.integrity, "ok");
  EXPECT_EQ(verdict.rows, acknowledged * kRowsPerTransaction);
}

}  // namespace
}  // namespace faultline::fakes
