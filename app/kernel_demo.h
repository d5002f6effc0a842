// The kernel demos that `faultline demo` runs until the scenario catalogue
// (issue #6) replaces them: small stories told with sim/ alone.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "sim/sim.h"

namespace faultline::app {

struct DemoResult {
  std::string name;
  bool passed = false;
  sim::TimePoint virtual_time{};
  double wall_ms = 0.0;
  std::string summary;  // What happened, in one line.
  std::uint64_t trace_hash = 0;
};

struct DemoOptions {
  std::uint64_t seed = 1;
  std::vector<sim::TraceSink*> sinks;  // Extra sinks for every demo run.
  int determinism_seeds = 100;         // Seeds swept by the determinism demo.
};

// A node marks its migration dirty on a kept volume, crashes at the fault
// point right after, and every restart then refuses to start: the seeds'
// "Dirty database version" story in miniature.
DemoResult RunDirtyRestartDemo(const DemoOptions& options);

// Three racing nodes under a swarm fault plan, each seed run twice: the trace
// hashes must match for every seed and differ between seeds.
DemoResult RunDeterminismDemo(const DemoOptions& options);

}  // namespace faultline::app
