#include "models/operator/operator.h"

#include <fmt/format.h>

#include "sim/assert.h"

namespace faultline::models::ops {

void Operator::Record(std::string_view action, std::string_view detail, std::string_view outcome) {
  FL_ASSERT(!action.empty());
  simulation_.Emit("operator.action",
                   {{"action", action}, {"detail", detail}, {"outcome", outcome}});
}

sim::Awaitable<Answer> Operator::Cql(cql::CqlSession& session, std::string statement) {
  cql::ClientResult result;
  co_return co_await Cql(session, std::move(statement), cql::PageRequest(), &result);
}

sim::Awaitable<Answer> Operator::Cql(cql::CqlSession& session, std::string statement,
                                     cql::PageRequest page, cql::ClientResult* result) {
  FL_ASSERT(result != nullptr);
  *result = co_await session.Query(statement, {}, std::move(page));
  std::string outcome = result->ok() ? cql::FormatResult(result->result) : result->ToString();
  Record("cql", statement, result->ok() ? "ok" : outcome);
  co_return Answer(result->ok(), std::move(outcome));
}

sim::Awaitable<Answer> Operator::MigrateForce(cql::CqlSession& shell, std::string keyspace,
                                              std::int64_t version) {
  FL_ASSERT(!keyspace.empty() && version >= -1);  // A version, or -1 for none.
  // Its own session (the driver's USE must not move the shell's), to the
  // same store.
  cql::CqlSession session(runtime_.network(), shell.options());
  migrate::CassandraDriver driver(session, keyspace);
  std::string outcome;
  bool ok = false;
  if (sim::Status opened = co_await driver.Open(); !opened.ok()) {
    outcome = opened.message();
  } else {
    const migrate::MigrationSource none;  // force needs no files.
    migrate::Migrate migrate(none, driver);
    sim::Status forced = co_await migrate.Force(version);
    ok = forced.ok();
    outcome = forced.ok() ? "ok" : forced.message();
  }
  Record("migrate force", fmt::format("{} {}", keyspace, version), outcome);
  co_return Answer(ok, std::move(outcome));
}

sim::Awaitable<Answer> Operator::MigrateVersion(cql::CqlSession& shell, std::string keyspace) {
  cql::CqlSession session(runtime_.network(), shell.options());
  migrate::CassandraDriver driver(session, keyspace);
  std::string outcome;
  bool ok = false;
  if (sim::Status opened = co_await driver.Open(); !opened.ok()) {
    outcome = opened.message();
  } else {
    const migrate::MigrationSource none;
    migrate::Migrate migrate(none, driver);
    sim::Result<migrate::VersionState> version = co_await migrate.Version();
    // Migrate::Version reports nil as "no migration", never as a version.
    FL_ASSERT(!version.ok() || version->version != migrate::kNilVersion);
    ok = version.ok();
    outcome = !version.ok()
                  ? version.status().message()
                  : fmt::format("{}{}", version->version, version->dirty ? " (dirty)" : "");
  }
  Record("migrate version", keyspace, outcome);
  co_return Answer(ok, std::move(outcome));
}

sim::Awaitable<MigrateCliOutcome> Operator::MigrateCli(cql::CqlSession& session,
                                                       std::string keyspace,
                                                       const migrate::MigrationSource& source,
                                                       std::string command_line) {
  MigrateCliOutcome outcome =
      co_await RunMigrateCli(session, keyspace, source, MigrateCliWords(command_line));
  // Go's exit codes: 0, 1 for an error (log.fatal), 2 for a bad flag.
  FL_ASSERT_MSG(outcome.exit_code >= 0 && outcome.exit_code <= 2, "exit {}", outcome.exit_code);
  Record("migrate", fmt::format("{} {}", keyspace, command_line),
         fmt::format("exit {}: {}", outcome.exit_code, outcome.output));
  co_return outcome;
}

sim::Awaitable<Answer> Operator::RecreateKeyspace(cql::CqlSession& session, std::string keyspace) {
  std::vector<cql::Value> values;
  values.push_back(cql::Value::Text(keyspace));
  cql::ClientResult tables = co_await session.Query(
      "SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?", std::move(values));
  std::string outcome = "ok";
  if (!tables.ok()) outcome = tables.ToString();
  for (const cql::Row& row : tables.result.rows) {
    if (outcome != "ok") break;
    FL_ASSERT(row.size() == 1);  // table_name, as selected.
    cql::ClientResult dropped =
        co_await session.Query("DROP TABLE \"" + keyspace + "\".\"" + row.at(0).bytes + "\"");
    if (!dropped.ok()) outcome = dropped.ToString();
  }
  // Two statements, not a braced list: GCC 12 mishandles those in coroutines.
  std::vector<std::string> statements;
  statements.push_back("DROP KEYSPACE IF EXISTS \"" + keyspace + "\"");
  statements.push_back("CREATE KEYSPACE \"" + keyspace + "\"");
  for (const std::string& statement : statements) {
    if (outcome != "ok") break;
    cql::ClientResult result = co_await session.Query(statement);
    if (!result.ok()) outcome = result.ToString();
  }
  Record("recreate keyspace", keyspace, outcome);
  const bool ok = outcome == "ok";
  co_return Answer(ok, std::move(outcome));
}

void Operator::ComposeDown(bool remove_volumes) {
  runtime_.Down(remove_volumes);
  Record(remove_volumes ? "compose down -v" : "compose down", "", "ok");
}

void Operator::Clean() {
  runtime_.CleanHostDirectories();
  Record("clean", "host data directories emptied; named volumes kept", "ok");
}

sim::Status Operator::ComposeUp(const fakes::ComposeSpec& spec) {
  sim::Status status = runtime_.Up(spec);
  Record("compose up", "", status.ok() ? "ok" : status.message());
  return status;
}

sim::Status Operator::SetImage(const std::string& service, const std::string& version) {
  FL_ASSERT_MSG(runtime_.HasContainer(service), "set image of {}, which has no container", service);
  sim::Status status = runtime_.SetImageVersion(service, version);
  Record("set image", fmt::format("{} {}", service, version),
         status.ok() ? "ok" : status.message());
  return status;
}

void Operator::Restart(const std::string& service) {
  FL_ASSERT_MSG(runtime_.HasContainer(service), "restart of {}, which has no container", service);
  runtime_.Restart(service);
  Record("restart", service, "ok");
}

}  // namespace faultline::models::ops
