// The CQL parser: text in, statements or the first syntax error out. Errors
// carry YCQL's wording and the offending token's position, never a crash.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/cql/ast.h"

namespace faultline::models::cql {

struct ParseError {
  Position position;
  std::string message;  // "Invalid SQL Statement. syntax error, unexpected 'FROM', expecting ..."
};

struct ParseResult {
  std::vector<ParsedStatement> statements;
  std::optional<ParseError> error;
};

// Parses one or more statements separated by ';' (empty statements are
// skipped). On an error, `statements` holds those parsed before it.
ParseResult Parse(std::string_view text);

// A type name alone ("map<text, bigint>"), or nullopt when it is not one.
std::optional<TypeName> ParseTypeName(std::string_view text);

// The error as ycqlsh shows it: the message, the offending line of `text`,
// and a caret under the token.
std::string FormatError(std::string_view text, const ParseError& error);

}  // namespace faultline::models::cql
