// A simulated cluster with the metadata store running on the container
// runtime, and client processes that talk to it over the network.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "fakes/environment.h"
#include "models/cql/client.h"
#include "models/cql/server.h"
#include "sim/sim.h"

namespace faultline::models::cql {

struct StoreCluster : fakes::Environment {
  explicit StoreCluster(std::uint64_t seed = 1)
      : StoreCluster(sim::SimulationOptions{.seed = seed}) {}
  explicit StoreCluster(sim::SimulationOptions options, fakes::NetworkOptions network_options = {})
      : fakes::Environment(std::move(options), std::move(network_options)) {
    runtime.RegisterImage(kStoreImage, "2.20", StoreEntryPoint());
    StoreOptions cassandra;
    cassandra.schema_agreement = SchemaAgreement::kCassandra;
    runtime.RegisterImage(kStoreImage, "cassandra", StoreEntryPoint(cassandra));
  }

  // Starts the store; `version` "cassandra" for Cassandra's schema agreement.
  void Up(const std::string& version = "2.20") {
    fakes::ComposeSpec spec;
    spec.services.push_back(StoreServiceSpec());
    spec.services.back().version = version;
    ASSERT_TRUE(runtime.Up(spec).ok());
    simulation.RunFor(std::chrono::milliseconds(10));
  }

  // Runs `body` in a new process named `host` (its network name).
  void Client(const std::string& host, std::function<sim::Awaitable<void>(CqlSession&)> body) {
    sim::Process& process = simulation.AddProcess(host);
    process.Start([this, body = std::move(body)]() -> sim::Awaitable<int> {
      CqlSession session(network);
      co_await body(session);
      co_return 0;
    });
  }
};

}  // namespace faultline::models::cql
