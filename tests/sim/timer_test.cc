#include <vector>

#include <gtest/gtest.h>

#include "sim/sim.h"
#include "tests/sim/test_util.h"

namespace faultline::sim {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::FrameCounter;

Awaitable<int> SlowAnswer(Duration delay, FrameCounter& frames, bool& finished) {
  FrameCounter::Guard guard(frames);
  co_await SleepFor(delay);
  finished = true;
  co_return 42;
}

TEST(TimerTest, SleepWakesAtExactlyTheRequestedVirtualTime) {
  Simulation sim;
  std::vector<TimePoint> wakes;
  sim.Spawn("sleeper", [&]() -> Awaitable<void> {
    co_await SleepFor(milliseconds(250));
    wakes.push_back(sim.Now());
    co_await SleepUntil(kTimeZero + seconds(1));
    wakes.push_back(sim.Now());
    co_await SleepUntil(kTimeZero);  // In the past: continues at once.
    wakes.push_back(sim.Now());
  });
  sim.RunUntilIdle();
  EXPECT_EQ(wakes, (std::vector<TimePoint>{kTimeZero + milliseconds(250), kTimeZero + seconds(1),
                                           kTimeZero + seconds(1)}));
}

TEST(TimerTest, TimeoutFiresAtTheRightVirtualTimeAndCancelsTheOperation) {
  Simulation sim;
  FrameCounter frames;
  bool finished = false;
  std::optional<Result<int>> result;
  TimePoint returned_at{};
  sim.Spawn("caller", [&]() -> Awaitable<void> {
    result = co_await WithTimeout(SlowAnswer(seconds(10), frames, finished), seconds(2));
    returned_at = sim.Now();
    // The operation is gone before the caller continues: it may have pointed
    // at the caller's own locals.
    EXPECT_EQ(frames.live(), 0);
  });
  sim.RunUntilIdle();
  ASSERT_TRUE(result.has_value());
  EXPECT_FALSE(result->ok());
  EXPECT_TRUE(result->status().IsTimedOut()) << result->status().ToString();
  EXPECT_EQ(returned_at, kTimeZero + seconds(2));
  EXPECT_FALSE(finished);
  EXPECT_EQ(frames.live(), 0);
  EXPECT_EQ(sim.Now(), kTimeZero + seconds(2));  // The operation's 10 s timer died with it.
}

TEST(TimerTest, TimeoutReturnsTheResultWhenTheOperationIsFaster) {
  Simulation sim;
  FrameCounter frames;
  bool finished = false;
  std::optional<Result<int>> result;
  sim.Spawn("caller", [&]() -> Awaitable<void> {
    result = co_await WithTimeout(SlowAnswer(milliseconds(5), frames, finished), seconds(2));
    EXPECT_EQ(sim.Now(), kTimeZero + milliseconds(5));
  });
  sim.RunUntilIdle();
  ASSERT_TRUE(result.has_value());
  ASSERT_TRUE(result->ok());
  EXPECT_EQ(result->value(), 42);
  EXPECT_TRUE(finished);
  EXPECT_EQ(sim.Now(), kTimeZero + milliseconds(5));  // The timeout's timer was discarded.
}

TEST(TimerTest, TimeoutWorksForVoidOperations) {
  Simulation sim;
  std::vector<Status> statuses;
  sim.Spawn("caller", [&]() -> Awaitable<void> {
    statuses.push_back(co_await WithTimeout(SleepFor(milliseconds(1)), milliseconds(2)));
    statuses.push_back(co_await WithTimeout(SleepFor(milliseconds(3)), milliseconds(2)));
  });
  sim.RunUntilIdle();
  ASSERT_EQ(statuses.size(), 2u);
  EXPECT_TRUE(statuses[0].ok());
  EXPECT_TRUE(statuses[1].IsTimedOut());
}

TEST(TimerTest, CancellingATimerCompletesItsWaitWithCancelled) {
  Simulation sim;
  Timer timer;
  std::vector<Status> statuses;
  TimePoint woke_at{};
  sim.Spawn("waiter", [&]() -> Awaitable<void> {
    statuses.push_back(co_await timer.WaitFor(seconds(30)));
    woke_at = sim.Now();
    statuses.push_back(co_await timer.WaitFor(milliseconds(1)));
  });
  sim.Spawn("canceller", [&]() -> Awaitable<void> {
    co_await SleepFor(seconds(1));
    EXPECT_EQ(timer.Cancel(), 1u);
  });
  sim.RunUntilIdle();
  ASSERT_EQ(statuses.size(), 2u);
  EXPECT_TRUE(statuses[0].IsCancelled());
  EXPECT_TRUE(statuses[1].ok());
  EXPECT_EQ(woke_at, kTimeZero + seconds(1));
}

TEST(TimerTest, CancellingATaskStopsItsSleepForGood) {
  Simulation sim;
  FrameCounter frames;
  bool woke = false;
  const TaskId task = sim.Spawn("sleeper", [&]() -> Awaitable<void> {
    FrameCounter::Guard guard(frames);
    co_await SleepFor(seconds(5));
    woke = true;
  });
  sim.RunFor(seconds(1));
  EXPECT_EQ(frames.live(), 1);
  sim.root().CancelTask(task);
  EXPECT_EQ(frames.live(), 0);
  sim.RunUntilIdle();
  EXPECT_FALSE(woke);
}

TEST(TimerTest, NestedTimeoutsCancelInnerOperationsWithTheOuterOne) {
  Simulation sim;
  FrameCounter frames;
  bool finished = false;
  Status outer_status;
  sim.Spawn("caller", [&]() -> Awaitable<void> {
    auto inner = [&]() -> Awaitable<void> {
      const Result<int> r =
          co_await WithTimeout(SlowAnswer(seconds(10), frames, finished), seconds(5));
      ADD_FAILURE() << "the inner wait finished: " << r.status().ToString();
    };
    outer_status = co_await WithTimeout(inner(), seconds(1));
  });
  sim.RunUntilIdle();
  EXPECT_TRUE(outer_status.IsTimedOut());
  EXPECT_FALSE(finished);
  EXPECT_EQ(frames.live(), 0);
  EXPECT_EQ(sim.Now(), kTimeZero + seconds(1));
}

TEST(TimerTest, TimeoutOverCallerLocalsLeavesNothingBehind) {
  Simulation sim;
  bool finished = false;
  sim.Spawn("caller", [&]() -> Awaitable<void> {
    FrameCounter local_counter;  // Dies with this frame, right after the timeout.
    const Result<int> r =
        co_await WithTimeout(SlowAnswer(seconds(10), local_counter, finished), seconds(2));
    EXPECT_TRUE(r.status().IsTimedOut());
    EXPECT_EQ(local_counter.live(), 0);
  });
  sim.RunUntilIdle();  // Under ASan, a late reap would be a use-after-free here.
  EXPECT_FALSE(finished);
}

TEST(TimerTest, HugeDurationsSaturateInsteadOfWrapping) {
  Simulation sim;
  bool woke = false;
  sim.Spawn("forever", [&]() -> Awaitable<void> {
    co_await SleepFor(Duration::max());
    woke = true;
  });
  Status timeout_status;
  sim.Spawn("patient", [&]() -> Awaitable<void> {
    timeout_status = co_await WithTimeout(SleepFor(seconds(5)), Duration::max());
  });
  EXPECT_EQ(sim.RunFor(std::chrono::hours(24)).reason, StopReason::kTimeReached);
  EXPECT_FALSE(woke);
  EXPECT_TRUE(timeout_status.ok());
  // A saturated sleep is due at the end of time, which only an unbounded run
  // reaches.
  EXPECT_EQ(sim.RunFor(Duration::max()).reason, StopReason::kQuiescent);
  EXPECT_TRUE(woke);
  EXPECT_EQ(sim.Now(), TimePoint::max());
}

TEST(TimerTest, DiscardedTimersDoNotPileUpInTheHeap) {
  Simulation sim;
  int finished = 0;
  sim.Spawn("caller", [&]() -> Awaitable<void> {
    // Each fast operation under a one-hour timeout discards its timer, whose
    // heap entry stays behind until swept.
    for (int i = 0; i < 50'000; ++i) {
      const Status status =
          co_await WithTimeout(SleepFor(std::chrono::nanoseconds(1)), seconds(3600));
      finished += status.ok() ? 1 : 0;
    }
  });
  std::size_t most_entries = 0;
  while (sim.RunSteps(1000).reason == StopReason::kStepBudgetUsed) {
    most_entries = std::max(most_entries, sim.scheduler().timer_entry_count());
  }
  EXPECT_EQ(finished, 50'000);
  EXPECT_GT(most_entries, 1000u);  // Stale entries do accumulate for a while...
  EXPECT_LT(most_entries, 3 * Scheduler::kStaleTimersSweptAt);  // ...but are swept.
}

}  // namespace
}  // namespace faultline::sim
