// The journal of an exploration's runs, in its results folder (journal/):
// what it explores (explore.tsv, in groups.tsv's words), and for each
// batch of runs played, the runs that failed, appended as the batch ends
// by the process that played it (a file per process, so no two writers
// share one). A killed or interrupted exploration is continued from it
// (`explore --resume DIR`) to the result one that never stopped gives:
// its batches played are not played again, their failures count as found.
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "scenarios/core/limits.h"
#include "scenarios/explore/explore.h"
#include "scenarios/explore/shard_file.h"

namespace faultline::app {

inline constexpr const char* kJournalFolder = "journal";

// Starts the journal in `folder` with what it explores (`header`, its
// groups not written); false (errno says why) when it cannot.
bool StartJournal(const std::filesystem::path& folder, const scenarios::ShardFile& header);

// Appends a batch to the journal of `folder`, from whichever process
// calls it: the failed runs' lines, then "played FIRST RUNS", in one
// write, so a process killed mid-write leaves a torn last record that
// reading drops (that batch is played again). A write that fails is said
// once on standard error and the exploration goes on without it.
class JournalWriter {
 public:
  explicit JournalWriter(std::filesystem::path folder) : folder_(std::move(folder)) {}
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  ~JournalWriter();
  void Played(std::uint64_t first_run, std::size_t runs,
              const std::vector<scenarios::DrawnGroup>& failed);

 private:
  bool OpenForThisProcess();
  std::filesystem::path folder_;
  int fd_ = -1;
  long pid_ = -1;  // The process fd_ was opened by (workers are forked).
  bool failed_ = false;
};

struct Journal {
  scenarios::ShardFile header;     // What it explores; no groups.
  std::set<std::uint64_t> played;  // The batches played, by first run.
  int runs_done = 0;
  std::vector<scenarios::DrawnGroup> groups;  // Their failed runs, grouped.
};

// The journal in `folder`, each batch checked against the exploration
// (its runs, seeds and world seeds); what is wrong says "file:line: ...".
std::variant<Journal, std::string> ReadJournal(const std::filesystem::path& folder,
                                               const scenarios::InputLimits& limits);

}  // namespace faultline::app
