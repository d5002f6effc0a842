// explore's progress on standard error, for every phase and from every
// worker: the runs ("1500 of 2000 runs, 160 runs/s, 312 failed, about 3s
// left"), then the shrinking ("shrinking 3 of 12 drawn group(s), 41
// candidates tried"). Each worker writes its counts to a page shared with the parent
// (mapped before the fork), and the parent adds them up, so the counts are
// the whole exploration's and end where the report's begin: the runs
// played and the runs that failed. A line every two seconds at most, and
// a last one for a phase that printed any.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace faultline::app {

class ExploreProgress {
 public:
  static constexpr int kMaxWorkers = 64;
  // `shown`: print at all (not with --json). `runs_asked`: this shard's
  // runs; `runs_before`/`failed_before`: those a resumed one played before.
  ExploreProgress(bool shown, std::uint64_t runs_asked, int runs_before, int failed_before);
  ~ExploreProgress();
  ExploreProgress(const ExploreProgress&) = delete;
  ExploreProgress& operator=(const ExploreProgress&) = delete;

  // Worker `job`'s counts so far (the one process's is job 0), from the
  // process that plays the runs.
  void Played(int job, int runs, int failed);
  // Prints the runs' line if it is time (the parent, as it waits).
  void Tick();
  // The runs are over: their last line, if any was printed.
  void RunsEnded();
  // Shrinking group `group` (from 0) of `groups`, `tried` candidates so far.
  void Shrinking(std::size_t group, std::size_t groups, int tried);
  // The shrinking is over, the drawn groups now `groups` (those whose
  // repros have the same faults are one): its last line, if any was printed.
  void ShrinkingEnded(std::size_t groups);

 private:
  struct Counts {
    std::atomic<std::int64_t> runs;
    std::atomic<std::int64_t> failed;
  };
  bool Due();
  void PrintRuns();

  bool shown_;
  std::uint64_t runs_asked_;
  int runs_before_;
  int failed_before_;
  Counts* counts_ = nullptr;  // kMaxWorkers of them, shared across fork.
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_;
  bool printed_runs_ = false;
  bool printed_shrinking_ = false;
  std::size_t groups_ = 0;  // Drawn groups being shrunk.
};

}  // namespace faultline::app
