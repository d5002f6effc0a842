// INSERT, UPDATE, DELETE and BATCH. Writes are upserts, as in CQL: INSERT
// and UPDATE both create the row when it is missing. Lightweight
// transactions (IF NOT EXISTS, IF EXISTS, IF cond) read the row first;
// the engine runs one statement at a time, so read and write are atomic.
#include <fmt/format.h>

#include <charconv>
#include <set>

#include "models/cql/engine.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

// SQL: "c0 = ? AND c1 = ?" over the first `count` key columns.
std::string KeyCondition(const TableInfo& table, std::size_t count) {
  std::string sql;
  for (std::size_t i = 0; i < count; ++i) {
    sql += fmt::format("{}{} = ?", i == 0 ? "" : " AND ", table.columns[i].sql_name);
  }
  return sql;
}

QueryResult Applied(bool applied, const std::vector<const ColumnInfo*>& columns = {},
                    const std::optional<Row>& values = std::nullopt) {
  QueryResult result;
  result.kind = QueryResult::Kind::kRows;
  result.columns.push_back({"[applied]", CqlType{CqlType::Kind::kBoolean, false, {}}});
  Row row{Value::Bool(applied)};
  for (std::size_t i = 0; i < columns.size(); ++i) {
    result.columns.push_back({columns[i]->name, columns[i]->type});
    row.push_back(values ? (*values)[i] : Value::Null());
  }
  result.rows.push_back(std::move(row));
  return result;
}

// `needs_full_key`: the message when the whole key must be given, or empty.
std::variant<WriteTarget, CqlError> AnalyzeWriteWhere(const TableInfo& table,
                                                      const std::vector<Relation>& where,
                                                      std::span<const Value> bound, bool is_update,
                                                      std::string_view needs_full_key) {
  WriteTarget target;
  std::map<const ColumnInfo*, Value> equal;
  std::set<std::pair<const ColumnInfo*, bool>> bounded;  // (column, is upper bound).
  for (const Relation& relation : where) {
    const ColumnInfo* column = table.Find(relation.column);
    if (column == nullptr) return At(UndefinedColumn(), relation.offset);
    if (relation.op == "!=")
      return At(FeatureNotYetImplemented("Operator not supported for write operations"),
                relation.offset);
    const bool is_equal = relation.op == "=";
    if (!is_equal && column->role == ColumnInfo::Role::kPartitionKey) {
      return At(CqlStatementInvalid("Partition column cannot be used in this expression"),
                relation.offset);
    }
    const bool upper = relation.op[0] == '<';
    if (equal.contains(column) ||
        (is_equal && (bounded.contains({column, true}) || bounded.contains({column, false}))) ||
        (!is_equal && !bounded.insert({column, upper}).second)) {
      return At(CqlStatementInvalid("Illogical condition for where clause"), relation.offset);
    }
    if (!is_equal && is_update && column->is_key()) {
      return At(CqlStatementInvalid("Range expressions are not supported for inserts and updates"),
                relation.offset);
    }
    if (!column->is_key()) {
      return At(
          CqlStatementInvalid("Non primary key cannot be used in where clause for write requests"),
          relation.offset);
    }
    std::variant<Value, CqlError> value = FromTerm(relation.value, column->type, bound);
    if (auto* error = std::get_if<CqlError>(&value)) return std::move(*error);
    if (std::get<Value>(value).is_null()) return NullArgumentForPrimaryKey(relation.column);
    if (is_equal) equal.emplace(column, std::get<Value>(value));
    target.restrictions.emplace_back(column, relation.op, std::move(std::get<Value>(value)));
  }
  for (std::size_t i = 0; i < table.KeyColumns(); ++i) {
    auto found = equal.find(&table.columns[i]);
    if (found == equal.end()) break;
    target.key.push_back(found->second);
  }
  target.full_key = target.key.size() == table.KeyColumns() && bounded.empty();
  if (target.key.size() < table.PartitionKeyColumns()) {
    return CqlStatementInvalid("Missing condition on key columns in WHERE clause");
  }
  // Restricted clustering columns form a prefix (a range only on the last).
  for (const auto& [column, op, value] : target.restrictions) {
    const auto index = static_cast<std::size_t>(column - table.columns.data());
    if (index > target.key.size()) {
      return CqlStatementInvalid(fmt::format(
          "PRIMARY KEY column {} cannot be restricted as preceding column {} is not restricted",
          column->name, table.columns[target.key.size()].name));
    }
  }
  if (!needs_full_key.empty() && !target.full_key) return CqlStatementInvalid(needs_full_key);
  return target;
}

// Conditions of IF: every column named must exist; all must hold on `row`
// (on a missing row every column is null, so `IF v = null` holds).
std::variant<bool, CqlError> CheckConditions(const TableInfo& table,
                                             const std::vector<Relation>& conditions,
                                             const std::optional<Row>& row,
                                             std::span<const Value> bound,
                                             std::vector<const ColumnInfo*>& named) {
  bool holds = true;
  for (const Relation& condition : conditions) {
    const ColumnInfo* column = table.Find(condition.column);
    if (column == nullptr) return At(UndefinedColumn(), condition.offset);
    if (column->is_key()) {
      return InvalidArgument(
          fmt::format("PRIMARY KEY column '{}' cannot have IF conditions", condition.column));
    }
    std::variant<Value, CqlError> expected = FromTerm(condition.value, column->type, bound);
    if (auto* error = std::get_if<CqlError>(&expected)) return std::move(*error);
    if (std::find(named.begin(), named.end(), column) == named.end()) named.push_back(column);
    const auto index = static_cast<std::size_t>(column - table.columns.data());
    FL_ASSERT(index < table.columns.size());
    const std::optional<Comparison> op = ParseComparison(condition.op);
    if (!op) {
      return At(InvalidArgument(fmt::format("IF conditions compare with =, !=, <, >, <= or >=, "
                                            "not {}",
                                            condition.op)),
                condition.offset);
    }
    holds = holds && Satisfies(row ? (*row)[index] : Value::Null(), *op, std::get<Value>(expected),
                               column->type);
  }
  return holds;
}

// A failed conditional write on an existing row shows the key columns, then
// the columns its conditions named (docdb's PopulateConditionalDmlRow).
std::vector<const ColumnInfo*> KeyThen(const TableInfo& table,
                                       const std::vector<const ColumnInfo*>& named) {
  std::vector<const ColumnInfo*> columns;
  for (std::size_t i = 0; i < table.KeyColumns(); ++i) columns.push_back(&table.columns[i]);
  columns.insert(columns.end(), named.begin(), named.end());
  return columns;
}

Row Project(const TableInfo& table, const Row& row, const std::vector<const ColumnInfo*>& columns) {
  Row projected;
  for (const ColumnInfo* column : columns) {
    projected.push_back(row[static_cast<std::size_t>(column - table.columns.data())]);
  }
  return projected;
}

// For UPDATE and DELETE with IF EXISTS or IF conditions: nothing when the
// write may go ahead, else its answer (an error, or [applied] = False with
// the row's key and condition columns when the row exists).
std::optional<Outcome> RefuseUnlessConditionsHold(const TableInfo& table, bool if_exists,
                                                  const std::vector<Relation>& conditions,
                                                  const std::optional<Row>& current,
                                                  std::span<const Value> bound) {
  std::vector<const ColumnInfo*> named;
  std::variant<bool, CqlError> holds = CheckConditions(table, conditions, current, bound, named);
  if (auto* error = std::get_if<CqlError>(&holds)) return Outcome(std::move(*error));
  if (std::get<bool>(holds) && (current || !if_exists)) return std::nullopt;
  if (!current) return Outcome(Applied(false));
  const std::vector<const ColumnInfo*> shown = KeyThen(table, named);
  return Outcome(Applied(false, shown, Project(table, *current, shown)));
}

// A collection or counter update: the new value from the current one.
std::variant<Value, CqlError> Combine(const ColumnInfo& column, Assignment::Op op, Value current,
                                      Value operand) {
  const CqlType& type = column.type;
  if (type.kind == CqlType::Kind::kCounter) {
    const std::int64_t base = current.is_null() ? 0 : current.integer;
    const std::int64_t delta = operand.is_null() ? 0 : operand.integer;
    // Wraps around on overflow, as Cassandra's (Java) counters do.
    const auto sum = op == Assignment::Op::kAdd
                         ? static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(delta)
                         : static_cast<std::uint64_t>(base) - static_cast<std::uint64_t>(delta);
    return Value::Int(static_cast<std::int64_t>(sum));
  }
  if (!type.IsCollection() ||
      (op == Assignment::Op::kPrepend && type.kind != CqlType::Kind::kList)) {
    return InvalidArgument(
        fmt::format("Invalid operation for non counter, non collection column {}", column.name));
  }
  if (current.is_null()) {
    current.kind = operand.is_null() ? current.kind : operand.kind;
    current.elements.clear();
  }
  std::vector<Value>& elements = current.elements;
  const std::vector<Value> given = operand.is_null() ? std::vector<Value>{} : operand.elements;
  if (op == Assignment::Op::kPrepend) {
    elements.insert(elements.begin(), given.begin(), given.end());
  } else if (op == Assignment::Op::kAdd) {
    elements.insert(elements.end(), given.begin(), given.end());
  } else if (type.kind == CqlType::Kind::kMap) {
    // m = m - {'k1', 'k2'} removes keys; the operand is a set of keys.
    std::vector<Value> kept;
    for (std::size_t i = 0; i + 1 < elements.size(); i += 2) {
      if (std::find(given.begin(), given.end(), elements[i]) != given.end()) continue;
      kept.push_back(elements[i]);
      kept.push_back(elements[i + 1]);
    }
    elements = std::move(kept);
  } else {
    std::erase_if(elements, [&](const Value& element) {
      return std::find(given.begin(), given.end(), element) != given.end();
    });
  }
  return Coerce(std::move(current), type);
}

}  // namespace

Outcome Engine::RunModification(Session& session, const Modification& statement) {
  const QualifiedName& name =
      std::visit([](const auto& s) -> const QualifiedName& { return s.table; }, statement);
  std::variant<const TableInfo*, CqlError> resolved = ResolveTable(session, name, true);
  if (auto* error = std::get_if<CqlError>(&resolved)) return std::move(*error);
  const TableInfo& table = *std::get<const TableInfo*>(resolved);
  const auto* insert = std::get_if<Insert>(&statement);
  // A plain INSERT is one SQLite write, unless the table keeps static
  // columns apart or a UNIQUE index's expired rows must go first.
  const bool one_write =
      !table.HasStatics() &&
      std::none_of(table.indexes.begin(), table.indexes.end(),
                   [](const IndexInfo& index) { return index.definition.unique; });
  const bool materialized = Materialized(table);
  if (insert != nullptr && !insert->if_not_exists && one_write && materialized) {
    return RunInsert(table, *insert);
  }
  // The others may read, write and clean up, and the first write makes the
  // table's SQLite tables: one transaction, so that a failure between their
  // steps leaves nothing half done.
  if (!Begin()) return SqliteFailure("write");
  if (!materialized && !Materialize(table)) {
    CqlError error = SqliteFailure("write");
    Rollback();
    return error;
  }
  Outcome outcome = insert != nullptr ? RunInsert(table, *insert)
                    : std::holds_alternative<Update>(statement)
                        ? RunUpdate(table, std::get<Update>(statement))
                        : RunDelete(table, std::get<Delete>(statement));
  if (std::holds_alternative<CqlError>(outcome)) {
    Rollback();
  } else if (!Commit()) {
    return SqliteFailure("write");
  }
  return outcome;
}

namespace {
// The table's default_time_to_live in seconds (0: none).
std::int64_t DefaultTtlSeconds(const TableInfo& table) {
  for (const auto& [name, value] : table.options) {
    if (name != "default_time_to_live") continue;
    std::int64_t seconds = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (error == std::errc() && seconds > 0 && seconds < (std::int64_t{1} << 40)) return seconds;
  }
  return 0;
}

// An INSERT of the partition key and static columns only: no clustering
// column, no regular one (Cassandra's and YCQL's static-row write).
bool WritesStaticsOnly(const TableInfo& table, const Cells& cells) {
  if (!table.HasStatics()) return false;
  bool sets_static = false;
  for (const auto& [column, value] : cells) {
    if (column->role == ColumnInfo::Role::kPartitionKey) continue;
    if (!column->is_static()) return false;
    sets_static = true;
  }
  return sets_static;
}

// When a row written with `ttl` (a term, or none: the table's default)
// expires: ms, or null.
std::variant<Value, CqlError> Expiry(const TableInfo& table, const std::optional<Term>& ttl,
                                     std::span<const Value> bound, std::int64_t now_ms) {
  if (!ttl) {
    const std::int64_t seconds = DefaultTtlSeconds(table);
    return seconds == 0 ? Value::Null() : Value::Int(now_ms + seconds * 1000);
  }
  std::variant<Value, CqlError> seconds =
      FromTerm(*ttl, CqlType{CqlType::Kind::kInt, false, {}}, bound);
  if (auto* error = std::get_if<CqlError>(&seconds)) return std::move(*error);
  const Value& value = std::get<Value>(seconds);
  if (value.is_null() || value.integer < 0) return InvalidArgument("TTL must not be negative");
  if (value.integer == 0) return Value::Null();
  return Value::Int(now_ms + value.integer * 1000);
}
}  // namespace

Outcome Engine::RunInsert(const TableInfo& table, const Insert& statement) {
  if (table.IsCounterTable()) return InsertTableOfCounters();
  if (statement.columns.size() > statement.values.size()) return TooFewArguments();
  if (statement.columns.size() < statement.values.size()) return TooManyArguments();
  Cells cells;
  for (std::size_t i = 0; i < statement.columns.size(); ++i) {
    const ColumnInfo* column = table.Find(statement.columns[i]);
    if (column == nullptr) return At(UndefinedColumn(), statement.column_offsets[i]);
    for (const auto& [seen, unused] : cells) {
      if (seen == column) return At(DuplicateColumn(column->name), statement.column_offsets[i]);
    }
    std::variant<Value, CqlError> value = FromTerm(statement.values[i], column->type, bound_);
    if (auto* error = std::get_if<CqlError>(&value)) return std::move(*error);
    cells.emplace_back(column, std::move(std::get<Value>(value)));
  }
  // The partition key alone writes static columns only.
  const std::size_t key_columns =
      WritesStaticsOnly(table, cells) ? table.PartitionKeyColumns() : table.KeyColumns();
  std::vector<Value> key;
  for (std::size_t i = 0; i < key_columns; ++i) {
    auto cell = std::find_if(cells.begin(), cells.end(),
                             [&](const auto& c) { return c.first == &table.columns[i]; });
    if (cell == cells.end()) return MissingArgumentForPrimaryKey(table.columns[i].name);
    if (cell->second.is_null()) return NullArgumentForPrimaryKey(table.columns[i].name);
    key.push_back(cell->second);
  }
  std::variant<Value, CqlError> expires = Expiry(table, statement.ttl, bound_, Now());
  if (auto* error = std::get_if<CqlError>(&expires)) return std::move(*error);
  if (statement.if_not_exists) {
    auto existing = ReadRow(table, key);
    if (auto* error = std::get_if<CqlError>(&existing)) return std::move(*error);
    if (const auto& row = std::get<std::optional<Row>>(existing)) {
      std::vector<const ColumnInfo*> all;
      for (const ColumnInfo& column : table.columns) all.push_back(&column);
      return Applied(false, all, row);
    }
  }
  if (auto error = Upsert(table, cells, std::get<Value>(expires), true)) return std::move(*error);
  if (statement.if_not_exists) return Applied(true);
  return QueryResult{};
}

namespace {

// The SET part's checks, before any row is read: no key column, no column
// twice, counters only incremented, frozen collections only replaced.
// Whether the current row is needed (an increment, an append), or the error.
std::variant<bool, CqlError> CheckAssignments(const TableInfo& table, const Update& statement) {
  bool needs_row = statement.if_exists || !statement.conditions.empty();
  std::set<std::string> assigned;
  for (const Assignment& assignment : statement.assignments) {
    const ColumnInfo* column = table.Find(assignment.column);
    if (column == nullptr) return At(UndefinedColumn(), assignment.offset);
    if (column->is_key()) {
      return InvalidArgument(
          fmt::format("PRIMARY KEY part {} found in SET part", assignment.column));
    }
    if (!assigned.insert(assignment.column).second) {
      return InvalidArgument(
          fmt::format("Multiple incompatible setting of column {}", assignment.column));
    }
    const bool counter = column->type.kind == CqlType::Kind::kCounter;
    if (counter && assignment.op == Assignment::Op::kSet) {
      return InvalidCountingExpression();
    }
    // A frozen collection is one value: replaced whole, never added to.
    if (column->type.frozen && assignment.op != Assignment::Op::kSet) {
      return At(InvalidArgument(fmt::format("Invalid operation for frozen collection column {}",
                                            assignment.column)),
                assignment.offset);
    }
    needs_row = needs_row || assignment.op != Assignment::Op::kSet;
  }
  FL_ASSERT(assigned.size() == statement.assignments.size());
  return needs_row;
}

}  // namespace

std::optional<CqlError> Engine::AssignedCells(const TableInfo& table, const Update& statement,
                                              const std::optional<Row>& current, Cells& cells) {
  for (const Assignment& assignment : statement.assignments) {
    const ColumnInfo* column = table.Find(assignment.column);
    FL_ASSERT(column != nullptr);  // CheckAssignments found each.
    CqlType operand_type = column->type;
    if (assignment.op == Assignment::Op::kSubtract && column->type.kind == CqlType::Kind::kMap) {
      operand_type = CqlType{CqlType::Kind::kSet, false, {column->type.parameters[0]}};
    } else if (column->type.kind == CqlType::Kind::kCounter) {
      operand_type = CqlType{CqlType::Kind::kBigint, false, {}};
    }
    std::variant<Value, CqlError> value = FromTerm(assignment.value, operand_type, bound_);
    if (auto* error = std::get_if<CqlError>(&value)) return std::move(*error);
    if (assignment.op != Assignment::Op::kSet) {
      const auto index = static_cast<std::size_t>(column - table.columns.data());
      FL_ASSERT(index < table.columns.size());
      value = Combine(*column, assignment.op, current ? (*current)[index] : Value::Null(),
                      std::move(std::get<Value>(value)));
      if (auto* error = std::get_if<CqlError>(&value)) return std::move(*error);
    }
    cells.emplace_back(column, std::move(std::get<Value>(value)));
  }
  return std::nullopt;
}

Outcome Engine::RunUpdate(const TableInfo& table, const Update& statement) {
  // Counters are increments without a time or a condition (Cassandra's
  // rules, which YCQL keeps).
  if (table.IsCounterTable() && statement.ttl) {
    return InvalidRequest("Cannot provide custom TTL for counter updates");
  }
  if (table.IsCounterTable() && (statement.if_exists || !statement.conditions.empty())) {
    return InvalidRequest("Conditional updates are not supported on counter tables");
  }
  // Setting static columns alone needs the partition key only.
  const bool statics_only =
      table.HasStatics() && std::all_of(statement.assignments.begin(), statement.assignments.end(),
                                        [&](const Assignment& assignment) {
                                          const ColumnInfo* column = table.Find(assignment.column);
                                          return column != nullptr && column->is_static();
                                        });
  std::variant<WriteTarget, CqlError> target =
      AnalyzeWriteWhere(table, statement.where, bound_, true,
                        statics_only ? "" : "Missing condition on key columns in WHERE clause");
  if (auto* error = std::get_if<CqlError>(&target)) return std::move(*error);
  const std::vector<Value>& key = std::get<WriteTarget>(target).key;
  if (key.size() != table.KeyColumns() && key.size() != table.PartitionKeyColumns()) {
    return CqlStatementInvalid("Missing condition on key columns in WHERE clause");
  }
  FL_ASSERT(key.size() == table.KeyColumns() || statics_only);
  if (auto error = StaticsOnlyWithClustering(statics_only, key.size() > table.PartitionKeyColumns(),
                                             "UPDATE")) {
    return std::move(*error);
  }
  Cells cells;
  for (std::size_t i = 0; i < key.size(); ++i) cells.emplace_back(&table.columns[i], key[i]);
  const std::variant<bool, CqlError> needs_row = CheckAssignments(table, statement);
  if (auto* error = std::get_if<CqlError>(&needs_row)) return *error;
  std::optional<Row> current;
  if (std::get<bool>(needs_row)) {
    auto existing = ReadRow(table, key);
    if (auto* error = std::get_if<CqlError>(&existing)) return std::move(*error);
    current = std::move(std::get<std::optional<Row>>(existing));
  }
  if (auto error = AssignedCells(table, statement, current, cells)) return std::move(*error);
  std::variant<Value, CqlError> expires = Expiry(table, statement.ttl, bound_, Now());
  if (auto* error = std::get_if<CqlError>(&expires)) return std::move(*error);
  const bool conditional = statement.if_exists || !statement.conditions.empty();
  if (conditional) {
    if (auto refused = RefuseUnlessConditionsHold(table, statement.if_exists, statement.conditions,
                                                  current, bound_)) {
      return std::move(*refused);
    }
  }
  if (auto error = Upsert(table, cells, std::get<Value>(expires), false)) return std::move(*error);
  if (auto error = ForgetIfEmpty(table, key)) return std::move(*error);
  if (conditional) return Applied(true);
  return QueryResult{};
}

Outcome Engine::RunDelete(const TableInfo& table, const Delete& statement) {
  const bool conditional = statement.if_exists || !statement.conditions.empty();
  // YCQL's words (pt_delete.cc) for a DELETE that must name the whole key.
  const bool names_non_static =
      std::any_of(statement.columns.begin(), statement.columns.end(), [&](const std::string& name) {
        const ColumnInfo* column = table.Find(name);
        return column == nullptr || !column->is_static();
      });
  // Cassandra finds a column deletion without the whole key when it runs
  // (DeleteStatement.addUpdateForKey), in its words.
  const bool cassandra_columns = dialect_ == Dialect::kCassandra && names_non_static;
  const std::string_view needs_full_key =
      conditional ? "DELETE statement must specify the entire primary key to use an IF clause"
      : names_non_static && !cassandra_columns
          ? "DELETE statement must give the entire primary key if specifying non-static columns"
          : "";
  std::variant<WriteTarget, CqlError> analyzed =
      AnalyzeWriteWhere(table, statement.where, bound_, false, needs_full_key);
  if (auto* error = std::get_if<CqlError>(&analyzed)) return std::move(*error);
  const WriteTarget& target = std::get<WriteTarget>(analyzed);
  if (cassandra_columns && !target.full_key) {
    return InvalidRequest("Range deletions are not supported for specific columns");
  }
  std::vector<const ColumnInfo*> deleted;
  for (std::size_t i = 0; i < statement.columns.size(); ++i) {
    const std::string& name = statement.columns[i];
    const ColumnInfo* column = table.Find(name);
    if (column == nullptr) return At(UndefinedColumn(), statement.column_offsets[i]);
    if (column->is_key()) {
      return InvalidArgument(fmt::format(
          "Invalid identifier {} for deletion (should not be a PRIMARY KEY part)", name));
    }
    deleted.push_back(column);
  }
  if (auto error = CheckStaticDelete(table, target, deleted, names_non_static)) {
    return std::move(*error);
  }
  if (conditional) {
    auto existing = ReadRow(table, target.key);
    if (auto* error = std::get_if<CqlError>(&existing)) return std::move(*error);
    if (auto refused = RefuseUnlessConditionsHold(table, statement.if_exists, statement.conditions,
                                                  std::get<std::optional<Row>>(existing), bound_)) {
      return std::move(*refused);
    }
  }
  if (auto error = DeleteFromRows(table, target, deleted)) return std::move(*error);
  if (auto error = DeleteFromStatics(table, target, deleted)) return std::move(*error);
  if (!deleted.empty()) {
    if (auto error = ForgetIfEmpty(table, target.key)) return std::move(*error);
  }
  if (conditional) return Applied(true);
  return QueryResult{};
}

std::optional<CqlError> Engine::DeleteFromRows(const TableInfo& table, const WriteTarget& target,
                                               const std::vector<const ColumnInfo*>& deleted) {
  std::vector<const ColumnInfo*> cleared;
  std::copy_if(deleted.begin(), deleted.end(), std::back_inserter(cleared),
               [](const ColumnInfo* column) { return !column->is_static(); });
  if (!deleted.empty() && cleared.empty()) return std::nullopt;  // Static columns only.
  std::string condition;
  for (const auto& [column, op, value] : target.restrictions) {
    condition += fmt::format("{}{} {} ?", condition.empty() ? "" : " AND ", column->sql_name, op);
  }
  std::string sql;
  if (cleared.empty()) {
    sql = fmt::format("DELETE FROM {} WHERE {}", table.sql_name, condition);
  } else {
    std::string set;
    for (const ColumnInfo* column : cleared) {
      set += fmt::format("{}{} = NULL", set.empty() ? "" : ", ", column->sql_name);
    }
    sql = fmt::format("UPDATE {} SET {} WHERE {}", table.sql_name, set, condition);
  }
  sqlite3_stmt* prepared = Prepared(sql);
  if (prepared == nullptr) return SqliteFailure("DELETE");
  int index = 1;
  for (const auto& [column, op, value] : target.restrictions) BindValue(prepared, index++, value);
  if (!StepToDone(prepared)) return SqliteFailure("DELETE");
  return std::nullopt;
}

// Only INSERT marks a row live (YCQL's liveness column): a row that only
// UPDATEs made exists while one of its columns is set, and goes when the
// last one is deleted or set to null.
std::optional<CqlError> Engine::ForgetPartIfEmpty(const StoragePart& part,
                                                  const std::vector<Value>& key) {
  FL_ASSERT(key.size() == part.keys.size());
  std::string sql = fmt::format("DELETE FROM {} WHERE fl_live = 0", part.sql_name);
  for (const ColumnInfo* column : part.keys) sql += fmt::format(" AND {} = ?", column->sql_name);
  for (const ColumnInfo* column : part.values)
    sql += fmt::format(" AND {} IS NULL", column->sql_name);
  sqlite3_stmt* prepared = Prepared(sql);
  if (prepared == nullptr) return SqliteFailure("write");
  for (std::size_t i = 0; i < key.size(); ++i) {
    BindValue(prepared, static_cast<int>(i + 1), key[i]);
  }
  if (!StepToDone(prepared)) return SqliteFailure("write");
  return std::nullopt;
}

namespace {
// The UNIQUE index whose columns SQLite's "UNIQUE constraint failed: t3.c2"
// names, if one does.
const IndexInfo* UniqueIndexOf(const TableInfo& table, std::string_view message) {
  for (const IndexInfo& index : table.indexes) {
    if (!index.definition.unique) continue;
    const auto& targets = index.definition.targets;
    const bool named = std::all_of(targets.begin(), targets.end(), [&](const IndexTarget& target) {
      const ColumnInfo* column = table.Find(target.column);
      if (column == nullptr) return false;
      // "t3.c1" followed by ',' or the end, so that it is not "t3.c12".
      const std::string name = table.sql_name + "." + column->sql_name;
      for (std::size_t at = message.find(name); at != std::string_view::npos;
           at = message.find(name, at + 1)) {
        const std::size_t after = at + name.size();
        if (after == message.size() || message[after] == ',') return true;
      }
      return false;
    });
    if (named) return &index;
  }
  return nullptr;
}
}  // namespace

std::optional<CqlError> Engine::UpsertPart(const TableInfo& table, const StoragePart& part,
                                           const Cells& cells, const Value& expires, bool is_insert,
                                           bool marks_live) {
  // INSERT INTO t (c0, c1, fl_expires) VALUES (?, ?, ?) ON CONFLICT (keys) DO UPDATE
  // SET c1 = excluded.c1, <each other column> = (null if the old row had expired),
  //     fl_expires = ...
  std::string columns;
  std::string values;
  std::string set;
  std::string keys;
  for (const auto& [column, value] : cells) {
    columns += column->sql_name + ", ";
    values += "?, ";
    if (!column->is_key()) set += fmt::format("{0} = excluded.{0}, ", column->sql_name);
  }
  for (const ColumnInfo* column : part.keys) keys += (keys.empty() ? "" : ", ") + column->sql_name;
  for (const ColumnInfo* column : part.values) {
    const bool written = std::any_of(cells.begin(), cells.end(),
                                     [&](const auto& cell) { return cell.first == column; });
    if (written) continue;
    set += fmt::format("{0} = CASE WHEN fl_expires <= :now THEN NULL ELSE {0} END, ",
                       column->sql_name);
  }
  // INSERT makes the row live (YCQL's liveness column) and replaces its
  // TTL; UPDATE keeps the TTL unless it gives one.
  set += marks_live ? "fl_live = 1, "
                    : "fl_live = CASE WHEN fl_expires <= :now THEN 0 ELSE fl_live END, ";
  set += is_insert ? "fl_expires = excluded.fl_expires"
                   : "fl_expires = CASE WHEN excluded.fl_expires IS NOT NULL THEN "
                     "excluded.fl_expires WHEN fl_expires <= :now THEN NULL ELSE fl_expires END";
  const std::string sql = fmt::format(
      "INSERT INTO {} ({}fl_live, fl_expires) VALUES ({}{}, ?) ON CONFLICT ({}) DO UPDATE SET {}",
      part.sql_name, columns, values, marks_live ? 1 : 0, keys, set);
  if (part.sql_name == table.sql_name) {
    if (auto error = ForgetExpiredDuplicates(table, cells)) return error;
  }
  sqlite3_stmt* prepared = Prepared(sql);
  if (prepared == nullptr) return SqliteFailure("write");
  int index = 1;
  for (const auto& [column, value] : cells) BindValue(prepared, index++, value);
  BindValue(prepared, index, expires);
  if (const int now = sqlite3_bind_parameter_index(prepared, ":now"); now > 0) {
    sqlite3_bind_int64(prepared, now, Now());
  }
  if (!StepToDone(prepared)) {
    // A UNIQUE index's SQLite index refused the row (YCQL's tablet: "Duplicate
    // value disallowed by unique index <name>").
    if (sqlite3_extended_errcode(db_) == SQLITE_CONSTRAINT_UNIQUE) {
      if (const IndexInfo* index = UniqueIndexOf(table, sqlite3_errmsg(db_))) {
        return ExecError(fmt::format("Duplicate value disallowed by unique index {}", index->name));
      }
    }
    return SqliteFailure("write");
  }
  return std::nullopt;
}

Outcome Engine::Run(Session& session, const Batch& statement) {
  for (const Modification& modification : statement.statements) {
    const bool conditional = std::visit(
        [](const auto& s) {
          using T = std::decay_t<decltype(s)>;
          if constexpr (std::is_same_v<T, Insert>) {
            return s.if_not_exists;
          } else {
            return s.if_exists || !s.conditions.empty();
          }
        },
        modification);
    if (conditional) {
      return FeatureNotSupported("Conditional statements in a batch are not supported");
    }
  }
  if (!Begin()) return SqliteFailure("BATCH");
  for (const Modification& modification : statement.statements) {
    Outcome outcome = RunModification(session, modification);
    if (std::holds_alternative<CqlError>(outcome)) {
      Rollback();
      return outcome;
    }
  }
  if (!Commit()) return SqliteFailure("BATCH");
  return QueryResult{};
}

std::variant<std::optional<Row>, CqlError> Engine::ReadRow(const TableInfo& table,
                                                           const std::vector<Value>& key) {
  if (table.HasStatics()) return ReadRowWithStatics(table, key);
  FL_ASSERT(key.size() == table.KeyColumns());
  std::string columns;
  for (const ColumnInfo& column : table.columns) {
    columns += (columns.empty() ? "" : ", ") + column.sql_name;
  }
  const std::string sql =
      fmt::format("SELECT {} FROM {} WHERE {} AND (fl_expires IS NULL OR fl_expires > ?)", columns,
                  table.sql_name, KeyCondition(table, key.size()));
  sqlite3_stmt* prepared = Prepared(sql);
  if (prepared == nullptr) return SqliteFailure("read");
  for (std::size_t i = 0; i < key.size(); ++i) {
    BindValue(prepared, static_cast<int>(i + 1), key[i]);
  }
  sqlite3_bind_int64(prepared, static_cast<int>(key.size() + 1), Now());
  unreadable_cell_ = false;
  const int code = sqlite3_step(prepared);
  std::optional<Row> row;
  if (code == SQLITE_ROW) {
    row.emplace();
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
      row->push_back(ReadValue(prepared, static_cast<int>(i), table.columns[i].type));
    }
  }
  sqlite3_reset(prepared);
  if (code != SQLITE_ROW && code != SQLITE_DONE) return SqliteFailure("read");
  if (unreadable_cell_) return UnreadableCell();
  return row;
}

}  // namespace faultline::models::cql
