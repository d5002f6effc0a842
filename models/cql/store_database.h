// The store's database: SQLite on a simulated volume (through the VFS) with
// the store's durability settings, and the CQL engine on top.
#pragma once

#include <memory>
#include <string>
#include <variant>

#include "fakes/sqlite_vfs.h"
#include "models/cql/engine.h"

namespace faultline::models::cql {

// How the store asks SQLite to keep its data. The defaults are the store's;
// the others exist to show that the durability tests catch a weaker store.
struct StoreDurability {
  std::string journal_mode = "PERSIST";  // PRAGMA journal_mode: PERSIST, DELETE, OFF, ...
  std::string synchronous = "FULL";      // PRAGMA synchronous: FULL, NORMAL, OFF.
};

class StoreDatabase {
 public:
  // Opens (creating if missing) the database at `path`, a path under a mount
  // of `vfs`. Durability: a rollback journal and synchronous=FULL, so a
  // statement is on disk when it returns. The journal file stays between
  // transactions (journal_mode=PERSIST zeroes its header at commit), which
  // spares creating and deleting a file per statement.
  static std::variant<std::unique_ptr<StoreDatabase>, sim::Status> Open(
      fakes::SqliteVfs& vfs, const std::string& path, const StoreDurability& durability = {},
      Dialect dialect = Dialect::kYcql);

  Engine& engine() { return *engine_; }
  sqlite3* handle() { return database_.handle(); }

 private:
  explicit StoreDatabase(fakes::SqliteDatabase database) : database_(std::move(database)) {}

  fakes::SqliteDatabase database_;
  std::unique_ptr<Engine> engine_;  // Declared last: goes before the database closes.
};

}  // namespace faultline::models::cql
