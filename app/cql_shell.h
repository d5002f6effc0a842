// `faultline cql`: a ycqlsh-like shell on a metadata store, fresh or opened
// from a directory (an exported volume), for looking at what a run left.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace faultline::app {

// Runs the shell with the arguments after `cql`; returns the exit status:
// 0 every statement succeeded, 2 bad input (a flag, a file, a CQL error).
int RunCqlShell(const std::vector<std::string>& args);

// The same shell on a snapshot of a run's store: `database` is the bytes
// of its meta.db (empty: the store had written none yet, so it is fresh).
// It runs `execute` (statements separated by ';') or reads standard input;
// what it changes stays in memory, so the run's store is never touched.
// `keyspace`, when not empty, is a USE first.
int RunCqlShellOnSnapshot(const std::string& database, const std::optional<std::string>& execute,
                          const std::string& keyspace);

}  // namespace faultline::app
