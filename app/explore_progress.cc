#include "app/explore_progress.h"

#include <sys/mman.h>

#include <iostream>

#include <fmt/format.h>

#include "sim/assert.h"

namespace faultline::app {
namespace {

constexpr auto kEvery = std::chrono::seconds(2);

}  // namespace

ExploreProgress::ExploreProgress(bool shown, std::uint64_t runs_asked, int runs_before,
                                 int failed_before)
    : shown_(shown),
      runs_asked_(runs_asked),
      runs_before_(runs_before),
      failed_before_(failed_before),
      started_(std::chrono::steady_clock::now()),
      last_(started_) {
  static_assert(std::atomic<std::int64_t>::is_always_lock_free, "shared across processes");
  void* page = mmap(nullptr, sizeof(Counts) * kMaxWorkers, PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  // Without the page (no memory), progress is only not shown.
  if (page == MAP_FAILED) {
    shown_ = false;
    return;
  }
  counts_ = static_cast<Counts*>(page);  // Zeroed by mmap.
}

ExploreProgress::~ExploreProgress() {
  if (counts_ != nullptr) munmap(counts_, sizeof(Counts) * kMaxWorkers);
}

void ExploreProgress::Played(int job, int runs, int failed) {
  FL_ASSERT(job >= 0 && job < kMaxWorkers);
  if (counts_ == nullptr) return;
  counts_[job].runs.store(runs, std::memory_order_relaxed);
  counts_[job].failed.store(failed, std::memory_order_relaxed);
}

bool ExploreProgress::Due() {
  const auto now = std::chrono::steady_clock::now();
  if (!shown_ || now - last_ < kEvery) return false;
  last_ = now;
  return true;
}

void ExploreProgress::PrintRuns() {
  std::int64_t runs = 0;
  std::int64_t failed = 0;
  for (int job = 0; job < kMaxWorkers; ++job) {
    runs += counts_[job].runs.load(std::memory_order_relaxed);
    failed += counts_[job].failed.load(std::memory_order_relaxed);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const double rate = seconds > 0 ? static_cast<double>(runs) / seconds : 0.0;
  const double left =
      rate > 0
          ? (static_cast<double>(runs_asked_) - runs_before_ - static_cast<double>(runs)) / rate
          : 0.0;
  std::cerr << fmt::format("{} of {} runs, {:.0f} runs/s, {} failed, about {:.0f}s left\n",
                           runs_before_ + runs, runs_asked_, rate, failed_before_ + failed,
                           left > 0 ? left : 0.0);
  printed_runs_ = true;
}

void ExploreProgress::Tick() {
  if (Due()) PrintRuns();
}

void ExploreProgress::RunsEnded() {
  if (shown_ && printed_runs_) PrintRuns();
  last_ = std::chrono::steady_clock::now();
}

void ExploreProgress::Shrinking(std::size_t group, std::size_t groups, int tried) {
  groups_ = groups;
  if (!Due()) return;
  std::cerr << fmt::format("shrinking {} of {} drawn group(s), {} candidates tried\n", group + 1,
                           groups, tried);
  printed_shrinking_ = true;
}

void ExploreProgress::ShrinkingEnded(std::size_t groups) {
  if (shown_ && printed_shrinking_) {
    std::cerr << fmt::format("shrunk {} drawn group(s) into {}\n", groups_, groups);
  }
}

}  // namespace faultline::app
