// The awaitable operations of simulated code: sleeping on virtual time,
// yielding, cancellable timers, timeouts around any awaitable, fault points,
// crashing and exiting. Each is an Asio asynchronous operation, so it takes a
// completion token: by default it is awaited (`co_await SleepFor(5ms)`), and
// a callback bound with asio::bind_executor(executor, ...) works too.
//
// None of them throws: failures come back as a Status.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "sim/assert.h"
#include "sim/executor.h"
#include "sim/fault.h"
#include "sim/process.h"
#include "sim/scheduler.h"
#include "sim/status.h"

namespace faultline::sim {

using DefaultToken = asio::use_awaitable_t<Executor>;

// Suspends the calling task for `duration` of virtual time, with any
// completion token; signature void(). REQUIRES: duration >= 0.
template <typename Token>
auto SleepFor(Duration duration, Token&& token) {
  return asio::async_initiate<Token, void()>(
      [duration](auto handler) {
        FL_ASSERT(duration >= Duration::zero());
        const Executor executor = HandlerExecutor(handler);
        Scheduler& scheduler = executor.scheduler();
        scheduler.ScheduleAt(scheduler.TimeAfter(duration), executor.owner(),
                             [handler = std::move(handler)](Wake) mutable { handler(); });
      },
      token);
}

#if FAULTLINE_ASIO_1_74_HOOKS
namespace detail {

// Resumes a coroutine thread that suspended on a SleepOperation, as Asio's own
// awaitable_handler does, but without the frame of an initiating coroutine.
// Destroyed without being called (its process died), it destroys the thread's
// frames like any Asio handler.
class ResumeThread : public asio::detail::awaitable_thread<Executor> {
 public:
  explicit ResumeThread(asio::detail::awaitable_thread<Executor>* thread)
      : asio::detail::awaitable_thread<Executor>(std::move(*thread)) {}
  void operator()() {
    this->top_of_stack_->attach_thread(this);
    this->pump();
  }
};

}  // namespace detail

// What SleepFor(duration) returns: `co_await` it in a simulated coroutine.
// Sleeping is the most frequent operation of every simulation, so it resumes
// the sleeper straight from its timer. Where an Awaitable<void> is needed,
// AsAwaitable() makes one.
class SleepOperation {
 public:
  explicit SleepOperation(Duration duration) : duration_(duration) {
    FL_ASSERT(duration >= Duration::zero());
  }
  Duration duration() const { return duration_; }

  Awaitable<void> AsAwaitable() const { return AsAwaitable(duration_); }

  // Called by Asio once the awaiting coroutine has suspended.
  asio::detail::awaitable_thread<Executor>* operator()(
      asio::detail::awaitable_frame_base<Executor>* frame) const {
    detail::ResumeThread resume(frame->detach_thread());
    const Executor executor = resume.get_executor();
    Scheduler& scheduler = executor.scheduler();
    scheduler.ScheduleAt(scheduler.TimeAfter(duration_), executor.owner(),
                         [resume = std::move(resume)](Wake) mutable { resume(); });
    return nullptr;
  }

 private:
  static Awaitable<void> AsAwaitable(Duration duration) {
    co_await SleepFor(duration, asio::use_awaitable_t<Executor>{});
  }

  Duration duration_;
};

// Suspends the calling task for `duration` of virtual time:
// `co_await SleepFor(5ms)`. REQUIRES: duration >= 0.
inline SleepOperation SleepFor(Duration duration) { return SleepOperation(duration); }
#else
// Suspends the calling task for `duration` of virtual time:
// `co_await SleepFor(5ms)`. REQUIRES: duration >= 0.
inline Awaitable<void> SleepFor(Duration duration) {
  return [](Duration d) -> Awaitable<void> {
    co_await SleepFor(d, asio::use_awaitable_t<Executor>{});
  }(duration);
}
#endif

// Suspends the calling task until virtual time `deadline` (at once, after a
// scheduling step, if it has passed). Signature void().
template <typename Token = DefaultToken>
auto SleepUntil(TimePoint deadline, Token&& token = {}) {
  return asio::async_initiate<Token, void()>(
      [deadline](auto handler) {
        const Executor executor = HandlerExecutor(handler);
        executor.scheduler().ScheduleAt(
            deadline, executor.owner(),
            [handler = std::move(handler)](Wake) mutable { handler(); });
      },
      token);
}

// Lets every other ready task be picked before the caller continues, in the
// scheduler's order, without moving time. Signature void().
template <typename Token = DefaultToken>
auto Yield(Token&& token = {}) {
  return asio::async_initiate<Token, void()>(
      [](auto handler) {
        const Executor executor = HandlerExecutor(handler);
        executor.scheduler().Post(executor.owner(),
                                  [handler = std::move(handler)](Wake) mutable { handler(); });
      },
      token);
}

// A cancellable timer. Each wait completes with Status::Ok() at its deadline,
// or with a Cancelled status if Cancel() comes first. Destroying the timer
// cancels its pending waits. REQUIRES: it does not outlive its simulation.
class Timer {
 public:
  static constexpr std::size_t kMaxPendingWaits = 4096;

  Timer() = default;
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  ~Timer() { Cancel(); }

  template <typename Token = DefaultToken>
  auto WaitUntil(TimePoint deadline, Token&& token = {}) {
    return asio::async_initiate<Token, void(Status)>(
        [this, deadline](auto handler) {
          const Executor executor = HandlerExecutor(handler);
          AddPending(
              executor.scheduler(),
              executor.scheduler().ScheduleAt(
                  deadline, executor.owner(), [handler = std::move(handler)](Wake wake) mutable {
                    handler(wake == Wake::kFired ? Status::Ok()
                                                 : Status::Cancelled("timer cancelled"));
                  }));
        },
        token);
  }

  template <typename Token = DefaultToken>
  auto WaitFor(Duration duration, Token&& token = {}) {
    FL_ASSERT(duration >= Duration::zero());
    return asio::async_initiate<Token, void(Status)>(
        [this, duration](auto handler) {
          const Executor executor = HandlerExecutor(handler);
          const TimePoint deadline = executor.scheduler().TimeAfter(duration);
          this->WaitUntil(deadline, std::move(handler));  // this->: clang 14 misses the use.
        },
        token);
  }

  // Completes every pending wait with a Cancelled status; returns how many.
  std::size_t Cancel();

 private:
  void AddPending(Scheduler& scheduler, WaitHandle wait);

  Scheduler* scheduler_ = nullptr;
  std::vector<WaitHandle> pending_;
};

namespace detail {

// Parks the calling task; it continues when the handle written to `*wait` is
// woken. Signature void().
template <typename Token = DefaultToken>
auto ParkInto(WaitHandle* wait, Token&& token = {}) {
  return asio::async_initiate<Token, void()>(
      [wait](auto handler) {
        const Executor executor = HandlerExecutor(handler);
        *wait = executor.scheduler().Park(
            executor.owner(), [handler = std::move(handler)](Wake) mutable { handler(); });
      },
      token);
}

// Cancels a task when the frame holding it ends, unless released: a timeout
// whose waiting task is itself cancelled takes its operation down with it.
class TaskCanceller {
 public:
  TaskCanceller(Scheduler& scheduler, const Owner& task) : scheduler_(&scheduler), task_(task) {}
  TaskCanceller(const TaskCanceller&) = delete;
  TaskCanceller& operator=(const TaskCanceller&) = delete;
  ~TaskCanceller() {
    if (scheduler_ != nullptr) scheduler_->CancelTask(task_);
  }
  void Release() { scheduler_ = nullptr; }

 private:
  Scheduler* scheduler_;
  Owner task_;
};

// Completion handler for internal tasks: an escaped exception is a bug.
struct PanicOnException {
  const char* what;
  void operator()(const std::exception_ptr& error) const;
};

template <typename T>
using TimeoutResult = std::conditional_t<std::is_void_v<T>, Status, Result<T>>;

template <typename T>
struct TimeoutRace {
  std::optional<std::conditional_t<std::is_void_v<T>, std::monostate, T>> value;
  WaitHandle waiter;  // The parked continuation of the task that set the timeout.
};

// Counts a fault point hit, records a fired fault in the trace, and ends the
// process for a crash. Returns the plan's decision.
FaultDecision HitFaultPoint(const Executor& executor, std::string_view site);
// Ends the calling process from inside one of its jobs.
void EndCallingProcess(const Executor& executor, bool killed, int code);

}  // namespace detail

// Runs `operation` as a task of its own and waits at most `timeout` of virtual
// time for it. Returns its result, or a TimedOut status, after which the
// operation's task is cancelled: its frames are destroyed and it runs no
// further. For Awaitable<void> the result is a Status.
template <typename T>
Awaitable<detail::TimeoutResult<T>> WithTimeout(Awaitable<T> operation, Duration timeout) {
  FL_ASSERT(timeout >= Duration::zero());
  const Executor parent = co_await asio::this_coro::executor;
  Scheduler& scheduler = parent.scheduler();
  auto race = std::make_shared<detail::TimeoutRace<T>>();
  const Executor child = parent.WithTask(scheduler.NewTaskId());
  detail::TaskCanceller cancel_child(scheduler, child.owner());
  asio::co_spawn(
      child,
      [race, &scheduler, operation = std::move(operation)]() mutable -> Awaitable<void> {
        if constexpr (std::is_void_v<T>) {
          co_await std::move(operation);
          race->value.emplace();
        } else {
          race->value.emplace(co_await std::move(operation));
        }
        scheduler.Wake(race->waiter);
      },
      detail::PanicOnException{"the operation under a timeout"});
  const WaitHandle timer =
      scheduler.ScheduleAt(scheduler.TimeAfter(timeout), parent.owner(),
                           [race, &scheduler](Wake) { scheduler.Wake(race->waiter); });
  co_await detail::ParkInto(&race->waiter);
  scheduler.Discard(timer);
  // When both finish in the same instant, the operation wins.
  if (race->value) {
    cancel_child.Release();
    if constexpr (std::is_void_v<T>) {
      co_return Status::Ok();
    } else {
      co_return std::move(*race->value);
    }
  }
  co_return Status::TimedOut(fmt::format("timed out after {}", FormatDuration(timeout)));
}

#if FAULTLINE_ASIO_1_74_HOOKS
// WithTimeout(SleepFor(d), timeout): a sleep under a timeout.
inline Awaitable<Status> WithTimeout(SleepOperation sleep, Duration timeout) {
  return WithTimeout(sleep.AsAwaitable(), timeout);
}
#endif

// Marks a fault site. The simulation's fault plan decides, per hit, whether
// to continue (Status::Ok()), fail (an error Status naming the site), delay,
// or crash the calling process, in which case nothing after this point runs.
// Signature void(Status). `site` must outlive the co_await expression.
template <typename Token = DefaultToken>
auto FaultPoint(std::string_view site, Token&& token = {}) {
  return asio::async_initiate<Token, void(Status)>(
      [site](auto handler) {
        const Executor executor = HandlerExecutor(handler);
        Scheduler& scheduler = executor.scheduler();
        const FaultDecision decision = detail::HitFaultPoint(executor, site);
        Status status =
            decision.action == FaultAction::kError
                ? Status::FromCode(decision.error, decision.message.empty()
                                                       ? fmt::format("injected fault at {}", site)
                                                       : decision.message)
                : Status::Ok();
        Continuation resume = [handler = std::move(handler), status = std::move(status)](
                                  Wake) mutable { handler(std::move(status)); };
        if (decision.action == FaultAction::kDelay) {
          scheduler.ScheduleAt(scheduler.TimeAfter(decision.delay), executor.owner(),
                               std::move(resume));
          return;
        }
        // After a crash the owner is dead and this continuation is destroyed
        // without running, which destroys the process's frames.
        scheduler.Post(executor.owner(), std::move(resume));
      },
      token);
}

namespace detail {

// The operation behind Crash() and Exit(): ends the calling process, then
// hands its continuation to the scheduler, which destroys it unrun because
// its owner is dead. Signature void() (it never completes).
template <typename Token>
auto EndCallingProcessOperation(bool killed, int code, Token&& token) {
  return asio::async_initiate<Token, void()>(
      [killed, code](auto handler) {
        const Executor executor = HandlerExecutor(handler);
        EndCallingProcess(executor, killed, code);
        executor.scheduler().Post(executor.owner(),
                                  [handler = std::move(handler)](Wake) mutable { handler(); });
      },
      token);
}

}  // namespace detail

// Crashes the calling process here, as a kill would: nothing after this point
// runs. Signature void() (it never completes).
template <typename Token = DefaultToken>
auto Crash(Token&& token = {}) {
  return detail::EndCallingProcessOperation(/*killed=*/true, kKilledExitCode,
                                            std::forward<Token>(token));
}

// Ends the calling process with exit code `code`, like os.Exit: nothing after
// this point runs. Signature void() (it never completes).
template <typename Token = DefaultToken>
auto Exit(int code, Token&& token = {}) {
  return detail::EndCallingProcessOperation(/*killed=*/false, code, std::forward<Token>(token));
}

}  // namespace faultline::sim
