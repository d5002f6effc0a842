#include "app/explore_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>

#include <fmt/format.h>

#include "app/output_files.h"
#include "sim/assert.h"

namespace faultline::app {
namespace {

namespace fs = std::filesystem;
using scenarios::DrawnGroup;

constexpr const char* kHeaderFile = "explore.tsv";
constexpr int kMaxJournalFiles = 10'000;  // Processes that wrote one, attempts included.

std::string BatchRecord(std::uint64_t first_run, std::size_t runs,
                        const std::vector<DrawnGroup>& failed) {
  std::string record;
  for (const DrawnGroup& run : failed) record += scenarios::GroupLine(run);
  record += fmt::format("played\t{}\t{}\n", first_run, runs);
  return record;
}

// Whether batch `first` of `runs` runs, with these failed runs, is one of
// the exploration `header` describes; what is wrong otherwise.
std::string CheckBatch(const scenarios::ShardFile& header, std::uint64_t first, std::uint64_t runs,
                       const std::vector<DrawnGroup>& failed) {
  const auto total = static_cast<std::uint64_t>(header.runs);
  const auto size = static_cast<std::uint64_t>(header.batch);
  if (first >= total || first % size != 0 ||
      !scenarios::InShard(first, header.shard, header.batch) ||
      runs != std::min(size, total - first)) {
    return fmt::format("batch {} of {} run(s) is not one of this exploration's", first, runs);
  }
  for (const DrawnGroup& run : failed) {
    const std::uint64_t seed = header.seed + first;
    if (run.first_seed < seed || run.first_seed - seed >= runs || run.count != 1 ||
        run.world_seed != scenarios::WorldSeedOf(header.seed, first, header.batch)) {
      return fmt::format("the failed run of seed {} is not one of batch {}'s", run.first_seed,
                         first);
    }
  }
  return {};
}

std::optional<std::string> ReadText(const fs::path& path, const scenarios::InputLimits& limits) {
  std::error_code error;
  if (fs::file_size(path, error) > limits.results_file_bytes || error) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return std::nullopt;
  return text;
}

// One process's file: its whole records into `journal` (the batches in
// `parts`); lines after the last "played" are a torn record, dropped.
std::string ReadRecords(const fs::path& path, const std::string& text, Journal& journal,
                        std::vector<std::vector<DrawnGroup>>& parts) {
  std::vector<DrawnGroup> pending;
  std::size_t line_number = 0;
  std::size_t start = 0;
  std::string torn;  // The first line that did not parse, if no record follows it.
  while (start < text.size()) {
    ++line_number;
    FL_ASSERT(line_number <= text.size());  // Each line takes a byte at least.
    std::size_t end = text.find('\n', start);
    const bool whole = end != std::string::npos;
    if (!whole) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    start = end + 1;
    const std::string place = fmt::format("{}:{}", path.string(), line_number);
    if (!torn.empty()) return torn;  // A bad line with more after it: not a torn tail.
    if (!whole) break;               // The last line, cut short.
    if (line.starts_with("played\t")) {
      const std::size_t tab = line.find('\t', 7);
      const std::optional<std::uint64_t> first =
          tab == std::string_view::npos ? std::nullopt
                                        : ParseSeed(std::string(line.substr(7, tab - 7)));
      const std::optional<std::uint64_t> runs = tab == std::string_view::npos
                                                    ? std::nullopt
                                                    : ParseSeed(std::string(line.substr(tab + 1)));
      if (!first || !runs) {
        torn = place + ": a malformed played line";
        continue;
      }
      if (std::string problem = CheckBatch(journal.header, *first, *runs, pending);
          !problem.empty()) {
        return fmt::format("{}: {}", place, problem);
      }
      if (!journal.played.insert(*first).second) {
        return fmt::format("{}: batch {} is played twice", place, *first);
      }
      journal.runs_done += static_cast<int>(*runs);
      parts.push_back(std::move(pending));
      pending.clear();
    } else if (std::optional<DrawnGroup> run = scenarios::ParseGroupLine(line)) {
      pending.push_back(std::move(*run));
    } else {
      torn = place + ": a malformed line";
    }
  }
  return {};
}

}  // namespace

bool StartJournal(const fs::path& folder, const scenarios::ShardFile& header) {
  std::error_code error;
  fs::create_directories(folder / kJournalFolder, error);
  if (error) {
    errno = error.value();
    return false;
  }
  scenarios::ShardFile bare = header;
  bare.groups.clear();
  bare.runs_done = 0;
  return WriteWhole(folder / kJournalFolder / kHeaderFile, scenarios::ShardText(bare));
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) close(fd_);
}

bool JournalWriter::OpenForThisProcess() {
  const long pid = static_cast<long>(getpid());
  if (pid == pid_) return fd_ >= 0;
  if (fd_ >= 0) close(fd_);  // The parent's, inherited by a forked worker.
  fd_ = -1;
  pid_ = pid;
  // A file of its own (O_EXCL), never one an earlier attempt left torn.
  for (int n = 1; n <= kMaxJournalFiles && fd_ < 0; ++n) {
    const fs::path path = folder_ / kJournalFolder / fmt::format("runs-{}-{}.tsv", pid, n);
    fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  return fd_ >= 0;
}

void JournalWriter::Played(std::uint64_t first_run, std::size_t runs,
                           const std::vector<DrawnGroup>& failed) {
  if (failed_) return;
  const std::string record = BatchRecord(first_run, runs, failed);
  std::size_t written = 0;
  while (OpenForThisProcess() && written < record.size()) {
    const ssize_t n = write(fd_, record.data() + written, record.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  if (written == record.size()) return;
  failed_ = true;
  std::cerr << fmt::format(
      "faultline: explore: cannot write the journal in {} ({}); the exploration goes on, but "
      "--resume could not continue it from here\n",
      (folder_ / kJournalFolder).string(), std::strerror(errno));
}

std::variant<Journal, std::string> ReadJournal(const fs::path& folder,
                                               const scenarios::InputLimits& limits) {
  const fs::path dir = folder / kJournalFolder;
  Journal journal;
  {
    std::variant<scenarios::ShardFile, std::string> header =
        scenarios::ReadShardFile(dir / kHeaderFile, limits);
    if (auto* error = std::get_if<std::string>(&header)) return *error;
    journal.header = std::move(std::get<scenarios::ShardFile>(header));
  }
  std::vector<fs::path> files;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    if (it->path().filename().string().starts_with("runs-")) files.push_back(it->path());
    if (files.size() > static_cast<std::size_t>(kMaxJournalFiles)) {
      return fmt::format("{}: more than {} journal files", dir.string(), kMaxJournalFiles);
    }
  }
  if (error) return fmt::format("{}: cannot read it: {}", dir.string(), error.message());
  std::sort(files.begin(), files.end());  // Directory order is the file system's.
  std::vector<std::vector<DrawnGroup>> parts;
  for (const fs::path& file : files) {
    const std::optional<std::string> text = ReadText(file, limits);
    if (!text) {
      std::error_code error;
      return fs::file_size(file, error) > limits.results_file_bytes
                 ? fmt::format(
                       "{}: {}", file.string(),
                       scenarios::OverLimit(limits, &scenarios::InputLimits::results_file_bytes))
                 : file.string() + ": cannot read it";
    }
    if (std::string problem = ReadRecords(file, *text, journal, parts); !problem.empty()) {
      return problem;
    }
  }
  journal.groups = scenarios::MergeDrawnGroups(parts);
  return journal;
}

}  // namespace faultline::app
