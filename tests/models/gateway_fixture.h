// The seed gateway on the simulated runtime: the store, db-init, two storage
// nodes and the S3 proxy, with helpers to send S3 requests from a client.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>

#include "fakes/runtime.h"
#include "models/cql/server.h"
#include "models/migrate/safe_runner.h"
#include "models/s3/seed_images.h"
#include "tests/models/cql_cluster_fixture.h"

namespace faultline::models::s3 {

struct Gateway {
  explicit Gateway(sim::SimulationOptions options = {}) : cluster(std::move(options)) {
    RegisterSeedImages(cluster.runtime);
  }

  fakes::ComposeSpec Spec(const std::string& node_version = "v2",
                          const std::string& db_init_version = "v1") const {
    return SeedComposeSpec(node_version, db_init_version);
  }

  void Up(const fakes::ComposeSpec& spec) {
    ASSERT_TRUE(cluster.runtime.Up(spec).ok());
    cluster.simulation.RunFor(std::chrono::seconds(5));
  }
  void Up() { Up(Spec()); }

  // One S3 request through the proxy, from a new client process.
  fakes::Response S3(const std::string& method, const std::string& path,
                     const std::string& body = "", const std::string& query = "") {
    auto result = std::make_shared<std::optional<sim::Result<fakes::Response>>>();
    sim::Process& client = cluster.simulation.AddProcess("client-" + std::to_string(++clients));
    client.Start([this, method, path, body, query, result]() -> sim::Awaitable<int> {
      fakes::Request request(method, path, body, {}, query);
      *result = co_await cluster.network.Call(fakes::Endpoint("s3-proxy", kProxyPort),
                                              std::move(request), std::chrono::seconds(30));
      co_return 0;
    });
    cluster.simulation.RunFor(std::chrono::seconds(1));
    if (!result->has_value()) return fakes::Response(599, "no answer");
    if (!(*result)->ok()) return fakes::Response(598, (*result)->status().ToString());
    return std::move(**result).value();
  }

  // A statement at the store's prompt.
  std::string Cql(const std::string& statement) {
    std::string out = "no answer";
    cluster.Client("ycqlsh-" + std::to_string(++clients),
                   [&out, statement](cql::CqlSession& session) -> sim::Awaitable<void> {
                     cql::ClientResult result = co_await session.Query(statement);
                     out = result.ok() ? cql::FormatResult(result.result) : result.ToString();
                   });
    cluster.simulation.RunFor(std::chrono::milliseconds(100));
    return out;
  }

  cql::StoreCluster cluster;
  int clients = 0;
};

}  // namespace faultline::models::s3
