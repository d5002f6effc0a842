#include "app/output_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <iostream>
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

// A results folder's own entries: summary.json, groups.tsv, group-N
// (whole, or .partial).
bool IsResultsEntry(const std::string& name) {
  return name == "summary.json" || name == "groups.tsv" || name.starts_with("group-");
}

// Whether `folder` holds results, whole or not (an earlier exploration's,
// finished or not).
bool HoldsResults(const fs::path& folder) {
  std::error_code error;
  constexpr int kMaxEntries = 100'000;
  int seen = 0;
  for (fs::directory_iterator it(folder, error), end; !error && it != end && seen < kMaxEntries;
       it.increment(error), ++seen) {
    if (IsResultsEntry(it->path().filename().string())) return true;
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

namespace {

bool IsEmptyFolder(const fs::path& folder) {
  std::error_code error;
  return fs::is_empty(folder, error) && !error;
}

// The folder `flag` names, without a trailing separator or a last "." so
// that FOLDER.partial is its sibling.
fs::path FolderNamed(const std::string& flag) {
  fs::path out = fs::path(flag).lexically_normal();
  if (!out.has_filename()) out = out.parent_path();
  if (out.empty() || out.filename() == "." || out.filename() == "..") {
    std::error_code error;
    fs::path absolute = fs::absolute(out.empty() ? fs::path(".") : out, error).lexically_normal();
    if (!absolute.has_filename()) absolute = absolute.parent_path();
    if (!error) out = absolute;
  }
  return out;
}

fs::path StagingFolderOf(const fs::path& out) { return out.string() + ".partial"; }

}  // namespace

fs::path ResultsFolderNamed(const std::string& flag) { return FolderNamed(flag); }

namespace {

// Takes the lock on `folder`: its descriptor, or -1 after saying why. A
// command's forked workers share its lock, and outlive a SIGKILL of it by
// the moment they take to see their parent gone (PR_SET_PDEATHSIG): a
// resume right after one waits for them, a bounded while, rather than
// finding the folder in use.
int LockFolder(const fs::path& folder) {
  constexpr int kTries = 40;  // 50 ms apart: 2 s.
  const int fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int failure = errno;
  for (int tried = 0; fd >= 0 && tried < kTries; ++tried) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
    failure = errno;
    if (failure != EWOULDBLOCK) break;
    usleep(50'000);
  }
  const bool busy = fd >= 0 && failure == EWOULDBLOCK;
  const std::string why = std::strerror(failure);
  if (fd >= 0) close(fd);
  BadInput(busy ? fmt::format("--out: '{}' is in use by another faultline command; wait for "
                              "it to finish, or name another folder",
                              folder.string())
                : fmt::format("--out: cannot open '{}': {}", folder.string(), why));
  return -1;
}

// Removes what `folder` holds (bounded), true when it is empty after.
bool EmptyFolder(const fs::path& folder, bool results_only) {
  std::error_code error;
  std::vector<fs::path> entries;
  constexpr std::size_t kMaxEntries = 100'000;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (entries.size() == kMaxEntries) return false;  // Not emptied: more than it takes.
    if (!results_only || IsResultsEntry(it->path().filename().string())) {
      entries.push_back(it->path());
    }
  }
  if (error) return false;
  bool emptied = true;
  for (const fs::path& entry : entries) {
    fs::remove_all(entry, error);
    emptied = emptied && !error;
  }
  return emptied;
}

// Whether what an earlier command left in `staging` is faultline's own:
// an exploration's journal or a results folder's files. Anything else is
// someone's, never emptied.
bool LeftByFaultline(const fs::path& staging) {
  std::error_code error;
  // (journal/explore.tsv: explore_journal.h's kJournalFolder and header.)
  return fs::exists(staging / "journal" / "explore.tsv", error) || HoldsResults(staging);
}

// Why the results could not be moved into `out` once complete (a rename
// within one file system, onto nothing or an empty folder), or empty:
// said before any work, not after it.
std::string CannotMoveInto(const fs::path& out) {
  std::error_code error;
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (fs::equivalent(out, fs::current_path(error), error)) {
    return fmt::format("'{}' is the current folder; name a folder for the results", out.string());
  }
  struct stat folder {};
  struct stat above {};
  if (stat(out.c_str(), &folder) == 0 && stat(parent.c_str(), &above) == 0 &&
      folder.st_dev != above.st_dev) {
    return fmt::format(
        "'{}' is a mount point (a volume); results are written beside a folder and moved "
        "into it whole, so name a folder inside it, such as '{}'",
        out.string(), (out / "results").string());
  }
  return {};
}

}  // namespace

std::optional<ResultsFolder> ResultsFolder::Open(const std::string& flag, const std::string& stem,
                                                 Earlier earlier) {
  std::error_code error;
  fs::path out;
  if (!flag.empty()) {
    out = FolderNamed(flag);
    // A link to a folder: the results go where it points (renamed there).
    if (fs::is_symlink(out, error)) {
      const fs::path target = fs::canonical(out, error);
      if (error) {
        BadInput(
            fmt::format("--out: '{}' is a link to nothing: {}", out.string(), error.message()));
        return std::nullopt;
      }
      out = target;
    }
  } else {
    // A new folder: the name made safe for a path, then -2, -3 ... if taken.
    std::string safe = stem;
    for (char& c : safe) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
    }
    const fs::path base = fs::path("faultline-results") / safe;
    out = base;
    constexpr int kMaxTries = 10'000;
    for (int n = 2;
         (fs::exists(out, error) || fs::exists(StagingFolderOf(out), error)) && n < kMaxTries;
         ++n) {
      out = base.string() + "-" + std::to_string(n);
    }
  }
  const fs::path staging = StagingFolderOf(out);
  // The folders this command makes (the staging folder and any missing
  // parent, such as faultline-results/), outermost last: Abandon removes
  // them if empty.
  std::vector<fs::path> made;
  constexpr int kMaxDepth = 256;
  for (fs::path missing = staging; !missing.empty() && !fs::exists(missing, error) &&
                                   made.size() < static_cast<std::size_t>(kMaxDepth);
       missing = missing.parent_path()) {
    made.push_back(missing);
  }
  const bool reopen = earlier == Earlier::kContinue && !fs::exists(staging, error) &&
                      fs::is_directory(out, error) && HoldsResults(out);
  int fd = -1;
  if (reopen) {
    // An interrupted command's results, completed and marked: back to
    // the staging folder, under the lock, to be continued and made again.
    fd = LockFolder(out);
    if (fd < 0) return std::nullopt;
    fs::rename(out, staging, error);
    if (error || !EmptyFolder(staging, /*results_only=*/true)) {
      close(fd);
      BadInput(fmt::format("--out: cannot reopen '{}': {}", out.string(), error.message()));
      return std::nullopt;
    }
    return ResultsFolder(out, staging, fd, {});
  }
  if (fs::exists(out, error)) {
    // Results are never mixed with, or written over, an earlier run's;
    // an empty folder (made for them) is replaced by them.
    if (const std::string why = CannotMoveInto(out); !why.empty()) {
      BadInput("--out: " + why);
      return std::nullopt;
    }
    if (!fs::is_directory(out, error)) {
      BadInput(fmt::format("--out: '{}' is not a folder", out.string()));
      return std::nullopt;
    }
    if (HoldsResults(out)) {
      BadInput(fmt::format("--out: '{}' already holds results; remove it or name another",
                           out.string()));
      return std::nullopt;
    }
    if (!IsEmptyFolder(out)) {
      BadInput(
          fmt::format("--out: '{}' holds files of its own; name a new or empty folder "
                      "(the results are written beside it and moved there whole)",
                      out.string()));
      return std::nullopt;
    }
  }
  fs::create_directories(staging, error);
  if (error) {
    BadInput(fmt::format("--out: cannot create '{}': {}", staging.string(), error.message()));
    return std::nullopt;
  }
  fd = LockFolder(staging);
  if (fd < 0) return std::nullopt;
  // Checked under the lock: a command that held it has ended, unfinished.
  if (!IsEmptyFolder(staging)) {
    if (!LeftByFaultline(staging)) {
      close(fd);
      BadInput(
          fmt::format("--out: '{}' holds files that are not faultline's; faultline writes "
                      "its results there before moving them to '{}': move it away",
                      staging.string(), out.string()));
      return std::nullopt;
    }
    // Continued, its results are made again from its journal; started
    // over, nothing of it stays.
    const bool continued = earlier == Earlier::kContinue;
    if (!continued) {
      Warn(
          fmt::format("{} held what an earlier command left unfinished; starting over (an "
                      "exploration's `faultline explore --resume {}` would have continued it)",
                      staging.string(), out.string()));
    }
    if (!EmptyFolder(staging, /*results_only=*/continued)) {
      close(fd);
      BadInput(fmt::format("--out: cannot empty '{}'", staging.string()));
      return std::nullopt;
    }
  }
  ResultsFolder folder(out, staging, fd, std::move(made));
  // Starting over, everything in the staging folder is this command's.
  if (earlier == Earlier::kStartOver) folder.Made(staging);
  return folder;
}

bool ResultsFolder::Complete() {
  FL_ASSERT(!complete_);
  std::error_code error;
  fs::rename(staging_, final_, error);
  if (error) {
    errno = error.value();
    return false;
  }
  complete_ = true;
  return true;
}

ResultsFolder::ResultsFolder(ResultsFolder&& other) noexcept
    : final_(std::move(other.final_)),
      staging_(std::move(other.staging_)),
      complete_(other.complete_),
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
  // Only if empty (fs::remove of a folder): never a user's files, nor
  // what an earlier command left to be continued.
  if (!complete_) fs::remove(staging_, ignored);
  for (const fs::path& folder : created_) fs::remove(folder, ignored);
  errno = saved;
}

}  // namespace faultline::app
