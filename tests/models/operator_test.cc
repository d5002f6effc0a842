// The operator's actions on the seed gateway, as the seed stories took them.
#include "models/operator/operator.h"

#include <gtest/gtest.h>

#include "tests/models/gateway_fixture.h"

namespace faultline::models::ops {
namespace {

using s3::Gateway;
using sim::Awaitable;

struct OperatorWorld {
  OperatorWorld() { gateway.Up(); }

  // Runs one operator coroutine from the operator's host; returns its text.
  std::string Do(std::function<Awaitable<std::string>(Operator&, cql::CqlSession&)> action,
                 sim::Duration run_for = std::chrono::seconds(1)) {
    std::string out = "no answer";
    gateway.cluster.Client("operator-" + std::to_string(++actions),
                           [&, action](cql::CqlSession& session) -> Awaitable<void> {
                             out = co_await action(op, session);
                           });
    gateway.cluster.simulation.RunFor(run_for);
    return out;
  }

  Gateway gateway;
  Operator op{gateway.cluster.simulation, gateway.cluster.runtime};
  int actions = 0;
};

TEST(OperatorTest, ClearingTheFlagInTheWrongKeyspaceChangesNothing) {
  OperatorWorld world;
  world.gateway.Cql(
      "UPDATE filecoingw_kuri1.schema_migrations SET dirty = true WHERE version = 1754293669");
  EXPECT_EQ(world.Do([](Operator& op, cql::CqlSession& s) -> Awaitable<std::string> {
    co_return (co_await op.MigrateVersion(s, "filecoingw_kuri1")).output;
  }),
            "1754293669 (dirty)");
  // Seed 003: the flag cleared in filecoingw_s3, which kuri-1 does not read.
  world.Do([](Operator& op, cql::CqlSession& s) -> Awaitable<std::string> {
    co_return (
        co_await op.Cql(
            s,
            "UPDATE filecoingw_s3.schema_migrations SET dirty = false WHERE version = 1756300000"))
        .output;
  });
  EXPECT_EQ(world.Do([](Operator& op, cql::CqlSession& s) -> Awaitable<std::string> {
    co_return (co_await op.MigrateVersion(s, "filecoingw_kuri1")).output;
  }),
            "1754293669 (dirty)");
  // Three version tables, one per service.
  EXPECT_EQ(world.gateway.Cql("SELECT keyspace_name FROM system_schema.tables WHERE table_name "
                              "= 'schema_migrations' ALLOW FILTERING"),
            "    keyspace_name\n------------------\n filecoingw_kuri1\n filecoingw_kuri2\n"
            "    filecoingw_s3\n\n(3 rows)\n");
}

TEST(OperatorTest, ForceAndRecreateKeyspaceBringTheNodeBack) {
  OperatorWorld world;
  world.gateway.Cql(
      "UPDATE filecoingw_kuri1.schema_migrations SET dirty = true WHERE version = 1754293669");
  world.op.Restart("kuri-1");
  world.gateway.cluster.simulation.RunFor(std::chrono::seconds(30));
  // force V-1 (nil: -1) makes the next start re-run 1754293669, whose plain
  // CREATE TABLE statements meet the tables it made: Duplicate Object.
  EXPECT_EQ(world.Do([](Operator& op, cql::CqlSession& s) -> Awaitable<std::string> {
    co_return (co_await op.MigrateForce(s, "filecoingw_kuri1", -1)).output;
  }),
            "ok");
  world.op.Restart("kuri-1");
  // The start-up retry is silent until its 30 attempts (about 7 minutes) end,
  // and keeps only the last error: the first attempt met Duplicate Object and
  // left the version dirty, so the log says "Dirty" and nothing else.
  world.gateway.cluster.simulation.RunFor(std::chrono::minutes(8));
  const std::vector<std::string> logs = world.gateway.cluster.runtime.Logs("kuri-1");
  EXPECT_NE(std::find_if(logs.begin(), logs.end(),
                         [](const std::string& line) {
                           return line.ends_with(
                               "initialize yugabyte cql after 30 attempts: run cql migrations: "
                               "Dirty database version 1754293669. Fix and force version.");
                         }),
            logs.end());
  EXPECT_EQ(std::find_if(logs.begin(), logs.end(),
                         [](const std::string& line) {
                           return line.find("Duplicate Object") != std::string::npos;
                         }),
            logs.end());
  // Seed 002's way out: drop and re-create the keyspace; the node then starts.
  EXPECT_EQ(world.Do([](Operator& op, cql::CqlSession& s) -> Awaitable<std::string> {
    co_return (co_await op.RecreateKeyspace(s, "filecoingw_kuri1")).output;
  }),
            "ok");
  world.op.Restart("kuri-1");
  world.gateway.cluster.simulation.RunFor(std::chrono::seconds(30));
  EXPECT_EQ(world.gateway.cluster.runtime.Logs("kuri-1").back(),
            "kuri-1  | node kuri-1 serving S3 on port 7001");
}

TEST(OperatorTest, MigrateActionsLeaveThePromptsKeyspaceAlone) {
  OperatorWorld world;
  EXPECT_EQ(world.Do([](Operator& op, cql::CqlSession& s) -> Awaitable<std::string> {
    co_await op.Cql(s, "USE filecoingw_s3");
    co_await op.MigrateVersion(s, "filecoingw_kuri1");
    co_await op.MigrateForce(s, "filecoingw_kuri2", 1754293669);
    co_return s.keyspace();
  }),
            "filecoingw_s3");
}

TEST(OperatorTest, EveryActionIsInTheTrace) {
  OperatorWorld world;
  sim::RingSink events(10'000);
  world.gateway.cluster.simulation.trace().AddSink(&events);
  world.op.Clean();
  world.Do([](Operator& op, cql::CqlSession& s) -> Awaitable<std::string> {
    co_return (co_await op.Cql(s, "SELECT nope FROM filecoingw_s3.s3objects")).output;
  });
  world.gateway.cluster.simulation.trace().RemoveSink(&events);
  std::vector<std::string> seen;
  for (const sim::TraceEvent& event : events.Events()) {
    if (event.name == "operator.action") {
      seen.push_back(event.Find("action")->AsString() + ": " + event.Find("outcome")->AsString());
    }
  }
  EXPECT_EQ(seen,
            (std::vector<std::string>{"clean: ok",
                                      "cql: Undefined Column. Column doesn't exist\nSELECT nope "
                                      "FROM filecoingw_s3.s3objects\n       ^^^^\n (ql error "
                                      "-203)"}));
}

}  // namespace
}  // namespace faultline::models::ops
