// SqliteVfs: a SQLite VFS over simulated volumes, so that SQLite runs inside a
// simulation: its files live on Volumes (and survive, or not, as they do),
// and its randomness, sleeps and clock come from the simulation.
//
// Fault model. Each I/O passes a fault point (kSite*): an error decision fails
// that call with SQLite's I/O error (transient or persistent, as the plan
// says); a crash decision ends the calling process at once. SQLite calls a VFS
// synchronously, so a crash cannot stop the call stack where it is: instead
// every file handle remembers the process incarnation that opened it, and from
// the crash on each call through it fails without touching the volume. Nothing
// the dead process does after its crash point reaches the disk, which is what
// a crash means. A power-loss decision is a crash that also drops the
// unsynced writes of the file's volume (per the decision's survivors), so it
// can land between two writes of one transaction. Delay decisions are taken
// as none (a synchronous call cannot wait on virtual time).
//
// SQLite's own pseudo-random generator is process-wide; constructing a VFS
// reseeds it from the simulation, so keep one SqliteVfs alive at a time.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "fakes/volume.h"
#include "sim/simulation.h"

namespace faultline::fakes {

class SqliteVfs {
 public:
  static constexpr const char* kSiteOpen = "disk.open";
  static constexpr const char* kSiteRead = "disk.read";
  static constexpr const char* kSiteWrite = "disk.write";
  static constexpr const char* kSiteSync = "disk.sync";
  static constexpr const char* kSiteTruncate = "disk.truncate";
  static constexpr const char* kSiteDelete = "disk.delete";
  // The simulated wall clock starts at 2025-01-01T00:00:00Z.
  static constexpr std::int64_t kEpochUnixMs = 1'735'689'600'000;
  static constexpr int kSectorSize = 512;

  explicit SqliteVfs(sim::Simulation& simulation);
  // REQUIRES: every file opened through it is closed.
  ~SqliteVfs();
  SqliteVfs(const SqliteVfs&) = delete;
  SqliteVfs& operator=(const SqliteVfs&) = delete;

  // The name to pass to sqlite3_open_v2.
  const char* name() const { return name_.c_str(); }
  sim::Simulation& simulation() { return simulation_; }

  // Files under `mount_point` (an absolute path such as "/var/lib/store")
  // live on `volume`, which must outlive the mount.
  void Mount(std::string mount_point, Volume& volume);
  void Unmount(const std::string& mount_point);

  // Where `path` lives: its volume and its path on that volume, or
  // {nullptr, ""} when no mount holds it.
  std::pair<Volume*, std::string> Resolve(const std::string& path);

  // Creates a file for SQLite's temporary storage.
  std::pair<Volume*, std::string> NewTempFile();
  sim::Rng& random() { return random_; }

  // A power-loss decision at `owner`'s I/O: its machine loses power. The
  // handler (the container runtime's) drops the unsynced writes of every
  // volume that machine mounts; without one, only `volume`'s.
  using PowerLossHandler = std::function<void(sim::ProcessId, sim::Survivors, sim::Rng&)>;
  void SetPowerLossHandler(PowerLossHandler handler) { power_loss_handler_ = std::move(handler); }
  void LosePower(const sim::Owner& owner, Volume& volume, sim::Survivors survivors);
  void OnFileOpened() { ++open_files_; }
  void OnFileClosed() { --open_files_; }

 private:
  sim::Simulation& simulation_;
  std::string name_;
  sqlite3_vfs vfs_{};
  sim::Rng random_;
  std::map<std::string, Volume*, std::greater<>> mounts_;  // Longest prefix first.
  Volume temp_volume_;
  std::uint64_t temp_files_ = 0;
  std::int64_t open_files_ = 0;  // Must be zero when the VFS goes.
  PowerLossHandler power_loss_handler_;
};

// An open SQLite database on a SqliteVfs; closes it when destroyed.
class SqliteDatabase {
 public:
  // Opens, creating if missing, the database at `path` (absolute, under a
  // mount of `vfs`).
  static sim::Result<SqliteDatabase> Open(SqliteVfs& vfs, const std::string& path);

  SqliteDatabase(SqliteDatabase&& other) noexcept;
  SqliteDatabase& operator=(SqliteDatabase&& other) noexcept;
  ~SqliteDatabase();

  sqlite3* handle() { return db_; }
  // Runs one or more statements.
  [[nodiscard]] sim::Status Exec(const std::string& sql);
  // The first column of the first row of `sql`, as an integer.
  sim::Result<std::int64_t> QueryInt(const std::string& sql);

 private:
  explicit SqliteDatabase(sqlite3* db) : db_(db) {}
  sim::Status Error(int code) const;
  sqlite3* db_ = nullptr;
};

}  // namespace faultline::fakes
