// A store cluster plus helpers to run migration commands in client
// processes and look at the result, for the migration runner tests.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>

#include "models/migrate/cassandra_driver.h"
#include "models/migrate/migrate.h"
#include "models/migrate/runner.h"
#include "models/migrate/source.h"
#include "tests/models/cql_cluster_fixture.h"

namespace faultline::models::migrate {

// The three-file migration the crash tests use.
inline MigrationSource ThreeFiles() {
  std::vector<MigrationFile> files;
  files.emplace_back("1_create_a.up.cql", "CREATE TABLE a (k int PRIMARY KEY);");
  files.emplace_back("1_create_a.down.cql", "DROP TABLE a;");
  files.emplace_back("2_create_b_c.up.cql",
                     "CREATE TABLE b (k int PRIMARY KEY);\nCREATE TABLE c (k int PRIMARY KEY);");
  files.emplace_back("2_create_b_c.down.cql", "DROP TABLE c; DROP TABLE b;");
  files.emplace_back("3_add_node_id.up.cql", "ALTER TABLE a ADD node_id text;");
  files.emplace_back("3_add_node_id.down.cql", "ALTER TABLE a DROP node_id;");
  sim::Result<MigrationSource> source = MigrationSource::FromFiles(files);
  EXPECT_TRUE(source.ok()) << source.status().ToString();
  return source.ok() ? std::move(source).value() : MigrationSource();
}

inline std::string Describe(const sim::Status& status) {
  return status.ok() ? "ok" : status.message();
}

struct MigrateWorld {
  explicit MigrateWorld(sim::SimulationOptions options = {}) : cluster(std::move(options)) {
    cluster.Up();
    Cql("CREATE KEYSPACE IF NOT EXISTS ks");
  }

  // Runs `body` in a new process named `host`, lets the world run `for`, and
  // returns what the body returned, or nullopt if its process died first.
  std::optional<std::string> Run(std::function<sim::Awaitable<std::string>(cql::CqlSession&)> body,
                                 sim::Duration run_for = std::chrono::seconds(5),
                                 std::string host = "") {
    if (host.empty()) host = "runner-" + std::to_string(++processes);
    auto result = std::make_shared<std::optional<std::string>>();
    cluster.Client(
        host, [body = std::move(body), result](cql::CqlSession& session) -> sim::Awaitable<void> {
          *result = co_await body(session);
        });
    cluster.simulation.RunFor(run_for);
    return *result;
  }

  // A golang-migrate command on keyspace ks: its outcome, or nullopt on a crash.
  std::optional<std::string> Command(std::function<sim::Awaitable<sim::Status>(Migrate&)> command) {
    return Run([this, command](cql::CqlSession& session) -> sim::Awaitable<std::string> {
      CassandraDriver driver(session, "ks");
      if (sim::Status opened = co_await driver.Open(); !opened.ok()) co_return Describe(opened);
      Migrate migrate(source, driver);
      co_return Describe(co_await command(migrate));
    });
  }
  std::optional<std::string> Up() {
    return Command([](Migrate& m) -> sim::Awaitable<sim::Status> { co_return co_await m.Up(); });
  }

  // A statement at a ycqlsh prompt: the formatted result or the error's
  // headline (without the statement and carets YCQL sends after it).
  std::string Cql(const std::string& statement) {
    std::optional<std::string> out =
        Run([statement](cql::CqlSession& session) -> sim::Awaitable<std::string> {
          cql::ClientResult result = co_await session.Query(statement);
          if (!result.ok()) co_return std::string(cql::Headline(result.ToString()));
          co_return cql::FormatResult(result.result);
        });
    return out.value_or("crashed");
  }
  // The version table's rows, "version dirty" per row, in key order.
  std::string VersionRows() {
    std::string rows = Cql("SELECT version, dirty FROM ks.schema_migrations");
    return rows;
  }

  cql::StoreCluster cluster;
  MigrationSource source = ThreeFiles();
  int processes = 0;
};

}  // namespace faultline::models::migrate
