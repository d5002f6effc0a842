#include "fakes/volume.h"

#include <algorithm>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "sim/assert.h"

namespace faultline::fakes {

CrashModel CrashModel::Of(sim::Survivors survivors) {
  CrashModel model;
  switch (survivors) {
    case sim::Survivors::kNothingUnsynced:
      model.mode = Mode::kDropAll;
      break;
    case sim::Survivors::kInOrderPrefix:
      model.mode = Mode::kKeepPrefix;
      break;
    case sim::Survivors::kTornBlocks:
      model.mode = Mode::kTornBlocks;
      break;
  }
  FL_ASSERT(model.mode != Mode::kTornBlocks || model.block_size > 0);  // LoseUnsynced's blocks.
  return model;
}

std::size_t SimFile::Read(std::uint64_t offset, std::span<char> out) const {
  if (offset >= current_.size()) return 0;
  const std::size_t count = std::min<std::uint64_t>(out.size(), current_.size() - offset);
  std::copy_n(current_.data() + offset, count, out.data());
  return count;
}

void SimFile::Apply(std::string& image, const PendingOp& op) {
  if (op.truncate) {
    image.resize(op.offset);
    return;
  }
  const std::uint64_t end = op.offset + op.data.size();
  if (image.size() < end) image.resize(end, '\0');
  std::copy(op.data.begin(), op.data.end(), image.begin() + static_cast<std::ptrdiff_t>(op.offset));
}

void SimFile::Changed(std::uint64_t old_size) {
  if (volume_used_bytes_ == nullptr) return;
  FL_ASSERT(*volume_used_bytes_ >= old_size && volume_changes_ != nullptr);
  *volume_used_bytes_ = *volume_used_bytes_ - old_size + current_.size();
  ++*volume_changes_;
}

void SimFile::Write(std::uint64_t offset, std::string_view data) {
  FL_ASSERT_MSG(pending_.size() < kMaxPendingOps, "more than {} unsynced writes to one file",
                kMaxPendingOps);
  const std::uint64_t old_size = current_.size();
  PendingOp op{false, offset, std::string(data)};
  Apply(current_, op);
  // The gap a write past the end zero-fills changed too.
  const std::uint64_t from = std::min(offset, old_size);
  digest_.Changed(from, offset + data.size() - from);
  pending_.push_back(std::move(op));
  Changed(old_size);
}

void SimFile::Truncate(std::uint64_t size) {
  FL_ASSERT(pending_.size() < kMaxPendingOps);
  const std::uint64_t old_size = current_.size();
  PendingOp op{true, size, {}};
  Apply(current_, op);
  // The bytes between the old end and the new (cut, or zero-filled): the
  // block the lower end falls in is among them.
  const std::uint64_t from = std::min(size, old_size);
  digest_.Changed(from, std::max(size, old_size) - from);
  pending_.push_back(std::move(op));
  Changed(old_size);
}

void SimFile::Sync() {
  // Replaying the pending writes costs what they wrote, not the file's size.
  for (const PendingOp& op : pending_) Apply(durable_, op);
  pending_.clear();
  FL_ASSERT(durable_.size() == current_.size());
}

void SimFile::LoseUnsynced(sim::Rng& random, const CrashModel& model) {
  std::string image = durable_;
  switch (model.mode) {
    case CrashModel::Mode::kDropAll:
      break;
    case CrashModel::Mode::kKeepPrefix: {
      const std::size_t kept = random.Uniform(pending_.size() + 1);
      for (std::size_t i = 0; i < kept; ++i) Apply(image, pending_[i]);
      break;
    }
    case CrashModel::Mode::kTornBlocks: {
      FL_ASSERT(model.block_size > 0);
      for (const PendingOp& op : pending_) {
        if (op.truncate) {
          if (random.Bernoulli(model.survival_probability)) Apply(image, op);
          continue;
        }
        // Each block of the write lands or not on its own.
        for (std::size_t start = 0; start < op.data.size(); start += model.block_size) {
          if (!random.Bernoulli(model.survival_probability)) continue;
          const std::size_t length = std::min(model.block_size, op.data.size() - start);
          Apply(image, PendingOp{false, op.offset + start, op.data.substr(start, length)});
        }
      }
      break;
    }
  }
  const std::uint64_t old_size = current_.size();
  durable_ = image;
  current_ = std::move(image);
  digest_.Reset();
  pending_.clear();
  Changed(old_size);
}

Volume::Volume(std::string name, VolumeKind kind, std::uint64_t capacity_bytes)
    : name_(std::move(name)),
      kind_(kind),
      capacity_bytes_(capacity_bytes),
      made_with_capacity_bytes_(capacity_bytes) {}

bool Volume::Repair() {
  const bool changed = capacity_bytes_ != made_with_capacity_bytes_ || errors_.any();
  capacity_bytes_ = made_with_capacity_bytes_;
  errors_ = {};
  return changed;
}

SimFile* Volume::Find(const std::string& path) {
  auto it = files_.find(path);
  return it == files_.end() ? nullptr : &it->second;
}

const SimFile* Volume::Find(const std::string& path) const {
  auto it = files_.find(path);
  return it == files_.end() ? nullptr : &it->second;
}

SimFile& Volume::OpenOrCreate(const std::string& path) {
  FL_ASSERT_MSG(files_.size() < kMaxFiles || files_.contains(path),
                "volume {} holds more than {} files", name_, kMaxFiles);
  auto [entry, created] = files_.try_emplace(path);
  if (created) {
    entry->second.volume_used_bytes_ = &used_bytes_;
    entry->second.volume_changes_ = &changes_;
    ++changes_;
  }
  return entry->second;
}

bool Volume::Remove(const std::string& path) {
  auto found = files_.find(path);
  if (found == files_.end()) return false;
  FL_ASSERT(used_bytes_ >= found->second.size());
  used_bytes_ -= found->second.size();
  files_.erase(found);
  ++changes_;
  return true;
}

void Volume::Wipe() {
  files_.clear();
  used_bytes_ = 0;
  ++changes_;
}

std::vector<std::string> Volume::List() const {
  std::vector<std::string> paths;
  paths.reserve(files_.size());
  for (const auto& [path, file] : files_) paths.push_back(path);
  return paths;
}

sim::Status Volume::Sync(SimFile& file) {
  if (TakeError(DiskIo::kSync)) return sim::Status::IoError("input/output error");
  file.Sync();
  return sim::Status::Ok();
}

sim::Status Volume::CheckRead() {
  if (TakeError(DiskIo::kRead)) return sim::Status::IoError("input/output error");
  return sim::Status::Ok();
}

sim::Status Volume::Write(SimFile& file, std::uint64_t offset, std::string_view data) {
  if (TakeError(DiskIo::kWrite)) return sim::Status::IoError("input/output error");
  const std::uint64_t end = offset + data.size();
  const std::uint64_t growth = end > file.size() ? end - file.size() : 0;
  if (growth > 0 && (capacity_bytes_ - std::min(capacity_bytes_, used_bytes_)) < growth) {
    return sim::Status::Unavailable(fmt::format("disk full: volume {} holds {} of {} bytes", name_,
                                                used_bytes(), capacity_bytes_));
  }
  file.Write(offset, data);
  FL_ASSERT(growth == 0 || used_bytes_ <= capacity_bytes_);  // Never grown past its capacity.
  return sim::Status::Ok();
}

bool Volume::TakeError(DiskIo io) {
  bool& fails = io == DiskIo::kRead    ? errors_.read
                : io == DiskIo::kWrite ? errors_.write
                                       : errors_.sync;
  if (!fails) return false;
  if (!errors_.persistent) fails = false;
  return true;
}

void Volume::SyncAll() {
  for (auto& [path, file] : files_) file.Sync();
}

void Volume::LoseUnsynced(sim::Rng& random, const CrashModel& model) {
  // Each file draws from a stream of its own, so adding a file leaves the
  // fate of the others unchanged; the base draw makes each loss different.
  const sim::Rng base(random.NextU64());
  for (auto& [path, file] : files_) {
    sim::Rng file_random = base.Fork(path);
    file.LoseUnsynced(file_random, model);
  }
}

VolumeSnapshot Volume::Snapshot() const {
  VolumeSnapshot snapshot;
  for (const auto& [path, file] : files_) snapshot.files.emplace(path, file.contents());
  return snapshot;
}

void Volume::Restore(const VolumeSnapshot& snapshot) {
  Wipe();
  for (const auto& [path, contents] : snapshot.files) {
    SimFile& file = OpenOrCreate(path);
    file.Write(0, contents);
    file.Sync();
  }
}

sim::Status Volume::ExportTo(const std::filesystem::path& directory) const {
  for (const auto& [path, file] : files_) {
    const std::filesystem::path target = directory / std::filesystem::path(path).relative_path();
    std::error_code error;
    std::filesystem::create_directories(target.parent_path(), error);
    if (error) {
      return sim::Status::IoError(
          fmt::format("cannot create {}: {}", target.parent_path().string(), error.message()));
    }
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out.write(file.contents().data(), static_cast<std::streamsize>(file.contents().size()));
    if (!out) return sim::Status::IoError(fmt::format("cannot write {}", target.string()));
  }
  return sim::Status::Ok();
}

sim::Status Volume::ImportFrom(const std::filesystem::path& directory) {
  std::error_code error;
  std::filesystem::recursive_directory_iterator it(directory, error);
  if (error) {
    return sim::Status::IoError(
        fmt::format("cannot read {}: {}", directory.string(), error.message()));
  }
  constexpr std::size_t kMaxFiles = 100'000;
  std::size_t files = 0;
  for (; it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (error) break;  // Checked below: an iterator in error becomes the end.
    // Only real files: a symlink could point anywhere, and ExportTo would
    // later write through it.
    if (it->is_symlink() || !it->is_regular_file()) continue;
    if (++files > kMaxFiles) return sim::Status::InvalidArgument("too many files to import");
    std::ifstream in(it->path(), std::ios::binary);
    std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      return sim::Status::IoError(fmt::format("cannot read {}", it->path().string()));
    }
    const std::string path =
        "/" + std::filesystem::relative(it->path(), directory).generic_string();
    SimFile& file = OpenOrCreate(path);
    if (sim::Status status = Write(file, 0, contents); !status.ok()) return status;
  }
  if (error) {
    return sim::Status::IoError(
        fmt::format("cannot list {}: {}", directory.string(), error.message()));
  }
  SyncAll();
  return sim::Status::Ok();
}

}  // namespace faultline::fakes
