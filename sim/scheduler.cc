#include "sim/scheduler.h"

#include <algorithm>

#if FAULTLINE_ASIO_1_74_HOOKS
#include <boost/asio/detail/thread_context.hpp>
#include <boost/asio/detail/thread_info_base.hpp>
#endif

#include "sim/asio.h"
#include "sim/assert.h"

namespace faultline::sim {
namespace {

#if FAULTLINE_ASIO_1_74_HOOKS
// Asio allocates a coroutine frame for every awaited operation and recycles
// it through a per-thread cache that exists only while one of Asio's own run
// loops is on the stack. Opening that cache for our run loop, as io_context's
// does, saves an allocation per wake-up (see sim/asio.h).
class AsioFrameCacheScope {
 private:
  asio::detail::thread_info_base cache_;
  asio::detail::thread_context key_;
  asio::detail::thread_context::thread_call_stack::context context_{&key_, cache_};
};
#else
class AsioFrameCacheScope {};
#endif

}  // namespace

std::string_view StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kQuiescent:
      return "quiescent";
    case StopReason::kStepBudgetUsed:
      return "step budget used";
    case StopReason::kTimeReached:
      return "time reached";
    case StopReason::kPredicateMet:
      return "predicate met";
  }
  return "unknown";
}

bool Scheduler::Victim::Matches(const Owner& owner) const {
  if (task) return owner.task == *task;
  return owner.process == process && owner.incarnation == incarnation;
}

Scheduler::Scheduler(SchedulingMode mode, Rng rng, Simulation& simulation)
    : simulation_(simulation), mode_(mode), rng_(rng) {}

Scheduler::~Scheduler() { DestroyAll(); }

// --- Slots ------------------------------------------------------------------

WaitHandle Scheduler::AllocateSlot(const Owner& owner, Continuation job, SlotState state) {
  FL_ASSERT(job);
  FL_ASSERT(state != SlotState::kFree);
  FL_ASSERT_MSG(held_count_ < kMaxHeld, "more than {} continuations held at once", kMaxHeld);
  std::uint32_t index;
  if (free_slots_.empty()) {
    index = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    index = free_slots_.back();
    free_slots_.pop_back();
  }
  Slot& slot = slots_[index];
  FL_ASSERT(slot.state == SlotState::kFree);
  slot.owner = owner;
  slot.fn = std::move(job);
  slot.state = state;
  slot.wake = Wake::kFired;
  ++held_count_;
  return WaitHandle{index, slot.generation};
}

bool Scheduler::InState(WaitHandle handle, SlotState state) const {
  if (handle.slot >= slots_.size()) return false;
  const Slot& slot = slots_[handle.slot];
  return slot.state == state && slot.generation == handle.generation;
}

bool Scheduler::IsLiveTimer(const TimerEntry& entry) const {
  const Slot& slot = slots_[SlotOf(entry)];
  return slot.state == SlotState::kTimer && slot.timer_sequence == SequenceOf(entry);
}

void Scheduler::SweepStaleTimers() {
  FL_ASSERT(timers_.size() >= timer_count_);
  const std::size_t stale = timers_.size() - timer_count_;
  if (stale < kStaleTimersSweptAt || stale < timer_count_) return;
  timers_.RemoveIf([this](const TimerEntry& entry) { return !IsLiveTimer(entry); });
  FL_ASSERT(timers_.size() == timer_count_);
}

bool Scheduler::IsPending(WaitHandle handle) const {
  return InState(handle, SlotState::kTimer) || InState(handle, SlotState::kParked);
}

void Scheduler::FreeSlot(std::uint32_t index) {
  Slot& slot = slots_[index];
  FL_ASSERT(slot.state != SlotState::kFree);
  FL_ASSERT(!slot.fn);
  if (slot.state == SlotState::kTimer) --timer_count_;
  slot.state = SlotState::kFree;
  ++slot.generation;  // Makes every handle to this use of the slot stale.
  --held_count_;
  free_slots_.push_back(index);
}

// --- Queuing ----------------------------------------------------------------

void Scheduler::Post(const Owner& owner, Continuation job) {
  FL_ASSERT(job);
  if (!IsLive(owner)) {
    graveyard_.push_back(std::move(job));
    return;
  }
  ready_.push_back(AllocateSlot(owner, std::move(job), SlotState::kReady));
}

WaitHandle Scheduler::ScheduleAt(TimePoint due, const Owner& owner, Continuation job) {
  if (!IsLive(owner)) {
    graveyard_.push_back(std::move(job));
    return WaitHandle{};
  }
  SweepStaleTimers();
  const WaitHandle handle = AllocateSlot(owner, std::move(job), SlotState::kTimer);
  ++timer_count_;
  FL_ASSERT(++timer_sequence_ < kMaxTimerSequence);
  slots_[handle.slot].timer_sequence = timer_sequence_;
  timers_.Push(
      TimerEntry{ToNanoseconds(std::max(due, now_)), (timer_sequence_ << kSlotBits) | handle.slot});
  return handle;
}

WaitHandle Scheduler::Park(const Owner& owner, Continuation job) {
  if (!IsLive(owner)) {
    graveyard_.push_back(std::move(job));
    return WaitHandle{};
  }
  return AllocateSlot(owner, std::move(job), SlotState::kParked);
}

void Scheduler::MakeReady(WaitHandle handle, sim::Wake wake) {
  Slot& slot = slots_[handle.slot];
  if (slot.state == SlotState::kTimer) --timer_count_;
  slot.state = SlotState::kReady;
  slot.wake = wake;
  // A timer's heap entry, if any, is now stale and skipped when popped.
  ready_.push_back(handle);
}

bool Scheduler::Complete(WaitHandle handle, sim::Wake wake) {
  if (!IsPending(handle)) return false;
  MakeReady(handle, wake);
  return true;
}

void Scheduler::Discard(WaitHandle handle) {
  if (!IsPending(handle)) return;
  graveyard_.push_back(std::move(slots_[handle.slot].fn));
  FreeSlot(handle.slot);
  if (!in_job_) ReapDead();
}

// --- Liveness and reaping ---------------------------------------------------

void Scheduler::BeginIncarnation(ProcessId process, std::uint32_t incarnation) {
  FL_ASSERT(incarnation > 0);
  if (live_incarnation_.size() <= process) live_incarnation_.resize(process + 1, 0);
  FL_ASSERT_MSG(live_incarnation_[process] == 0, "process {} is already running", process);
  live_incarnation_[process] = incarnation;
}

void Scheduler::EndIncarnation(ProcessId process) {
  FL_ASSERT(process < live_incarnation_.size());
  const std::uint32_t incarnation = live_incarnation_[process];
  FL_ASSERT_MSG(incarnation != 0, "process {} is not running", process);
  live_incarnation_[process] = 0;
  RequestReap(Victim{std::nullopt, process, incarnation});
}

void Scheduler::CancelTask(TaskId task) {
  if (!cancelled_tasks_.insert(task).second) return;
  RequestReap(Victim{task});
}

void Scheduler::RequestReap(Victim victim) {
  victims_.push_back(victim);
  // Inside a job the victim may be the code that is running, whose frames are
  // on the stack: reap when the job returns. Outside, reap at once.
  if (!in_job_) ReapDead();
}

bool Scheduler::IsLive(const Owner& owner) const {
  if (owner.process >= live_incarnation_.size()) return false;
  if (live_incarnation_[owner.process] != owner.incarnation) return false;
  return cancelled_tasks_.empty() || !cancelled_tasks_.contains(owner.task);
}

void Scheduler::CollectVictim(const Victim& victim) {
  for (std::uint32_t index = 0; index < slots_.size(); ++index) {
    Slot& slot = slots_[index];
    if (slot.state == SlotState::kFree || !victim.Matches(slot.owner)) continue;
    graveyard_.push_back(std::move(slot.fn));
    FreeSlot(index);
  }
  DropStaleReadyHandles();
}

void Scheduler::DropStaleReadyHandles() {
  ready_.erase(ready_.begin(), ready_.begin() + static_cast<std::ptrdiff_t>(ready_head_));
  ready_head_ = 0;
  std::erase_if(ready_, [this](WaitHandle h) { return !InState(h, SlotState::kReady); });
}

void Scheduler::ReapDead() {
  if (graveyard_.empty() && victims_.empty()) return;
  if (reaping_) return;  // A destructor reached back here; the outer loop continues.
  reaping_ = true;
  std::uint64_t operations = 0;
  while (!graveyard_.empty() || !victims_.empty()) {
    FL_ASSERT_MSG(++operations < kMaxReapOperations, "reaping did not converge");
    if (!graveyard_.empty()) {
      // Destroying a continuation destroys coroutine frames; their destructors
      // may post or park more continuations of the dead, which land here too.
      Continuation doomed = std::move(graveyard_.back());
      graveyard_.pop_back();
      continue;
    }
    const Victim victim = victims_.front();
    victims_.pop_front();
    CollectVictim(victim);
  }
  cancelled_tasks_.clear();
  reaping_ = false;
}

// --- Running ----------------------------------------------------------------

bool Scheduler::AdvanceToNextTimer(const std::optional<TimePoint>& until, StopReason* reason) {
  while (!timers_.empty() && !IsLiveTimer(timers_.top())) timers_.Pop();
  if (timers_.empty()) {
    *reason = StopReason::kQuiescent;
    return false;
  }
  const TimePoint due{Duration(timers_.top().due_ns)};
  if (until && due > *until) {
    now_ = std::max(now_, *until);
    *reason = StopReason::kTimeReached;
    return false;
  }
  FL_ASSERT(due >= now_);
  now_ = due;
  while (!timers_.empty() && timers_.top().due_ns == ToNanoseconds(due)) {
    const TimerEntry entry = timers_.top();
    timers_.Pop();
    if (IsLiveTimer(entry)) {
      MakeReady(WaitHandle{SlotOf(entry), slots_[SlotOf(entry)].generation}, Wake::kFired);
    }
  }
  return true;
}

WaitHandle Scheduler::TakeNextReady() {
  FL_ASSERT(ready_head_ < ready_.size());
  if (mode_ == SchedulingMode::kFifo) {
    const WaitHandle handle = ready_[ready_head_++];
    if (ready_head_ == ready_.size()) {
      ready_.clear();
      ready_head_ = 0;
    }
    return handle;
  }
  // Order among ready jobs carries no meaning in random mode: fill the hole
  // with the last handle rather than shifting the rest.
  const std::size_t index = ready_head_ + rng_.Uniform(ready_.size() - ready_head_);
  const WaitHandle handle = ready_[index];
  ready_[index] = ready_.back();
  ready_.pop_back();
  return handle;
}

void Scheduler::RunOneJob() {
  const WaitHandle handle = TakeNextReady();
  FL_ASSERT(InState(handle, SlotState::kReady));
  Slot& slot = slots_[handle.slot];
  const Owner owner = slot.owner;
  const sim::Wake wake = slot.wake;
  Continuation job = std::move(slot.fn);
  FreeSlot(handle.slot);
  if (!IsLive(owner)) {
    graveyard_.push_back(std::move(job));
    return;
  }
  ++steps_;
  current_ = owner;
  in_job_ = true;
  job(wake);
  in_job_ = false;
  current_ = Owner{};
}

RunResult Scheduler::Run(const RunBudget& budget) {
  FL_ASSERT_MSG(!in_run_ && !in_job_, "Scheduler::Run is not reentrant");
  in_run_ = true;
  const AsioFrameCacheScope frame_cache;
  RunResult result;
  for (;;) {
    ReapDead();
    if (budget.stop_when && budget.stop_when()) {
      result.reason = StopReason::kPredicateMet;
      break;
    }
    if (ready_count() == 0 && !AdvanceToNextTimer(budget.until, &result.reason)) break;
    if (result.steps == budget.max_steps) {
      result.reason = StopReason::kStepBudgetUsed;
      break;
    }
    const std::uint64_t before = steps_;
    RunOneJob();
    result.steps += steps_ - before;
  }
  ReapDead();
  in_run_ = false;
  result.now = now_;
  return result;
}

void Scheduler::DestroyAll() {
  FL_ASSERT(!in_job_);
  std::uint64_t passes = 0;
  // Destroying one continuation can create others (frame destructors post),
  // so repeat until nothing is left.
  while (held_count_ > 0 || !graveyard_.empty() || !victims_.empty()) {
    FL_ASSERT_MSG(++passes < kMaxReapOperations, "teardown did not converge");
    for (std::uint32_t index = 0; index < slots_.size(); ++index) {
      Slot& slot = slots_[index];
      if (slot.state == SlotState::kFree) continue;
      graveyard_.push_back(std::move(slot.fn));
      FreeSlot(index);
    }
    ready_.clear();
    ready_head_ = 0;
    ReapDead();
  }
  timers_.Clear();
}

}  // namespace faultline::sim
