#include "app/shell_store.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <variant>

#include <fmt/format.h>

namespace faultline::app {
namespace {

constexpr const char* kMountPoint = "/var/lib/yugabyte";
constexpr const char* kDatabase = "/var/lib/yugabyte/meta.db";
// The files of a saved store: the database and SQLite's (persistent) journal.
constexpr std::array<const char*, 2> kStoreFiles = {"meta.db", "meta.db-journal"};
constexpr const char* kStaging = ".faultline-saving";

// Whether a rollback journal holds a transaction to roll back: SQLite
// writes its header's magic number first and zeroes it when the
// transaction is over (journal_mode=PERSIST; "The Rollback Journal" in
// sqlite.org/fileformat2.html).
bool HotJournal(const std::string& contents) {
  constexpr std::size_t kMagic = 8;
  return contents.size() >= kMagic &&
         std::any_of(contents.begin(), contents.begin() + kMagic, [](char c) { return c != 0; });
}

}  // namespace

ShellStore::ShellStore()
    : volume_("yugabyte-data", fakes::VolumeKind::kNamedVolume), vfs_(simulation_) {
  vfs_.Mount(kMountPoint, volume_);
}

ShellStore::~ShellStore() { store_.reset(); }  // Before the VFS and the volume.

sim::Status ShellStore::Load(const std::filesystem::path& directory) {
  std::error_code error;
  if (!std::filesystem::exists(directory, error)) {
    std::filesystem::create_directories(directory, error);
    if (error) return sim::Status::IoError("cannot create " + directory.string());
  }
  if (!std::filesystem::is_directory(directory, error)) {
    return sim::Status::InvalidArgument(directory.string() + " is not a directory");
  }
  if (!std::filesystem::exists(directory / kStoreFiles[0], error) &&
      !std::filesystem::is_empty(directory, error)) {
    return sim::Status::InvalidArgument(
        fmt::format("{} holds no store ({} is missing) and is not empty; give a new or empty "
                    "directory, or one a store was saved in",
                    directory.string(), kStoreFiles[0]));
  }
  // An interrupted save leaves its staging folder; its files are not the store's.
  std::filesystem::remove_all(directory / kStaging, error);
  for (const char* name : kStoreFiles) {
    if (sim::Status status = Import(directory / name, name); !status.ok()) return status;
  }
  volume_.SyncAll();
  return sim::Status::Ok();
}

sim::Status ShellStore::LoadDatabase(const std::string& database) {
  if (database.empty()) return sim::Status::Ok();  // No store yet: a fresh one.
  fakes::SimFile& file = volume_.OpenOrCreate(std::string("/") + kStoreFiles[0]);
  if (sim::Status written = volume_.Write(file, 0, database); !written.ok()) return written;
  volume_.SyncAll();
  return sim::Status::Ok();
}

sim::Status ShellStore::Open() {
  auto opened = models::cql::StoreDatabase::Open(vfs_, kDatabase);
  if (auto* status = std::get_if<sim::Status>(&opened)) return *status;
  store_ = std::move(std::get<std::unique_ptr<models::cql::StoreDatabase>>(opened));
  return sim::Status::Ok();
}

sim::Status ShellStore::SaveTo(const std::filesystem::path& directory) {
  store_.reset();  // Closes the database: everything is on the volume.
  // The store keeps its rollback journal (journal_mode=PERSIST) with its
  // header zeroed once a transaction ends: closed, it holds nothing SQLite
  // would roll back, and a folder of a store is its database alone.
  if (const fakes::SimFile* journal = volume_.Find(std::string("/") + kStoreFiles[1]);
      journal != nullptr && !HotJournal(journal->contents())) {
    volume_.Remove(std::string("/") + kStoreFiles[1]);
  }
  const std::filesystem::path staging = directory / kStaging;
  std::error_code error;
  std::filesystem::remove_all(staging, error);
  if (sim::Status status = volume_.ExportTo(staging); !status.ok()) return status;
  for (const std::string& path : volume_.List()) {
    if (!IsStoreFile(path)) continue;  // Only what Load reads comes back.
    const std::filesystem::path relative = std::filesystem::path(path).relative_path();
    // The saved file keeps the permissions of the one it replaces.
    const std::filesystem::path target = directory / relative;
    if (std::filesystem::exists(target, error)) {
      std::filesystem::permissions(staging / relative,
                                   std::filesystem::status(target, error).permissions(), error);
    }
    std::filesystem::rename(staging / relative, target, error);
    if (error) {
      return sim::Status::IoError(
          fmt::format("cannot replace {}: {}", (directory / relative).string(), error.message()));
    }
  }
  std::filesystem::remove_all(staging, error);
  for (const std::string& path : imported_) {
    if (volume_.Exists(path)) continue;
    std::filesystem::remove(directory / std::filesystem::path(path).relative_path(), error);
  }
  return sim::Status::Ok();
}

bool ShellStore::IsStoreFile(const std::string& volume_path) {
  return std::any_of(kStoreFiles.begin(), kStoreFiles.end(),
                     [&](const char* name) { return volume_path == std::string("/") + name; });
}

sim::Status ShellStore::Import(const std::filesystem::path& source, const std::string& name) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::symlink_status(source, error);
  if (status.type() == std::filesystem::file_type::not_found) return sim::Status::Ok();
  if (status.type() != std::filesystem::file_type::regular) {
    return sim::Status::InvalidArgument(source.string() + " is not a regular file");
  }
  std::ifstream in(source, std::ios::binary);
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return sim::Status::IoError("cannot read " + source.string());
  fakes::SimFile& file = volume_.OpenOrCreate("/" + name);
  if (sim::Status written = volume_.Write(file, 0, contents); !written.ok()) return written;
  imported_.insert("/" + name);
  return sim::Status::Ok();
}

}  // namespace faultline::app
