// Volumes and the files on them, with the durability model that decides what
// survives a power loss.
//
// Fault model (after SQLite's crash tests and TigerBeetle's storage.zig):
// - Every file has a durable image and the writes made since its last sync.
//   Reads see every write; a sync makes the pending writes durable.
// - A power loss (LoseUnsynced) keeps the durable image and, per the
//   CrashModel, none of the pending writes, an in-order prefix of them, or a
//   random subset of their blocks (torn writes, in any order).
// - Creating and deleting files is durable at once (as if every directory
//   operation were followed by a directory sync).
// - A volume has a capacity; a write past it fails with "disk full". The
//   capacity can change during a run (a disk that fills up, then is freed).
// - A volume can be set to fail reads, writes or syncs with EIO (DiskErrors),
//   once each (transient) or until cleared (persistent), as a dying disk does.
// A process crash by itself loses nothing: the page cache outlives the
// process. Only what calls LoseUnsynced (a machine crash) drops writes.
// The layer above (fakes/sqlite_vfs.h) asks the volume about DiskErrors at
// each I/O, and also passes fault points, so that a fault plan can aim at
// one hit.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fakes/block_digest.h"
#include "sim/fault.h"
#include "sim/names.h"
#include "sim/random.h"
#include "sim/status.h"

namespace faultline::fakes {

struct CrashModel {
  enum class Mode : unsigned char {
    kDropAll,     // Every pending write is lost.
    kKeepPrefix,  // A random number of the oldest pending writes survive, in order.
    kTornBlocks,  // Each block of each pending write survives with a probability.
  };
  Mode mode = Mode::kDropAll;
  std::size_t block_size = 512;       // For kTornBlocks.
  double survival_probability = 0.5;  // For kTornBlocks.

  // The model of a fault plan's power loss (sim::FaultAction::kPowerLoss).
  static CrashModel Of(sim::Survivors survivors);
};

class SimFile {
 public:
  static constexpr std::size_t kMaxPendingOps = 1'000'000;

  SimFile() = default;
  // A copy belongs to no volume: its writes count against none.
  SimFile(const SimFile& other)
      : durable_(other.durable_), current_(other.current_), pending_(other.pending_) {}
  SimFile& operator=(const SimFile& other) = delete;

  std::uint64_t size() const { return current_.size(); }
  // Copies up to out.size() bytes from `offset`; returns how many.
  std::size_t Read(std::uint64_t offset, std::span<char> out) const;
  void Write(std::uint64_t offset, std::string_view data);
  void Truncate(std::uint64_t size);
  // Makes every pending write durable.
  void Sync();
  bool has_pending() const { return !pending_.empty(); }

  // Power loss: keeps the durable image plus what `model` lets survive of
  // the pending writes, drawn from `random`; the result is durable.
  void LoseUnsynced(sim::Rng& random, const CrashModel& model);

  // What the process sees, and what a power loss would keep at least.
  const std::string& contents() const { return current_; }
  // A hash of contents() (BlockDigest), at the cost of what was written
  // since it was last asked.
  std::uint64_t Digest() const { return digest_.Of(current_); }
  const std::string& durable_contents() const { return durable_; }

 private:
  friend class Volume;
  struct PendingOp {
    bool truncate = false;
    std::uint64_t offset = 0;  // For a truncate: the new size.
    std::string data;
  };
  static void Apply(std::string& image, const PendingOp& op);
  // Tells the volume holding this file (if any) that its contents changed
  // and how its size did, so that the volume's use and change count are kept
  // up to date at the cost of the change.
  void Changed(std::uint64_t old_size);

  // Set by the volume that holds the file.
  std::uint64_t* volume_used_bytes_ = nullptr;
  std::uint64_t* volume_changes_ = nullptr;
  std::string durable_;
  std::string current_;
  std::vector<PendingOp> pending_;
  mutable BlockDigest digest_;  // Of current_ (a copy starts it afresh).
};

enum class VolumeKind : unsigned char {
  kNamedVolume,    // Owned by the container runtime: `down -v` removes it.
  kHostDirectory,  // A bind-mounted host directory: a "clean" step empties it.
};
// As a scenario's [[service]] `data` names where a service's data lives.
inline constexpr sim::Named<VolumeKind> kVolumeKinds[] = {{VolumeKind::kHostDirectory, "host"},
                                                          {VolumeKind::kNamedVolume, "named"}};

// The I/O a volume fails with EIO, set by a disk-errors step and cleared by
// disk-ok. Transient: the next such I/O fails, once; persistent: every one.
enum class DiskIo : unsigned char { kRead, kWrite, kSync };
inline constexpr sim::Named<DiskIo> kDiskIos[] = {
    {DiskIo::kRead, "read"}, {DiskIo::kWrite, "write"}, {DiskIo::kSync, "sync"}};
inline std::string_view DiskIoName(DiskIo io) { return sim::NameOf(kDiskIos, io); }
// The I/O a name names (DiskIoName's inverse), or nullopt.
inline std::optional<DiskIo> DiskIoNamed(std::string_view name) {
  return sim::ValueNamed(kDiskIos, name);
}
struct DiskErrors {
  bool read = false;
  bool write = false;
  bool sync = false;
  bool persistent = false;
  bool any() const { return read || write || sync; }
  friend bool operator==(const DiskErrors&, const DiskErrors&) = default;
};

// The files of one volume, as they were at some moment.
struct VolumeSnapshot {
  std::map<std::string, std::string> files;
};

class Volume {
 public:
  static constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();
  static constexpr std::size_t kMaxFiles = 100'000;

  Volume(std::string name, VolumeKind kind, std::uint64_t capacity_bytes = kUnlimited);
  // Its files point at its use counter, so a volume stays where it was made.
  Volume(const Volume&) = delete;
  Volume& operator=(const Volume&) = delete;

  const std::string& name() const { return name_; }
  VolumeKind kind() const { return kind_; }
  std::uint64_t capacity_bytes() const { return capacity_bytes_; }
  // A new capacity; files already past it stay, but cannot grow.
  void SetCapacity(std::uint64_t capacity_bytes) { capacity_bytes_ = capacity_bytes; }

  const DiskErrors& errors() const { return errors_; }
  void SetErrors(const DiskErrors& errors) { errors_ = errors; }
  // Whether this I/O fails with EIO; a transient error is spent by failing.
  bool TakeError(DiskIo io);
  // The disk as it was made: its first capacity, no errors. True when that
  // changed anything.
  bool Repair();
  // The bytes its files hold: kept as they change, so O(1).
  std::uint64_t used_bytes() const { return used_bytes_; }
  // Counts every change to its files (a write, a truncation, a power loss,
  // a file made or removed): while it stays the same, every file's contents
  // do too, so an observer may keep what it read of them.
  std::uint64_t changes() const { return changes_; }

  bool Exists(const std::string& path) const { return files_.contains(path); }
  // The file at `path`, or nullptr.
  SimFile* Find(const std::string& path);
  const SimFile* Find(const std::string& path) const;
  // The file at `path`, created empty if missing.
  SimFile& OpenOrCreate(const std::string& path);
  // Returns false when there was no such file.
  bool Remove(const std::string& path);
  // Every file's path, sorted.
  std::vector<std::string> List() const;

  // Writes through the volume's checks: "input/output error" when its disk
  // fails writes (DiskErrors), "disk full" when it would grow past its
  // capacity.
  [[nodiscard]] sim::Status Write(SimFile& file, std::uint64_t offset, std::string_view data);
  // Makes `file`'s pending writes durable, unless the disk fails syncs.
  [[nodiscard]] sim::Status Sync(SimFile& file);
  // Whether a read may go on: "input/output error" when the disk fails reads.
  [[nodiscard]] sim::Status CheckRead();

  void SyncAll();
  // Power loss for every file on the volume.
  void LoseUnsynced(sim::Rng& random, const CrashModel& model);
  // Removes every file.
  void Wipe();

  // The files as the processes see them now, as a backup would copy them.
  VolumeSnapshot Snapshot() const;
  // Replaces every file by the snapshot's, all durable (a restored backup).
  void Restore(const VolumeSnapshot& snapshot);

  // Writes the files as they are now under `directory` (created if needed),
  // so a person can open them, e.g. a store's database with `sqlite3`.
  // This is the only real I/O in fakes/, and it is never part of a run.
  [[nodiscard]] sim::Status ExportTo(const std::filesystem::path& directory) const;
  // Adds every regular file under `directory` (recursively), durable, as
  // ExportTo wrote them: the inverse, for opening an exported volume again.
  [[nodiscard]] sim::Status ImportFrom(const std::filesystem::path& directory);

 private:
  std::string name_;
  VolumeKind kind_;
  std::uint64_t capacity_bytes_;
  std::uint64_t made_with_capacity_bytes_;
  std::uint64_t used_bytes_ = 0;
  std::uint64_t changes_ = 0;
  DiskErrors errors_;
  std::map<std::string, SimFile> files_;
};

}  // namespace faultline::fakes
