// SELECT (user tables and system_schema alike) and DESCRIBE.
#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <set>

#include "models/cql/engine.h"
#include "models/cql/paging.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

const CqlType kBigint{CqlType::Kind::kBigint, false, {}};

}  // namespace

namespace {

// ORDER BY: the clustering columns in their order, all in the table's
// direction (false) or all reversed (true), with the partition key fixed by
// = or IN (Cassandra's rules, and its words).
std::variant<bool, CqlError> Reversed(
    const TableInfo& table, const std::vector<OrderingTerm>& order_by,
    const std::set<std::pair<const ColumnInfo*, char>>& restricted) {
  std::vector<const ColumnInfo*> clustering;
  for (const ColumnInfo& column : table.columns) {
    if (column.role == ColumnInfo::Role::kClustering) clustering.push_back(&column);
    if (column.role == ColumnInfo::Role::kPartitionKey && !restricted.contains({&column, '='})) {
      return InvalidArgument(
          "ORDER BY is only supported when the partition key is restricted by an EQ or an IN");
    }
  }
  std::optional<bool> reversed;
  for (std::size_t i = 0; i < order_by.size(); ++i) {
    const ColumnInfo* column = table.Find(order_by[i].column);
    if (column == nullptr) return At(UndefinedColumn(), order_by[i].offset);
    if (i >= clustering.size() || column != clustering[i]) {
      return At(InvalidArgument("Order by currently only supports the ordering of columns "
                                "following their declared order in the PRIMARY KEY"),
                order_by[i].offset);
    }
    const bool flipped = order_by[i].descending != column->descending;
    if (reversed && *reversed != flipped) {
      return At(InvalidArgument("Unsupported order by relation"), order_by[i].offset);
    }
    reversed = flipped;
  }
  return reversed.value_or(false);
}

}  // namespace

namespace {

// The columns a SELECT reads (none for count(*)), and their names and types
// in `result`.
std::variant<std::vector<const ColumnInfo*>, CqlError> SelectedColumns(const TableInfo& table,
                                                                       const Select& statement,
                                                                       QueryResult& result) {
  std::vector<const ColumnInfo*> selected;
  if (statement.count) {
    result.columns.push_back({"count", kBigint});
    return selected;
  }
  if (statement.star) {
    for (const ColumnInfo& column : table.columns) selected.push_back(&column);
  } else {
    FL_ASSERT(statement.columns.size() == statement.column_offsets.size());
    for (std::size_t i = 0; i < statement.columns.size(); ++i) {
      const ColumnInfo* column = table.Find(statement.columns[i]);
      if (column == nullptr) return At(UndefinedColumn(), statement.column_offsets[i]);
      selected.push_back(column);
    }
  }
  for (const ColumnInfo* column : selected) result.columns.push_back({column->name, column->type});
  return selected;
}

// The order rows come in: the table's, or ORDER BY's. Rows of several
// partitions (IN) interleave by clustering, as Cassandra merges them; the
// partition only breaks ties.
std::variant<std::vector<OrderColumn>, CqlError> SelectOrder(
    const TableInfo& table, const Select& statement,
    const std::set<std::pair<const ColumnInfo*, char>>& restricted) {
  std::vector<OrderColumn> order = RowOrder(table);
  if (statement.order_by.empty()) return order;
  std::variant<bool, CqlError> reversed = Reversed(table, statement.order_by, restricted);
  if (auto* error = std::get_if<CqlError>(&reversed)) return std::move(*error);
  order.clear();
  for (const ColumnInfo::Role role :
       {ColumnInfo::Role::kClustering, ColumnInfo::Role::kPartitionKey}) {
    for (const ColumnInfo& column : table.columns) {
      if (column.role == role) order.push_back({column.sql_name, column.descending});
    }
  }
  if (std::get<bool>(reversed)) {
    for (OrderColumn& column : order) column.descending = !column.descending;
  }
  FL_ASSERT(!order.empty());
  return order;
}

}  // namespace

std::optional<CqlError> Engine::AddInRelation(const Relation& relation, const ColumnInfo& column,
                                              SelectWhere& where) {
  if (!column.is_key()) {
    return At(CqlStatementInvalid("IN is only supported on primary key columns"), relation.offset);
  }
  if (where.restricted.contains({&column, '<'}) || where.restricted.contains({&column, '>'}) ||
      !where.restricted.insert({&column, '='}).second) {
    return At(CqlStatementInvalid("Illogical condition for where clause"), relation.offset);
  }
  std::string marks;
  for (const Term& element : relation.value.elements) {
    std::variant<Value, CqlError> value = FromTerm(element, column.type, bound_);
    if (auto* error = std::get_if<CqlError>(&value)) return std::move(*error);
    if (std::get<Value>(value).is_null()) {
      return At(InvalidArgument(
                    fmt::format("Invalid null value in condition for column {}", relation.column)),
                element.offset);
    }
    where.parameters.push_back(std::move(std::get<Value>(value)));
    marks += marks.empty() ? "?" : ", ?";
  }
  where.sql +=
      fmt::format("{}{} IN ({})", where.sql.empty() ? "" : " AND ", column.sql_name, marks);
  return std::nullopt;
}

std::optional<CqlError> Engine::AddRelation(const Relation& relation, const ColumnInfo& column,
                                            SelectWhere& where) {
  const char kind = relation.op == "<=" ? '<' : relation.op == ">=" ? '>' : relation.op[0];
  if (kind != '=' && kind != '!' && column.role == ColumnInfo::Role::kPartitionKey) {
    return At(CqlStatementInvalid("Partition column cannot be used in this expression"),
              relation.offset);
  }
  const auto& restricted = where.restricted;
  const bool conflicting =
      restricted.contains({&column, '='}) ||
      (kind == '=' && (restricted.contains({&column, '<'}) || restricted.contains({&column, '>'})));
  if (conflicting || (kind != '!' && !where.restricted.insert({&column, kind}).second)) {
    return At(CqlStatementInvalid("Illogical condition for where clause"), relation.offset);
  }
  if (column.type.IsCollection()) {
    return InvalidArgument(
        fmt::format("Collection column {} cannot be restricted", relation.column));
  }
  std::variant<Value, CqlError> value = FromTerm(relation.value, column.type, bound_);
  if (auto* error = std::get_if<CqlError>(&value)) return std::move(*error);
  where.sql +=
      fmt::format("{}{} {} ?", where.sql.empty() ? "" : " AND ", column.sql_name, relation.op);
  where.parameters.push_back(std::move(std::get<Value>(value)));
  return std::nullopt;
}

std::variant<Engine::SelectWhere, CqlError> Engine::WhereOf(const TableInfo& table,
                                                            const Select& statement) {
  SelectWhere where;
  for (const Relation& relation : statement.where) {
    const ColumnInfo* column = table.Find(relation.column);
    if (column == nullptr) return At(UndefinedColumn(), relation.offset);
    std::optional<CqlError> error = relation.op == "IN" ? AddInRelation(relation, *column, where)
                                                        : AddRelation(relation, *column, where);
    if (error) return std::move(*error);
  }
  // Rows past their TTL are gone, though SQLite still holds them.
  if (!table.read_only) {
    where.sql +=
        fmt::format("{}(fl_expires IS NULL OR fl_expires > ?)", where.sql.empty() ? "" : " AND ");
    where.parameters.push_back(Value::Int(Now()));
  }
  FL_ASSERT(where.restricted.size() <= statement.where.size());
  return where;
}

Outcome Engine::CountRows(const TableInfo& table, const SelectWhere& where, std::int64_t limit,
                          QueryResult result) {
  const std::string filter = where.sql.empty() ? "" : " WHERE " + where.sql;
  const std::string sql = fmt::format("SELECT count(*) FROM (SELECT 1 FROM {}{} LIMIT ?)",
                                      RowSource(table, Materialized(table)), filter);
  sqlite3_stmt* prepared = Prepared(sql);
  if (prepared == nullptr) return SqliteFailure("SELECT");
  int index = BindNow(prepared);
  for (const Value& value : where.parameters) BindValue(prepared, index++, value);
  sqlite3_bind_int64(prepared, index, limit);
  const int code = sqlite3_step(prepared);
  if (code == SQLITE_ROW) result.rows.push_back({Value::Int(sqlite3_column_int64(prepared, 0))});
  sqlite3_reset(prepared);
  if (code != SQLITE_ROW) return SqliteFailure("SELECT");
  FL_ASSERT(result.rows.size() == 1 && result.columns.size() == 1);
  return result;
}

Outcome Engine::ReadRows(const TableInfo& table, const std::vector<const ColumnInfo*>& selected,
                         const SelectWhere& where, const std::vector<OrderColumn>& order,
                         std::int64_t limit, const PageRequest& page, QueryResult result) {
  std::variant<PagingState, CqlError> parsed =
      ParsePagingState(page.paging_state, table, order.size());
  if (auto* error = std::get_if<CqlError>(&parsed)) return std::move(*error);
  PagingState state = std::move(std::get<PagingState>(parsed));
  std::int64_t wanted = limit < 0 ? -1 : std::max<std::int64_t>(limit - state.returned, 0);
  const bool paged = page.page_size > 0 && (wanted < 0 || wanted > page.page_size);
  if (paged) wanted = page.page_size;
  // The selected columns, then, when paging, the order columns (to resume
  // after the last row).
  std::string columns;
  for (const ColumnInfo* column : selected) {
    columns += (columns.empty() ? "" : ", ") + column->sql_name;
  }
  if (paged) {
    for (const OrderColumn& column : order) {
      columns += (columns.empty() ? "" : ", ") + column.sql_name;
    }
  }
  if (columns.empty()) columns = "1";
  std::string filter = where.sql.empty() ? "" : " WHERE " + where.sql;
  if (!state.after.empty()) {
    filter += fmt::format("{}({})", where.sql.empty() ? " WHERE " : " AND ",
                          AfterSql(order, table.HasStatics()));
  }
  const std::string sql =
      fmt::format("SELECT {} FROM {}{} ORDER BY {} LIMIT ?", columns,
                  RowSource(table, Materialized(table)), filter, OrderBySql(order));
  sqlite3_stmt* prepared = Prepared(sql);
  if (prepared == nullptr) return SqliteFailure("SELECT");
  int index = BindNow(prepared);
  for (const Value& value : where.parameters) BindValue(prepared, index++, value);
  index = BindAfter(prepared, index, state.after, table.HasStatics());
  sqlite3_bind_int64(prepared, index, wanted);
  int code = SQLITE_ROW;
  unreadable_cell_ = false;
  while ((code = sqlite3_step(prepared)) == SQLITE_ROW) {
    Row& row = result.rows.emplace_back();
    for (std::size_t i = 0; i < selected.size(); ++i) {
      row.push_back(ReadValue(prepared, static_cast<int>(i), selected[i]->type));
    }
    if (paged) {
      state.after.clear();
      for (std::size_t i = 0; i < order.size(); ++i) {
        state.after.push_back(ReadCell(prepared, static_cast<int>(selected.size() + i)));
      }
    }
  }
  sqlite3_reset(prepared);
  if (code != SQLITE_DONE) return SqliteFailure("SELECT");
  if (unreadable_cell_) return UnreadableCell();
  FL_ASSERT(wanted < 0 || static_cast<std::int64_t>(result.rows.size()) <= wanted);
  // A full page may have more behind it; the next page starts after its last row.
  if (paged && static_cast<std::int64_t>(result.rows.size()) == wanted) {
    state.returned += wanted;
    result.paging_state = FormatPagingState(table, state);
  }
  return result;
}

Outcome Engine::RunSelect(Session& session, const Select& statement, const PageRequest& page) {
  std::variant<const TableInfo*, CqlError> resolved = ResolveTable(session, statement.table, false);
  if (auto* error = std::get_if<CqlError>(&resolved)) return std::move(*error);
  const TableInfo& table = *std::get<const TableInfo*>(resolved);
  QueryResult result;
  result.kind = QueryResult::Kind::kRows;
  std::variant<std::vector<const ColumnInfo*>, CqlError> selected =
      SelectedColumns(table, statement, result);
  if (auto* error = std::get_if<CqlError>(&selected)) return std::move(*error);
  std::variant<SelectWhere, CqlError> where = WhereOf(table, statement);
  if (auto* error = std::get_if<CqlError>(&where)) return std::move(*error);
  std::int64_t limit = -1;
  if (statement.limit) {
    std::variant<Value, CqlError> value = FromTerm(*statement.limit, kBigint, bound_);
    if (auto* error = std::get_if<CqlError>(&value)) return std::move(*error);
    limit = std::get<Value>(value).integer;
    if (std::get<Value>(value).is_null() || limit < 0) {
      return InvalidArgument("LIMIT must not be negative");
    }
  }
  if (statement.count)
    return CountRows(table, std::get<SelectWhere>(where), limit, std::move(result));
  std::variant<std::vector<OrderColumn>, CqlError> order =
      SelectOrder(table, statement, std::get<SelectWhere>(where).restricted);
  if (auto* error = std::get_if<CqlError>(&order)) return std::move(*error);
  return ReadRows(table, std::get<std::vector<const ColumnInfo*>>(selected),
                  std::get<SelectWhere>(where), std::get<std::vector<OrderColumn>>(order), limit,
                  page, std::move(result));
}

}  // namespace faultline::models::cql
