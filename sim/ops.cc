#include "sim/ops.h"

#include <exception>

#include "sim/simulation.h"

namespace faultline::sim {

void Timer::AddPending(Scheduler& scheduler, WaitHandle wait) {
  FL_ASSERT(scheduler_ == nullptr || scheduler_ == &scheduler);
  scheduler_ = &scheduler;
  if (pending_.size() >= kMaxPendingWaits) {
    // Waits that completed leave stale handles; drop those first.
    std::erase_if(pending_, [&](const WaitHandle& h) { return !scheduler.IsPending(h); });
  }
  FL_ASSERT_MSG(pending_.size() < kMaxPendingWaits, "more than {} waits on one timer",
                kMaxPendingWaits);
  pending_.push_back(wait);
}

std::size_t Timer::Cancel() {
  std::size_t cancelled = 0;
  if (scheduler_ == nullptr) return cancelled;
  for (const WaitHandle& wait : pending_) cancelled += scheduler_->Cancel(wait) ? 1 : 0;
  pending_.clear();
  return cancelled;
}

namespace detail {

void PanicOnException::operator()(const std::exception_ptr& error) const {
  if (error) FL_PANIC("{} threw: {}", what, ExceptionMessage(error));
}

FaultDecision HitFaultPoint(const Executor& executor, std::string_view site) {
  return executor.simulation().HitFaultPoint(site, executor.owner());
}

void EndCallingProcess(const Executor& executor, bool killed, int code) {
  Process& process = executor.simulation().process(executor.owner().process);
  FL_ASSERT_MSG(process.id() != Simulation::kRootProcess, "the root process cannot end");
  process.EndFromInside(killed, code);
}

}  // namespace detail
}  // namespace faultline::sim
