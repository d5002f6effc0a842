// A metadata store engine on a fresh simulated volume, for tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include "fakes/sqlite_vfs.h"
#include "fakes/volume.h"
#include "models/cql/parser.h"
#include "models/cql/store_database.h"
#include "sim/simulation.h"

namespace faultline::models::cql {

// An outcome as a test compares it: "ok" for no rows, the rows as ycqlsh
// prints them, or "error: " and the message.
inline std::string Shown(const Outcome& outcome) {
  if (const auto* error = std::get_if<CqlError>(&outcome)) return "error: " + error->message;
  const QueryResult& result = std::get<QueryResult>(outcome);
  return result.kind == QueryResult::Kind::kVoid || result.kind == QueryResult::Kind::kSchemaChange
             ? "ok"
             : FormatResult(result);
}

class EngineOnVolume {
 public:
  explicit EngineOnVolume(fakes::Volume* volume = nullptr, sim::SimulationOptions options = {})
      : simulation_(std::move(options)),
        owned_volume_("store-data", fakes::VolumeKind::kNamedVolume),
        volume_(volume != nullptr ? *volume : owned_volume_),
        vfs_(simulation_) {
    vfs_.Mount("/var/lib/store", volume_);
    Reopen();
  }

  // Closes and opens the database again, as a restarted store does.
  void Reopen() {
    store_.reset();
    auto opened = StoreDatabase::Open(vfs_, "/var/lib/store/meta.db", {}, dialect_);
    if (auto* status = std::get_if<sim::Status>(&opened)) {
      ADD_FAILURE() << "cannot open the store: " << status->ToString();
      return;
    }
    store_ = std::move(std::get<std::unique_ptr<StoreDatabase>>(opened));
  }

  // Opens the store again speaking `dialect`.
  void UseDialect(Dialect dialect) {
    dialect_ = dialect;
    Reopen();
  }

  Engine& engine() { return store_->engine(); }
  sqlite3* handle() { return store_->handle(); }
  Session& session() { return session_; }
  sim::Simulation& simulation() { return simulation_; }

  // Runs one statement; parse errors come back as Outcome errors too.
  Outcome Run(std::string_view text, std::span<const Value> bound = {},
              const PageRequest& page = {}) {
    ParseResult parsed = Parse(text);
    if (parsed.error) return SyntaxError(parsed.error->message);
    if (parsed.statements.size() != 1) return InvalidArgument("expected one statement");
    return engine().Execute(session_, parsed.statements[0], bound, page);
  }

 private:
  sim::Simulation simulation_;
  fakes::Volume owned_volume_;
  fakes::Volume& volume_;
  fakes::SqliteVfs vfs_;
  Dialect dialect_ = Dialect::kYcql;
  std::unique_ptr<StoreDatabase> store_;
  Session session_;
};

// SQLite's schema cookie: it moves with every change to SQLite's schema.
inline std::int64_t SqliteSchemaVersion(EngineOnVolume& store) {
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(store.handle(), "PRAGMA schema_version", -1, &statement, nullptr),
            SQLITE_OK);
  EXPECT_EQ(sqlite3_step(statement), SQLITE_ROW);
  const std::int64_t version = sqlite3_column_int64(statement, 0);
  sqlite3_finalize(statement);
  return version;
}

}  // namespace faultline::models::cql
