#include "sim/scheduler.h"

#include <algorithm>

#if defined(__SANITIZE_ADDRESS__)
#define FAULTLINE_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FAULTLINE_UNDER_ASAN 1
#endif
#endif
// Under ASan the frame cache stays closed: a recycled frame would turn a
// dangling frame access into a silent read of a live one.
#if FAULTLINE_ASIO_1_74_HOOKS && !defined(FAULTLINE_UNDER_ASAN)
#define FAULTLINE_RECYCLE_FRAMES 1
#include <boost/asio/detail/thread_context.hpp>
#include <boost/asio/detail/thread_info_base.hpp>
#endif

#include "sim/asio.h"
#include "sim/assert.h"

namespace faultline::sim {
namespace {

#if FAULTLINE_RECYCLE_FRAMES
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

TimePoint Scheduler::TimeAfter(Duration duration) const {
  FL_ASSERT(duration >= Duration::zero());
  if (duration > TimePoint::max() - now_) return TimePoint::max();
  return now_ + duration;
}

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
  if (stale < timer_count_) return;  // Mostly live: sweeping would not pay.
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
  // A slot whose generation would wrap is retired, so that an old handle can
  // never name a new use of it.
  if (slot.generation != UINT32_MAX) free_slots_.push_back(index);
}

// --- Queuing ----------------------------------------------------------------

void Scheduler::Post(const Owner& owner, Continuation job) {
  FL_ASSERT(job);
  if (!IsLive(owner)) {
    Bury(owner, std::move(job));
    return;
  }
  ready_.push_back(AllocateSlot(owner, std::move(job), SlotState::kReady));
}

WaitHandle Scheduler::ScheduleAt(TimePoint due, const Owner& owner, Continuation job) {
  if (!IsLive(owner)) {
    Bury(owner, std::move(job));
    return WaitHandle{};
  }
  SweepStaleTimersIfMany();
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
    Bury(owner, std::move(job));
    return WaitHandle{};
  }
  return AllocateSlot(owner, std::move(job), SlotState::kParked);
}

inline void Scheduler::MakeReady(WaitHandle handle, sim::Wake wake) {
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
  Slot& slot = slots_[handle.slot];
  Bury(slot.owner, std::move(slot.fn));
  FreeSlot(handle.slot);
  // Inside a job the run loop reaps when the job returns.
  if (!in_job_) ReapDead();
}

void Scheduler::Bury(const Owner& owner, Continuation fn) {
  graveyard_.push_back(Doomed{owner, std::move(fn)});
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
  // The incarnation's cancelled tasks die with it; forget them.
  cancelled_tasks_.erase(cancelled_tasks_.lower_bound({process, 0}),
                         cancelled_tasks_.lower_bound({process + 1, 0}));
  RequestReap(Victim{std::nullopt, process, incarnation});
}

void Scheduler::CancelTask(const Owner& task) {
  if (!IsLive(task)) return;  // Already dead, with its incarnation or alone.
  FL_ASSERT_MSG(cancelled_tasks_.size() < kMaxCancelledTasks, "more than {} tasks cancelled",
                kMaxCancelledTasks);
  cancelled_tasks_.insert({task.process, task.task});
  RequestReap(Victim{task.task, task.process, task.incarnation});
}

void Scheduler::RequestReap(Victim victim) {
  victims_.push_back(victim);
  ReapDead();
}

void Scheduler::CollectVictim(const Victim& victim) {
  for (std::uint32_t index = 0; index < slots_.size(); ++index) {
    Slot& slot = slots_[index];
    if (slot.state == SlotState::kFree || !victim.Matches(slot.owner)) continue;
    Bury(slot.owner, std::move(slot.fn));
    FreeSlot(index);
  }
  DropStaleReadyHandles();
}

void Scheduler::DropStaleReadyHandles() {
  ready_.erase(ready_.begin(), ready_.begin() + static_cast<std::ptrdiff_t>(ready_head_));
  ready_head_ = 0;
  std::erase_if(ready_, [this](WaitHandle h) { return !InState(h, SlotState::kReady); });
}

void Scheduler::ReapDeadSlow() {
  if (reaping_) return;  // A destructor reached back here; the outer loop continues.
  reaping_ = true;
  // What may be on the stack waits in reap_waiting_* for the running job to
  // return. (Members, not locals: this runs on every discarded timer, and a
  // fresh std::deque allocates.)
  std::uint64_t operations = 0;
  while (!graveyard_.empty() || !victims_.empty()) {
    FL_ASSERT_MSG(++operations < kMaxReapOperations, "reaping did not converge");
    if (!graveyard_.empty()) {
      // Destroying a continuation destroys coroutine frames; their destructors
      // may post or park more continuations of the dead, which land here too.
      Doomed doomed = std::move(graveyard_.back());
      graveyard_.pop_back();
      if (MayBeOnTheStack(doomed.owner)) reap_waiting_doomed_.push_back(std::move(doomed));
      continue;
    }
    const Victim victim = victims_.front();
    victims_.pop_front();
    if (in_job_ && victim.Matches(current_)) {
      reap_waiting_victims_.push_back(victim);
    } else {
      CollectVictim(victim);
    }
  }
  graveyard_.swap(reap_waiting_doomed_);
  for (const Victim& victim : reap_waiting_victims_) victims_.push_back(victim);
  reap_waiting_victims_.clear();
  reaping_ = false;
}

// --- Running ----------------------------------------------------------------

std::optional<TimePoint> Scheduler::NextTimerDue() {
  while (!timers_.empty() && !IsLiveTimer(timers_.top())) timers_.Pop();
  if (timers_.empty()) return std::nullopt;
  return TimePoint(Duration(timers_.top().due_ns));
}

void Scheduler::FireTimersDueAt(TimePoint due) {
  FL_ASSERT(due >= now_);
  now_ = due;
  while (!timers_.empty() && timers_.top().due_ns == ToNanoseconds(due)) {
    const TimerEntry entry = timers_.top();
    timers_.Pop();
    if (IsLiveTimer(entry)) {
      MakeReady(WaitHandle{SlotOf(entry), slots_[SlotOf(entry)].generation}, Wake::kFired);
    }
  }
  FL_ASSERT(ready_count() > 0);
}

WaitHandle Scheduler::TakeNextReady() {
  FL_ASSERT(ready_head_ < ready_.size());
  if (mode_ == SchedulingMode::kFifo) {
    const WaitHandle handle = ready_[ready_head_++];
    // Drop the consumed prefix once it is most of the storage, so that a queue
    // that never empties does not grow.
    if (ready_head_ == ready_.size()) {
      ready_.clear();
      ready_head_ = 0;
    } else if (ready_head_ >= 1024 && 2 * ready_head_ >= ready_.size()) {
      ready_.erase(ready_.begin(), ready_.begin() + static_cast<std::ptrdiff_t>(ready_head_));
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
    Bury(owner, std::move(job));
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
  [[maybe_unused]] const AsioFrameCacheScope frame_cache;
  RunResult result;
  for (;;) {
    ReapDead();
    if (budget.stop_when && budget.stop_when()) {
      result.reason = StopReason::kPredicateMet;
      break;
    }
    std::optional<TimePoint> next_due;
    if (ready_count() == 0) {
      next_due = NextTimerDue();
      if (!next_due) {
        // Nothing will ever happen again, but time still passes to `until`.
        if (budget.until) now_ = std::max(now_, *budget.until);
        result.reason = StopReason::kQuiescent;
        break;
      }
      if (budget.until && *next_due > *budget.until) {
        now_ = std::max(now_, *budget.until);
        result.reason = StopReason::kTimeReached;
        break;
      }
    }
    // Checked before firing timers, so that a run out of steps leaves the
    // clock where its last job ran.
    if (result.steps == budget.max_steps) {
      result.reason = StopReason::kStepBudgetUsed;
      break;
    }
    if (next_due) FireTimersDueAt(*next_due);
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
      Bury(slot.owner, std::move(slot.fn));
      FreeSlot(index);
    }
    ready_.clear();
    ready_head_ = 0;
    ReapDead();
  }
  timers_.Clear();
}

}  // namespace faultline::sim
