#include "models/cql/store_database.h"

namespace faultline::models::cql {

std::variant<std::unique_ptr<StoreDatabase>, sim::Status> StoreDatabase::Open(
    fakes::SqliteVfs& vfs, const std::string& path) {
  sim::Result<fakes::SqliteDatabase> database = fakes::SqliteDatabase::Open(vfs, path);
  if (!database.ok()) return database.status();
  std::unique_ptr<StoreDatabase> store(new StoreDatabase(std::move(database).value()));
  if (sim::Status status =
          store->database_.Exec("PRAGMA journal_mode=PERSIST; PRAGMA synchronous=FULL;");
      !status.ok()) {
    return status;
  }
  sim::Simulation& simulation = vfs.simulation();
  Engine::Clock clock = [&simulation] {
    return fakes::SqliteVfs::kEpochUnixMs + std::chrono::duration_cast<std::chrono::milliseconds>(
                                                simulation.Now().time_since_epoch())
                                                .count();
  };
  auto engine = Engine::Open(store->database_.handle(), std::move(clock));
  if (auto* status = std::get_if<sim::Status>(&engine)) return std::move(*status);
  store->engine_ = std::move(std::get<std::unique_ptr<Engine>>(engine));
  return store;
}

}  // namespace faultline::models::cql
