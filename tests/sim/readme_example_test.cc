// The C++ example in README.md, kept compiling and running here. If this
// file changes, change the README with it.
#include <gtest/gtest.h>

#include "sim/sim.h"

namespace {

using namespace faultline::sim;  // As the README writes it.

TEST(ReadmeExampleTest, RunsAsWritten) {
  Simulation sim({.seed = 42});
  Process& node = sim.AddProcess("kuri-1");
  node.Start([&]() -> Awaitable<int> {
    co_await SleepFor(std::chrono::milliseconds(5));
    if (Status s = co_await FaultPoint("node.before_write"); !s.ok()) co_return 1;
    co_return 0;
  });
  sim.RunUntilIdle();

  EXPECT_EQ(node.exits().back().code, 0);
  EXPECT_EQ(sim.Now(), kTimeZero + std::chrono::milliseconds(5));
}

}  // namespace
