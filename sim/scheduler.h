// The scheduler: the run queue, the timers and the parked waits of one
// simulation, and the only thing that moves virtual time.
//
// Every suspended continuation of simulated code is owned here, in one slot
// table: a job ready to run, a timer, or a parked wait (a waiter that something
// else will wake). The ready queue and the timer heap hold only handles to
// slots, so a continuation is moved once when it is stored and once when it
// runs. That is what makes a crash exact: killing a process removes every
// continuation it owns, so none of its code runs again, and destroying those
// continuations destroys its coroutine frames.
//
// Among ready jobs the scheduler picks one with the seed (kRandom) or the
// oldest (kFifo, for debugging). Timers due at the same instant become ready
// in the order they were set (a sequence number), never by address.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "sim/asio.h"
#include "sim/clock.h"
#include "sim/random.h"
#include "sim/timer_heap.h"
#include "sim/unique_function.h"

namespace faultline::sim {

class Simulation;

using ProcessId = std::uint32_t;
using TaskId = std::uint64_t;

// Who a continuation belongs to: a task of one incarnation of a process.
struct Owner {
  ProcessId process = 0;
  std::uint32_t incarnation = 0;
  TaskId task = 0;
  friend bool operator==(const Owner&, const Owner&) = default;
};

// How a timer or parked wait was completed.
enum class Wake : unsigned char { kFired, kCancelled };

using Continuation = UniqueFunction<void(Wake)>;

// Names a timer or parked wait. Stale handles (the wait completed, was
// cancelled or its owner died) are recognised and ignored.
struct WaitHandle {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
};

enum class SchedulingMode : unsigned char { kRandom, kFifo };

enum class StopReason : unsigned char {
  kQuiescent,       // No ready job and no timer: nothing can ever happen again
                    // (a run bounded by a time still moves the clock there).
  kStepBudgetUsed,  // max_steps jobs ran and more could run.
  kTimeReached,     // The next timer is due after `until`; the clock is at `until`.
  kPredicateMet,    // stop_when() returned true.
};

std::string_view StopReasonName(StopReason reason);

struct RunBudget {
  std::uint64_t max_steps = 100'000'000;
  std::optional<TimePoint> until;   // Fire no timer due after this.
  std::function<bool()> stop_when;  // Checked before every step.
};

struct RunResult {
  StopReason reason = StopReason::kQuiescent;
  std::uint64_t steps = 0;  // Jobs run by this call.
  TimePoint now{};
};

class Scheduler : public asio::execution_context {
 public:
  // Bound on continuations held at once (ready, timers and parked waits).
  static constexpr std::size_t kMaxHeld = std::size_t{1} << 24;
  static constexpr std::uint64_t kMaxReapOperations = std::uint64_t{1} << 26;
  static constexpr std::size_t kMaxCancelledTasks = std::size_t{1} << 22;
  // Cancelled and discarded timers leave stale heap entries behind until
  // their due time; past this many, and more stale than live, they are swept.
  static constexpr std::size_t kStaleTimersSweptAt = 4096;

  Scheduler(SchedulingMode mode, Rng rng, Simulation& simulation);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  Simulation& simulation() const { return simulation_; }
  SchedulingMode mode() const { return mode_; }
  TimePoint Now() const { return now_; }
  // Now() + duration, saturating at TimePoint::max() instead of overflowing.
  // REQUIRES: duration >= 0.
  TimePoint TimeAfter(Duration duration) const;
  // Jobs run since the simulation began.
  std::uint64_t steps() const { return steps_; }
  // The owner of the job now running, or the root owner between jobs.
  const Owner& current() const { return current_; }
  bool InJob() const { return in_job_; }
  bool InJobOf(const Owner& owner) const { return in_job_ && current_ == owner; }

  // Queues `job` to run as `owner`. A job for a dead owner is destroyed
  // instead, at the next safe point.
  void Post(const Owner& owner, Continuation job);
  // Runs `job` as `owner` at `due` (or now, if `due` has passed).
  WaitHandle ScheduleAt(TimePoint due, const Owner& owner, Continuation job);
  // Holds `job` until Wake() or Cancel() names it.
  WaitHandle Park(const Owner& owner, Continuation job);
  // Makes a timer or parked wait ready now, completing with Wake::kFired.
  // Returns false for a stale handle.
  bool Wake(WaitHandle handle) { return Complete(handle, sim::Wake::kFired); }
  // As Wake(), completing with Wake::kCancelled.
  bool Cancel(WaitHandle handle) { return Complete(handle, sim::Wake::kCancelled); }
  // Destroys a timer or parked wait without running it.
  void Discard(WaitHandle handle);
  // Whether the timer or parked wait is still waiting.
  bool IsPending(WaitHandle handle) const;

  // Process incarnations and tasks: the liveness the run queue enforces.
  TaskId NewTaskId() { return ++last_task_id_; }
  void BeginIncarnation(ProcessId process, std::uint32_t incarnation);
  // From now on no job of this incarnation runs, and its continuations are
  // destroyed: at once, or, for those of the task running now (whose frames
  // are on the stack), as soon as its job returns.
  void EndIncarnation(ProcessId process);
  // As EndIncarnation, for one task. The task stays dead until its
  // incarnation ends, whoever later posts to its executor.
  // REQUIRES: `task` names a task of the process's current incarnation.
  void CancelTask(const Owner& task);
  bool IsLive(const Owner& owner) const {
    if (owner.process >= live_incarnation_.size()) return false;
    if (live_incarnation_[owner.process] != owner.incarnation) return false;
    return cancelled_tasks_.empty() || !cancelled_tasks_.contains({owner.process, owner.task});
  }

  // Runs jobs until the budget says stop. REQUIRES: not called from a job.
  RunResult Run(const RunBudget& budget);

  // Destroys every remaining continuation; used when a simulation ends.
  void DestroyAll();

  std::size_t ready_count() const { return ready_.size() - ready_head_; }
  // Continuations held: ready, timers and parked waits.
  std::size_t held_count() const { return held_count_; }
  // Timer heap entries, stale ones included.
  std::size_t timer_entry_count() const { return timers_.size(); }
  // Ready handles stored, including those FIFO mode has already consumed.
  std::size_t ready_capacity() const { return ready_.size(); }

 private:
  enum class SlotState : unsigned char { kFree, kReady, kTimer, kParked };
  struct Slot {
    Owner owner;
    Continuation fn;
    std::uint32_t generation = 0;
    SlotState state = SlotState::kFree;
    sim::Wake wake = sim::Wake::kFired;  // Passed to fn when it runs.
    std::uint64_t timer_sequence = 0;    // Of the timer held, when kTimer.
  };
  // A timer's heap key: its sequence number (high 40 bits), so that timers
  // due together fire in the order they were set, and its slot (low 24 bits).
  static constexpr int kSlotBits = 24;
  static constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotBits) - 1;
  static constexpr std::uint64_t kMaxTimerSequence = std::uint64_t{1} << (64 - kSlotBits);
  static_assert(kMaxHeld <= kSlotMask + 1, "every slot index must fit a timer entry");
  static std::uint32_t SlotOf(const TimerEntry& entry) {
    return static_cast<std::uint32_t>(entry.key & kSlotMask);
  }
  static std::uint64_t SequenceOf(const TimerEntry& entry) { return entry.key >> kSlotBits; }
  // A continuation of the dead, waiting to be destroyed.
  struct Doomed {
    Owner owner;
    Continuation fn;
  };
  // What a reap destroys: one incarnation, or one task.
  struct Victim {
    std::optional<TaskId> task;
    ProcessId process = 0;
    std::uint32_t incarnation = 0;
    bool Matches(const Owner& owner) const;
  };

  bool Complete(WaitHandle handle, sim::Wake wake);
  // REQUIRES: owner is live.
  WaitHandle AllocateSlot(const Owner& owner, Continuation job, SlotState state);
  bool InState(WaitHandle handle, SlotState state) const;
  // Whether the heap entry still stands for a pending timer.
  bool IsLiveTimer(const TimerEntry& entry) const;
  void SweepStaleTimersIfMany() {
    if (timers_.size() - timer_count_ >= kStaleTimersSweptAt) SweepStaleTimers();
  }
  void SweepStaleTimers();
  void FreeSlot(std::uint32_t index);
  void MakeReady(WaitHandle handle, sim::Wake wake);
  WaitHandle TakeNextReady();
  void DropStaleReadyHandles();
  // The due time of the earliest pending timer, dropping stale entries.
  std::optional<TimePoint> NextTimerDue();
  // Moves the clock to `due` and makes every timer due then ready.
  void FireTimersDueAt(TimePoint due);
  void RunOneJob();
  // Whether destroying the continuation now could destroy frames that are on
  // the stack: those of the task whose job is running.
  bool MayBeOnTheStack(const Owner& owner) const {
    return in_job_ && owner.process == current_.process && owner.task == current_.task;
  }
  // Destroys what the dead left behind; cheap when there is nothing.
  void ReapDead() {
    if (!graveyard_.empty() || !victims_.empty()) ReapDeadSlow();
  }
  void ReapDeadSlow();
  void Bury(const Owner& owner, Continuation fn);
  void CollectVictim(const Victim& victim);
  void RequestReap(Victim victim);

  Simulation& simulation_;
  SchedulingMode mode_;
  Rng rng_;
  TimePoint now_{};
  std::uint64_t steps_ = 0;
  std::uint64_t timer_sequence_ = 0;
  TaskId last_task_id_ = 0;
  Owner current_{};
  bool in_job_ = false;
  bool in_run_ = false;
  bool reaping_ = false;

  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::size_t held_count_ = 0;
  std::size_t timer_count_ = 0;  // Slots in state kTimer.
  // Ready handles. FIFO mode takes from ready_head_; random mode takes any
  // and fills the hole with the last.
  std::vector<WaitHandle> ready_;
  std::size_t ready_head_ = 0;
  TimerHeap timers_;

  std::vector<std::uint32_t> live_incarnation_;  // By process id; 0 = not running.
  // Cancelled tasks, by process, until the process's incarnation ends.
  std::set<std::pair<ProcessId, TaskId>> cancelled_tasks_;
  std::deque<Victim> victims_;
  std::vector<Doomed> graveyard_;
  std::vector<Doomed> reap_waiting_doomed_;   // Scratch for ReapDeadSlow.
  std::vector<Victim> reap_waiting_victims_;  // Scratch for ReapDeadSlow.
};

}  // namespace faultline::sim
