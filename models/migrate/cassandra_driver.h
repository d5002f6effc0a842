// golang-migrate's Cassandra driver (database/cassandra), as the seed
// cluster runs it against YCQL: the unqualified version table in the
// session's keyspace, the non-atomic SetVersion (select, delete each row,
// insert), `LIMIT 1` reads with every server error read as version -1, an
// in-process lock only, and multi-statement bodies split on ';' and run one
// by one without a transaction. See ../shared/reference/golang-migrate.md.
//
// Fault points (each a place where a real crash or network failure can
// land), named for the keyspace so that a plan can aim at one service's
// migrations: migrate.<keyspace>.set_version.after_select, .after_delete
// (after each row's delete), .before_insert, and
// migrate.<keyspace>.statement.before / .after around each statement, and
// .version.before before each read of the version.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "models/cql/client.h"
#include "models/migrate/statements.h"
#include "sim/sim.h"

namespace faultline::models::migrate {

// golang-migrate's version: -1 ("nil version") when nothing is recorded.
struct VersionState {
  std::int64_t version = -1;
  bool dirty = false;
  friend bool operator==(const VersionState&, const VersionState&) = default;
};

inline constexpr std::int64_t kNilVersion = -1;

class CassandraDriver {
 public:
  struct Options {
    Options() {}
    std::string migrations_table = "schema_migrations";  // x-migrations-table
    bool multi_statement = true;  // x-multi-statement; the seed cluster runs with it on.
    // Whether the session is bound to the keyspace (gocql's
    // ClusterConfig.Keyspace, as the seed gateway sets it). Unbound, the
    // driver's unqualified statements meet the store's "no keyspace" error.
    bool bound_session = true;
    friend bool operator==(const Options&, const Options&) = default;
  };

  CassandraDriver(cql::CqlSession& session, std::string keyspace, Options options = {})
      : session_(session), keyspace_(std::move(keyspace)), options_(std::move(options)) {}

  // "migrate.<keyspace>.<point>": the fault site of one point, stable for
  // this driver's life (a FaultPoint keeps a view of it).
  const std::string& Site(std::string_view point);

  // WithInstance: `no keyspace provided` without a keyspace; binds the
  // session to it (unless options say the caller's session is unbound),
  // then creates the version table if missing, under the lock.
  sim::Awaitable<sim::Status> Open();

  // The in-process lock: an atomic flag of this driver instance. Two
  // processes never exclude each other.
  sim::Status Lock();
  sim::Status Unlock();

  sim::Awaitable<sim::Result<VersionState>> Version();
  sim::Awaitable<sim::Status> SetVersion(std::int64_t version, bool dirty);
  // Runs a migration body: statement by statement in multi-statement mode,
  // stopping at the first error (earlier statements stay applied).
  sim::Awaitable<sim::Status> Run(std::string body);

  const std::string& keyspace() const { return keyspace_; }
  cql::CqlSession& session() { return session_; }

 private:
  sim::Awaitable<sim::Status> Exec(std::string statement, std::vector<cql::Value> values = {});

  cql::CqlSession& session_;
  std::string keyspace_;
  Options options_;
  bool locked_ = false;
  std::map<std::string, std::string, std::less<>> sites_;
};

// The fault points of golang-migrate with this driver, as Site() names them
// after "migrate.<keyspace>.": Migrate's around SetVersion, the driver's
// inside SetVersion and around each statement. Site() accepts no other, so
// this list is the one source of the sites a scenario may name.
inline constexpr std::string_view kGolangMigrateFaultPoints[] = {
    "before_set_dirty",          "after_set_dirty",
    "before_set_clean",          "after_set_clean",
    "set_version.after_select",  "set_version.after_delete",
    "set_version.before_insert", "statement.before",
    "statement.after",           "version.before"};

}  // namespace faultline::models::migrate
