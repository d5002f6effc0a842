#include "sim/scheduler.h"

#include <algorithm>

#include "sim/assert.h"

namespace faultline::sim {
namespace {

// std::push_heap builds a max-heap; this ordering makes it a min-heap on
// (due, sequence), so equal due times pop in the order they were set.
template <typename Entry>
bool LaterThan(const Entry& a, const Entry& b) {
  if (a.due != b.due) return a.due > b.due;
  return a.sequence > b.sequence;
}

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

void Scheduler::Post(const Owner& owner, Continuation job) {
  FL_ASSERT(job);
  if (!IsLive(owner)) {
    graveyard_.push_back(Job{owner, std::move(job)});
    return;
  }
  PushReady(Job{owner, std::move(job)});
}

void Scheduler::PushReady(Job job) {
  FL_ASSERT_MSG(ready_.size() < kMaxReadyJobs, "ready queue exceeded its bound of {} jobs",
                kMaxReadyJobs);
  ready_.push_back(std::move(job));
}

WaitHandle Scheduler::ScheduleAt(TimePoint due, const Owner& owner, Continuation job) {
  const WaitHandle handle = AllocateSlot(owner, std::move(job), SlotState::kTimer);
  timers_.push_back(TimerEntry{std::max(due, now_), ++timer_sequence_, handle});
  std::push_heap(timers_.begin(), timers_.end(), LaterThan<TimerEntry>);
  return handle;
}

WaitHandle Scheduler::Park(const Owner& owner, Continuation job) {
  return AllocateSlot(owner, std::move(job), SlotState::kParked);
}

WaitHandle Scheduler::AllocateSlot(const Owner& owner, Continuation job, SlotState state) {
  FL_ASSERT(job);
  FL_ASSERT(state != SlotState::kFree);
  FL_ASSERT_MSG(waiting_count_ < kMaxWaits, "more than {} timers and waits pending", kMaxWaits);
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
  ++waiting_count_;
  // A wait set by an owner that is already dead is reaped like any other.
  if (!IsLive(owner)) {
    graveyard_.push_back(Job{owner, std::move(slot.fn)});
    const WaitHandle stale{index, slot.generation};
    FreeSlot(index);
    return stale;
  }
  return WaitHandle{index, slot.generation};
}

Scheduler::Slot* Scheduler::LiveSlot(WaitHandle handle) {
  return IsPending(handle) ? &slots_[handle.slot] : nullptr;
}

bool Scheduler::IsPending(WaitHandle handle) const {
  if (handle.slot >= slots_.size()) return false;
  const Slot& slot = slots_[handle.slot];
  return slot.state != SlotState::kFree && slot.generation == handle.generation;
}

void Scheduler::FreeSlot(std::uint32_t index) {
  Slot& slot = slots_[index];
  FL_ASSERT(slot.state != SlotState::kFree);
  FL_ASSERT(!slot.fn);
  slot.state = SlotState::kFree;
  ++slot.generation;  // Makes every handle to this use of the slot stale.
  --waiting_count_;
  free_slots_.push_back(index);
}

bool Scheduler::Complete(WaitHandle handle, sim::Wake wake) {
  Slot* slot = LiveSlot(handle);
  if (slot == nullptr) return false;
  Job job{slot->owner, std::move(slot->fn), wake};
  FreeSlot(handle.slot);
  // The timer's heap entry, if any, is now stale and skipped when popped.
  PushReady(std::move(job));
  return true;
}

void Scheduler::Discard(WaitHandle handle) {
  Slot* slot = LiveSlot(handle);
  if (slot == nullptr) return;
  graveyard_.push_back(Job{slot->owner, std::move(slot->fn)});
  FreeSlot(handle.slot);
  if (!in_job_) ReapDead();
}

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
  // Ready jobs, keeping the survivors in order.
  std::deque<Job> survivors;
  for (Job& job : ready_) {
    if (victim.Matches(job.owner)) {
      graveyard_.push_back(std::move(job));
    } else {
      survivors.push_back(std::move(job));
    }
  }
  ready_.swap(survivors);
  // Timers and parked waits; stale heap entries are skipped when popped.
  for (std::uint32_t index = 0; index < slots_.size(); ++index) {
    Slot& slot = slots_[index];
    if (slot.state == SlotState::kFree || !victim.Matches(slot.owner)) continue;
    graveyard_.push_back(Job{slot.owner, std::move(slot.fn)});
    FreeSlot(index);
  }
}

void Scheduler::ReapDead() {
  if (reaping_) return;  // A destructor reached back here; the outer loop continues.
  reaping_ = true;
  std::uint64_t operations = 0;
  while (!graveyard_.empty() || !victims_.empty()) {
    FL_ASSERT_MSG(++operations < kMaxReapOperations, "reaping did not converge");
    if (!graveyard_.empty()) {
      // Destroying a continuation destroys coroutine frames; their destructors
      // may post or park more continuations of the dead, which land here too.
      Job job = std::move(graveyard_.back());
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

bool Scheduler::AdvanceToNextTimer(const std::optional<TimePoint>& until, StopReason* reason) {
  while (!timers_.empty() && LiveSlot(timers_.front().handle) == nullptr) {
    std::pop_heap(timers_.begin(), timers_.end(), LaterThan<TimerEntry>);
    timers_.pop_back();
  }
  if (timers_.empty()) {
    *reason = StopReason::kQuiescent;
    return false;
  }
  const TimePoint due = timers_.front().due;
  if (until && due > *until) {
    now_ = std::max(now_, *until);
    *reason = StopReason::kTimeReached;
    return false;
  }
  FL_ASSERT(due >= now_);
  now_ = due;
  while (!timers_.empty() && timers_.front().due == due) {
    const WaitHandle handle = timers_.front().handle;
    std::pop_heap(timers_.begin(), timers_.end(), LaterThan<TimerEntry>);
    timers_.pop_back();
    Slot* slot = LiveSlot(handle);
    if (slot == nullptr) continue;
    Job job{slot->owner, std::move(slot->fn), sim::Wake::kFired};
    FreeSlot(handle.slot);
    PushReady(std::move(job));
  }
  return true;
}

void Scheduler::RunOneJob() {
  FL_ASSERT(!ready_.empty());
  std::size_t index = 0;
  if (mode_ == SchedulingMode::kRandom && ready_.size() > 1) index = rng_.Uniform(ready_.size());
  Job job = std::move(ready_[index]);
  if (index == 0) {
    ready_.pop_front();
  } else {
    // Order among ready jobs carries no meaning in random mode: fill the hole
    // with the last job rather than shifting the rest.
    if (index + 1 != ready_.size()) ready_[index] = std::move(ready_.back());
    ready_.pop_back();
  }
  if (!IsLive(job.owner)) {
    graveyard_.push_back(std::move(job));
    return;
  }
  ++steps_;
  current_ = job.owner;
  in_job_ = true;
  job.fn(job.wake);
  in_job_ = false;
  current_ = Owner{};
}

RunResult Scheduler::Run(const RunBudget& budget) {
  FL_ASSERT_MSG(!in_run_ && !in_job_, "Scheduler::Run is not reentrant");
  in_run_ = true;
  RunResult result;
  for (;;) {
    ReapDead();
    if (budget.stop_when && budget.stop_when()) {
      result.reason = StopReason::kPredicateMet;
      break;
    }
    if (ready_.empty() && !AdvanceToNextTimer(budget.until, &result.reason)) break;
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
  while (!ready_.empty() || waiting_count_ > 0 || !graveyard_.empty() || !victims_.empty()) {
    FL_ASSERT_MSG(++passes < kMaxReapOperations, "teardown did not converge");
    for (Job& job : ready_) graveyard_.push_back(std::move(job));
    ready_.clear();
    for (std::uint32_t index = 0; index < slots_.size(); ++index) {
      Slot& slot = slots_[index];
      if (slot.state == SlotState::kFree) continue;
      graveyard_.push_back(Job{slot.owner, std::move(slot.fn)});
      FreeSlot(index);
    }
    ReapDead();
  }
  timers_.clear();
}

}  // namespace faultline::sim
