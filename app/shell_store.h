// The store a shell runs on (internal to app/): a volume of its own, fresh,
// loaded from a directory a store was saved in (`cql --data`), or from a
// run's database file (`shell --at`), and written back on request.
#pragma once

#include <array>
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "fakes/sqlite_vfs.h"
#include "fakes/volume.h"
#include "models/cql/store_database.h"
#include "sim/simulation.h"
#include "sim/status.h"

namespace faultline::app {

class ShellStore {
 public:
  ShellStore();
  ~ShellStore();
  ShellStore(const ShellStore&) = delete;
  ShellStore& operator=(const ShellStore&) = delete;

  // Loads the store kept in `directory` (created when missing). Only the
  // store's own files are read, and only they are written back: a directory
  // that holds other files and no store is refused, never taken over.
  sim::Status Load(const std::filesystem::path& directory);
  // A snapshot's database bytes, as the store's file (nothing is saved back).
  sim::Status LoadDatabase(const std::string& database);
  sim::Status Open();
  // Writes the store back: its files, and no file it no longer has (a
  // journal SQLite deleted must not come back as a hot journal). Each file
  // is written beside its place and renamed over it, so an interrupted save
  // leaves every file whole, old or new; stale files go last.
  sim::Status SaveTo(const std::filesystem::path& directory);

  models::cql::Engine& engine() { return store_->engine(); }

 private:
  static bool IsStoreFile(const std::string& volume_path);
  // One store file, when it is there: a regular file, not a link to
  // somewhere else (it is written back in place).
  sim::Status Import(const std::filesystem::path& source, const std::string& name);

  sim::Simulation simulation_;
  fakes::Volume volume_;
  fakes::SqliteVfs vfs_;
  std::unique_ptr<models::cql::StoreDatabase> store_;
  std::set<std::string> imported_;
};

}  // namespace faultline::app
