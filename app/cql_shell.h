// `faultline cql`: a ycqlsh-like shell on a metadata store, fresh or opened
// from a directory (an exported volume), for looking at what a run left.
#pragma once

#include <optional>
#include <string>

namespace faultline::app {

// The same shell on a snapshot of a run's store: `database` is the bytes
// of its meta.db (empty: the store had written none yet, so it is fresh).
// It runs `execute` (statements separated by ';') or reads standard input;
// what it changes stays in memory, so the run's store is never touched.
// `keyspace`, when not empty, is a USE first.
int RunCqlShellOnSnapshot(const std::string& database, const std::optional<std::string>& execute,
                          const std::string& keyspace);

}  // namespace faultline::app
