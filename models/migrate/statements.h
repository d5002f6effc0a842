// A migration file's text as golang-migrate handles it, with nothing of a
// session: its multi-statement splitting, trimming, its error text, and the
// first piece the store's parser refuses. Pure functions (the lint and its
// fuzz target use them without the simulator).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/cql/catalog.h"

namespace faultline::models::migrate {

// golang-migrate's database.Error text: "<what> in line 0: <query> (details: <cause>)".
std::string DatabaseErrorText(std::string_view what, std::string_view query,
                              std::string_view cause);

// The bodies' statements as multistmt.Parse splits them: on every ';' (even
// one inside a string literal), each piece keeping its ';'; blank pieces are
// dropped by the caller.
std::vector<std::string> SplitStatements(std::string_view body);

// `text` without the spaces, tabs and line ends around it, nor (at its end)
// any of `also_at_the_end` ("; " for a statement's terminator).
std::string Trimmed(std::string_view text, std::string_view also_at_the_end = {});

// The statements of a body: SplitStatements' pieces that hold more than
// space (the piece after the last ';' is blank).
std::size_t StatementCount(std::string_view body);

// The first statement of `body`, as SplitStatements cuts it and the store
// would parse it, that is not CQL: where in `body` (line and column from 1)
// and the store's message. For catching a broken migration file when it is
// read instead of when a node runs it. With `dialect`, what that store's
// grammar alone refuses (YCQL's reserved names, Cassandra's ADD IF NOT
// EXISTS taken by YCQL's parser as a syntax error) is one too.
struct BodySyntaxError {
  int line = 1;
  int column = 1;
  std::string message;
};
std::optional<BodySyntaxError> FindSyntaxError(std::string_view body,
                                               std::optional<cql::Dialect> dialect = {});

}  // namespace faultline::models::migrate
