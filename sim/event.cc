#include "sim/event.h"

namespace faultline::sim {

void Event::Set() {
  set_ = true;
  if (scheduler_ == nullptr) return;
  std::vector<WaitHandle> waiters;
  waiters.swap(waiters_);
  for (const WaitHandle& waiter : waiters) scheduler_->Wake(waiter);
}

void Event::AddWaiter(Scheduler& scheduler, WaitHandle waiter) {
  FL_ASSERT(scheduler_ == nullptr || scheduler_ == &scheduler);
  scheduler_ = &scheduler;
  if (waiters_.size() >= kMaxWaiters) {
    // Waiters whose processes died leave stale handles; drop those first.
    std::erase_if(waiters_, [&](const WaitHandle& h) { return !scheduler.IsPending(h); });
  }
  FL_ASSERT_MSG(waiters_.size() < kMaxWaiters, "more than {} tasks wait on one event", kMaxWaiters);
  waiters_.push_back(waiter);
}

}  // namespace faultline::sim
