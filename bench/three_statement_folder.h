// The folder issue #26 measures check-migrations and migrating on: N
// golang-migrate files of three statements each (a table, a column added to
// it, a row), with a down file each when asked.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/migrate/source.h"

namespace faultline::bench {

inline std::vector<models::migrate::MigrationFile> ThreeStatementFolder(int files, bool downs) {
  std::vector<models::migrate::MigrationFile> folder;
  for (int i = 1; i <= files; ++i) {
    folder.emplace_back(
        fmt::format("{:05}_t{}.up.cql", i, i),
        fmt::format("CREATE TABLE IF NOT EXISTS t{0} (id text PRIMARY KEY, v int);\n"
                    "ALTER TABLE t{0} ADD extra text;\n"
                    "INSERT INTO t{0} (id, v) VALUES ('a', {0});\n",
                    i));
    if (downs) {
      folder.emplace_back(fmt::format("{:05}_t{}.down.cql", i, i),
                          fmt::format("DROP TABLE IF EXISTS t{};\n", i));
    }
  }
  return folder;
}

}  // namespace faultline::bench
