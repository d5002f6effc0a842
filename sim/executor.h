// Executor: the Asio executor of simulated code. It names a scheduler and an
// owner (process, incarnation, task); everything posted through it runs as
// that owner, so the owner's death discards it. It follows Asio's Networking
// TS executor model, which Boost 1.74's co_spawn, awaitable<T, Executor>,
// post, dispatch and bind_executor all accept.
#pragma once

#include <type_traits>
#include <utility>

#include "sim/asio.h"
#include "sim/scheduler.h"

namespace faultline::sim {

class Executor {
 public:
  Executor(Scheduler& scheduler, const Owner& owner) : scheduler_(&scheduler), owner_(owner) {}

  Scheduler& scheduler() const { return *scheduler_; }
  Simulation& simulation() const { return scheduler_->simulation(); }
  const Owner& owner() const { return owner_; }
  // The same process incarnation, another task.
  Executor WithTask(TaskId task) const {
    return Executor(*scheduler_, Owner{owner_.process, owner_.incarnation, task});
  }

  // Asio's executor requirements.
  asio::execution_context& context() const noexcept { return *scheduler_; }
  void on_work_started() const noexcept {}
  void on_work_finished() const noexcept {}

  // Runs `f` now when called from a job of this very owner, as Asio's
  // dispatch does on its own thread; otherwise queues it.
  template <typename F, typename Allocator>
  void dispatch(F&& f, const Allocator& allocator) const {
    if (scheduler_->InJobOf(owner_) && scheduler_->IsLive(owner_)) {
      std::decay_t<F> function(std::forward<F>(f));
      std::move(function)();
      return;
    }
    post(std::forward<F>(f), allocator);
  }

  template <typename F, typename Allocator>
  void post(F&& f, const Allocator&) const {
    scheduler_->Post(owner_, [function = std::decay_t<F>(std::forward<F>(f))](Wake) mutable {
      std::move(function)();
    });
  }

  template <typename F, typename Allocator>
  void defer(F&& f, const Allocator& allocator) const {
    post(std::forward<F>(f), allocator);
  }

  friend bool operator==(const Executor& a, const Executor& b) noexcept {
    return a.scheduler_ == b.scheduler_ && a.owner_ == b.owner_;
  }
  friend bool operator!=(const Executor& a, const Executor& b) noexcept { return !(a == b); }

 private:
  Scheduler* scheduler_;
  Owner owner_;
};

// Simulated code is written as coroutines returning Awaitable<T>.
template <typename T = void>
using Awaitable = asio::awaitable<T, Executor>;

// The completion token that makes a simulated async operation awaitable.
inline constexpr asio::use_awaitable_t<Executor> use_awaitable{};

// The executor a completion handler runs on. Operations of this kernel need
// it to know which process waits; bind plain callbacks with
// asio::bind_executor(executor, callback).
template <typename Handler>
Executor HandlerExecutor(const Handler& handler) {
  static_assert(std::is_same_v<asio::associated_executor_t<Handler>, Executor>,
                "bind the completion handler to a sim::Executor with asio::bind_executor");
  return asio::get_associated_executor(handler);
}

}  // namespace faultline::sim
