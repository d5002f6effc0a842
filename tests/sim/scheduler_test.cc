#include "sim/scheduler.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/sim.h"

namespace faultline::sim {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

// Spawns `count` root tasks that each append their index to `order`.
void SpawnRecorders(Simulation& sim, int count, std::vector<int>& order) {
  for (int i = 0; i < count; ++i) {
    sim.Spawn("recorder", [i, &order]() -> Awaitable<void> {
      order.push_back(i);
      co_return;
    });
  }
}

TEST(SchedulerTest, ClockOnlyMovesWhenJumpingToTheNextTimer) {
  Simulation sim;
  std::vector<TimePoint> seen;
  sim.Spawn("sleeper", [&]() -> Awaitable<void> {
    seen.push_back(sim.Now());
    co_await Yield();
    seen.push_back(sim.Now());
    co_await SleepFor(milliseconds(5));
    seen.push_back(sim.Now());
    co_await SleepFor(nanoseconds(1));
    seen.push_back(sim.Now());
  });
  EXPECT_EQ(sim.Now(), kTimeZero);
  const RunResult result = sim.RunUntilIdle();
  EXPECT_EQ(result.reason, StopReason::kQuiescent);
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0], kTimeZero);
  EXPECT_EQ(seen[1], kTimeZero);
  EXPECT_EQ(seen[2], kTimeZero + milliseconds(5));
  EXPECT_EQ(seen[3], kTimeZero + milliseconds(5) + nanoseconds(1));
  EXPECT_EQ(result.now, seen[3]);
}

TEST(SchedulerTest, FifoModeRunsReadyJobsInOrder) {
  Simulation sim({.seed = 99, .scheduling = SchedulingMode::kFifo});
  std::vector<int> order;
  SpawnRecorders(sim, 10, order);
  sim.RunUntilIdle();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(SchedulerTest, RandomModePicksBySeed) {
  std::set<std::vector<int>> orders;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Simulation sim({.seed = seed});
    std::vector<int> order;
    SpawnRecorders(sim, 10, order);
    sim.RunUntilIdle();
    ASSERT_EQ(order.size(), 10u);
    orders.insert(order);
  }
  EXPECT_GT(orders.size(), 10u);
  // ...and the same seed picks the same way.
  auto run = [](std::uint64_t seed) {
    Simulation sim({.seed = seed});
    std::vector<int> order;
    SpawnRecorders(sim, 10, order);
    sim.RunUntilIdle();
    return order;
  };
  EXPECT_EQ(run(5), run(5));
}

TEST(SchedulerTest, TimersDueTogetherFireInTheOrderTheyWereSet) {
  Simulation sim({.scheduling = SchedulingMode::kFifo});
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) {
    sim.Spawn("timer", [i, &order]() -> Awaitable<void> {
      co_await SleepFor(milliseconds(10));
      order.push_back(i);
    });
  }
  sim.RunUntilIdle();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(SchedulerTest, QuiescenceIsReportedApartFromAnExhaustedBudget) {
  Simulation sim;
  sim.Spawn("spinner", []() -> Awaitable<void> {
    for (int i = 0; i < 1000; ++i) co_await Yield();
  });
  const RunResult partial = sim.RunSteps(10);
  EXPECT_EQ(partial.reason, StopReason::kStepBudgetUsed);
  EXPECT_EQ(partial.steps, 10u);
  const RunResult rest = sim.RunUntilIdle();
  EXPECT_EQ(rest.reason, StopReason::kQuiescent);
  EXPECT_GT(rest.steps, 900u);
}

TEST(SchedulerTest, RunUntilStopsBeforeLaterTimersAndSetsTheClock) {
  Simulation sim;
  int fired = 0;
  sim.Spawn("ticker", [&]() -> Awaitable<void> {
    for (int i = 0; i < 10; ++i) {
      co_await SleepFor(milliseconds(10));
      ++fired;
    }
  });
  const RunResult result = sim.RunUntil(kTimeZero + milliseconds(35));
  EXPECT_EQ(result.reason, StopReason::kTimeReached);
  EXPECT_EQ(fired, 3);
  EXPECT_EQ(sim.Now(), kTimeZero + milliseconds(35));
  EXPECT_EQ(sim.RunFor(milliseconds(5)).reason, StopReason::kTimeReached);
  EXPECT_EQ(fired, 4);  // The timer due at exactly 40 ms fires.
}

TEST(SchedulerTest, AStepBudgetNeverMovesTheClockPastTheLastStep) {
  Simulation sim;
  sim.RunUntilIdle();  // The root's main task parks.
  std::vector<int> fired;
  for (int s : {1, 2}) {
    sim.Spawn("timer", [&fired, s]() -> Awaitable<void> {
      co_await SleepFor(std::chrono::seconds(s));
      fired.push_back(s);
    });
  }
  sim.RunSteps(2);  // Both tasks start and set their timers.
  EXPECT_EQ(sim.RunSteps(1).reason, StopReason::kStepBudgetUsed);
  EXPECT_EQ(fired, std::vector<int>{1});
  EXPECT_EQ(sim.Now(), kTimeZero + std::chrono::seconds(1));
  // So a later time-bounded run does not fire the 2 s timer early.
  EXPECT_EQ(sim.RunUntil(kTimeZero + milliseconds(1500)).reason, StopReason::kTimeReached);
  EXPECT_EQ(fired, std::vector<int>{1});
}

TEST(SchedulerTest, FifoQueueDoesNotGrowWhileJobsKeepComing) {
  Simulation sim({.scheduling = SchedulingMode::kFifo});
  for (int t = 0; t < 2; ++t) {
    sim.Spawn("yielder", []() -> Awaitable<void> {
      for (int i = 0; i < 200'000; ++i) co_await Yield();
    });
  }
  std::size_t most = 0;
  while (sim.RunSteps(10'000).reason == StopReason::kStepBudgetUsed) {
    most = std::max(most, sim.scheduler().ready_capacity());
  }
  EXPECT_LT(most, 10'000u);
}

TEST(SchedulerTest, ACancelledTaskStaysDeadForItsIncarnation) {
  Simulation sim;
  std::optional<Executor> saved;
  const TaskId task = sim.Spawn("victim", [&]() -> Awaitable<void> {
    saved = co_await asio::this_coro::executor;
    co_await SleepFor(std::chrono::hours(1));
  });
  sim.RunUntil(kTimeZero + milliseconds(1));
  ASSERT_TRUE(saved.has_value());
  sim.root().CancelTask(task);
  sim.RunUntil(kTimeZero + milliseconds(2));  // Reaps, as any later run would.
  bool ran = false;
  asio::post(*saved, [&] { ran = true; });  // Something kept the task's executor.
  sim.RunUntilIdle();
  EXPECT_FALSE(ran);
}

TEST(SchedulerTest, RunUntilPredicateStopsAsSoonAsItHolds) {
  Simulation sim;
  int counter = 0;
  sim.Spawn("counter", [&]() -> Awaitable<void> {
    for (int i = 0; i < 100; ++i) {
      ++counter;
      co_await SleepFor(milliseconds(1));
    }
  });
  const RunResult result = sim.RunUntil([&] { return counter == 7; });
  EXPECT_EQ(result.reason, StopReason::kPredicateMet);
  EXPECT_EQ(counter, 7);
}

TEST(SchedulerTest, WaitHandlesGoStaleAfterCompletion) {
  Simulation sim;
  sim.RunUntilIdle();  // Lets the root's main task take its own wait slot first.
  Scheduler& scheduler = sim.scheduler();
  int runs = 0;
  const Owner root{Simulation::kRootProcess, 1, scheduler.NewTaskId()};
  const WaitHandle parked = scheduler.Park(root, [&](Wake) { ++runs; });
  EXPECT_TRUE(scheduler.IsPending(parked));
  EXPECT_TRUE(scheduler.Wake(parked));
  EXPECT_FALSE(scheduler.IsPending(parked));
  EXPECT_FALSE(scheduler.Wake(parked));
  sim.RunUntilIdle();
  EXPECT_EQ(runs, 1);
  // A new wait reusing the slot is not woken through the old handle.
  const WaitHandle reused = scheduler.Park(root, [&](Wake) { ++runs; });
  EXPECT_EQ(reused.slot, parked.slot);
  EXPECT_FALSE(scheduler.Wake(parked));
  EXPECT_TRUE(scheduler.IsPending(reused));
  scheduler.Discard(reused);
  sim.RunUntilIdle();
  EXPECT_EQ(runs, 1);
}

TEST(SchedulerTest, CancelCompletesAWaitWithCancelled) {
  Simulation sim;
  Scheduler& scheduler = sim.scheduler();
  std::vector<Wake> wakes;
  const Owner root{Simulation::kRootProcess, 1, scheduler.NewTaskId()};
  const WaitHandle timer =
      scheduler.ScheduleAt(kTimeZero + milliseconds(5), root, [&](Wake w) { wakes.push_back(w); });
  EXPECT_TRUE(scheduler.Cancel(timer));
  sim.RunUntilIdle();
  EXPECT_EQ(wakes, std::vector<Wake>{Wake::kCancelled});
  EXPECT_EQ(sim.Now(), kTimeZero);  // The cancelled timer's instant is never reached.
}

}  // namespace
}  // namespace faultline::sim
