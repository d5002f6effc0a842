#include "models/migrate/statements.h"

#include <fmt/format.h>

#include <algorithm>

#include "models/cql/parser.h"
#include "sim/assert.h"

namespace faultline::models::migrate {

std::string DatabaseErrorText(std::string_view what, std::string_view query,
                              std::string_view cause) {
  return fmt::format("{} in line 0: {} (details: {})", what, query, cause);
}

std::vector<std::string> SplitStatements(std::string_view body) {
  std::vector<std::string> pieces;
  constexpr std::size_t kMaxStatements = 100'000;
  while (!body.empty()) {
    // Past the bound the rest is one piece: it fails as a statement instead
    // of being dropped unseen.
    const std::size_t end = pieces.size() + 1 < kMaxStatements ? body.find(';') : body.npos;
    const std::size_t length = end == std::string_view::npos ? body.size() : end + 1;
    FL_ASSERT(length > 0);
    pieces.emplace_back(body.substr(0, length));
    body.remove_prefix(length);
  }
  FL_ASSERT_MSG(pieces.size() <= kMaxStatements, "{} pieces, past the bound of {}", pieces.size(),
                kMaxStatements);
  return pieces;
}

std::string Trimmed(std::string_view text, std::string_view also_at_the_end) {
  constexpr std::string_view kSpace = " \t\r\n";
  const std::size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  std::string end(kSpace);
  end += also_at_the_end;
  const std::size_t last = text.find_last_not_of(end);
  if (last == std::string_view::npos || last < first) return {};
  FL_ASSERT(last < text.size());
  std::string trimmed(text.substr(first, last - first + 1));
  FL_ASSERT(!trimmed.empty());
  FL_ASSERT(kSpace.find(trimmed.front()) == std::string_view::npos);
  return trimmed;
}

namespace {

// The error at byte `offset` of `piece`, which starts at byte `start` of
// `body`: its line and column in the body.
BodySyntaxError ErrorAt(std::string_view body, std::size_t start, std::string_view piece,
                        std::size_t offset, std::string message) {
  const std::size_t at = start + std::min(offset, piece.size());
  FL_ASSERT_MSG(at <= body.size(), "error at {} in a body of {} bytes", at, body.size());
  BodySyntaxError error{1, 1, std::move(message)};
  for (std::size_t i = 0; i < at; ++i) {
    error.column = body[i] == '\n' ? 1 : error.column + 1;
    error.line += body[i] == '\n' ? 1 : 0;
  }
  return error;
}

// What only `dialect`'s grammar refuses of a statement both parse.
const std::optional<cql::ParsedStatement::DialectError>& RefusedBy(
    const cql::ParsedStatement& statement, cql::Dialect dialect) {
  return dialect == cql::Dialect::kYcql ? statement.ycql_error : statement.cassandra_error;
}

}  // namespace

std::optional<BodySyntaxError> FindSyntaxError(std::string_view body,
                                               std::optional<cql::Dialect> dialect) {
  std::size_t start = 0;
  for (const std::string& piece : SplitStatements(body)) {
    const cql::ParseResult parsed = cql::Parse(piece);
    if (parsed.error) {
      return ErrorAt(body, start, piece, parsed.error->position.offset, parsed.error->message);
    }
    for (const cql::ParsedStatement& statement : parsed.statements) {
      if (!dialect) break;  // What neither grammar takes only.
      if (const auto& refused = RefusedBy(statement, *dialect)) {
        return ErrorAt(body, start, piece, refused->offset,
                       fmt::format("{} ({}'s grammar; {}'s takes it)", refused->message,
                                   *dialect == cql::Dialect::kYcql ? "YCQL" : "Cassandra",
                                   *dialect == cql::Dialect::kYcql ? "Cassandra" : "YCQL"));
      }
    }
    start += piece.size();
  }
  // The pieces are the body, cut: every byte was in one.
  FL_ASSERT_MSG(start == body.size(), "pieces of {} bytes from a body of {}", start, body.size());
  return std::nullopt;
}

std::size_t StatementCount(std::string_view body) {
  std::size_t count = 0;
  for (const std::string& piece : SplitStatements(body)) count += Trimmed(piece).empty() ? 0 : 1;
  return count;
}

}  // namespace faultline::models::migrate
