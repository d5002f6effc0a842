// StoreSnapshot: the store's database read straight from its volume, for
// checkers and reports that must observe without acting. It reads the
// bytes of meta.db as they are now (every write so far, synced or not, as a
// reader beside the store would see them), read-only, in place, through a
// VFS of its own (volume_reader.h): no simulated I/O happens, so no fault
// point is passed, no trace event is emitted, no virtual time goes by and
// no process starts. The store's own connection is untouched.
//
// The snapshot sees the database file alone, not a hot rollback journal: a
// store that crashed in the middle of a transaction and has not run since
// may show that transaction's pages. Read it while the store runs (a
// restarted store rolls the journal back when it opens the database).
//
// REQUIRES: the volume's meta.db is neither written nor removed while the
// snapshot is read. Open it, read, and let it go before the simulation runs
// on; or keep it while the volume's changes() stays the same, and Refresh
// it when they move on (ObserveStore does): the connection, SQLite's
// parsed schema and the prepared statements stay while the schema does,
// which opening the bytes afresh would parse whole each time.
#pragma once

#include <sqlite3.h>

#include <memory>
#include <string>
#include <vector>

#include "fakes/volume.h"
#include "models/cql/engine.h"
#include "sim/status.h"

namespace faultline::models::cql {

// Where the store keeps its database on its data volume.
inline constexpr const char* kStoreDatabaseFile = "/meta.db";

class StoreSnapshot {
 public:
  // The snapshot of the store whose data volume is `volume`; NotFound when
  // it holds no database yet (a store that never started), another error
  // when the bytes are not a database the engine can read. `now_unix_ms` is
  // the store's clock, for TTLs.
  static sim::Result<std::unique_ptr<StoreSnapshot>> Open(const fakes::Volume& volume,
                                                          std::int64_t now_unix_ms);
  ~StoreSnapshot();
  StoreSnapshot(const StoreSnapshot&) = delete;
  StoreSnapshot& operator=(const StoreSnapshot&) = delete;

  // Runs one read statement (a SELECT, or a DESCRIBE) and returns every row; the statement
  // text is the caller's own, so a syntax error is a programming error.
  Outcome Read(const std::string& statement, std::vector<Value> values = {});

  const Catalog& catalog() const { return engine_->catalog(); }

  // What the database holds, whatever its layout on disk: every table's and
  // index's definition and every table's rows (the catalog's included),
  // rows in any order (their hashes are summed), TTLs as stored (absolute
  // times). Two stores with equal hashes answer every statement alike at
  // the same clock; a store that took another path to the same content
  // mostly hashes alike too (check-migrations stops a force's run when its
  // store is the clean run's at a version).
  std::uint64_t ContentHash() const;

  // The store's clock for what reads after this (TTLs): a snapshot kept
  // while the bytes stay the same is read again at a later time.
  void SetNow(std::int64_t now_unix_ms) { now_unix_ms_ = now_unix_ms; }

  // The snapshot of the volume's bytes as they are now, and its catalog
  // read again, on the connection it has: true. False when it must be
  // opened afresh instead: the database is gone, or SQLite's schema is not
  // the one the connection parsed (a table made by its first write), or
  // its catalog does not read.
  bool Refresh(const fakes::Volume& volume, std::int64_t now_unix_ms);

 private:
  explicit StoreSnapshot(std::int64_t now_unix_ms) : now_unix_ms_(now_unix_ms) {}
  // A hash of SQLite's schema as written in the file (every entry's type,
  // names, root page and SQL): equal, the parsed schema still holds.
  std::uint64_t SchemaHash() const;

  sqlite3* db_ = nullptr;
  const std::string* bytes_ = nullptr;  // meta.db's contents, which the VFS reads.
  std::int64_t now_unix_ms_;
  std::uint64_t schema_hash_ = 0;
  std::unique_ptr<Engine> engine_;  // Goes before the connection closes.
};

}  // namespace faultline::models::cql
