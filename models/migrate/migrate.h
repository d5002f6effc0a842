// golang-migrate's Migrate (migrate.go) over the Cassandra driver: up,
// steps, goto, down, force and version, with its exact error texts. Each
// pending migration runs as SetVersion(target, dirty=true), the body,
// SetVersion(target, dirty=false): a failure or crash in between leaves the
// target version recorded dirty, and every later command refuses with
// "Dirty database version N. Fix and force version."
//
// Fault points, besides the driver's: migrate.<keyspace>.before_set_dirty,
// .after_set_dirty, .before_set_clean, .after_set_clean.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/migrate/cassandra_driver.h"
#include "models/migrate/source.h"

namespace faultline::models::migrate {

// golang-migrate's error texts.
inline constexpr const char* kNoChange = "no change";
inline constexpr const char* kNilVersionText = "no migration";
std::string DirtyText(std::int64_t version);

class Migrate {
 public:
  static constexpr int kMaxSteps = 100'000;  // A bound on one command's migrations.

  Migrate(const MigrationSource& source, CassandraDriver& driver)
      : source_(source), driver_(driver) {}

  // m.Log: where a migration that ran is reported, as the CLI's default
  // logger writes it: "<version>/<u|d> <title> (<duration>)\n". Unset (as
  // in a library caller such as the seed gateway), nothing is written.
  void SetLog(std::function<void(const std::string&)> log) { log_ = std::move(log); }

  // Applies every pending up migration; "no change" when there is none.
  sim::Awaitable<sim::Status> Up();
  // n > 0: the next n up migrations; n < 0: the last |n| down migrations.
  sim::Awaitable<sim::Status> Steps(int n);
  // Up or down to `version`, which must exist in the source.
  sim::Awaitable<sim::Status> Goto(std::uint64_t version);
  // Every down migration, to nil version.
  sim::Awaitable<sim::Status> Down();
  // Records `version` clean; runs nothing, checks nothing else.
  sim::Awaitable<sim::Status> Force(std::int64_t version);
  // The recorded version; "no migration" when there is none.
  sim::Awaitable<sim::Result<VersionState>> Version();

 private:
  // One migration to run: its body (none for a missing file) and the
  // version to record.
  struct Step {
    const Migration* migration = nullptr;  // Whose up (or down) file runs.
    bool up = true;
    const std::string* body = nullptr;  // Null when that direction has no file.
    std::int64_t target = kNilVersion;  // The version recorded around it.
    static Step Up(const Migration& migration) {
      return Step{&migration, true, migration.up ? &*migration.up : nullptr,
                  static_cast<std::int64_t>(migration.version)};
    }
    static Step Down(const Migration& migration, std::int64_t target) {
      return Step{&migration, false, migration.down ? &*migration.down : nullptr, target};
    }
  };
  // The migrations to run, and the error to report after them (a short
  // limit), or instead of them (no change, a missing version).
  struct Plan {
    std::vector<Step> steps;
    std::optional<sim::Status> error;
  };
  enum class Command : unsigned char { kUp, kDown, kGoto };

  // Takes the lock, reads the version once, refuses a dirty one, plans from
  // it, runs the plan, and unlocks.
  sim::Awaitable<sim::Status> RunCommand(Command command, int limit, std::int64_t to);
  Plan PlanUp(std::int64_t from, int limit) const;
  Plan PlanDown(std::int64_t from, int limit) const;
  Plan PlanBetween(std::int64_t from, std::int64_t to) const;
  sim::Status VersionExists(std::int64_t version) const;
  sim::Awaitable<sim::Status> RunPlan(Plan plan);
  // One migration: dirty, its body, clean, with the fault points between.
  sim::Awaitable<sim::Status> RunStep(const Step& step);

  const MigrationSource& source_;
  CassandraDriver& driver_;
  std::function<void(const std::string&)> log_;
};

// A duration as Go's time.Duration.String writes it: "1.5ms", "2m3.25s".
std::string GoDuration(sim::Duration duration);

}  // namespace faultline::models::migrate
