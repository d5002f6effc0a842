// The metadata store's errors: a stable code for programs and YCQL's text
// for people (../shared/reference/ycql.md). On the wire YCQL adds the
// statement and a caret line, then " (ql error -NNN)"; WireText() does that.
#pragma once

#include <string>
#include <string_view>

namespace faultline::models::cql {

enum class ErrorCode : int {
  kSyntaxError = -11,  // YCQL's "Invalid SQL Statement".
  kDuplicateObject = -202,
  kUndefinedColumn = -203,
  kDuplicateColumn = -204,
  kAlterKeyColumn = -205,
  kObjectNotFound = -301,
  kKeyspaceNotFound = -308,
  kNoKeyspace = -400,  // Cassandra's text; YCQL has no number of its own here.
  kInvalidArgument = -304,
};

struct CqlError {
  ErrorCode code = ErrorCode::kSyntaxError;
  std::string message;  // As YCQL words it, e.g. "Object Not Found".

  // "<message>\n<statement line>\n<caret> (ql error -NNN)", as a driver sees it.
  std::string WireText(std::string_view statement, std::size_t offset) const;
  friend bool operator==(const CqlError&, const CqlError&) = default;
};

// The errors the seed failures turn on, worded exactly as YCQL words them.
CqlError DuplicateObject(std::string_view keyspace, std::string_view table);
CqlError UndefinedColumn();
CqlError DuplicateColumn(std::string_view column);
CqlError AlterKeyColumn();
CqlError ObjectNotFound();
CqlError KeyspaceNotFound();
CqlError NoKeyspace();
CqlError InvalidArgument(std::string_view detail);
CqlError SyntaxError(std::string message);

}  // namespace faultline::models::cql
