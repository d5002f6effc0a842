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

// The folder a results flag names, as ResultsFolder::Open takes it: no
// trailing separator or last ".", so that FOLDER.partial is its sibling.
std::filesystem::path ResultsFolderNamed(const std::string& flag);

// A results folder (`explore --out`, `merge --out`), written whole: the
// command works in `FOLDER.partial` beside it, locked (flock) for as long
// as this object lives, and Complete() renames that into place. So a
// second command given the same folder is refused instead of mixing its
// results in, and a killed command leaves no half folder at FOLDER: a
// retried pod (Kubernetes reuses its index and its --out) starts clean,
// or continues what was there (`explore --resume`).
class ResultsFolder {
 public:
  // What Open does with a FOLDER.partial an earlier, killed command left.
  enum class Earlier {
    kStartOver,  // Removes it (and says so).
    // Works on in it; also reopens FOLDER when an interrupted command
    // completed it (its files are the caller's to replace).
    kContinue,
  };
  // The folder `flag` names, or a new one under faultline-results/ named
  // after `stem`; nullopt after saying why on standard error (exit 2):
  // it holds results already (kStartOver) or files of someone else's,
  // another process holds it, or it cannot be made.
  static std::optional<ResultsFolder> Open(const std::string& flag, const std::string& stem,
                                           Earlier earlier = Earlier::kStartOver);
  ResultsFolder(ResultsFolder&& other) noexcept;
  ResultsFolder& operator=(ResultsFolder&&) = delete;
  ~ResultsFolder();

  // Where to write: FOLDER.partial until Complete(), then FOLDER.
  const std::filesystem::path& path() const { return complete_ ? final_ : staging_; }
  const std::filesystem::path& final_path() const { return final_; }
  // Renames the staging folder into place; false (errno says why) when it
  // could not.
  bool Complete();
  // Notes an entry this command made in it, for Abandon().
  void Made(const std::filesystem::path& entry) { made_.push_back(entry); }
  // Removes every entry Made() noted, the staging folder if that leaves
  // it empty, and the folders this command made (if empty): a failed
  // command leaves nothing but what an earlier one left to continue.
  void Abandon();

 private:
  ResultsFolder(std::filesystem::path final_path, std::filesystem::path staging, int lock_fd,
                std::vector<std::filesystem::path> created)
      : final_(std::move(final_path)),
        staging_(std::move(staging)),
        lock_fd_(lock_fd),
        created_(std::move(created)) {}
  std::filesystem::path final_;
  std::filesystem::path staging_;
  bool complete_ = false;
  int lock_fd_ = -1;
  std::vector<std::filesystem::path> created_;  // Made by this command, innermost first.
  std::vector<std::filesystem::path> made_;
};

}  // namespace faultline::app
