#include "models/cql/store_database.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/assert.h"

namespace faultline::models::cql {

std::variant<std::unique_ptr<StoreDatabase>, sim::Status> StoreDatabase::Open(
    fakes::SqliteVfs& vfs, const std::string& path, const StoreDurability& durability,
    Dialect dialect) {
  // Pragmas take no bound parameters: accept only the names SQLite knows.
  const auto one_of = [](const std::string& value, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), value) != names.end();
  };
  FL_ASSERT_MSG(one_of(durability.journal_mode, {"DELETE", "TRUNCATE", "PERSIST", "MEMORY", "OFF"}),
                "journal_mode {}", durability.journal_mode);
  FL_ASSERT_MSG(one_of(durability.synchronous, {"OFF", "NORMAL", "FULL", "EXTRA"}),
                "synchronous {}", durability.synchronous);
  sim::Result<fakes::SqliteDatabase> database = fakes::SqliteDatabase::Open(vfs, path);
  if (!database.ok()) return database.status();
  std::unique_ptr<StoreDatabase> store(new StoreDatabase(std::move(database).value()));
  if (sim::Status status =
          store->database_.Exec(fmt::format("PRAGMA journal_mode={}; PRAGMA synchronous={};",
                                            durability.journal_mode, durability.synchronous));
      !status.ok()) {
    return status;
  }
  sim::Simulation& simulation = vfs.simulation();
  Engine::Clock clock = [&simulation] {
    return fakes::SqliteVfs::kEpochUnixMs + std::chrono::duration_cast<std::chrono::milliseconds>(
                                                simulation.Now().time_since_epoch())
                                                .count();
  };
  auto engine = Engine::Open(store->database_.handle(), std::move(clock), dialect);
  if (auto* status = std::get_if<sim::Status>(&engine)) return std::move(*status);
  store->engine_ = std::move(std::get<std::unique_ptr<Engine>>(engine));
  return store;
}

}  // namespace faultline::models::cql
