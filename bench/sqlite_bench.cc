// Storage benchmark: the same SQLite insert/select workload on SQLite's own
// in-memory database and on a database file on a simulated volume through
// faultline's VFS (rollback journal, synchronous=FULL: the store's settings),
// in the same run. The last line is `ratio_vs_memory=<x>`: our operations per
// second divided by the in-memory database's.
//
// Usage: sqlite_bench [--rows N] [--repeat N]
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_flags.h"
#include "fakes/sqlite_vfs.h"

namespace {

using faultline::fakes::SqliteVfs;
using faultline::fakes::Volume;
using faultline::fakes::VolumeKind;

constexpr int kRowsPerTransaction = 1000;

struct Options {
  int rows = 100'000;
  int repeat = 3;
};

struct Figures {
  double insert_seconds = 0;
  double select_seconds = 0;
};

void Check(int code, sqlite3* db, const char* what) {
  if (code == SQLITE_OK || code == SQLITE_DONE || code == SQLITE_ROW) return;
  std::fprintf(stderr, "sqlite_bench: %s: %s\n", what, sqlite3_errmsg(db));
  std::exit(1);
}

// Inserts `rows` rows in transactions, then reads each back by key in a
// shuffled order, with prepared statements; returns the wall time of each.
Figures RunWorkload(sqlite3* db, int rows) {
  Check(sqlite3_exec(db, "CREATE TABLE objects(k INTEGER PRIMARY KEY, v TEXT)", nullptr, nullptr,
                     nullptr),
        db, "create");
  sqlite3_stmt* insert = nullptr;
  sqlite3_stmt* select = nullptr;
  Check(sqlite3_prepare_v2(db, "INSERT INTO objects VALUES (?, ?)", -1, &insert, nullptr), db,
        "prepare insert");
  Check(sqlite3_prepare_v2(db, "SELECT v FROM objects WHERE k = ?", -1, &select, nullptr), db,
        "prepare select");
  const std::string value(100, 'v');
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < rows; ++k) {
    if (k % kRowsPerTransaction == 0) Check(sqlite3_exec(db, "BEGIN", 0, 0, 0), db, "begin");
    sqlite3_bind_int64(insert, 1, k);
    sqlite3_bind_text(insert, 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
    Check(sqlite3_step(insert), db, "insert");
    sqlite3_reset(insert);
    if (k % kRowsPerTransaction == kRowsPerTransaction - 1 || k == rows - 1) {
      Check(sqlite3_exec(db, "COMMIT", 0, 0, 0), db, "commit");
    }
  }
  const auto inserted = std::chrono::steady_clock::now();
  std::vector<int> keys(static_cast<std::size_t>(rows));
  for (int k = 0; k < rows; ++k) keys[static_cast<std::size_t>(k)] = k;
  faultline::sim::Rng random(1);
  for (std::size_t i = keys.size(); i > 1; --i) std::swap(keys[i - 1], keys[random.Uniform(i)]);
  const auto select_start = std::chrono::steady_clock::now();
  std::size_t bytes = 0;
  for (int k : keys) {
    sqlite3_bind_int64(select, 1, k);
    Check(sqlite3_step(select), db, "select");
    bytes += static_cast<std::size_t>(sqlite3_column_bytes(select, 0));
    sqlite3_reset(select);
  }
  const auto selected = std::chrono::steady_clock::now();
  if (bytes != value.size() * keys.size()) {
    std::fprintf(stderr, "sqlite_bench: read back %zu bytes, expected %zu\n", bytes,
                 value.size() * keys.size());
    std::exit(1);
  }
  sqlite3_finalize(insert);
  sqlite3_finalize(select);
  return {std::chrono::duration<double>(inserted - start).count(),
          std::chrono::duration<double>(selected - select_start).count()};
}

Figures RunInMemory(int rows) {
  sqlite3* db = nullptr;
  Check(sqlite3_open(":memory:", &db), db, "open :memory:");
  const Figures figures = RunWorkload(db, rows);
  sqlite3_close(db);
  return figures;
}

Figures RunOnSimulatedVolume(int rows) {
  faultline::sim::Simulation simulation({.seed = 1});
  Volume volume("yugabyte-data", VolumeKind::kNamedVolume);
  SqliteVfs vfs(simulation);
  vfs.Mount("/var/lib/store", volume);
  sqlite3* db = nullptr;
  Check(sqlite3_open_v2("/var/lib/store/bench.db", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        vfs.name()),
        db, "open on the simulated volume");
  const Figures figures = RunWorkload(db, rows);
  sqlite3_close(db);
  return figures;
}

Figures Median(const std::vector<Figures>& runs) {
  return {faultline::bench::MedianOf(runs, &Figures::insert_seconds),
          faultline::bench::MedianOf(runs, &Figures::select_seconds)};
}

Options ParseOptions(int argc, char** argv) {
  Options options;
  faultline::bench::ParseFlags("sqlite_bench", "sqlite_bench [--rows N] [--repeat N]", argc, argv,
                               {{"--rows", &options.rows}, {"--repeat", &options.repeat}});
  return options;
}

void Print(const char* label, const Figures& figures, int rows) {
  std::printf("%-28s insert %.2f M rows/s, select %.2f M rows/s, both %.2f M ops/s\n", label,
              rows / figures.insert_seconds / 1e6, rows / figures.select_seconds / 1e6,
              2.0 * rows / (figures.insert_seconds + figures.select_seconds) / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseOptions(argc, argv);
  std::printf("workload: %d inserts in transactions of %d, then %d point selects; SQLite %s\n",
              options.rows, kRowsPerTransaction, options.rows, sqlite3_libversion());
  std::vector<Figures> memory_runs;
  std::vector<Figures> volume_runs;
  for (int r = 0; r < options.repeat; ++r) {
    memory_runs.push_back(RunInMemory(options.rows));
    volume_runs.push_back(RunOnSimulatedVolume(options.rows));
  }
  const Figures memory = Median(memory_runs);
  const Figures simulated = Median(volume_runs);
  Print("sqlite :memory:", memory, options.rows);
  Print("faultline simulated volume", simulated, options.rows);
  std::printf("insert_ratio=%.2f select_ratio=%.2f\n",
              memory.insert_seconds / simulated.insert_seconds,
              memory.select_seconds / simulated.select_seconds);
  std::printf("ratio_vs_memory=%.2f\n", (memory.insert_seconds + memory.select_seconds) /
                                            (simulated.insert_seconds + simulated.select_seconds));
  return 0;
}
