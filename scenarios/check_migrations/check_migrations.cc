// check-migrations' entry points (check_migrations.h) over the checker
// (checker.h).
#include "scenarios/check_migrations/check_migrations.h"

#include "models/migrate/runner.h"
#include "scenarios/check_migrations/checker.h"
#include "sim/assert.h"

namespace faultline::scenarios {

using check::Checker;

PlayedShard PlayShard(const MigrationCheckOptions& options) {
  for (const std::string& runner : options.runners) {
    FL_ASSERT_MSG(models::migrate::MakeRunner(runner) != nullptr, "runner {}", runner);
  }
  FL_ASSERT(options.shard.count >= 1 && options.shard.index < options.shard.count);
  return Checker(options).PlayShard();
}

MigrationCheckReport ReportOf(const MigrationCheckOptions& options,
                              const std::vector<PlayedShard>& shards,
                              const std::vector<ReproMade>* made) {
  return Checker(options).ReportOf(shards, made);
}

std::vector<ReproMade> MakeRepros(const MigrationCheckOptions& options,
                                  const std::vector<PlayedShard>& shards,
                                  MigrationCheckOptions::Shard shard) {
  FL_ASSERT(shard.count >= 1 && shard.index < shard.count);
  return Checker(options).MakeRepros(shards, shard);
}

MigrationCheckReport CheckMigrations(const MigrationCheckOptions& options) {
  FL_ASSERT(options.shard.count == 1);
  return ReportOf(options, {PlayShard(options)}, nullptr);
}

}  // namespace faultline::scenarios
