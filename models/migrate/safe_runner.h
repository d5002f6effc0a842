// The safe runner: what golang-migrate's failures suggest a runner should
// do. It is the fix the scenarios contrast with the seed's tools.
// - A real cross-process lock: a lease row taken with a lightweight
//   transaction (INSERT ... IF NOT EXISTS USING TTL), so two services never
//   migrate one keyspace at once, and a crashed holder's lease expires. The
//   holder itself may take its lease back after a restart: its own token, or
//   a token of an earlier incarnation of its container (whose process is
//   dead) is taken over at once instead of waited out.
// - Progress per statement (faultline_migrations: version, checksum,
//   statements done, complete): a crashed migration resumes at the first
//   statement not recorded, tolerating "already exists" for that one
//   statement (it may have run just before the crash).
// - Checksums of applied files: an edited, already-applied migration is
//   refused, as Flyway does.
// - A start-up schema check: the live columns (system_schema.columns) must
//   be those the migrations define, or it refuses with a readable diff.
//
// Fault points, named for the keyspace: safe.<keyspace>.lock.after,
// .statement.before, .statement.after (before its progress is recorded),
// .progress.after.
#pragma once

#include "models/migrate/runner.h"

namespace faultline::models::migrate {

class SafeRunner final : public MigrationRunner {
 public:
  struct Options {
    Options() {}
    sim::Duration lease = std::chrono::seconds(30);
    sim::Duration lock_retry = std::chrono::seconds(1);
    int lock_attempts = 120;
  };
  explicit SafeRunner(Options options = {}) : options_(options) {}

  // Its fault points, after "safe.<keyspace>.".
  static constexpr std::string_view kFaultPoints[] = {"lock.after", "statement.before",
                                                      "statement.after", "progress.after"};

  std::string_view name() const override { return "safe"; }
  std::vector<std::string> FaultSites(const std::string& keyspace) const override;
  sim::Awaitable<sim::Status> Migrate(cql::CqlSession& session, const std::string& keyspace,
                                      const MigrationSource& source, const std::string& owner,
                                      LogSink log) override;

 private:
  Options options_;
};

// A migration body's checksum (FNV-1a, hex): stable across runs and hosts.
std::string Checksum(std::string_view body);

}  // namespace faultline::models::migrate
