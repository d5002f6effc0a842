// The engine's entry points and its SQLite plumbing; the statements
// themselves are in engine_ddl.cc, engine_index.cc, engine_write.cc and
// engine_read.cc.
#include "models/cql/engine.h"

#include <fmt/format.h>

#include <algorithm>

#include "models/cql/collations.h"
#include "models/cql/parser.h"
#include "models/cql/sql.h"
#include "sim/assert.h"

namespace faultline::models::cql {

std::variant<std::unique_ptr<Engine>, sim::Status> Engine::Open(sqlite3* db, Clock clock,
                                                                Dialect dialect) {
  if (RegisterCollations(db) != SQLITE_OK || RegisterCatalogFunctions(db) != SQLITE_OK) {
    return sim::Status::Internal(
        fmt::format("cannot register collations and functions: {}", sqlite3_errmsg(db)));
  }
  std::unique_ptr<Engine> engine(new Engine(db, std::move(clock), dialect));
  if (sim::Status status = engine->catalog_.Load(engine->statements_, dialect); !status.ok())
    return status;
  return engine;
}

Engine::~Engine() {
  ForgetPrepared();
  sqlite3_finalize(begin_);
  sqlite3_finalize(commit_);
}

// What one grammar refuses and the other takes (ast.h, ParsedStatement).
std::optional<CqlError> Engine::DialectError(const ParsedStatement& statement) const {
  const auto& refused =
      dialect_ == Dialect::kYcql ? statement.ycql_error : statement.cassandra_error;
  if (!refused) return std::nullopt;
  return At(SyntaxError(refused->message), refused->offset);
}

Outcome Engine::Execute(Session& session, const ParsedStatement& statement,
                        std::span<const Value> bound, const PageRequest& page) {
  if (static_cast<std::size_t>(statement.bind_markers) != bound.size()) {
    return InvalidArgument(
        fmt::format("Expected {} bound values, got {}", statement.bind_markers, bound.size()));
  }
  bound_ = bound;
  FL_ASSERT(transaction_depth_ == 0);  // A statement starts outside any transaction.
  Outcome outcome;
  if (std::optional<CqlError> refused = DialectError(statement)) {
    outcome = std::move(*refused);
  } else {
    outcome = std::visit(
        [&](const auto& body) -> Outcome {
          using T = std::decay_t<decltype(body)>;
          if constexpr (std::is_same_v<T, Select>) {
            return RunSelect(session, body, page);
          } else if constexpr (std::is_same_v<T, Insert> || std::is_same_v<T, Update> ||
                               std::is_same_v<T, Delete>) {
            return RunModification(session, Modification(body));
          } else {
            return Run(session, body);
          }
        },
        statement.statement);
  }
  // Offsets come from the parser, counted in the whole text; make them the
  // statement's own.
  if (auto* error = std::get_if<CqlError>(&outcome); error && error->offset) {
    *error->offset =
        *error->offset >= statement.start.offset ? *error->offset - statement.start.offset : 0;
  }
  FL_ASSERT(transaction_depth_ == 0);  // ... and ends outside one, committed or rolled back.
  bound_ = {};
  return outcome;
}

std::vector<Outcome> Engine::ExecuteScript(Session& session, std::string_view text) {
  std::vector<Outcome> outcomes;
  ParseResult parsed = Parse(text);
  for (const ParsedStatement& statement : parsed.statements) {
    outcomes.push_back(Execute(session, statement));
    if (std::holds_alternative<CqlError>(outcomes.back())) return outcomes;
  }
  FL_ASSERT(outcomes.size() == parsed.statements.size());
  if (parsed.error) outcomes.push_back(SyntaxError(parsed.error->message));
  return outcomes;
}

std::variant<std::string, CqlError> Engine::ResolveKeyspaceName(const Session& session,
                                                                const std::string& named) const {
  if (!named.empty()) return named;
  if (session.keyspace.empty()) return NoKeyspace();
  return session.keyspace;
}

std::variant<const TableInfo*, CqlError> Engine::ResolveTable(const Session& session,
                                                              const QualifiedName& name,
                                                              bool for_write) const {
  std::variant<std::string, CqlError> keyspace = ResolveKeyspaceName(session, name.keyspace);
  // pt_name.cc raises NO_NAMESPACE_USED at the table's name.
  if (auto* error = std::get_if<CqlError>(&keyspace)) return At(std::move(*error), name.offset);
  const TableInfo* table = catalog_.FindTable(std::get<std::string>(keyspace), name.name);
  if (table == nullptr) return At(ObjectNotFound(), name.offset);
  if (for_write && table->read_only) return At(SystemNamespaceReadonly(), name.offset);
  FL_ASSERT(table->keyspace == std::get<std::string>(keyspace) && table->name == name.name);
  return table;
}

bool Engine::Materialized(const TableInfo& table) const {
  // The system tables are views over the catalog, always there.
  if (table.read_only) return true;
  // A null column asks whether the table exists (a lookup in the schema
  // SQLite keeps parsed).
  return sqlite3_table_column_metadata(db_, "main", table.sql_name.c_str(), nullptr, nullptr,
                                       nullptr, nullptr, nullptr, nullptr) == SQLITE_OK;
}

std::string KeyColumnList(const TableInfo& table) {
  std::string list;
  for (std::size_t i = 0; i < table.KeyColumns(); ++i) {
    list += (i == 0 ? "" : ", ") + table.columns[i].sql_name;
  }
  return list;
}

sqlite3_stmt* Engine::Prepared(const std::string& sql) { return statements_.Get(sql); }

void Engine::ForgetPrepared() { statements_.Clear(); }

CqlError Engine::SqliteFailure(std::string_view what) {
  return ServerError(fmt::format("{}: {}", what, sqlite3_errmsg(db_)));
}

bool Engine::Begin() {
  FL_ASSERT(transaction_depth_ >= 0);
  if (transaction_depth_++ > 0) return true;
  if (StepOnce(begin_, "BEGIN IMMEDIATE")) return true;
  transaction_depth_ = 0;
  return false;
}

// Every write begins and commits a transaction: sqlite3_exec parsed the
// text each time (a tenth of the store's time in a write). Kept apart from
// statements_, whose bound may clear what a caller holds from Prepared.
bool Engine::StepOnce(sqlite3_stmt*& statement, const char* sql) {
  if (statement == nullptr && sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT,
                                                 &statement, nullptr) != SQLITE_OK) {
    sqlite3_finalize(statement);
    statement = nullptr;
    return false;
  }
  const int code = sqlite3_step(statement);
  sqlite3_reset(statement);
  return code == SQLITE_DONE;
}

bool Engine::Commit() {
  FL_ASSERT_MSG(transaction_depth_ > 0, "COMMIT without BEGIN");
  if (--transaction_depth_ > 0) return true;
  if (StepOnce(commit_, "COMMIT")) return true;
  Rollback();
  return false;
}

void Engine::Rollback() {
  transaction_depth_ = 0;
  if (!sqlite3_get_autocommit(db_)) (void)ExecSql(db_, "ROLLBACK");
}

bool Engine::StepToDone(sqlite3_stmt* statement) {
  const int code = sqlite3_step(statement);
  sqlite3_reset(statement);
  return code == SQLITE_DONE;
}

void Engine::BindValue(sqlite3_stmt* statement, int index, const Value& value) {
  FL_ASSERT(statement != nullptr && index >= 1);
  switch (value.kind) {
    case Value::Kind::kNull:
      sqlite3_bind_null(statement, index);
      return;
    case Value::Kind::kInt:
    case Value::Kind::kBool:
      sqlite3_bind_int64(statement, index, value.integer);
      return;
    case Value::Kind::kDouble:
      sqlite3_bind_double(statement, index, value.real);
      return;
    case Value::Kind::kText:
      sqlite3_bind_text(statement, index, value.bytes.data(), static_cast<int>(value.bytes.size()),
                        SQLITE_TRANSIENT);
      return;
    case Value::Kind::kBlob:
      sqlite3_bind_blob(statement, index, value.bytes.data(), static_cast<int>(value.bytes.size()),
                        SQLITE_TRANSIENT);
      return;
    default: {
      const std::string encoded = EncodeCollection(value);
      sqlite3_bind_blob(statement, index, encoded.data(), static_cast<int>(encoded.size()),
                        SQLITE_TRANSIENT);
    }
  }
}

Value Engine::ReadValue(sqlite3_stmt* statement, int column, const CqlType& type) {
  FL_ASSERT(statement != nullptr && column >= 0 && column < sqlite3_column_count(statement));
  switch (sqlite3_column_type(statement, column)) {
    case SQLITE_NULL:
      return Value::Null();
    case SQLITE_INTEGER: {
      const std::int64_t v = sqlite3_column_int64(statement, column);
      if (type.kind == CqlType::Kind::kBoolean) return Value::Bool(v != 0);
      return Value::Int(v);
    }
    case SQLITE_FLOAT:
      return Value::Double(sqlite3_column_double(statement, column));
    default:
      break;
  }
  const auto* data = static_cast<const char*>(sqlite3_column_blob(statement, column));
  std::string bytes(data == nullptr ? "" : data,
                    static_cast<std::size_t>(sqlite3_column_bytes(statement, column)));
  if (type.IsStructured()) {
    std::optional<Value> decoded = DecodeCollection(bytes, type);
    if (!decoded) {
      unreadable_cell_ = true;  // A damaged file; the caller reports it.
      return Value::Null();
    }
    return std::move(*decoded);
  }
  if (type.kind == CqlType::Kind::kBlob) return Value::Blob(std::move(bytes));
  return Value::Text(std::move(bytes));
}

namespace {
// Characters, not bytes, so that UTF-8 text lines up: every byte but the
// continuation bytes of a multi-byte character.
std::size_t TextWidth(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}
}  // namespace

std::string FormatResult(const QueryResult& result) {
  if (result.kind == QueryResult::Kind::kText) return result.text;
  if (result.kind != QueryResult::Kind::kRows) return "";
  std::vector<std::vector<std::string>> cells;
  std::vector<std::size_t> widths;
  for (const ColumnSpec& column : result.columns) widths.push_back(TextWidth(column.name));
  for (const Row& row : result.rows) {
    std::vector<std::string>& line = cells.emplace_back();
    for (std::size_t i = 0; i < row.size() && i < result.columns.size(); ++i) {
      line.push_back(FormatCell(row[i], result.columns[i].type));
      widths[i] = std::max(widths[i], TextWidth(line.back()));
    }
  }
  // ycqlsh right-aligns every cell, with a space either side of each " | ".
  auto format_line = [&widths](const std::vector<std::string>& line) {
    std::string text;
    for (std::size_t i = 0; i < line.size(); ++i) {
      text += i == 0 ? " " : " | ";
      text += std::string(widths[i] - std::min(widths[i], TextWidth(line[i])), ' ') + line[i];
    }
    return text + "\n";
  };
  std::vector<std::string> header;
  std::string rule;
  for (std::size_t i = 0; i < result.columns.size(); ++i) {
    header.push_back(result.columns[i].name);
    rule += (i == 0 ? "" : "+") + std::string(widths[i] + 2, '-');
  }
  std::string text = format_line(header) + rule + "\n";
  for (const auto& line : cells) text += format_line(line);
  text += fmt::format("\n({} rows)\n", result.rows.size());
  return text;
}

}  // namespace faultline::models::cql
