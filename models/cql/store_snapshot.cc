#include "models/cql/store_snapshot.h"

#include <fmt/format.h>

#include "models/cql/parser.h"
#include "sim/assert.h"

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

}  // namespace faultline::models::cql
