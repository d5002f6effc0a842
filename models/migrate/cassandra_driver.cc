#include "models/migrate/cassandra_driver.h"

#include <algorithm>

#include "models/cql/parser.h"
#include "sim/assert.h"

#include <fmt/format.h>

namespace faultline::models::migrate {
namespace {

// What the driver sees of a failed call: the server's message, or the
// transport's error.
std::string Cause(const cql::ClientResult& result) {
  if (result.error) return result.error->message;
  return result.status.message();
}

// database.Error without a description: "<cause> in line 0: <query>".
std::string QueryErrorText(std::string_view query, std::string_view cause) {
  return fmt::format("{} in line 0: {}", cause, query);
}

}  // namespace

sim::Awaitable<sim::Status> CassandraDriver::Exec(std::string statement,
                                                  std::vector<cql::Value> values) {
  FL_ASSERT(!statement.empty());
  cql::ClientResult result = co_await session_.Query(statement, std::move(values));
  if (result.ok()) co_return sim::Status::Ok();
  co_return sim::Status::Internal(QueryErrorText(statement, Cause(result)));
}

sim::Awaitable<sim::Status> CassandraDriver::Open() {
  if (keyspace_.empty()) co_return sim::Status::InvalidArgument("no keyspace provided");
  // gocql binds the session with USE when it connects.
  if (options_.bound_session) {
    cql::ClientResult use = co_await session_.Query("USE \"" + keyspace_ + "\"");
    if (!use.ok()) co_return sim::Status::Unavailable(Cause(use));
  }
  if (sim::Status status = Lock(); !status.ok()) co_return status;
  cql::ClientResult create = co_await session_.Query(
      fmt::format("CREATE TABLE IF NOT EXISTS {} (version bigint, dirty boolean, PRIMARY "
                  "KEY(version))",
                  options_.migrations_table));
  sim::Status status = sim::Status::Ok();
  if (!create.ok()) {
    status = sim::Status::Internal(Cause(create));
  } else if (sim::Result<VersionState> version = co_await Version(); !version.ok()) {
    status = version.status();
  }
  (void)Unlock();
  FL_ASSERT(!locked_);
  co_return status;
}

const std::string& CassandraDriver::Site(std::string_view point) {
  auto found = sites_.find(point);
  if (found == sites_.end()) {
    FL_ASSERT_MSG(
        std::find(std::begin(kGolangMigrateFaultPoints), std::end(kGolangMigrateFaultPoints),
                  point) != std::end(kGolangMigrateFaultPoints),
        "fault point {} is not in kGolangMigrateFaultPoints", point);
    found =
        sites_.emplace(std::string(point), fmt::format("migrate.{}.{}", keyspace_, point)).first;
  }
  return found->second;
}

sim::Status CassandraDriver::Lock() {
  if (locked_) return sim::Status::Unavailable("can't acquire lock");
  locked_ = true;
  return sim::Status::Ok();
}

sim::Status CassandraDriver::Unlock() {
  if (!locked_) return sim::Status::Internal("can't unlock, as not currently locked");
  locked_ = false;
  return sim::Status::Ok();
}

sim::Awaitable<sim::Result<VersionState>> CassandraDriver::Version() {
  const std::string query =
      fmt::format("SELECT version, dirty FROM \"{}\" LIMIT 1", options_.migrations_table);
  // Where a crash, or a hold before the read goes out, can land.
  if (sim::Status fault = co_await sim::FaultPoint(Site("version.before")); !fault.ok()) {
    co_return sim::Status::FromCode(fault.code(), QueryErrorText(query, fault.message()));
  }
  cql::ClientResult result = co_await session_.Query(query);
  // golang-migrate v4 database/cassandra/cassandra.go Version(): ErrNotFound
  // (no row) is the nil version; every other error comes back as
  // database.Error{OrigErr, Query}: "<message> in line 0: <query>". Its
  // branch that reads a *gocql.Error as nil is dead: gocql declares Error
  // (session.go) but never makes one, so server errors are returned too.
  if (result.error) co_return sim::Status::Internal(QueryErrorText(query, Cause(result)));
  if (!result.status.ok()) {
    co_return sim::Status::Unavailable(QueryErrorText(query, Cause(result)));
  }
  if (result.result.rows.empty()) co_return VersionState{};
  const cql::Row& row = result.result.rows.front();
  co_return VersionState{row.at(0).integer, row.at(1).integer != 0};
}

sim::Awaitable<sim::Status> CassandraDriver::SetVersion(std::int64_t version, bool dirty) {
  const std::string select = fmt::format("SELECT version FROM \"{}\"", options_.migrations_table);
  const std::string erase =
      fmt::format("DELETE FROM \"{}\" WHERE version = ?", options_.migrations_table);
  cql::ClientResult rows = co_await session_.Query(select);
  if (!rows.ok()) co_return sim::Status::Internal(QueryErrorText(select, Cause(rows)));
  if (sim::Status fault = co_await sim::FaultPoint(Site("set_version.after_select")); !fault.ok()) {
    co_return fault;
  }
  for (const cql::Row& row : rows.result.rows) {
    std::vector<cql::Value> key;
    key.push_back(row.at(0));
    if (sim::Status status = co_await Exec(erase, std::move(key)); !status.ok()) co_return status;
    if (sim::Status fault = co_await sim::FaultPoint(Site("set_version.after_delete"));
        !fault.ok()) {
      co_return fault;
    }
  }
  // golang-migrate also writes -1 when dirty (issue 330): a failed first down.
  if (version >= 0 || (version == kNilVersion && dirty)) {
    if (sim::Status fault = co_await sim::FaultPoint(Site("set_version.before_insert"));
        !fault.ok()) {
      co_return fault;
    }
    std::vector<cql::Value> values;
    values.push_back(cql::Value::Int(version));
    values.push_back(cql::Value::Bool(dirty));
    co_return co_await Exec(
        fmt::format("INSERT INTO \"{}\" (version, dirty) VALUES (?, ?)", options_.migrations_table),
        std::move(values));
  }
  co_return sim::Status::Ok();
}

sim::Awaitable<sim::Status> CassandraDriver::Run(std::string body) {
  std::vector<std::string> statements;
  if (options_.multi_statement) {
    statements = SplitStatements(body);
  } else {
    statements.push_back(std::move(body));
  }
  for (const std::string& piece : statements) {
    const std::string statement = Trimmed(piece);
    if (statement.empty()) continue;
    // An injected error is the statement's error, as Run reports any:
    // database.Error{Err: "migration failed", Query, OrigErr} (before: it
    // never ran; after: it ran, and its answer was lost, e.g. a timeout).
    if (sim::Status fault = co_await sim::FaultPoint(Site("statement.before")); !fault.ok()) {
      co_return sim::Status::FromCode(
          fault.code(), DatabaseErrorText("migration failed", piece, fault.message()));
    }
    cql::ClientResult result = co_await session_.Query(statement);
    if (!result.ok()) {
      co_return sim::Status::Internal(DatabaseErrorText("migration failed", piece, Cause(result)));
    }
    if (sim::Status fault = co_await sim::FaultPoint(Site("statement.after")); !fault.ok()) {
      co_return sim::Status::FromCode(
          fault.code(), DatabaseErrorText("migration failed", piece, fault.message()));
    }
  }
  co_return sim::Status::Ok();
}

}  // namespace faultline::models::migrate
