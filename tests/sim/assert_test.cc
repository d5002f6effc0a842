#include "sim/assert.h"

#include <gtest/gtest.h>

#include "sim/sim.h"

namespace faultline::sim {
namespace {

TEST(AssertDeathTest, FailurePrintsSeedVirtualTimeStepAndRecentEvents) {
  EXPECT_DEATH(
      {
        Simulation sim({.seed = 4242});
        sim.Spawn("checker", [&sim]() -> Awaitable<void> {
          sim.Emit("before.failure", {{"detail", "kept volume"}});
          co_await SleepFor(std::chrono::milliseconds(7));
          FL_ASSERT_MSG(sim.Now() < kTimeZero, "virtual time went {}", "forward");
        });
        sim.RunUntilIdle();
      },
      "assertion failed: sim.Now\\(\\) < kTimeZero(.|\n)*virtual time went forward(.|\n)*"
      "seed=4242 virtual_time=7ms step=3(.|\n)*before.failure detail=\"kept volume\"");
}

TEST(AssertDeathTest, AssertionsOutsideASimulationStillAbort) {
  EXPECT_DEATH(FL_ASSERT(1 + 1 == 3), "assertion failed: 1 \\+ 1 == 3(.|\n)*no simulation");
}

TEST(AssertTest, PassingAssertionsDoNothing) {
  int evaluated = 0;
  FL_ASSERT(++evaluated == 1);
  FL_ASSERT_MSG(evaluated == 1, "never formatted {}", evaluated);
  EXPECT_EQ(evaluated, 1);
}

}  // namespace
}  // namespace faultline::sim
