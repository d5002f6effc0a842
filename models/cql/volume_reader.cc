#include "models/cql/volume_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <system_error>

#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

constexpr const char* kReaderVfsName = "faultline-volume-reader";
constexpr std::string_view kReaderPathPrefix = "/faultline-volume-reader/";

struct ReaderFile {
  sqlite3_file base;
  const std::string* const* bytes;
};

const std::string& ReaderBytesOf(sqlite3_file* file) {
  const std::string* bytes = *reinterpret_cast<ReaderFile*>(file)->bytes;
  FL_ASSERT_MSG(bytes != nullptr, "a snapshot read with no bytes to read");
  return *bytes;
}

int ReaderClose(sqlite3_file* /*file*/) { return SQLITE_OK; }

int ReaderRead(sqlite3_file* file, void* out, int amount, sqlite3_int64 offset) {
  const std::string& bytes = ReaderBytesOf(file);
  FL_ASSERT(amount >= 0 && offset >= 0);
  const auto from = static_cast<std::uint64_t>(offset);
  const std::uint64_t have =
      from < bytes.size() ? std::min<std::uint64_t>(bytes.size() - from, amount) : 0;
  if (have > 0) std::memcpy(out, bytes.data() + from, have);
  if (have == static_cast<std::uint64_t>(amount)) return SQLITE_OK;
  // SQLite wants the rest zeroed on a short read.
  std::memset(static_cast<char*>(out) + have, 0, static_cast<std::size_t>(amount) - have);
  return SQLITE_IOERR_SHORT_READ;
}

int ReaderWrite(sqlite3_file*, const void*, int, sqlite3_int64) { return SQLITE_READONLY; }
int ReaderTruncate(sqlite3_file*, sqlite3_int64) { return SQLITE_READONLY; }
int ReaderSync(sqlite3_file*, int) { return SQLITE_OK; }

int ReaderFileSize(sqlite3_file* file, sqlite3_int64* size) {
  *size = static_cast<sqlite3_int64>(ReaderBytesOf(file).size());
  return SQLITE_OK;
}

// A reader beside the store takes no lock: it reads between the store's
// statements, when nothing writes (ObserveStore's contract).
int ReaderLock(sqlite3_file*, int) { return SQLITE_OK; }
int ReaderUnlock(sqlite3_file*, int) { return SQLITE_OK; }
int ReaderCheckReservedLock(sqlite3_file*, int* reserved) {
  *reserved = 0;
  return SQLITE_OK;
}
int ReaderFileControl(sqlite3_file*, int, void*) { return SQLITE_NOTFOUND; }
int ReaderSectorSize(sqlite3_file*) { return 512; }
// Not SQLITE_IOCAP_IMMUTABLE: the bytes change between reads, and SQLite
// must look at the header's change counter each time.
int ReaderDeviceCharacteristics(sqlite3_file*) { return 0; }

// Version 1: no shared memory (no WAL), no memory mapping.
sqlite3_io_methods MakeReaderMethods() {
  sqlite3_io_methods methods{};
  methods.iVersion = 1;
  methods.xClose = ReaderClose;
  methods.xRead = ReaderRead;
  methods.xWrite = ReaderWrite;
  methods.xTruncate = ReaderTruncate;
  methods.xSync = ReaderSync;
  methods.xFileSize = ReaderFileSize;
  methods.xLock = ReaderLock;
  methods.xUnlock = ReaderUnlock;
  methods.xCheckReservedLock = ReaderCheckReservedLock;
  methods.xFileControl = ReaderFileControl;
  methods.xSectorSize = ReaderSectorSize;
  methods.xDeviceCharacteristics = ReaderDeviceCharacteristics;
  return methods;
}
const sqlite3_io_methods kReaderMethods = MakeReaderMethods();

int ReaderOpen(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  file->pMethods = nullptr;
  // The main database only: no journal (a snapshot sees the file alone),
  // no temporary file (temp_store=MEMORY).
  if (name == nullptr || (flags & SQLITE_OPEN_MAIN_DB) == 0) return SQLITE_CANTOPEN;
  const std::string_view path(name);
  if (!path.starts_with(kReaderPathPrefix)) return SQLITE_CANTOPEN;
  // The address VolumeReaderPath wrote, in lowercase hex.
  std::uintptr_t address = 0;
  const std::string_view hex = path.substr(kReaderPathPrefix.size());
  const auto [end, error] = std::from_chars(hex.data(), hex.data() + hex.size(), address, 16);
  if (error != std::errc() || end != hex.data() + hex.size()) return SQLITE_CANTOPEN;
  auto* reader = reinterpret_cast<ReaderFile*>(file);
  reader->bytes = reinterpret_cast<const std::string* const*>(address);
  file->pMethods = &kReaderMethods;
  if (out_flags != nullptr) *out_flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB;
  return SQLITE_OK;
}

int ReaderDelete(sqlite3_vfs*, const char*, int) { return SQLITE_READONLY; }

// SQLite asks only after a journal or a WAL beside the database: there is
// none (a snapshot sees the file alone, nothing to roll back).
int ReaderAccess(sqlite3_vfs*, const char* /*name*/, int /*flags*/, int* result) {
  *result = 0;
  return SQLITE_OK;
}

int ReaderFullPathname(sqlite3_vfs*, const char* name, int size, char* out) {
  const std::size_t length = std::strlen(name);
  if (length + 1 > static_cast<std::size_t>(size)) return SQLITE_CANTOPEN;
  std::memcpy(out, name, length + 1);
  return SQLITE_OK;
}

// SQLite asks for randomness and the time only for temporary names and
// busy waits, which a read-only in-memory reader never has: fixed answers.
int ReaderRandomness(sqlite3_vfs*, int size, char* out) {
  std::memset(out, 0, static_cast<std::size_t>(size));
  return size;
}
int ReaderSleep(sqlite3_vfs*, int) { return 0; }
int ReaderCurrentTime(sqlite3_vfs*, double* now) {
  *now = 2440587.5;  // The Unix epoch, as a Julian day.
  return SQLITE_OK;
}
int ReaderGetLastError(sqlite3_vfs*, int, char*) { return 0; }

sqlite3_vfs ReaderMakeVfs() {
  sqlite3_vfs vfs{};
  vfs.iVersion = 1;
  vfs.szOsFile = sizeof(ReaderFile);
  vfs.mxPathname = 256;
  vfs.zName = kReaderVfsName;
  vfs.xOpen = ReaderOpen;
  vfs.xDelete = ReaderDelete;
  vfs.xAccess = ReaderAccess;
  vfs.xFullPathname = ReaderFullPathname;
  vfs.xRandomness = ReaderRandomness;
  vfs.xSleep = ReaderSleep;
  vfs.xCurrentTime = ReaderCurrentTime;
  vfs.xGetLastError = ReaderGetLastError;
  return vfs;
}

}  // namespace

std::string VolumeReaderPath(const std::string* const* bytes) {
  return fmt::format("{}{:x}", kReaderPathPrefix, reinterpret_cast<std::uintptr_t>(bytes));
}

const char* VolumeReaderVfs() {
  // A table of functions, the same for every simulation: registered once.
  static sqlite3_vfs vfs = ReaderMakeVfs();
  static const bool registered = sqlite3_vfs_register(&vfs, 0) == SQLITE_OK;
  FL_ASSERT_MSG(registered, "cannot register SQLite's {} VFS", kReaderVfsName);
  return kReaderVfsName;
}

}  // namespace faultline::models::cql
