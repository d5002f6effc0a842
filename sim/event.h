// Event: a flag that simulated tasks can wait for. Set() wakes every waiter;
// a waiter that arrives while the flag is set continues at once (after a
// scheduling step). The waiters are parked in the scheduler, so a waiter whose
// process dies simply disappears. REQUIRES: it does not outlive its simulation.
#pragma once

#include <vector>

#include "sim/assert.h"
#include "sim/executor.h"

namespace faultline::sim {

class Event {
 public:
  static constexpr std::size_t kMaxWaiters = std::size_t{1} << 20;

  bool is_set() const { return set_; }
  void Set();
  void Reset() { set_ = false; }

  // Completes with signature void() once the event is set.
  template <typename Token = asio::use_awaitable_t<Executor>>
  auto Wait(Token&& token = {}) {
    return asio::async_initiate<Token, void()>(
        [this](auto handler) {
          const Executor executor = HandlerExecutor(handler);
          Continuation resume = [handler = std::move(handler)](sim::Wake) mutable { handler(); };
          if (set_) {
            executor.scheduler().Post(executor.owner(), std::move(resume));
            return;
          }
          AddWaiter(executor.scheduler(),
                    executor.scheduler().Park(executor.owner(), std::move(resume)));
        },
        token);
  }

 private:
  void AddWaiter(Scheduler& scheduler, WaitHandle waiter);

  Scheduler* scheduler_ = nullptr;
  bool set_ = false;
  std::vector<WaitHandle> waiters_;
};

}  // namespace faultline::sim
