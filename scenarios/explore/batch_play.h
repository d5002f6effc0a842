// How explore plays a batch of runs that share a world seed: each run
// forked where it parts from the batch's workload run (harness/variants.h),
// or each from an empty world. Both give the same results (explore_test.cc
// holds them to it); which is faster depends on the machine. A fork saves
// the run's past, but costs its copy-on-write page faults, the parent's
// faults on the pages it writes after, and the exit: measured on the
// project's 2-core VM under PVM (2026-12-04, `explore dirty-migration-fixed
// --runs 1000 --jobs 1`), a fault cost about 12 us and a forked run about
// 8 ms more than its share of the work, more than a whole run from empty
// (7 ms): forked 77 runs/s, from empty 125. Under nested paging the same
// day before (2026-12-03), forked was 1.48x the faster.
//
// BatchPlayChooser, in kAuto, times both ways on the batches as they are
// played (after a first batch that warms the process, untimed) and plays
// each batch the way that has cost less per run, playing the other now and
// then to follow a machine whose costs change. Wall time
// chooses only how a batch is played, never what it finds.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace faultline::scenarios {

enum class BatchPlay {
  kAuto,       // Whichever has cost less per run so far (the default).
  kForked,     // Each run forked where it parts from the batch (--fork-runs).
  kFromEmpty,  // Each run from an empty world (--replay-from-empty).
};

class BatchPlayChooser {
 public:
  // In kAuto: every this many batches, one is played the way not chosen.
  static constexpr std::uint64_t kRetimeEvery = 16;

  explicit BatchPlayChooser(BatchPlay asked) : asked_(asked) {}

  // Whether the next batch, of `runs` runs, is forked (a batch of one is
  // its own workload run: played from empty).
  bool Forks(std::size_t runs);
  // A batch of `runs` runs was played (forked or not) in `took`.
  void Played(bool forked, std::size_t runs, std::chrono::steady_clock::duration took);

 private:
  struct PerRun {
    std::optional<double> seconds;  // A moving average: recent batches count most.
    void Add(double batch_seconds, std::size_t runs);
  };
  BatchPlay asked_;
  PerRun forked_;
  PerRun from_empty_;
  std::uint64_t batches_ = 0;  // Of more than one run, in kAuto.
  bool warmed_ = false;        // The first of them played (not timed).
};

}  // namespace faultline::scenarios
