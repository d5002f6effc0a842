// The operator: the actions people took in the seed stories, as operations
// a scenario performs, each recorded in the trace as "operator.action" with
// what was done and what came back.
// - Cql: a statement at a ycqlsh prompt on the store.
// - MigrateForce / MigrateVersion: golang-migrate's CLI on one keyspace.
// - RecreateKeyspace: drop every table and the keyspace, create it again.
// - ComposeDown (-v), Clean (--clean), ComposeUp, SetImage, Restart.
// The CQL and migrate actions are coroutines run in a process of the
// caller's (the operator's host); the compose actions act on the runtime.
#pragma once

#include <string>
#include <utility>

#include "fakes/runtime.h"
#include "models/cql/client.h"
#include "models/migrate/migrate.h"
#include "models/operator/migrate_cli.h"

namespace faultline::models::ops {

// What an operator's action came back with: whether it succeeded, and what
// a person reads (the formatted result, or the error). A constructor, not
// braces: GCC 12 copies a braced aggregate of strings bitwise inside a
// co_await expression (docs/ARCHITECTURE.md).
struct Answer {
  Answer(bool ok_, std::string output_) : ok(ok_), output(std::move(output_)) {}
  bool ok;
  std::string output;
};

class Operator {
 public:
  Operator(sim::Simulation& simulation, fakes::Runtime& runtime)
      : simulation_(simulation), runtime_(runtime) {}

  // The migrate actions open their own connection, as the migrate CLI does:
  // the session passed in only names where they run from (its keyspace is
  // left as it was).

  // Each answers whether it succeeded and what a person would read.
  sim::Awaitable<Answer> Cql(cql::CqlSession& session, std::string statement);
  // The same with a driver's paging; `*result` is the store's whole answer.
  sim::Awaitable<Answer> Cql(cql::CqlSession& session, std::string statement, cql::PageRequest page,
                             cql::ClientResult* result);
  sim::Awaitable<Answer> MigrateForce(cql::CqlSession& session, std::string keyspace,
                                      std::int64_t version);
  sim::Awaitable<Answer> MigrateVersion(cql::CqlSession& session, std::string keyspace);
  // The whole migrate CLI (migrate_cli.h): `command_line` such as "goto 3"
  // on `keyspace` with `source` as its -path.
  sim::Awaitable<MigrateCliOutcome> MigrateCli(cql::CqlSession& session, std::string keyspace,
                                               const migrate::MigrationSource& source,
                                               std::string command_line);
  sim::Awaitable<Answer> RecreateKeyspace(cql::CqlSession& session, std::string keyspace);

  void ComposeDown(bool remove_volumes);
  void Clean();
  sim::Status ComposeUp(const fakes::ComposeSpec& spec);
  sim::Status SetImage(const std::string& service, const std::string& version);
  void Restart(const std::string& service);

 private:
  void Record(std::string_view action, std::string_view detail, std::string_view outcome);

  sim::Simulation& simulation_;
  fakes::Runtime& runtime_;
};

}  // namespace faultline::models::ops
