// The simulated machine room: a simulation, its network, the disks SQLite
// sees through the VFS, and the container runtime on all three. Each member
// needs the ones before it and must outlive the ones after (the runtime's
// containers hold frames that use the VFS and the network), so the order of
// construction lives here, once; every world in the tree is built from it.
#pragma once

#include <utility>

#include "fakes/network.h"
#include "fakes/runtime.h"
#include "fakes/sqlite_vfs.h"
#include "sim/sim.h"

namespace faultline::fakes {

struct Environment {
  explicit Environment(sim::SimulationOptions options = {}, NetworkOptions network_options = {})
      : simulation(std::move(options)),
        network(simulation, std::move(network_options)),
        vfs(simulation),
        runtime(simulation, network, vfs) {}
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  sim::Simulation simulation;
  Network network;
  SqliteVfs vfs;
  Runtime runtime;
};

}  // namespace faultline::fakes
