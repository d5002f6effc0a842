#include "models/cql/store_snapshot.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <string_view>

#include "models/cql/parser.h"
#include "sim/assert.h"
#include "sim/fnv.h"
#include "sim/random.h"

namespace faultline::models::cql {

sim::Result<std::unique_ptr<StoreSnapshot>> StoreSnapshot::Open(const fakes::Volume& volume,
                                                                std::int64_t now_unix_ms) {
  const fakes::SimFile* file = volume.Find(kStoreDatabaseFile);
  if (file == nullptr || file->size() == 0) {
    return sim::Status::NotFound(fmt::format("volume {} holds no store database", volume.name()));
  }
  sqlite3* db = nullptr;
  // An in-memory connection of its own: no file, no VFS of the simulation.
  if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nullptr) !=
      SQLITE_OK) {
    const std::string message = db == nullptr ? "out of memory" : sqlite3_errmsg(db);
    sqlite3_close(db);
    return sim::Status::Internal("cannot open a snapshot connection: " + message);
  }
  std::unique_ptr<StoreSnapshot> snapshot(new StoreSnapshot(db, now_unix_ms));
  // Sorting spills to memory, never to a real temporary file.
  (void)sqlite3_exec(db, "PRAGMA temp_store=MEMORY", nullptr, nullptr, nullptr);
  // In place and read-only: SQLite neither copies, frees nor writes the bytes.
  const std::string& bytes = file->contents();
  auto* data = reinterpret_cast<unsigned char*>(const_cast<char*>(bytes.data()));
  const auto size = static_cast<sqlite3_int64>(bytes.size());
  if (const int code =
          sqlite3_deserialize(db, "main", data, size, size, SQLITE_DESERIALIZE_READONLY);
      code != SQLITE_OK) {
    return sim::Status::IoError(fmt::format("cannot read {}{}: {}", volume.name(),
                                            kStoreDatabaseFile, sqlite3_errstr(code)));
  }
  const StoreSnapshot* self = snapshot.get();
  auto engine = Engine::Open(db, [self] { return self->now_unix_ms_; });
  if (auto* status = std::get_if<sim::Status>(&engine)) {
    return sim::Status::IoError(
        fmt::format("cannot read the catalog on {}: {}", volume.name(), status->message()));
  }
  snapshot->engine_ = std::move(std::get<std::unique_ptr<Engine>>(engine));
  return snapshot;
}

StoreSnapshot::~StoreSnapshot() {
  engine_.reset();
  sqlite3_close(db_);
}

Outcome StoreSnapshot::Read(const std::string& statement, std::vector<Value> values) {
  ParseResult parsed = Parse(statement);
  FL_ASSERT_MSG(!parsed.error && parsed.statements.size() == 1,
                "a snapshot read must be one "
                "statement: {}",
                statement);
  FL_ASSERT_MSG(std::holds_alternative<Select>(parsed.statements[0].statement) ||
                    std::holds_alternative<Describe>(parsed.statements[0].statement),
                "a snapshot only reads: {}", statement);
  Session session;
  return engine_->Execute(session, parsed.statements[0], values);
}

namespace {

// Row hashes are summed, so each goes through sim::Mix64 (SplitMix64's
// finaliser) to spread over every bit.
using sim::Mix64;

std::uint64_t Folded(std::uint64_t hash, std::string_view bytes) {
  return Mix64(hash ^ sim::Fnv1a64(bytes));
}

std::uint64_t RowHash(sqlite3_stmt* row) {
  std::uint64_t hash = 0;
  for (int column = 0; column < sqlite3_column_count(row); ++column) {
    const int type = sqlite3_column_type(row, column);
    hash = Mix64(hash ^ static_cast<std::uint64_t>(type));
    if (type == SQLITE_INTEGER) {
      hash = Mix64(hash ^ static_cast<std::uint64_t>(sqlite3_column_int64(row, column)));
    } else if (type == SQLITE_FLOAT) {
      const double real = sqlite3_column_double(row, column);
      std::uint64_t bits = 0;
      std::memcpy(&bits, &real, sizeof bits);
      hash = Mix64(hash ^ bits);
    } else if (type != SQLITE_NULL) {
      // Text and blobs by their bytes.
      const void* bytes = sqlite3_column_blob(row, column);
      const int size = sqlite3_column_bytes(row, column);
      hash = Folded(hash, std::string_view(static_cast<const char*>(bytes), size));
    }
  }
  return hash;
}

}  // namespace

std::uint64_t StoreSnapshot::ContentHash() const {
  constexpr std::uint64_t kMaxRows = 100'000'000;
  sqlite3_stmt* listed = nullptr;
  FL_ASSERT(sqlite3_prepare_v2(db_,
                               "SELECT name, type, coalesce(sql, '') FROM sqlite_master "
                               "ORDER BY type, name",
                               -1, &listed, nullptr) == SQLITE_OK);
  std::uint64_t hash = sim::Fnv1a64("store content");
  std::vector<std::string> tables;
  while (sqlite3_step(listed) == SQLITE_ROW) {
    const std::string name = reinterpret_cast<const char*>(sqlite3_column_text(listed, 0));
    const std::string type = reinterpret_cast<const char*>(sqlite3_column_text(listed, 1));
    hash = Folded(Folded(Folded(hash, name), type),
                  reinterpret_cast<const char*>(sqlite3_column_text(listed, 2)));
    if (type == "table") tables.push_back(name);
  }
  sqlite3_finalize(listed);
  for (const std::string& table : tables) {
    std::string quoted;
    for (const char c : table) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    sqlite3_stmt* rows = nullptr;
    FL_ASSERT_MSG(sqlite3_prepare_v2(db_, ("SELECT * FROM \"" + quoted + "\"").c_str(), -1, &rows,
                                     nullptr) == SQLITE_OK,
                  "cannot read table {}: {}", table, sqlite3_errmsg(db_));
    std::uint64_t sum = 0;
    std::uint64_t count = 0;
    while (sqlite3_step(rows) == SQLITE_ROW) {
      FL_ASSERT_MSG(++count <= kMaxRows, "table {} has more than {} rows", table, kMaxRows);
      sum += Mix64(RowHash(rows));
    }
    sqlite3_finalize(rows);
    hash = Mix64(Folded(hash, table) ^ Mix64(count) ^ sum);
  }
  return hash;
}

}  // namespace faultline::models::cql
