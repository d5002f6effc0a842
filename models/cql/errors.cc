#include "models/cql/errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace faultline::models::cql {

namespace {

// How many characters the token at `offset` spans: a word (a qualified
// name with its dots), a quoted name or string, or one character.
std::size_t TokenLength(std::string_view statement, std::size_t offset) {
  if (offset >= statement.size()) return 1;
  const char first = statement[offset];
  if (first == '\'' || first == '"') {
    const std::size_t close = statement.find(first, offset + 1);
    return close == std::string_view::npos ? statement.size() - offset : close - offset + 1;
  }
  const auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
  };
  std::size_t end = offset;
  while (end < statement.size() && word(statement[end])) ++end;
  return std::max<std::size_t>(end - offset, 1);
}

}  // namespace

std::string CqlError::WireText(std::string_view statement,
                               std::optional<std::size_t> offset) const {
  std::string text = message + "\n";
  std::size_t line_start = 0;
  constexpr std::size_t kMaxLines = 100'000;  // A bound far past any statement.
  for (std::size_t line = 0; line < kMaxLines && line_start <= statement.size(); ++line) {
    std::size_t line_end = statement.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = statement.size();
    text += std::string(statement.substr(line_start, line_end - line_start)) + "\n";
    if (offset && *offset >= line_start && (*offset < line_end || line_end == statement.size())) {
      const std::size_t column = std::min(*offset, line_end) - line_start;
      text += std::string(column, ' ') + std::string(TokenLength(statement, *offset), '^') + "\n";
      offset.reset();  // One caret line.
    }
    line_start = line_end + 1;
  }
  return text + fmt::format(" (ql error {})", static_cast<int>(code));
}

CqlError DuplicateObject(std::string_view keyspace, std::string_view table) {
  return {ErrorCode::kDuplicateObject,
          fmt::format("Duplicate Object. Object '{}.{}' already exists", keyspace, table)};
}

CqlError UndefinedColumn() {
  return {ErrorCode::kUndefinedColumn, "Undefined Column. Column doesn't exist"};
}

CqlError DuplicateColumn(std::string_view column) {
  return {ErrorCode::kDuplicateColumn,
          fmt::format("Duplicate Column. Invalid column name because it conflicts with the "
                      "existing column: {}",
                      column)};
}

CqlError AlterKeyColumn() {
  return {ErrorCode::kAlterKeyColumn, "Alter key column. Can't alter key column"};
}

CqlError ObjectNotFound() { return {ErrorCode::kObjectNotFound, "Object Not Found"}; }

CqlError KeyspaceNotFound() { return {ErrorCode::kKeyspaceNotFound, "Keyspace Not Found"}; }

// yb/yql/cql/ql/util/errcodes.cc: NO_NAMESPACE_USED, "No Namespace Used"
// (pt_name.cc raises it without a detail).
CqlError NoKeyspace() { return {ErrorCode::kNoKeyspace, "No Namespace Used"}; }

CqlError InvalidArgument(std::string_view detail) {
  return {ErrorCode::kInvalidArgument, fmt::format("Invalid Arguments. {}", detail)};
}

CqlError SyntaxError(std::string message) { return {ErrorCode::kSyntaxError, std::move(message)}; }

namespace {
// YCQL's message shape: the code's title, then the detail when there is one.
CqlError Titled(ErrorCode code, std::string_view title, std::string_view detail) {
  if (detail.empty()) return {code, std::string(title)};
  return {code, fmt::format("{}. {}", title, detail)};
}
}  // namespace

CqlError DatatypeMismatch(std::string_view detail) {
  return Titled(ErrorCode::kDatatypeMismatch, "Datatype Mismatch", detail);
}
CqlError KeyspaceAlreadyExists(std::string_view keyspace) {
  return Titled(ErrorCode::kKeyspaceAlreadyExists, "Keyspace Already Exists",
                fmt::format("Keyspace '{}' already exists", keyspace));
}
CqlError MissingPrimaryKey(std::string_view detail) {
  return Titled(ErrorCode::kMissingPrimaryKey, "Missing Primary Key", detail);
}
CqlError InvalidPrimaryColumnType(std::string_view detail) {
  return Titled(ErrorCode::kInvalidPrimaryColumnType, "Invalid Primary Column Type", detail);
}
CqlError MissingArgumentForPrimaryKey(std::string_view column) {
  return Titled(ErrorCode::kMissingArgumentForPrimaryKey, "Missing Argument for Primary Key",
                column);
}
CqlError NullArgumentForPrimaryKey(std::string_view column) {
  return Titled(ErrorCode::kNullArgumentForPrimaryKey, "Null Argument for Primary Key", column);
}
CqlError SystemNamespaceReadonly() {
  return Titled(ErrorCode::kSystemNamespaceReadonly, "System Namespace Readonly",
                "system_schema is read-only");
}
CqlError InsertTableOfCounters() {
  return Titled(ErrorCode::kInsertTableOfCounters, "Insert Table Of Counters",
                "INSERT is not allowed on a counter table; use UPDATE");
}
CqlError FeatureNotSupported(std::string_view detail) {
  return Titled(ErrorCode::kFeatureNotSupported, "Feature Not Supported", detail);
}
CqlError InvalidTableDefinition(std::string_view detail) {
  return Titled(ErrorCode::kInvalidTableDefinition, "Invalid Table Definition", detail);
}
CqlError InvalidRequest(std::string_view detail) {
  return Titled(ErrorCode::kInvalidRequest, "Invalid Request", detail);
}
CqlError ExecError(std::string_view detail) {
  return Titled(ErrorCode::kExecError, "Execution Error", detail);
}

CqlError ServerError(std::string_view detail) {
  return Titled(ErrorCode::kServerError, "Server Error", detail);
}

CqlError CqlStatementInvalid(std::string_view detail) {
  return Titled(ErrorCode::kCqlStatementInvalid, "Invalid CQL Statement", detail);
}
CqlError FeatureNotYetImplemented(std::string_view detail) {
  return Titled(ErrorCode::kFeatureNotYetImplemented, "Feature Not Yet Implemented", detail);
}
// For these two YCQL's text for the code is the whole message.
CqlError InvalidCountingExpression() {
  return {ErrorCode::kInvalidCountingExpression, "Counters can only be incremented or decremented"};
}
CqlError NullInCollections() {
  return {ErrorCode::kNullInCollections, "null is not supported inside collections"};
}
CqlError TooFewArguments() { return Titled(ErrorCode::kTooFewArguments, "Too Few Arguments", ""); }
CqlError TooManyArguments() {
  return Titled(ErrorCode::kTooManyArguments, "Too Many Arguments", "");
}
CqlError InvalidTableProperty(std::string_view detail) {
  return Titled(ErrorCode::kInvalidTableProperty, "Invalid Table Property", detail);
}

}  // namespace faultline::models::cql
