// The kernel benchmark's workload on SimGrid: `tasks` actors on one host, each
// sleeping `sleeps` times for one millisecond of simulated time.
#pragma once

#include <string>

struct SimGridFigures {
  double wall_seconds = 0.0;
  double simulated_seconds = 0.0;
};

// Runs once per process: SimGrid's engine is a singleton.
SimGridFigures RunSimGridSleepWorkload(int tasks, int sleeps, const char* program_name);

// "3.32".
std::string SimGridVersion();
