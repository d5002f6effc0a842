// Properties of the kernel over random task programs. The simulation seed is
// drawn by rapidcheck, so its reproduce string replays the program and the
// seed together; the seed is also logged with every failing case.
#include <memory>
#include <set>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/sim/program.h"

namespace faultline::sim::testing {
namespace {

SimulationOptions OptionsWithSwarmFaults(std::uint64_t seed) {
  SwarmOptions swarm;
  swarm.enable_probability = 0.7;
  swarm.fire_probability = 0.2;
  swarm.delay_max = std::chrono::microseconds(2);
  return {.seed = seed, .fault_plan = std::make_shared<SwarmFaultPlan>(swarm)};
}

RC_GTEST_PROP(KernelPropertyTest, SameSeedSameTraceHash, ()) {
  const Program program = *GenProgram();
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  RC_LOG() << "simulation seed " << seed << "\n";
  const ProgramOutcome first = RunProgram(program, OptionsWithSwarmFaults(seed));
  const ProgramOutcome second = RunProgram(program, OptionsWithSwarmFaults(seed));
  RC_ASSERT(first.quiescent);
  RC_ASSERT(first.trace_hash == second.trace_hash);
  RC_ASSERT(first.events == second.events);
}

RC_GTEST_PROP(KernelPropertyTest, KilledIncarnationsRunNothingAndKeepNoFrames, ()) {
  const Program program = *GenProgram();
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  RC_LOG() << "simulation seed " << seed << "\n";
  const ProgramOutcome outcome = RunProgram(program, OptionsWithSwarmFaults(seed));
  RC_ASSERT(outcome.ran_after_death == 0);
  RC_ASSERT(outcome.frames_outliving_process == 0);
}

RC_GTEST_PROP(KernelPropertyTest, DifferentSeedsExploreDifferentInterleavings, ()) {
  const Program race = *GenRace();
  const auto base_seed = *rc::gen::arbitrary<std::uint64_t>();
  RC_LOG() << "simulation seeds from " << base_seed << "\n";
  std::set<std::uint64_t> hashes;
  for (std::uint64_t i = 0; i < 16; ++i)
    hashes.insert(RunProgram(race, {.seed = base_seed + i}).trace_hash);
  RC_ASSERT(hashes.size() > 1u);
}

RC_GTEST_PROP(KernelPropertyTest, FifoModeWithoutFaultsDoesNotDependOnTheSeed, ()) {
  const Program program = *GenProgram();
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  RC_LOG() << "simulation seed " << seed << "\n";
  const SimulationOptions a{.seed = seed, .scheduling = SchedulingMode::kFifo};
  const SimulationOptions b{.seed = seed + 1, .scheduling = SchedulingMode::kFifo};
  RC_ASSERT(RunProgram(program, a).trace_hash == RunProgram(program, b).trace_hash);
}

}  // namespace
}  // namespace faultline::sim::testing
