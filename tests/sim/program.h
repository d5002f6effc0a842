// Random task programs for the kernel's property tests: processes whose tasks
// sleep, yield, emit events, pass fault points, spawn children, kill or
// restart other processes, and wait under timeouts. RunProgram interprets one
// on a Simulation and reports what a correct kernel must guarantee.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include <rapidcheck.h>

#include "sim/sim.h"

namespace faultline::sim::testing {

enum class OpKind : unsigned char { kSleep, kYield, kEmit, kFaultPoint, kSpawn, kKill, kTimeout };

struct Op {
  OpKind kind = OpKind::kEmit;
  std::int64_t argument = 0;
};

struct ProcessProgram {
  std::vector<std::vector<Op>> tasks;  // tasks[0] is the main task.
};

struct Program {
  std::vector<ProcessProgram> processes;
};

void showValue(const Program& program, std::ostream& out);

struct ProgramOutcome {
  std::uint64_t trace_hash = 0;
  std::uint64_t events = 0;
  // Ops that ran in an incarnation that had already ended.
  int ran_after_death = 0;
  // Frames of ended incarnations still alive between two steps.
  int frames_outliving_process = 0;
  bool quiescent = false;
};

// REQUIRES: `program` has at least one process, each with a main task.
ProgramOutcome RunProgram(const Program& program, const SimulationOptions& options);

// Processes with tasks using every kind of op.
rc::Gen<Program> GenProgram();
// Tasks in one process that only emit and yield: a pure race.
rc::Gen<Program> GenRace();

}  // namespace faultline::sim::testing
