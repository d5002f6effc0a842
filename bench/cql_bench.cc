// Metadata store benchmark: point INSERTs, then point SELECTs by primary key,
// through the CQL layer (prepared CQL statements with bound values, executed
// by the engine) and as prepared statements on raw SQLite, both on a fresh
// database on a simulated volume through the same VFS with the store's
// settings (rollback journal, synchronous=FULL, every statement its own
// transaction, as the store runs them), in the same run.
//
// Prints operations per second for each, then `cql_ops_per_second=<x>` and
// `overhead_vs_sqlite=<x>` (CQL time / raw time; the target is at most 2).
//
// Usage: cql_bench [--rows N] [--repeat N]
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "bench/bench_flags.h"
#include "fakes/sqlite_vfs.h"
#include "models/cql/parser.h"
#include "models/cql/store_database.h"

namespace {

using faultline::fakes::SqliteVfs;
using faultline::fakes::Volume;
using faultline::fakes::VolumeKind;
namespace cql = faultline::models::cql;

constexpr const char* kPath = "/var/lib/yugabyte/meta.db";

struct Options {
  int rows = 50'000;
  int repeat = 3;
};

struct Figures {
  double insert_seconds = 0;
  double select_seconds = 0;
  double total() const { return insert_seconds + select_seconds; }
};

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "cql_bench: %s\n", what.c_str());
  std::exit(1);
}

// The keys in a shuffled order, the same for both sides.
std::vector<int> ShuffledKeys(int rows) {
  std::vector<int> keys(static_cast<std::size_t>(rows));
  for (int k = 0; k < rows; ++k) keys[static_cast<std::size_t>(k)] = k;
  faultline::sim::Rng random(1);
  for (std::size_t i = keys.size(); i > 1; --i) std::swap(keys[i - 1], keys[random.Uniform(i)]);
  return keys;
}

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

cql::ParsedStatement Prepare(const std::string& text) {
  cql::ParseResult parsed = cql::Parse(text);
  if (parsed.error || parsed.statements.size() != 1) Fail("cannot parse " + text);
  return std::move(parsed.statements[0]);
}

void Expect(const cql::Outcome& outcome, const char* what) {
  if (const auto* error = std::get_if<cql::CqlError>(&outcome))
    Fail(what + (": " + error->message));
}

Figures RunCql(int rows, const std::vector<int>& keys) {
  faultline::sim::Simulation simulation({.seed = 1});
  Volume volume("yugabyte-data", VolumeKind::kNamedVolume);
  SqliteVfs vfs(simulation);
  vfs.Mount("/var/lib/yugabyte", volume);
  auto opened = cql::StoreDatabase::Open(vfs, kPath);
  if (std::holds_alternative<faultline::sim::Status>(opened)) Fail("cannot open the store");
  cql::Engine& engine = std::get<std::unique_ptr<cql::StoreDatabase>>(opened)->engine();
  cql::Session session;
  for (const char* setup :
       {"CREATE KEYSPACE s3", "USE s3", "CREATE TABLE objects (k bigint PRIMARY KEY, v text)"}) {
    Expect(engine.Execute(session, Prepare(setup)), setup);
  }
  const cql::ParsedStatement insert = Prepare("INSERT INTO objects (k, v) VALUES (?, ?)");
  const cql::ParsedStatement select = Prepare("SELECT v FROM objects WHERE k = ?");
  const std::string value(100, 'v');
  std::vector<cql::Value> bound{cql::Value::Int(0), cql::Value::Text(value)};
  const auto start = Clock::now();
  for (int k = 0; k < rows; ++k) {
    bound[0].integer = k;
    Expect(engine.Execute(session, insert, bound), "insert");
  }
  Figures figures;
  figures.insert_seconds = Since(start);
  std::size_t bytes = 0;
  const auto select_start = Clock::now();
  for (int k : keys) {
    bound[0].integer = k;
    cql::Outcome outcome = engine.Execute(session, select, std::span(bound.data(), 1));
    Expect(outcome, "select");
    bytes += std::get<cql::QueryResult>(outcome).rows.at(0).at(0).bytes.size();
  }
  figures.select_seconds = Since(select_start);
  if (bytes != value.size() * keys.size()) Fail("CQL selects read back the wrong bytes");
  return figures;
}

void Check(int code, sqlite3* db, const char* what) {
  if (code == SQLITE_OK || code == SQLITE_DONE || code == SQLITE_ROW) return;
  Fail(std::string(what) + ": " + sqlite3_errmsg(db));
}

Figures RunRawSqlite(int rows, const std::vector<int>& keys) {
  faultline::sim::Simulation simulation({.seed = 1});
  Volume volume("yugabyte-data", VolumeKind::kNamedVolume);
  SqliteVfs vfs(simulation);
  vfs.Mount("/var/lib/yugabyte", volume);
  sqlite3* db = nullptr;
  Check(sqlite3_open_v2(kPath, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs.name()), db,
        "open");
  Check(sqlite3_exec(db,
                     "PRAGMA journal_mode=PERSIST; PRAGMA synchronous=FULL;"
                     "CREATE TABLE objects(k INTEGER PRIMARY KEY, v TEXT)",
                     nullptr, nullptr, nullptr),
        db, "set-up");
  sqlite3_stmt* insert = nullptr;
  sqlite3_stmt* select = nullptr;
  Check(
      sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO objects VALUES (?, ?)", -1, &insert, nullptr),
      db, "prepare insert");
  Check(sqlite3_prepare_v2(db, "SELECT v FROM objects WHERE k = ?", -1, &select, nullptr), db,
        "prepare select");
  const std::string value(100, 'v');
  const auto start = Clock::now();
  for (int k = 0; k < rows; ++k) {
    sqlite3_bind_int64(insert, 1, k);
    sqlite3_bind_text(insert, 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
    Check(sqlite3_step(insert), db, "insert");
    sqlite3_reset(insert);
  }
  Figures figures;
  figures.insert_seconds = Since(start);
  std::size_t bytes = 0;
  const auto select_start = Clock::now();
  for (int k : keys) {
    sqlite3_bind_int64(select, 1, k);
    Check(sqlite3_step(select), db, "select");
    bytes += static_cast<std::size_t>(sqlite3_column_bytes(select, 0));
    sqlite3_reset(select);
  }
  figures.select_seconds = Since(select_start);
  if (bytes != value.size() * keys.size()) Fail("raw selects read back the wrong bytes");
  sqlite3_finalize(insert);
  sqlite3_finalize(select);
  sqlite3_close(db);
  return figures;
}

Figures Median(const std::vector<Figures>& runs) {
  return {faultline::bench::MedianOf(runs, &Figures::insert_seconds),
          faultline::bench::MedianOf(runs, &Figures::select_seconds)};
}

void Print(const char* label, const Figures& figures, int rows) {
  std::printf("%-12s insert %8.0f ops/s, select %9.0f ops/s, both %9.0f ops/s\n", label,
              rows / figures.insert_seconds, rows / figures.select_seconds,
              2.0 * rows / figures.total());
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  faultline::bench::ParseFlags("cql_bench", "cql_bench [--rows N] [--repeat N]", argc, argv,
                               {{"--rows", &options.rows}, {"--repeat", &options.repeat}});
  std::printf(
      "workload: %d point INSERTs (each its own transaction, synchronous=FULL), then %d point "
      "SELECTs by key in shuffled order; SQLite %s; medians of %d\n",
      options.rows, options.rows, sqlite3_libversion(), options.repeat);
  const std::vector<int> keys = ShuffledKeys(options.rows);
  std::vector<Figures> cql_runs;
  std::vector<Figures> raw_runs;
  for (int r = 0; r < options.repeat; ++r) {
    raw_runs.push_back(RunRawSqlite(options.rows, keys));
    cql_runs.push_back(RunCql(options.rows, keys));
  }
  const Figures raw = Median(raw_runs);
  const Figures through_cql = Median(cql_runs);
  Print("raw sqlite", raw, options.rows);
  Print("through cql", through_cql, options.rows);
  std::printf("insert_overhead=%.2f select_overhead=%.2f\n",
              through_cql.insert_seconds / raw.insert_seconds,
              through_cql.select_seconds / raw.select_seconds);
  std::printf("cql_ops_per_second=%.0f\n", 2.0 * options.rows / through_cql.total());
  std::printf("overhead_vs_sqlite=%.2f\n", through_cql.total() / raw.total());
  return 0;
}
