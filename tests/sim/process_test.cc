// A kill is a crash: no code of the killed incarnation runs afterwards,
// wherever it was suspended, and its coroutine frames are destroyed.
#include "sim/process.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/sim.h"
#include "tests/sim/test_util.h"

namespace faultline::sim {
namespace {

using std::chrono::milliseconds;
using testing::FrameCounter;

Awaitable<void> NestedSleeper(FrameCounter& frames, int& progress) {
  FrameCounter::Guard guard(frames);
  ++progress;
  co_await SleepFor(milliseconds(100));
  ++progress;  // Must never run when killed during the sleep above.
}

TEST(ProcessTest, KilledWhileSleepingRunsNoFurtherCodeAndFreesFrames) {
  Simulation sim;
  Process& node = sim.AddProcess("kuri-1");
  FrameCounter frames;
  int progress = 0;
  node.Start([&]() -> Awaitable<int> {
    FrameCounter::Guard guard(frames);
    co_await NestedSleeper(frames, progress);
    ++progress;
    co_return 0;
  });
  sim.RunFor(milliseconds(50));
  EXPECT_EQ(progress, 1);
  EXPECT_EQ(frames.live(), 2);  // The main task and the nested coroutine.

  node.Kill();
  EXPECT_EQ(frames.live(), 0);  // Destroyed at once: no job was running.
  EXPECT_EQ(node.state(), ProcessState::kKilled);
  sim.RunUntilIdle();
  EXPECT_EQ(progress, 1);
  ASSERT_EQ(node.exits().size(), 1u);
  EXPECT_EQ(node.exits()[0], (ExitStatus{1, true, kKilledExitCode}));
}

TEST(ProcessTest, KilledByAnotherProcessMidStepRunsNothingMore) {
  Simulation sim({.scheduling = SchedulingMode::kFifo});
  Process& victim = sim.AddProcess("victim");
  Process& killer = sim.AddProcess("killer");
  FrameCounter frames;
  int victim_steps = 0;
  victim.Start([&]() -> Awaitable<int> {
    FrameCounter::Guard guard(frames);
    for (int i = 0; i < 100; ++i) {
      ++victim_steps;
      co_await Yield();
    }
    co_return 0;
  });
  // Also a second task of the victim, waiting on an event nobody sets.
  Event never;
  victim.Spawn("waiter", [&]() -> Awaitable<void> {
    FrameCounter::Guard guard(frames);
    co_await never.Wait();
    ADD_FAILURE() << "the waiter ran after its process was killed";
  });
  killer.Start([&]() -> Awaitable<int> {
    co_await Yield();
    co_await Yield();
    victim.Kill();
    EXPECT_EQ(victim.state(), ProcessState::kKilled);
    co_return 0;
  });
  sim.RunUntilIdle();
  EXPECT_LT(victim_steps, 5);
  EXPECT_EQ(frames.live(), 0);
  EXPECT_EQ(killer.exits().back().code, 0);
}

TEST(ProcessTest, RestartIsANewIncarnationAndTheOldOneStaysDead) {
  Simulation sim;
  Process& node = sim.AddProcess("kuri-1");
  std::vector<std::uint32_t> ran_as;
  node.Start([&]() -> Awaitable<int> {
    const Executor self = co_await asio::this_coro::executor;
    for (int i = 0; i < 3; ++i) {
      ran_as.push_back(self.owner().incarnation);
      co_await SleepFor(milliseconds(10));
    }
    co_return 0;
  });
  sim.RunFor(milliseconds(15));
  EXPECT_EQ(ran_as, (std::vector<std::uint32_t>{1, 1}));
  node.Restart();
  EXPECT_EQ(node.incarnation(), 2u);
  sim.RunUntilIdle();
  EXPECT_EQ(ran_as, (std::vector<std::uint32_t>{1, 1, 2, 2, 2}));
  ASSERT_EQ(node.exits().size(), 2u);
  EXPECT_TRUE(node.exits()[0].killed);
  EXPECT_EQ(node.exits()[1], (ExitStatus{2, false, 0}));
}

TEST(ProcessTest, MainReturnEndsTheProcessAndItsOtherTasks) {
  Simulation sim;
  Process& job = sim.AddProcess("db-init");
  FrameCounter frames;
  bool background_finished = false;
  job.Start([&]() -> Awaitable<int> {
    job.Spawn("background", [&]() -> Awaitable<void> {
      FrameCounter::Guard guard(frames);
      co_await SleepFor(std::chrono::hours(1));
      background_finished = true;
    });
    co_await SleepFor(milliseconds(1));
    co_return 3;
  });
  sim.RunUntilIdle();
  EXPECT_EQ(job.state(), ProcessState::kExited);
  EXPECT_EQ(job.exits().back(), (ExitStatus{1, false, 3}));
  EXPECT_FALSE(background_finished);
  EXPECT_EQ(frames.live(), 0);
  EXPECT_EQ(sim.Now(), kTimeZero + milliseconds(1));  // The hour-long timer died with it.
}

TEST(ProcessTest, WatchersLearnEveryExit) {
  Simulation sim;
  Process& node = sim.AddProcess("kuri-1");
  Process& compose = sim.AddProcess("compose");
  node.Start([&]() -> Awaitable<int> {
    co_await Exit(1);  // Like a start-up failure: exit status 1.
    ADD_FAILURE() << "code after Exit ran";
    co_return 0;
  });
  std::vector<ExitStatus> seen;
  compose.Start([&]() -> Awaitable<int> {
    seen.push_back(co_await node.WaitForExit());
    node.Start([&]() -> Awaitable<int> {
      co_await SleepFor(milliseconds(5));
      co_await Crash();
      ADD_FAILURE() << "code after Crash ran";
      co_return 0;
    });
    seen.push_back(co_await node.WaitForExit());
    co_return 0;
  });
  sim.RunUntilIdle();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], (ExitStatus{1, false, 1}));
  EXPECT_EQ(seen[1], (ExitStatus{2, true, kKilledExitCode}));
}

TEST(ProcessTest, LifecycleEventsAreTraced) {
  Simulation sim;
  RingSink sink(100);
  sim.trace().AddSink(&sink);
  Process& node = sim.AddProcess("kuri-1");
  node.Start([]() -> Awaitable<int> {
    co_await SleepFor(milliseconds(1));
    co_return 0;
  });
  sim.RunUntilIdle();
  node.Restart();
  node.Kill();
  std::vector<std::string> names;
  for (const TraceEvent& event : sink.Events()) {
    if (event.process == "kuri-1")
      names.push_back(event.name + "/" + std::to_string(event.incarnation));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"process.start/1", "process.exit/1", "process.start/2",
                                             "process.kill/2"}));
  sim.trace().RemoveSink(&sink);
}

TEST(ProcessDeathTest, KillingYourselfSynchronouslyIsABug) {
  EXPECT_DEATH(
      {
        Simulation sim;
        Process& node = sim.AddProcess("kuri-1");
        node.Start([&]() -> Awaitable<int> {
          node.Kill();
          co_return 0;
        });
        sim.RunUntilIdle();
      },
      "cannot kill itself synchronously");
}

TEST(ProcessDeathTest, TheRootProcessCannotBeKilled) {
  EXPECT_DEATH(
      {
        Simulation sim;
        sim.root().Kill();
      },
      "the root process");
}

TEST(ProcessDeathTest, AnExceptionEscapingATaskIsABug) {
  EXPECT_DEATH(
      {
        Simulation sim({.seed = 77});
        sim.Spawn("thrower", []() -> Awaitable<void> {
          co_await Yield();
          throw std::runtime_error("boom");
        });
        sim.RunUntilIdle();
      },
      "thrower of process sim threw: boom(.|\n)*seed=77");
}

}  // namespace
}  // namespace faultline::sim
