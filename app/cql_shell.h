// The ycqlsh-like shell of `faultline cql` and `faultline shell --at`:
// statements run on a store's engine, answered as ycqlsh answers them.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "models/cql/engine.h"

namespace faultline::app {

// What a session runs: a USE first, then statements from -e (separated by
// ';'; HELP and EXIT too), or a script (its name for errors, and its
// text), or, with neither, standard input (a prompt on a terminal).
struct ShellInput {
  std::string keyspace;
  std::optional<std::string> execute;
  std::optional<std::pair<std::string, std::string>> script;
};

// Runs one session; false at the first error (printed on standard error,
// with where the statement came from), except at a terminal's prompt.
bool RunShellSession(models::cql::Engine& engine, const ShellInput& input);

}  // namespace faultline::app
