// The scheduler is a real Asio executor: co_spawn, awaitable<T, Executor>,
// post, dispatch and bind_executor all work with it.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/bind_executor.hpp>

#include "sim/sim.h"

namespace faultline::sim {
namespace {

Awaitable<int> AddLater(int a, int b) {
  co_await SleepFor(std::chrono::microseconds(3));
  co_return a + b;
}

TEST(AsioIntegrationTest, CoSpawnRunsAwaitablesAndDeliversResults) {
  Simulation sim;
  Process& process = sim.AddProcess("worker");
  std::vector<int> results;
  process.Start([&]() -> Awaitable<int> {
    const Executor executor = co_await asio::this_coro::executor;
    EXPECT_EQ(executor.owner().process, process.id());
    results.push_back(co_await AddLater(2, 3));
    co_return 0;
  });
  asio::co_spawn(sim.root().NewTaskExecutor(), AddLater(40, 2),
                 [&](std::exception_ptr error, int value) {
                   EXPECT_FALSE(error);
                   results.push_back(value);
                 });
  sim.RunUntilIdle();
  EXPECT_EQ(results.size(), 2u);
  EXPECT_NE(std::find(results.begin(), results.end(), 5), results.end());
  EXPECT_NE(std::find(results.begin(), results.end(), 42), results.end());
  EXPECT_EQ(sim.Now(), kTimeZero + std::chrono::microseconds(3));
}

TEST(AsioIntegrationTest, PostAndDispatchRunOnTheExecutor) {
  Simulation sim({.scheduling = SchedulingMode::kFifo});
  const Executor executor = sim.root().NewTaskExecutor();
  std::vector<std::string> log;
  asio::post(executor, [&] {
    log.push_back("post");
    EXPECT_TRUE(sim.scheduler().InJobOf(executor.owner()));
    // From inside the executor, dispatch runs at once.
    asio::dispatch(executor, [&] { log.push_back("dispatch-inline"); });
    log.push_back("after-dispatch");
  });
  // From outside, dispatch queues.
  asio::dispatch(executor, [&] { log.push_back("dispatch-queued"); });
  EXPECT_TRUE(log.empty());
  sim.RunUntilIdle();
  EXPECT_EQ(log, (std::vector<std::string>{"post", "dispatch-inline", "after-dispatch",
                                           "dispatch-queued"}));
}

TEST(AsioIntegrationTest, OperationsAcceptCallbacksBoundToAnExecutor) {
  Simulation sim;
  const Executor executor = sim.root().NewTaskExecutor();
  TimePoint woke_at{};
  SleepFor(std::chrono::seconds(2), asio::bind_executor(executor, [&] { woke_at = sim.Now(); }));
  Status fault_status = Status::Internal("not run");
  FaultPoint("test.callback",
             asio::bind_executor(executor, [&](Status s) { fault_status = std::move(s); }));
  sim.RunUntilIdle();
  EXPECT_EQ(woke_at, kTimeZero + std::chrono::seconds(2));
  EXPECT_TRUE(fault_status.ok());
}

}  // namespace
}  // namespace faultline::sim
