#include "models/migrate/runner.h"
#include "models/migrate/safe_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "models/migrate/cassandra_driver.h"
#include "models/migrate/migrate.h"
#include "sim/assert.h"

namespace faultline::models::migrate {

sim::Awaitable<sim::Status> GolangMigrateRunner::Migrate(cql::CqlSession& session,
                                                         const std::string& keyspace,
                                                         const MigrationSource& source,
                                                         const std::string&, LogSink) {
  const auto wrapped = [](std::string_view what, const sim::Status& status) {
    return sim::Status::FromCode(status.code(), fmt::format("{}: {}", what, status.message()));
  };
  // Named, not a temporary in the co_await: GCC 12 destroys such a
  // temporary twice.
  const std::string bound_to = options_.bound_session ? keyspace : std::string();
  const sim::Status connected = co_await session.Connect(bound_to);
  if (!connected.ok()) co_return wrapped("create cql migrate session", connected);
  CassandraDriver driver(session, keyspace, options_);
  if (sim::Status opened = co_await driver.Open(); !opened.ok()) {
    co_return wrapped("create cql migrations driver", opened);
  }
  migrate::Migrate runner(source, driver);
  sim::Status status = co_await runner.Up();
  if (status.message() == kNoChange) co_return sim::Status::Ok();
  if (!status.ok()) co_return wrapped("run cql migrations", status);
  co_return status;
}

std::vector<std::string> GolangMigrateRunner::FaultSites(const std::string& keyspace) const {
  std::vector<std::string> sites;
  for (const std::string_view point : kGolangMigrateFaultPoints) {
    sites.push_back(fmt::format("migrate.{}.{}", keyspace, point));
  }
  return sites;
}

std::shared_ptr<MigrationRunner> MakeRunner(std::string_view name) {
  std::shared_ptr<MigrationRunner> runner;
  if (name == "golang-migrate") runner = std::make_shared<GolangMigrateRunner>();
  if (name == "safe") runner = std::make_shared<SafeRunner>();
  if (name == "db-init") runner = std::make_shared<DbInitStyleRunner>();
  // A runner made is the one asked for, and is one of kRunnerNames.
  FL_ASSERT_MSG(runner == nullptr || runner->name() == name, "asked for runner {}, made {}", name,
                runner->name());
  FL_ASSERT((runner != nullptr) == (std::find(std::begin(kRunnerNames), std::end(kRunnerNames),
                                              name) != std::end(kRunnerNames)));
  return runner;
}

sim::Awaitable<sim::Status> DbInitStyleRunner::Migrate(cql::CqlSession& session,
                                                       const std::string& keyspace,
                                                       const MigrationSource& source,
                                                       const std::string&, LogSink log) {
  DbInitPlan plan;
  plan.keyspaces.push_back(keyspace);  // db-init's first step: the keyspace.
  plan.sources.emplace_back(keyspace, source);
  co_return co_await RunDbInit(session, plan, std::move(log));
}

namespace {
bool Unreachable(const cql::ClientResult& result) {
  return !result.status.ok();  // No answer from the store at all.
}
}  // namespace

sim::Awaitable<sim::Status> RunDbInit(cql::CqlSession& session, const DbInitPlan& plan,
                                      LogSink log) {
  FL_ASSERT(log);
  for (const std::string& keyspace : plan.keyspaces) {
    cql::ClientResult result =
        co_await session.Query("CREATE KEYSPACE IF NOT EXISTS \"" + keyspace + "\"");
    if (Unreachable(result)) co_return result.status;
    log(fmt::format("db-init: keyspace {} ready", keyspace));
  }
  for (const auto& [keyspace, source] : plan.sources) {
    cql::ClientResult use = co_await session.Query("USE \"" + keyspace + "\"");
    if (Unreachable(use)) co_return use.status;
    if (use.error) {
      // Its files would run in whatever keyspace the session had before.
      log(fmt::format("db-init: keyspace {}: {}; its files are skipped", keyspace,
                      use.error->message));
      continue;
    }
    for (const auto& [version, migration] : source.migrations()) {
      if (!migration.up) continue;
      for (const std::string& piece : SplitStatements(*migration.up)) {
        const std::size_t first = piece.find_first_not_of(" \t\r\n");
        if (first == std::string::npos) continue;
        std::string statement = piece.substr(first);
        while (!statement.empty() && (statement.back() == ';' ||
                                      std::isspace(static_cast<unsigned char>(statement.back())))) {
          statement.pop_back();
        }
        if (statement.empty()) continue;
        FL_ASSERT(statement.back() != ';');
        FL_ASSERT(statement.find_first_of(" \t\r\n") != 0);
        cql::ClientResult result = co_await session.Query(statement);
        if (Unreachable(result)) co_return result.status;
        if (result.error) {
          // The first line: ycqlsh's error would repeat the statement after it.
          log(fmt::format("db-init: {}: ignored: {}", migration.up_name,
                          cql::Headline(result.error->message)));
        }
      }
    }
    log(fmt::format("db-init: keyspace {} initialised", keyspace));
  }
  log("db-init: done");
  co_return sim::Status::Ok();
}

}  // namespace faultline::models::migrate
