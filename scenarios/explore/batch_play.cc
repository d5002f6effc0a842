#include "scenarios/explore/batch_play.h"

#include "sim/assert.h"

namespace faultline::scenarios {

bool BatchPlayChooser::Forks(std::size_t runs) {
  FL_ASSERT(runs >= 1);
  if (runs == 1 || asked_ == BatchPlay::kFromEmpty) return false;
  if (asked_ == BatchPlay::kForked) return true;
  const std::uint64_t batch = batches_++;
  // The first batch warms the process (its first run's page faults) and
  // is not timed; then each way is timed once, then the cheaper is played,
  // and now and then the other.
  if (batch == 0) return false;
  if (!forked_.seconds) return true;
  if (!from_empty_.seconds) return false;
  const bool forked_is_cheaper = *forked_.seconds <= *from_empty_.seconds;
  return batch % kRetimeEvery == kRetimeEvery - 1 ? !forked_is_cheaper : forked_is_cheaper;
}

void BatchPlayChooser::Played(bool forked, std::size_t runs,
                              std::chrono::steady_clock::duration took) {
  FL_ASSERT(runs >= 1);
  if (asked_ != BatchPlay::kAuto || runs == 1) return;
  if (!warmed_) {  // The warm-up batch (Forks).
    warmed_ = true;
    return;
  }
  (forked ? forked_ : from_empty_).Add(std::chrono::duration<double>(took).count(), runs);
}

void BatchPlayChooser::PerRun::Add(double batch_seconds, std::size_t runs) {
  FL_ASSERT(batch_seconds >= 0);
  const double per_run = batch_seconds / static_cast<double>(runs);
  // The newest batch weighs a quarter: a few batches follow a change, one
  // slow batch (a busy core) does not decide alone once a way has a few.
  constexpr double kNewest = 0.25;
  seconds = seconds ? (1 - kNewest) * *seconds + kNewest * per_run : per_run;
}

}  // namespace faultline::scenarios
