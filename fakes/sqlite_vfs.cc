#include "fakes/sqlite_vfs.h"

#include <cstring>
#include <new>

#include <fmt/format.h>

#include "sim/assert.h"

namespace faultline::fakes {
namespace {

// SQLite without mutexes, set before its first use (a static initializer
// of this file, which every simulation links). The simulation is
// single-threaded, and a branching run (scenarios/harness/branches.h)
// forks the process inside SQLite's calls (at a fault point in this VFS):
// with mutexes on, the child would wait forever on a recursive mutex its
// parent's thread held at the fork.
const bool kSqliteSingleThreaded = sqlite3_config(SQLITE_CONFIG_SINGLETHREAD) == SQLITE_OK;

// Julian day number of the Unix epoch, in milliseconds.
constexpr std::int64_t kUnixEpochJulianMs = 210'866'760'000'000;

// What SQLite allocates for each open file (szOsFile bytes); `base` must come
// first. Constructed in place by VfsOpen, destroyed by FileClose.
struct OpenFile {
  sqlite3_file base;
  SqliteVfs* vfs;
  Volume* volume;
  std::string path;  // On the volume.
  sim::Owner owner;  // The incarnation that opened it: its death closes the disk.
  bool delete_on_close;
  int lock;
};

SqliteVfs* VfsOf(sqlite3_vfs* vfs) { return static_cast<SqliteVfs*>(vfs->pAppData); }
OpenFile* FileOf(sqlite3_file* file) { return reinterpret_cast<OpenFile*>(file); }

// Whether I/O through `file` may reach its volume: its opener is alive.
bool Usable(const OpenFile* file) {
  return file->vfs->simulation().scheduler().IsLive(file->owner);
}

// Passes fault point `site`; true when the call must fail. A power loss
// there ends the opener (as a crash does) and drops the unsynced writes of
// the file's volume, keeping what the decision's model lets survive: so a
// power loss can land in the middle of a transaction, between its writes.
bool Fails(OpenFile* file, const char* site) {
  FL_ASSERT(file->volume != nullptr);  // VfsOpen opens nothing without one.
  if (!Usable(file)) return true;
  // A failing disk fails the I/O before any fault plan is asked (a write's
  // own check is Volume::Write's; a truncate counts as a write).
  const std::string_view name(site);
  if (name == SqliteVfs::kSiteRead && file->volume->TakeError(DiskIo::kRead)) return true;
  if (name == SqliteVfs::kSiteTruncate && file->volume->TakeError(DiskIo::kWrite)) return true;
  if (name == SqliteVfs::kSiteSync && file->volume->TakeError(DiskIo::kSync)) return true;
  const sim::FaultDecision decision = file->vfs->simulation().HitFaultPoint(site, file->owner);
  if (decision.action == sim::FaultAction::kPowerLoss)
    file->vfs->LosePower(file->owner, *file->volume, decision.survivors);
  return decision.action == sim::FaultAction::kError ||
         decision.action == sim::FaultAction::kCrash ||
         decision.action == sim::FaultAction::kPowerLoss;
}

SimFile* FileOnVolume(OpenFile* file) { return file->volume->Find(file->path); }

int FileClose(sqlite3_file* base) {
  OpenFile* file = FileOf(base);
  if (file->delete_on_close && Usable(file)) file->volume->Remove(file->path);
  file->vfs->OnFileClosed();
  file->~OpenFile();
  return SQLITE_OK;
}

int FileRead(sqlite3_file* base, void* out, int amount, sqlite3_int64 offset) {
  FL_ASSERT(amount >= 0 && offset >= 0);
  OpenFile* file = FileOf(base);
  if (Fails(file, SqliteVfs::kSiteRead)) return SQLITE_IOERR_READ;
  SimFile* sim_file = FileOnVolume(file);
  char* bytes = static_cast<char*>(out);
  const std::size_t got =
      sim_file == nullptr
          ? 0
          : sim_file->Read(static_cast<std::uint64_t>(offset),
                           std::span<char>(bytes, static_cast<std::size_t>(amount)));
  if (got < static_cast<std::size_t>(amount)) {
    // SQLite requires the unread tail to be zeroed on a short read.
    std::memset(bytes + got, 0, static_cast<std::size_t>(amount) - got);
    return SQLITE_IOERR_SHORT_READ;
  }
  return SQLITE_OK;
}

int FileWrite(sqlite3_file* base, const void* data, int amount, sqlite3_int64 offset) {
  FL_ASSERT(amount >= 0 && offset >= 0);
  OpenFile* file = FileOf(base);
  if (Fails(file, SqliteVfs::kSiteWrite)) return SQLITE_IOERR_WRITE;
  SimFile& sim_file = file->volume->OpenOrCreate(file->path);
  const sim::Status status = file->volume->Write(
      sim_file, static_cast<std::uint64_t>(offset),
      std::string_view(static_cast<const char*>(data), static_cast<std::size_t>(amount)));
  if (status.ok()) return SQLITE_OK;
  return status.code() == sim::StatusCode::kIoError ? SQLITE_IOERR_WRITE : SQLITE_FULL;
}

int FileTruncate(sqlite3_file* base, sqlite3_int64 size) {
  OpenFile* file = FileOf(base);
  if (Fails(file, SqliteVfs::kSiteTruncate)) return SQLITE_IOERR_TRUNCATE;
  file->volume->OpenOrCreate(file->path).Truncate(static_cast<std::uint64_t>(size));
  return SQLITE_OK;
}

int FileSync(sqlite3_file* base, int /*flags*/) {
  OpenFile* file = FileOf(base);
  if (Fails(file, SqliteVfs::kSiteSync)) return SQLITE_IOERR_FSYNC;
  if (SimFile* sim_file = FileOnVolume(file)) sim_file->Sync();
  return SQLITE_OK;
}

int FileSize(sqlite3_file* base, sqlite3_int64* size) {
  OpenFile* file = FileOf(base);
  if (!Usable(file)) return SQLITE_IOERR_FSTAT;
  const SimFile* sim_file = FileOnVolume(file);
  *size = sim_file == nullptr ? 0 : static_cast<sqlite3_int64>(sim_file->size());
  return SQLITE_OK;
}

// One simulated process opens each database, so locks only track levels.
int FileLock(sqlite3_file* base, int level) {
  OpenFile* file = FileOf(base);
  if (level > file->lock) file->lock = level;
  return SQLITE_OK;
}

int FileUnlock(sqlite3_file* base, int level) {
  OpenFile* file = FileOf(base);
  if (level < file->lock) file->lock = level;
  return SQLITE_OK;
}

int FileCheckReservedLock(sqlite3_file* base, int* reserved) {
  *reserved = FileOf(base)->lock >= SQLITE_LOCK_RESERVED ? 1 : 0;
  return SQLITE_OK;
}

int FileControl(sqlite3_file*, int, void*) { return SQLITE_NOTFOUND; }
int FileSectorSize(sqlite3_file*) { return SqliteVfs::kSectorSize; }
// No atomic or safe-append guarantees: SQLite journals everything.
int FileDeviceCharacteristics(sqlite3_file*) { return 0; }

constexpr sqlite3_io_methods kIoMethods = {
    1,  // iVersion: no shared memory (no WAL), no memory-mapped I/O.
    FileClose,
    FileRead,
    FileWrite,
    FileTruncate,
    FileSync,
    FileSize,
    FileLock,
    FileUnlock,
    FileCheckReservedLock,
    FileControl,
    FileSectorSize,
    FileDeviceCharacteristics,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr};

}  // namespace

void SqliteVfs::LosePower(const sim::Owner& owner, Volume& volume, sim::Survivors survivors) {
  if (power_loss_handler_) {
    power_loss_handler_(owner.process, survivors, random_);
    return;
  }
  volume.LoseUnsynced(random_, CrashModel::Of(survivors));
}

namespace {

int VfsOpen(sqlite3_vfs* raw_vfs, sqlite3_filename name, sqlite3_file* base, int flags,
            int* out_flags) {
  SqliteVfs* vfs = VfsOf(raw_vfs);
  base->pMethods = nullptr;  // Tells SQLite not to call xClose if we fail.
  std::pair<Volume*, std::string> where = name == nullptr ? vfs->NewTempFile() : vfs->Resolve(name);
  if (where.first == nullptr) return SQLITE_CANTOPEN;
  // The handle belongs to the process incarnation, not to the task that
  // opened it (cancelling that task must not close the disk to the rest).
  sim::Owner owner = vfs->simulation().CurrentOwner();
  if (!vfs->simulation().scheduler().IsLive(owner)) return SQLITE_CANTOPEN;
  owner.task = 0;
  const sim::FaultDecision decision = vfs->simulation().HitFaultPoint(SqliteVfs::kSiteOpen, owner);
  if (decision.action != sim::FaultAction::kNone && decision.action != sim::FaultAction::kDelay) {
    return SQLITE_CANTOPEN;
  }
  const bool exists = where.first->Exists(where.second);
  if (!exists && (flags & SQLITE_OPEN_CREATE) == 0) return SQLITE_CANTOPEN;
  if (!exists) where.first->OpenOrCreate(where.second);
  FL_ASSERT(where.first->Exists(where.second));
  const bool delete_on_close = name == nullptr || (flags & SQLITE_OPEN_DELETEONCLOSE) != 0;
  new (base)
      OpenFile{{&kIoMethods},   vfs, where.first, std::move(where.second), owner, delete_on_close,
               SQLITE_LOCK_NONE};
  vfs->OnFileOpened();
  if (out_flags != nullptr) *out_flags = flags;
  return SQLITE_OK;
}

int VfsDelete(sqlite3_vfs* raw_vfs, const char* name, int /*sync_dir*/) {
  SqliteVfs* vfs = VfsOf(raw_vfs);
  if (!vfs->simulation().scheduler().IsLive(vfs->simulation().CurrentOwner())) {
    return SQLITE_IOERR_DELETE;
  }
  const sim::FaultDecision decision = vfs->simulation().HitFaultPoint(SqliteVfs::kSiteDelete);
  if (decision.action != sim::FaultAction::kNone && decision.action != sim::FaultAction::kDelay) {
    return SQLITE_IOERR_DELETE;
  }
  auto [volume, path] = vfs->Resolve(name);
  if (volume == nullptr || !volume->Remove(path)) return SQLITE_IOERR_DELETE_NOENT;
  return SQLITE_OK;
}

int VfsAccess(sqlite3_vfs* raw_vfs, const char* name, int /*flags*/, int* result) {
  auto [volume, path] = VfsOf(raw_vfs)->Resolve(name);
  // As SQLite's unix VFS does, an empty file counts as missing (so an empty
  // journal is not hot).
  const SimFile* file = volume == nullptr ? nullptr : volume->Find(path);
  *result = file != nullptr && file->size() > 0 ? 1 : 0;
  return SQLITE_OK;
}

int VfsFullPathname(sqlite3_vfs*, const char* name, int out_size, char* out) {
  const std::string full = name[0] == '/' ? std::string(name) : "/" + std::string(name);
  if (static_cast<int>(full.size()) >= out_size) return SQLITE_CANTOPEN;
  std::memcpy(out, full.c_str(), full.size() + 1);
  return SQLITE_OK;
}

int VfsRandomness(sqlite3_vfs* raw_vfs, int size, char* out) {
  sim::Rng& random = VfsOf(raw_vfs)->random();
  for (int i = 0; i < size; ++i) out[i] = static_cast<char>(random.NextU64());
  return size;
}

// Virtual time cannot pass inside a synchronous call: report the sleep done.
int VfsSleep(sqlite3_vfs*, int microseconds) { return microseconds; }

int VfsCurrentTimeInt64(sqlite3_vfs* raw_vfs, sqlite3_int64* julian_ms) {
  const std::int64_t virtual_ms =
      sim::ToNanoseconds(VfsOf(raw_vfs)->simulation().Now()) / 1'000'000;
  *julian_ms = kUnixEpochJulianMs + SqliteVfs::kEpochUnixMs + virtual_ms;
  return SQLITE_OK;
}

int VfsCurrentTime(sqlite3_vfs* raw_vfs, double* julian_days) {
  sqlite3_int64 julian_ms = 0;
  VfsCurrentTimeInt64(raw_vfs, &julian_ms);
  *julian_days = static_cast<double>(julian_ms) / 86'400'000.0;
  return SQLITE_OK;
}

int VfsGetLastError(sqlite3_vfs*, int, char*) { return 0; }

// Gives each VFS a distinct registration name; names never reach a trace.
std::uint64_t NextVfsNumber() {
  static std::uint64_t next = 0;
  return ++next;
}

}  // namespace

SqliteVfs::SqliteVfs(sim::Simulation& simulation)
    : simulation_(simulation),
      name_(fmt::format("faultline-{}", NextVfsNumber())),
      random_(simulation.Random("sqlite")),
      temp_volume_("sqlite-temp", VolumeKind::kNamedVolume) {
  FL_ASSERT_MSG(kSqliteSingleThreaded,
                "SQLite was used before it was set single-threaded (fakes/sqlite_vfs.cc)");
  vfs_.iVersion = 2;
  vfs_.szOsFile = sizeof(OpenFile);
  vfs_.mxPathname = 512;
  vfs_.zName = name_.c_str();
  vfs_.pAppData = this;
  vfs_.xOpen = VfsOpen;
  vfs_.xDelete = VfsDelete;
  vfs_.xAccess = VfsAccess;
  vfs_.xFullPathname = VfsFullPathname;
  vfs_.xRandomness = VfsRandomness;
  vfs_.xSleep = VfsSleep;
  vfs_.xCurrentTime = VfsCurrentTime;
  vfs_.xGetLastError = VfsGetLastError;
  vfs_.xCurrentTimeInt64 = VfsCurrentTimeInt64;
  // Reseed SQLite's process-wide generator from this simulation: it reseeds
  // lazily from the default VFS, so be the default for one draw.
  sqlite3_vfs* previous_default = sqlite3_vfs_find(nullptr);
  FL_ASSERT(sqlite3_vfs_register(&vfs_, /*makeDflt=*/1) == SQLITE_OK);
  sqlite3_randomness(0, nullptr);
  char ignored = 0;
  sqlite3_randomness(1, &ignored);
  if (previous_default != nullptr) sqlite3_vfs_register(previous_default, 1);
}

SqliteVfs::~SqliteVfs() {
  FL_ASSERT_MSG(open_files_ == 0,
                "{} SQLite files are still open on a VFS being destroyed: close databases, or "
                "end the processes holding them, first",
                open_files_);
  sqlite3_vfs_unregister(&vfs_);
}

void SqliteVfs::Mount(std::string mount_point, Volume& volume) {
  FL_ASSERT_MSG(mount_point.starts_with('/'), "mount point {} is not absolute", mount_point);
  while (mount_point.size() > 1 && mount_point.ends_with('/')) mount_point.pop_back();
  mounts_[std::move(mount_point)] = &volume;
}

void SqliteVfs::Unmount(const std::string& mount_point) { mounts_.erase(mount_point); }

std::pair<Volume*, std::string> SqliteVfs::Resolve(const std::string& path) {
  // Longest mount point first: a mount inside another wins.
  for (const auto& [mount_point, volume] : mounts_) {
    // As Mount left it: no trailing '/', so a match ends at one in `path`.
    FL_ASSERT(mount_point == "/" || !mount_point.ends_with('/'));
    if (mount_point == "/") return {volume, path};
    if (path.size() > mount_point.size() && path.starts_with(mount_point) &&
        path[mount_point.size()] == '/') {
      return {volume, path.substr(mount_point.size())};
    }
  }
  return {nullptr, ""};
}

std::pair<Volume*, std::string> SqliteVfs::NewTempFile() {
  return {&temp_volume_, fmt::format("/etilqs_{}", ++temp_files_)};
}

sim::Result<SqliteDatabase> SqliteDatabase::Open(SqliteVfs& vfs, const std::string& path) {
  sqlite3* db = nullptr;
  const int code =
      sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs.name());
  SqliteDatabase database(db);
  if (code != SQLITE_OK) return database.Error(code);
  return database;
}

SqliteDatabase::SqliteDatabase(SqliteDatabase&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)) {}

SqliteDatabase& SqliteDatabase::operator=(SqliteDatabase&& other) noexcept {
  if (this != &other) {
    if (db_ != nullptr) sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
  }
  return *this;
}

SqliteDatabase::~SqliteDatabase() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

sim::Status SqliteDatabase::Error(int code) const {
  FL_ASSERT(code != SQLITE_OK && code != SQLITE_ROW && code != SQLITE_DONE);
  const char* message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
  const std::string text = fmt::format("sqlite: {} ({})", message, sqlite3_errstr(code));
  switch (code & 0xff) {
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
      return sim::Status::IoError(text);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return sim::Status::Corruption(text);
    default:
      return sim::Status::Internal(text);
  }
}

sim::Status SqliteDatabase::Exec(const std::string& sql) {
  const int code = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  return code == SQLITE_OK ? sim::Status::Ok() : Error(code);
}

sim::Result<std::int64_t> SqliteDatabase::QueryInt(const std::string& sql) {
  FL_ASSERT(db_ != nullptr);  // Not a moved-from database.
  sqlite3_stmt* statement = nullptr;
  int code = sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr);
  if (code != SQLITE_OK) return Error(code);
  code = sqlite3_step(statement);
  sim::Result<std::int64_t> result = sim::Status::NotFound("no row");
  if (code == SQLITE_ROW) {
    result = static_cast<std::int64_t>(sqlite3_column_int64(statement, 0));
  } else if (code != SQLITE_DONE) {
    result = Error(code);
  }
  sqlite3_finalize(statement);
  return result;
}

}  // namespace faultline::fakes
