// The metadata store's errors: a stable code for programs and YCQL's text
// for people (../shared/reference/ycql.md). On the wire YCQL adds the
// statement and a caret line, then " (ql error -NNN)"; WireText() does that.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace faultline::models::cql {

// YCQL's numbers (yb/yql/cql/ql/util/errcodes.h), so a code seen here means
// what it means in a YugabyteDB log.
enum class ErrorCode : int {
  kServerError = -2,
  kSyntaxError = -11,  // SQL_STATEMENT_INVALID: "Invalid SQL Statement".
  kCqlStatementInvalid = -12,
  kFeatureNotYetImplemented = -13,
  kFeatureNotSupported = -14,
  kDatatypeMismatch = -201,
  kDuplicateObject = -202,
  kUndefinedColumn = -203,
  kDuplicateColumn = -204,
  kMissingPrimaryKey = -205,
  kInvalidPrimaryColumnType = -206,
  kMissingArgumentForPrimaryKey = -207,
  kNullArgumentForPrimaryKey = -208,
  kInvalidTableProperty = -210,
  kSystemNamespaceReadonly = -213,
  kNoKeyspace = -215,  // NO_NAMESPACE_USED: "No Namespace Used" (Cassandra words it otherwise).
  kInsertTableOfCounters = -216,
  kInvalidCountingExpression = -217,
  kDuplicateType = -218,       // "Duplicate Type"
  kDuplicateTypeField = -219,  // "Duplicate Type Field"
  kAlterKeyColumn = -220,
  kNullInCollections = -224,
  kExecError = -300,
  kObjectNotFound = -301,
  kInvalidTableDefinition = -302,
  kInvalidArgument = -304,
  kTooFewArguments = -305,
  kTooManyArguments = -306,
  kKeyspaceAlreadyExists = -307,
  kKeyspaceNotFound = -308,
  kUnprepared = -310,
  kTypeNotFound = -311,           // "Type Not Found"
  kInvalidTypeDefinition = -312,  // "Invalid Type Definition"
  kInvalidRequest = -316,
};

struct CqlError {
  ErrorCode code = ErrorCode::kSyntaxError;
  std::string message;  // As YCQL words it, e.g. "Object Not Found".
  // Where in the statement's text the offending token starts, when known.
  std::optional<std::size_t> offset;

  // The message as YCQL sends it to a driver (ProcessContextBase::Error in
  // yb/yql/cql/ql/ptree/process_context.cc): the message, every line of the
  // statement, under the line of `offset` a caret per character of the
  // token there, then " (ql error -NNN)". Without an offset, no caret line.
  std::string WireText(std::string_view statement, std::optional<std::size_t> offset) const;
  friend bool operator==(const CqlError&, const CqlError&) = default;
};

// The first line of a store's error message as a driver receives it: YCQL's
// title and detail, without the statement and carets that follow.
inline std::string_view Headline(std::string_view message) {
  return message.substr(0, message.find('\n'));
}

// The errors the seed failures turn on, worded exactly as YCQL words them.
CqlError DuplicateObject(std::string_view keyspace, std::string_view table);
CqlError UndefinedColumn();
CqlError DuplicateColumn(std::string_view column);
CqlError AlterKeyColumn();
CqlError ObjectNotFound();
CqlError KeyspaceNotFound();
CqlError NoKeyspace();
// Cassandra's wording of NO_NAMESPACE_USED (ClientState.java), for the store
// in Cassandra mode.
inline constexpr const char* kCassandraNoKeyspaceText =
    "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename";
CqlError InvalidArgument(std::string_view detail);
CqlError SyntaxError(std::string message);
CqlError DatatypeMismatch(std::string_view detail);
CqlError KeyspaceAlreadyExists(std::string_view keyspace);
CqlError MissingPrimaryKey(std::string_view detail);
CqlError InvalidPrimaryColumnType(std::string_view detail);
CqlError MissingArgumentForPrimaryKey(std::string_view column);
CqlError NullArgumentForPrimaryKey(std::string_view column);
CqlError SystemNamespaceReadonly();
CqlError InsertTableOfCounters();
CqlError FeatureNotSupported(std::string_view detail);
CqlError InvalidTableDefinition(std::string_view detail);
CqlError InvalidRequest(std::string_view detail);
CqlError ExecError(std::string_view detail);
CqlError ServerError(std::string_view detail);
CqlError CqlStatementInvalid(std::string_view detail);
CqlError FeatureNotYetImplemented(std::string_view detail);
CqlError InvalidCountingExpression();
CqlError NullInCollections();
CqlError TooFewArguments();
CqlError TooManyArguments();
CqlError InvalidTableProperty(std::string_view detail);

}  // namespace faultline::models::cql
