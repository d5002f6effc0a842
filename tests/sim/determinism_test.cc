// The same seed gives the same trace hash, checked over many seeds; and the
// self-check finds the first divergent event when something leaks in.
#include <memory>
#include <set>

#include <gtest/gtest.h>

#include "sim/sim.h"

namespace faultline::sim {
namespace {

using std::chrono::milliseconds;

// A small cluster-like workload: three processes racing on yields, random
// sleeps, fault points under a swarm plan, and a kill with restart.
void RacingWorkload(Simulation& sim) {
  for (int p = 0; p < 3; ++p) {
    Process& process = sim.AddProcess("node-" + std::to_string(p));
    process.Start([&sim, p]() -> Awaitable<int> {
      Rng random = sim.Random("node-" + std::to_string(p));
      for (int i = 0; i < 20; ++i) {
        sim.Emit("work.step", {{"node", p}, {"i", i}});
        const Status status = co_await FaultPoint("work.step");
        if (!status.ok()) sim.Emit("work.error", {{"status", status.ToString()}});
        if (random.Bernoulli(0.5)) {
          co_await Yield();
        } else {
          co_await SleepFor(milliseconds(random.UniformInt(0, 3)));
        }
      }
      co_return 0;
    });
  }
  sim.Spawn("chaos", [&sim]() -> Awaitable<void> {
    co_await SleepFor(milliseconds(4));
    Process& victim = *sim.FindProcess("node-1");
    if (victim.running()) victim.Restart();
  });
  sim.RunUntilIdle();
}

SimulationOptions SwarmOptionsForSeed(std::uint64_t seed) {
  SwarmOptions swarm;
  swarm.enable_probability = 1.0;
  swarm.fire_probability = 0.1;
  return {.seed = seed, .fault_plan = std::make_shared<SwarmFaultPlan>(swarm)};
}

TEST(DeterminismTest, SameSeedSameTraceHashOverManySeeds) {
  std::set<std::uint64_t> distinct_hashes;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const DeterminismReport report = CheckDeterminism(SwarmOptionsForSeed(seed), RacingWorkload);
    ASSERT_TRUE(report.deterministic) << "seed " << seed << ": " << report.Describe();
    // Crash faults can end nodes early, but every node starts and acts.
    EXPECT_GT(report.first_events, 10u);
    distinct_hashes.insert(report.first_hash);
  }
  // The seed matters: runs from different seeds differ.
  EXPECT_EQ(distinct_hashes.size(), 200u);
}

TEST(DeterminismTest, FifoModeIgnoresTheSeedWithoutFaults) {
  auto hash_for = [](std::uint64_t seed) {
    Simulation sim({.seed = seed, .scheduling = SchedulingMode::kFifo});
    for (int p = 0; p < 3; ++p) {
      Process& process = sim.AddProcess("node-" + std::to_string(p));
      process.Start([&sim, p]() -> Awaitable<int> {
        for (int i = 0; i < 5; ++i) {
          sim.Emit("step", {{"node", p}});
          co_await Yield();
        }
        co_return 0;
      });
    }
    sim.RunUntilIdle();
    return sim.trace().hash();
  };
  EXPECT_EQ(hash_for(1), hash_for(2));
}

TEST(DeterminismTest, SelfCheckNamesTheFirstDivergentEvent) {
  // State outside the simulation that changes between the two runs: exactly
  // the kind of leak (a global, the wall clock) the self-check exists for.
  int run = 0;
  auto leaky = [&run](Simulation& sim) {
    ++run;
    sim.Spawn("leaky", [&sim, run]() -> Awaitable<void> {
      sim.Emit("same", {{"n", 1}});
      co_await SleepFor(milliseconds(1));
      sim.Emit("leak", {{"run", run}});
    });
    sim.RunUntilIdle();
  };
  const DeterminismReport report = CheckDeterminism({.seed = 5}, leaky);
  EXPECT_FALSE(report.deterministic);
  ASSERT_TRUE(report.divergence.has_value());
  EXPECT_EQ(report.divergence->index, 2u);  // process.start of the root, "same", then "leak".
  EXPECT_NE(report.Describe().find("leak run=1"), std::string::npos) << report.Describe();
  EXPECT_NE(report.Describe().find("leak run=2"), std::string::npos) << report.Describe();
}

TEST(DeterminismTest, SelfCheckLocatesDivergenceBeyondTheRecordedPrefix) {
  int run = 0;
  auto leaky = [&run](Simulation& sim) {
    ++run;
    for (int i = 0; i < 10; ++i) sim.Emit("same", {{"i", i}});
    sim.Emit("leak", {{"run", run}});
  };
  const DeterminismReport report = CheckDeterminism({.seed = 5}, leaky, /*max_recorded_events=*/4);
  EXPECT_FALSE(report.deterministic);
  ASSERT_TRUE(report.divergence.has_value());
  EXPECT_EQ(report.divergence->index, 11u);
  EXPECT_FALSE(report.divergence->left.has_value());
}

}  // namespace
}  // namespace faultline::sim
