#include "app/output_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "app/command_util.h"
#include "sim/assert.h"

namespace faultline::app {

namespace fs = std::filesystem;

namespace {

fs::path StagingOf(const fs::path& path) {
  return path.string() + fmt::format(".partial-{}", static_cast<long>(getpid()));
}

}  // namespace

bool WriteWhole(const fs::path& path, std::string_view text) {
  StagedFile file(path);
  file.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  return file.Commit();
}

namespace {

// Whether `folder` holds a group-N folder (results, whole or not, of an
// earlier exploration that did not finish).
bool HoldsGroups(const fs::path& folder) {
  std::error_code error;
  constexpr int kMaxEntries = 100'000;
  int seen = 0;
  for (fs::directory_iterator it(folder, error), end; !error && it != end && seen < kMaxEntries;
       it.increment(error), ++seen) {
    if (it->path().filename().string().starts_with("group-")) return true;
  }
  return false;
}

// Where a write to `path` is staged: nullopt to write in place, for a path
// that is not a regular file (a device such as /dev/full or /dev/stdout, a
// FIFO); beside a symbolic link's target (renaming onto the link would
// replace the link, not its file); beside `path` otherwise.
std::optional<fs::path> StagedTarget(const fs::path& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  const bool absent = status.type() == fs::file_type::not_found;
  if (!absent && status.type() != fs::file_type::regular) return std::nullopt;
  // A chain of links, followed (a dangling link's target too), bounded as
  // the kernel bounds it.
  fs::path target = path;
  constexpr int kMaxLinks = 40;
  for (int link = 0; link < kMaxLinks && fs::is_symlink(fs::symlink_status(target, error));
       ++link) {
    const fs::path next = fs::read_symlink(target, error);
    if (error) return path;
    target = next.is_absolute() ? next : target.parent_path() / next;
    // /dev/stdout -> /proc/self/fd/1 -> a file: the caller's open file,
    // which must stay the one it writes to. Written in place.
    const std::string name = target.string();
    if (name.starts_with("/proc/") || name.starts_with("/dev/fd/")) return std::nullopt;
  }
  return target;
}

}  // namespace

StagedFile::StagedFile(fs::path path) {
  const std::optional<fs::path> target = StagedTarget(path);
  path_ = target.value_or(path);
  staging_ = target ? StagingOf(path_) : path_;
  stream_.open(staging_, std::ios::binary | std::ios::trunc);
}

StagedFile::~StagedFile() {
  if (committed_ || staging_ == path_) return;  // Written in place: nothing of ours to remove.
  const int saved = errno;                      // The failure a caller reports is the write's.
  stream_.close();
  std::error_code ignored;
  fs::remove(staging_, ignored);
  errno = saved;
}

bool StagedFile::Commit() {
  FL_ASSERT_MSG(!committed_, "{} committed twice", path_.string());
  stream_.flush();
  stream_.close();
  if (!stream_) {
    const int saved = errno;  // For CannotWrite's message: the write's, not remove's.
    std::error_code ignored;
    if (staging_ != path_) fs::remove(staging_, ignored);
    errno = saved == 0 ? EIO : saved;
    return false;
  }
  committed_ = true;
  if (staging_ == path_) return true;
  std::error_code error;
  // A file replaced keeps its permissions (a 0600 report stays 0600).
  const fs::file_status before = fs::status(path_, error);
  if (!error && before.type() == fs::file_type::regular) {
    fs::permissions(staging_, before.permissions(), error);
  }
  error.clear();
  fs::rename(staging_, path_, error);
  if (error) {
    std::error_code ignored;
    fs::remove(staging_, ignored);
    errno = error.value();
    return false;
  }
  return true;
}

std::optional<ResultsFolder> ResultsFolder::Open(const std::string& flag, const std::string& stem) {
  std::error_code error;
  fs::path out;
  if (!flag.empty()) {
    out = fs::path(flag);
  } else {
    // A new folder: the name made safe for a path, then -2, -3 ... if taken.
    std::string safe = stem;
    for (char& c : safe) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
    }
    const fs::path base = fs::path("faultline-results") / safe;
    out = base;
    constexpr int kMaxTries = 10'000;
    for (int n = 2; fs::exists(out, error) && n < kMaxTries; ++n) {
      out = base.string() + "-" + std::to_string(n);
    }
  }
  // The folders this command makes (out and any missing parent, such as
  // faultline-results/), outermost last: Abandon removes them if empty.
  std::vector<fs::path> made;
  constexpr int kMaxDepth = 256;
  for (fs::path missing = out; !missing.empty() && !fs::exists(missing, error) &&
                               made.size() < static_cast<std::size_t>(kMaxDepth);
       missing = missing.parent_path()) {
    made.push_back(missing);
  }
  fs::create_directories(out, error);
  if (error) {
    BadInput(fmt::format("--out: cannot create '{}': {}", out.string(), error.message()));
    return std::nullopt;
  }
  const int fd = open(out.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const bool busy = fd >= 0 && errno == EWOULDBLOCK;
    const std::string why = std::strerror(errno);
    if (fd >= 0) close(fd);
    BadInput(busy ? fmt::format("--out: '{}' is in use by another faultline command; wait for "
                                "it to finish, or name another folder",
                                out.string())
                  : fmt::format("--out: cannot open '{}': {}", out.string(), why));
    return std::nullopt;
  }
  // Results are never mixed with, or written over, an earlier run's.
  // Checked under the lock: a command that held it has finished.
  if (fs::exists(out / "summary.json", error) || fs::exists(out / "groups.tsv", error) ||
      HoldsGroups(out)) {
    close(fd);
    BadInput(
        fmt::format("--out: '{}' already holds results; remove it or name another", out.string()));
    return std::nullopt;
  }
  return ResultsFolder(out, fd, std::move(made));
}

ResultsFolder::ResultsFolder(ResultsFolder&& other) noexcept
    : path_(std::move(other.path_)),
      lock_fd_(std::exchange(other.lock_fd_, -1)),
      created_(std::move(other.created_)),
      made_(std::move(other.made_)) {}

ResultsFolder::~ResultsFolder() {
  if (lock_fd_ >= 0) close(lock_fd_);  // Releases the lock.
}

void ResultsFolder::Abandon() {
  const int saved = errno;  // The failure a caller reports is the write's.
  std::error_code ignored;
  for (const fs::path& entry : made_) fs::remove_all(entry, ignored);
  made_.clear();
  // Only if empty (fs::remove of a folder): never a user's files.
  for (const fs::path& folder : created_) fs::remove(folder, ignored);
  errno = saved;
}

}  // namespace faultline::app
