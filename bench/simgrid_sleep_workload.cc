#include "bench/simgrid_sleep_workload.h"

#include <chrono>
#include <string>
#include <vector>

// SimGrid's version.h uses declaration macros it does not include itself, so
// it comes after s4u.hpp, in a block of its own that clang-format keeps apart.
#include <simgrid/s4u.hpp>

#include <simgrid/version.h>

SimGridFigures RunSimGridSleepWorkload(int tasks, int sleeps, const char* program_name) {
  // SimGrid's fastest context factory is "raw" (its own assembly context
  // switch); small stacks keep 1,000 actors cheap, as our frames are.
  std::vector<std::string> arguments{program_name, "--cfg=contexts/factory:raw",
                                     "--cfg=contexts/stack-size:128", "--log=root.thresh:critical"};
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  int argc = static_cast<int>(argv.size());
  simgrid::s4u::Engine engine(&argc, argv.data());
  auto* zone = simgrid::s4u::create_full_zone("bench");
  simgrid::s4u::Host* host = zone->create_host("host", 1e9);
  zone->seal();
  for (int i = 0; i < tasks; ++i) {
    simgrid::s4u::Actor::create("sleeper", host, [sleeps] {
      for (int s = 0; s < sleeps; ++s) simgrid::s4u::this_actor::sleep_for(0.001);
    });
  }
  const auto start = std::chrono::steady_clock::now();
  engine.run();
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  return SimGridFigures{wall.count(), simgrid::s4u::Engine::get_clock()};
}

std::string SimGridVersion() {
  return std::to_string(SIMGRID_VERSION_MAJOR) + "." + std::to_string(SIMGRID_VERSION_MINOR);
}
