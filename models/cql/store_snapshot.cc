#include "models/cql/store_snapshot.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <string_view>

#include "models/cql/parser.h"
#include "models/cql/volume_reader.h"
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
  std::unique_ptr<StoreSnapshot> snapshot(new StoreSnapshot(now_unix_ms));
  snapshot->bytes_ = &file->contents();
  // A connection of its own, read-only, on the reader VFS: no file, no VFS
  // of the simulation.
  if (const int code = sqlite3_open_v2(VolumeReaderPath(&snapshot->bytes_).c_str(), &snapshot->db_,
                                       SQLITE_OPEN_READONLY, VolumeReaderVfs());
      code != SQLITE_OK) {
    const std::string message =
        snapshot->db_ == nullptr ? sqlite3_errstr(code) : sqlite3_errmsg(snapshot->db_);
    return sim::Status::IoError(
        fmt::format("cannot read {}{}: {}", volume.name(), kStoreDatabaseFile, message));
  }
  // Sorting spills to memory, never to a temporary file.
  (void)sqlite3_exec(snapshot->db_, "PRAGMA temp_store=MEMORY", nullptr, nullptr, nullptr);
  const StoreSnapshot* self = snapshot.get();
  auto engine = Engine::Open(snapshot->db_, [self] { return self->now_unix_ms_; });
  if (auto* status = std::get_if<sim::Status>(&engine)) {
    return sim::Status::IoError(
        fmt::format("cannot read the catalog on {}: {}", volume.name(), status->message()));
  }
  snapshot->engine_ = std::move(std::get<std::unique_ptr<Engine>>(engine));
  snapshot->schema_hash_ = snapshot->SchemaHash();
  return snapshot;
}

bool StoreSnapshot::Refresh(const fakes::Volume& volume, std::int64_t now_unix_ms) {
  const fakes::SimFile* file = volume.Find(kStoreDatabaseFile);
  if (file == nullptr || file->size() == 0) return false;
  bytes_ = &file->contents();
  now_unix_ms_ = now_unix_ms;
  // Every page is read again: the bytes may have gone back (a power loss
  // keeps the synced ones) to a header SQLite would take for the same.
  (void)sqlite3_db_release_memory(db_);
  // The parsed schema holds while the file's schema is the same, to the
  // byte: a schema cookie may come back to a value with another schema
  // behind it (a transaction seen half-written, then rolled back).
  if (SchemaHash() != schema_hash_) return false;
  return engine_->ReloadCatalog().ok();
}

std::uint64_t StoreSnapshot::SchemaHash() const {
  sqlite3_stmt* entries = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema", -1,
                         &entries, nullptr) != SQLITE_OK) {
    sqlite3_finalize(entries);
    return 0;  // Unreadable: never equal to a readable one's (sim::Fnv1a64 is not 0 here).
  }
  std::uint64_t hash = sim::Fnv1a64("sqlite schema");
  int code = SQLITE_ROW;
  std::size_t rows = 0;
  constexpr std::size_t kMaxEntries = 10'000'000;
  while ((code = sqlite3_step(entries)) == SQLITE_ROW) {
    FL_ASSERT_MSG(++rows <= kMaxEntries, "more than {} schema entries", kMaxEntries);
    for (int column = 0; column < 5; ++column) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(entries, column));
      const int size = sqlite3_column_bytes(entries, column);
      hash = sim::Mix64(hash ^ sim::Fnv1a64(std::string_view(text == nullptr ? "" : text,
                                                             static_cast<std::size_t>(size))));
    }
  }
  sqlite3_finalize(entries);
  return code == SQLITE_DONE ? hash : 0;
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
