// The simulated seed cluster a scenario runs on, and the helpers the runner
// and the checkers share. Internal to scenarios/.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "fakes/network.h"
#include "fakes/runtime.h"
#include "fakes/sqlite_vfs.h"
#include "models/cql/client.h"
#include "models/operator/operator.h"
#include "models/s3/seed_images.h"
#include "sim/sim.h"

namespace faultline::scenarios {

// The seed cluster for one run.
struct World {
  explicit World(sim::SimulationOptions options)
      : simulation(std::move(options)),
        network(simulation),
        vfs(simulation),
        runtime(simulation, network, vfs),
        op(simulation, runtime) {
    models::s3::RegisterSeedImages(runtime);
  }

  // Runs `body` in a new process until it finishes (or a virtual minute);
  // returns its output, or a note that it never finished.
  std::string RunProcess(
      const std::string& host,
      std::function<sim::Awaitable<std::string>(models::cql::CqlSession&)> body) {
    auto output = std::make_shared<std::optional<std::string>>();
    sim::Process& process = simulation.AddProcess(fmt::format("{}#{}", host, ++processes));
    process.Start([this, body = std::move(body), output]() -> sim::Awaitable<int> {
      models::cql::CqlSession session(network);
      *output = co_await body(session);
      co_return 0;
    });
    simulation.Run(sim::RunBudget{sim::Simulation::kDefaultMaxSteps,
                                  simulation.Now() + std::chrono::minutes(1),
                                  [output] { return output->has_value(); }});
    return output->value_or("(no answer within a virtual minute)");
  }

  sim::Simulation simulation;
  fakes::Network network;
  fakes::SqliteVfs vfs;
  fakes::Runtime runtime;
  models::ops::Operator op;
  fakes::ComposeSpec spec;
  int processes = 0;
  // Objects the cluster acknowledged (PUT answered 200) and did not delete
  // since: path -> body. The acknowledged-writes checker reads them back.
  std::map<std::string, std::string> acknowledged;
};

// Where `service` answers /healthz.
fakes::Endpoint HealthEndpoint(const std::string& service);
// Whether it answers 200 now (a call from a probe process).
bool IsServing(World& world, const std::string& service);

}  // namespace faultline::scenarios
