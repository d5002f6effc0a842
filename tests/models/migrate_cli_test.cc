// golang-migrate's CLI as an operator runs it (models/operator/migrate_cli.h):
// each command's output and exit status, as golang-migrate's
// internal/cli/main.go, commands.go and log.go write them.
#include "models/operator/migrate_cli.h"

#include <gtest/gtest.h>

#include "tests/models/migrate_fixture.h"

namespace faultline::models::ops {
namespace {

using migrate::MigrateWorld;
using migrate::MigrationFile;
using migrate::MigrationSource;

struct Cli {
  Cli() {
    std::vector<MigrationFile> files;
    files.emplace_back("1_a.up.cql", "CREATE TABLE a (k int PRIMARY KEY);");
    files.emplace_back("1_a.down.cql", "DROP TABLE a;");
    files.emplace_back("2_b.up.cql", "CREATE TABLE b (k int PRIMARY KEY);");
    files.emplace_back("2_b.down.cql", "DROP TABLE b;");
    world.source = std::move(MigrationSource::FromFiles(files)).value();
  }
  // "exit N: <output>", or "crashed".
  std::string Run(const std::string& command_line) {
    return world
        .Run([&](cql::CqlSession& session) -> sim::Awaitable<std::string> {
          const MigrateCliOutcome outcome =
              co_await RunMigrateCli(session, "ks", world.source, MigrateCliWords(command_line));
          co_return fmt::format("exit {}: {}", outcome.exit_code, outcome.output);
        })
        .value_or("crashed");
  }
  MigrateWorld world;
};

// Applied migrations are reported as migrate.go's runMigrations writes
// them, "<version>/u <title> (<duration>)"; nothing to do is "no change",
// exit 0 (upCmd prints ErrNoChange with log.Println).
TEST(MigrateCliTest, UpReportsEachMigrationThenNoChange) {
  Cli cli;
  const std::string up = cli.Run("up");
  EXPECT_TRUE(up.starts_with("exit 0: 1/u a (")) << up;
  EXPECT_NE(up.find("ms)\n2/u b ("), std::string::npos) << up;
  EXPECT_EQ(cli.Run("up"), "exit 0: no change\n");
  EXPECT_EQ(cli.Run("version"), "exit 0: 2\n");
}

TEST(MigrateCliTest, DownAsksWithoutNOrAllAndNobodyAnswers) {
  Cli cli;
  cli.Run("up");
  // main.go: the prompt, then log.fatal without "error:".
  EXPECT_EQ(cli.Run("down"),
            "exit 1: Are you sure you want to apply all down migrations? [y/N]\n"
            "Not applying all down migrations\n");
  EXPECT_EQ(cli.Run("down -all 1"), "exit 1: error: -all cannot be used with other arguments\n");
  EXPECT_EQ(cli.Run("down 1 2"), "exit 1: error: too many arguments\n");
  const std::string down = cli.Run("down 1");
  EXPECT_TRUE(down.starts_with("exit 0: 2/d b (")) << down;
  EXPECT_EQ(cli.Run("version"), "exit 0: 1\n");
  EXPECT_TRUE(cli.Run("down -all").starts_with("exit 0: 1/d a (")) << cli.Run("version");
  EXPECT_EQ(cli.Run("version"), "exit 1: error: no migration\n");  // ErrNilVersion.
  EXPECT_EQ(cli.Run("down -all"), "exit 0: no change\n");
}

TEST(MigrateCliTest, GotoAndForceWithTheirArgumentErrors) {
  Cli cli;
  EXPECT_EQ(cli.Run("goto"), "exit 1: error: please specify version argument V\n");
  EXPECT_EQ(cli.Run("goto x"), "exit 1: error: can't read version argument V\n");
  EXPECT_TRUE(cli.Run("goto 2").starts_with("exit 0: 1/u a (")) << cli.Run("version");
  // versionExists logs through m.Log ("error: %v", no line end) before the
  // CLI's own fatalErr: the text comes twice.
  const std::string missing =
      "error: no migration found for version 7: read down for version 7 .: file does not exist";
  EXPECT_EQ(cli.Run("goto 7"), "exit 1: " + missing + missing + "\n");
  // Go's flag package takes "-1" for a flag (exit 2); after "--" it is the value.
  EXPECT_EQ(cli.Run("force -1"),
            "exit 2: flag provided but not defined: -1\nUsage of force:\n  -help\n    \tPrint help "
            "information\n");
  EXPECT_EQ(
      cli.Run("down -2"),
      "exit 2: flag provided but not defined: -2\nUsage of down:\n  -all\n    \tApply all down "
      "migrations\n  -help\n    \tPrint help information\n");
  EXPECT_EQ(cli.Run("force -- -2"), "exit 1: error: argument V must be >= -1\n");
  EXPECT_EQ(cli.Run("force -- -1"), "exit 0: ");  // force prints nothing.
  EXPECT_EQ(cli.Run("version"), "exit 1: error: no migration\n");
  EXPECT_EQ(cli.Run("force 1"), "exit 0: ");
  EXPECT_EQ(cli.Run("version"), "exit 0: 1\n");
}

TEST(MigrateCliTest, ADirtyVersionAndAnUnreachableStore) {
  Cli cli;
  cli.Run("up");
  cli.world.Cql("UPDATE ks.schema_migrations SET dirty = true WHERE version = 2");
  EXPECT_EQ(cli.Run("version"), "exit 0: 2 (dirty)\n");
  EXPECT_EQ(cli.Run("up"), "exit 1: error: Dirty database version 2. Fix and force version.\n");
  cli.world.cluster.runtime.Stop("yugabyte");
  cli.world.cluster.simulation.RunFor(std::chrono::seconds(12));
  // cassandra.Open's CreateSession error, inside migrate.New's words.
  EXPECT_EQ(cli.Run("version"),
            "exit 1: error: failed to open database: gocql: unable to create session: unable to "
            "discover protocol version: dial tcp yugabyte:9042: connect: connection refused\n");
}

TEST(MigrateCliTest, DurationsAreWrittenAsGoWritesThem) {
  using std::chrono::nanoseconds;
  EXPECT_EQ(migrate::GoDuration(nanoseconds(0)), "0s");
  EXPECT_EQ(migrate::GoDuration(nanoseconds(999)), "999ns");
  EXPECT_EQ(migrate::GoDuration(nanoseconds(1'500)), "1.5\u00b5s");
  EXPECT_EQ(migrate::GoDuration(nanoseconds(12'345'600)), "12.3456ms");
  EXPECT_EQ(migrate::GoDuration(nanoseconds(2'000'000'000)), "2s");
  EXPECT_EQ(migrate::GoDuration(nanoseconds(123'250'000'000)), "2m3.25s");
  EXPECT_EQ(migrate::GoDuration(std::chrono::hours(1)), "1h0m0s");
}

}  // namespace
}  // namespace faultline::models::ops
