// check-migrations' config file, so that the CI line stays short: a
// `.faultline.toml` in the migration folder or a folder above it, up to the
// repository's root (the first with a .git), or the file --config names.
// Its [check-migrations] table gives defaults the command line overrides:
//
//   [check-migrations]
//   runner = "golang-migrate"        # safe, db-init, all
//   keyspace = "app"
//   store = "yugabyte"               # cassandra
//   since = "origin/main"            # a version or a git revision
//   fail-on-runner-risks = false
//   ignore = [ { rule = "missing-down", reason = "we never migrate down" },
//              { rule = "not-idempotent", file = "3_tags.up.cql", reason = "..." } ]
//
// Anything else, or a value of the wrong kind, is an error at its place.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenarios/check_migrations/ignores.h"
#include "sim/status.h"

namespace faultline::app {

inline constexpr const char* kCheckConfigName = ".faultline.toml";

struct CheckConfig {
  std::string path;  // Where it was read.
  std::optional<std::string> runner;
  std::optional<std::string> keyspace;
  std::optional<std::string> store;
  std::optional<std::string> since;
  std::optional<bool> fail_on_runner_risks;
  std::vector<scenarios::Ignore> ignores;  // Each covers its file, or the folder.
};

// The config `explicit_path` names, or else the one found above `folder`;
// nullopt when there is none. An error says where: "path:line:col: what".
sim::Result<std::optional<CheckConfig>> ReadCheckConfig(const std::string& folder,
                                                        const std::string& explicit_path);

}  // namespace faultline::app
