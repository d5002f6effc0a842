// golang-migrate's command-line tool, as an operator runs it against one
// keyspace: `migrate -path DIR -database cassandra://HOST:9042/KEYSPACE
// <command>`, with the commands of internal/cli/main.go (up [N], down [N],
// down -all, goto V, force V, version) and what it writes and exits with.
// Everything goes to standard error (internal/cli/log.go); errors are
// "error: <err>" and exit 1; Go's flag parsing takes "-1" for a flag and
// exits 2; `down` with neither N nor -all asks for a confirmation, which an
// unattended run never gives.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/cql/client.h"
#include "models/migrate/source.h"

namespace faultline::models::ops {

struct MigrateCliOutcome {
  int exit_code = 0;
  std::string output;  // Its standard error; it writes nothing to standard output.
};

// The commands it knows, for checking a scenario's step when it is read.
inline constexpr std::string_view kMigrateCliCommands[] = {"up", "down", "goto", "force",
                                                           "version"};
bool IsMigrateCliCommand(std::string_view command);

// Splits "goto 3" into its words (on spaces).
std::vector<std::string> MigrateCliWords(std::string_view command_line);

// Runs `words` (the command and its arguments) on `keyspace` through a new
// connection to the store `session` points at, with `source` as -path.
// REQUIRES: words is not empty and names a known command.
sim::Awaitable<MigrateCliOutcome> RunMigrateCli(cql::CqlSession& session, std::string keyspace,
                                                const migrate::MigrationSource& source,
                                                std::vector<std::string> words);

}  // namespace faultline::models::ops
