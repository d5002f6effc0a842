// The interface every migration policy implements, so that the storage node
// and the scenarios can run golang-migrate, db-init's script, the safe
// runner, or a user's own, interchangeably.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "models/cql/client.h"
#include "models/migrate/cassandra_driver.h"
#include "models/migrate/source.h"
#include "sim/sim.h"

namespace faultline::models::migrate {

// Where a runner writes its log lines (a container's log, a test's vector).
using LogSink = std::function<void(const std::string&)>;

class MigrationRunner {
 public:
  virtual ~MigrationRunner() = default;
  virtual std::string_view name() const = 0;
  // Brings `keyspace` to the source's newest version through `session`:
  // Ok when it is there (nothing to do included), else the error the real
  // tool would report. `owner` names the caller (its container), for
  // runners that take locks.
  virtual sim::Awaitable<sim::Status> Migrate(cql::CqlSession& session, const std::string& keyspace,
                                              const MigrationSource& source,
                                              const std::string& owner, LogSink log) = 0;
  // Every fault site it passes when it migrates `keyspace`, in order.
  virtual std::vector<std::string> FaultSites(const std::string& keyspace) const = 0;
};

// The runner named "golang-migrate", "safe" or "db-init"; nullptr for
// another name. kRunnerNames lists them.
inline constexpr std::string_view kRunnerNames[] = {"golang-migrate", "safe", "db-init"};
std::shared_ptr<MigrationRunner> MakeRunner(std::string_view name);

// golang-migrate v4 with its Cassandra driver, as the seed gateway calls it
// (runMigrations in filecoin-gateway's db/cql): a new session, the driver
// (WithInstance), then Up; "no change" counts as success. As a library it
// logs nothing; its errors carry the caller's words: "create cql migrate
// session: ...", "run cql migrations: ...". The driver's options are the
// image's (multi-statement mode, the version table, a bound session).
class GolangMigrateRunner final : public MigrationRunner {
 public:
  explicit GolangMigrateRunner(CassandraDriver::Options options = {})
      : options_(std::move(options)) {}
  std::string_view name() const override { return "golang-migrate"; }
  const CassandraDriver::Options& options() const { return options_; }
  sim::Awaitable<sim::Status> Migrate(cql::CqlSession& session, const std::string& keyspace,
                                      const MigrationSource& source, const std::string& owner,
                                      LogSink log) override;
  std::vector<std::string> FaultSites(const std::string& keyspace) const override;

 private:
  CassandraDriver::Options options_;
};

// db-init's way as a runner: every statement of every file, in order, each
// error ignored (what exists stays as it is); always reports success.
class DbInitStyleRunner final : public MigrationRunner {
 public:
  std::string_view name() const override { return "db-init"; }
  sim::Awaitable<sim::Status> Migrate(cql::CqlSession& session, const std::string& keyspace,
                                      const MigrationSource& source, const std::string& owner,
                                      LogSink log) override;
  std::vector<std::string> FaultSites(const std::string&) const override { return {}; }
};

// The seed's db-init script: creates the keyspaces, then runs every file's
// statements once, in order, each keyspace's in its own keyspace, ignoring
// every error (what already exists, and anything else), and reports success
// either way. Only an unreachable store makes it fail.
struct DbInitPlan {
  std::vector<std::string> keyspaces;
  std::vector<std::pair<std::string, MigrationSource>> sources;  // (keyspace, files)
};
sim::Awaitable<sim::Status> RunDbInit(cql::CqlSession& session, const DbInitPlan& plan,
                                      LogSink log);

}  // namespace faultline::models::migrate
