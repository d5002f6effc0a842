// Files and folders faultline writes, whole or absent: a file is written
// beside its target and renamed into place once complete; a results folder
// is held by one process at a time, and what a failed command began in it is
// removed. So a full disk, a crash or a second process never leaves a
// truncated trace, an empty summary or another run's groups behind.
#pragma once

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::app {

// Writes `text` to `path` whole or not at all; false (errno says why) when
// it could not, and then nothing is left at `path`'s place but what was
// there before.
bool WriteWhole(const std::filesystem::path& path, std::string_view text);

// A file written as a stream (a trace), which appears at its path only when
// Commit() says it is complete. Until then it is `path.partial-PID`, removed
// if the file is dropped uncommitted. A path that is not a regular file (a
// device such as /dev/full, a FIFO) is written in place; a symbolic link's
// target is staged beside the target.
class StagedFile {
 public:
  explicit StagedFile(std::filesystem::path path);
  ~StagedFile();
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;

  // Whether the staging file is open and every write so far succeeded.
  bool good() const { return static_cast<bool>(stream_); }
  std::ofstream& stream() { return stream_; }
  // Flushes and renames it into place; false (nothing at the path) when a
  // write failed.
  bool Commit();

 private:
  std::filesystem::path path_;
  std::filesystem::path staging_;
  std::ofstream stream_;
  bool committed_ = false;
};

// A results folder (`explore --out`, `merge --out`): created if missing,
// and locked (flock) for as long as this object lives, so a second command
// given the same folder is refused instead of mixing its results in.
class ResultsFolder {
 public:
  // The folder `flag` names, or a new one under faultline-results/ named
  // after `stem`; nullopt after saying why on standard error (exit 2):
  // it holds results already, another process holds it, or it cannot be
  // made.
  static std::optional<ResultsFolder> Open(const std::string& flag, const std::string& stem);
  ResultsFolder(ResultsFolder&& other) noexcept;
  ResultsFolder& operator=(ResultsFolder&&) = delete;
  ~ResultsFolder();

  const std::filesystem::path& path() const { return path_; }
  // Notes an entry this command made in it, for Abandon().
  void Made(const std::filesystem::path& entry) { made_.push_back(entry); }
  // Removes every entry Made() noted, and the folder and its parents if
  // this command made them (and they are empty): a failed command leaves
  // nothing.
  void Abandon();

 private:
  ResultsFolder(std::filesystem::path path, int lock_fd, std::vector<std::filesystem::path> created)
      : path_(std::move(path)), lock_fd_(lock_fd), created_(std::move(created)) {}
  std::filesystem::path path_;
  int lock_fd_ = -1;
  std::vector<std::filesystem::path> created_;  // Made by this command, innermost first.
  std::vector<std::filesystem::path> made_;
};

}  // namespace faultline::app
