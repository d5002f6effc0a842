#include "models/cql/paging.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <string_view>
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

CqlError InvalidPagingState() { return InvalidArgument("Invalid paging state"); }

// Reads a decimal number ending at `stop` from `text`, advancing it.
std::optional<std::int64_t> Number(std::string_view& text, char stop) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data() + text.size() || *end != stop || value < 0) {
    return std::nullopt;
  }
  text.remove_prefix(static_cast<std::size_t>(end - text.data()) + 1);
  return value;
}

std::optional<SqlCell> Cell(std::string_view& text) {
  if (text.empty()) return std::nullopt;
  const char type = text.front();
  text.remove_prefix(1);
  const std::optional<std::int64_t> length = Number(text, ':');
  if (!length || static_cast<std::size_t>(*length) > text.size()) return std::nullopt;
  const std::string_view bytes = text.substr(0, static_cast<std::size_t>(*length));
  text.remove_prefix(bytes.size());
  FL_ASSERT(bytes.size() == static_cast<std::size_t>(*length));
  SqlCell cell;
  switch (type) {
    case 'n':
      cell.type = SQLITE_NULL;
      return bytes.empty() ? std::optional<SqlCell>(cell) : std::nullopt;
    case 'i': {
      cell.type = SQLITE_INTEGER;
      const auto [end, error] =
          std::from_chars(bytes.data(), bytes.data() + bytes.size(), cell.integer);
      if (error != std::errc() || end != bytes.data() + bytes.size()) return std::nullopt;
      return cell;
    }
    case 'r':
      if (bytes.size() != sizeof(double)) return std::nullopt;
      cell.type = SQLITE_FLOAT;
      std::memcpy(&cell.real, bytes.data(), sizeof(double));
      return cell;
    case 't':
    case 'b':
      cell.type = type == 't' ? SQLITE_TEXT : SQLITE_BLOB;
      cell.bytes = std::string(bytes);
      return cell;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::vector<OrderColumn> RowOrder(const TableInfo& table) {
  std::vector<OrderColumn> order;
  if (!table.order_by.empty()) {
    // A view's own order: plain column names, ascending, separated by ", ".
    std::string_view rest = table.order_by;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(", ");
      order.push_back({std::string(rest.substr(0, comma)), false});
      rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 2);
    }
    return order;
  }
  for (std::size_t i = 0; i < table.KeyColumns(); ++i) {
    order.push_back({table.columns[i].sql_name, table.columns[i].descending});
  }
  FL_ASSERT(order.size() == table.KeyColumns());
  return order;
}

std::string OrderBySql(const std::vector<OrderColumn>& order) {
  std::string sql;
  for (const OrderColumn& column : order) {
    sql += fmt::format("{}{}{}", sql.empty() ? "" : ", ", column.sql_name,
                       column.descending ? " DESC" : "");
  }
  return sql;
}

std::variant<PagingState, CqlError> ParsePagingState(const std::string& text,
                                                     const TableInfo& table,
                                                     std::size_t order_columns) {
  PagingState state;
  if (text.empty()) return state;
  std::string_view rest = text;
  const std::optional<std::int64_t> id = Number(rest, ':');
  const std::optional<std::int64_t> returned = id ? Number(rest, ':') : std::nullopt;
  if (!returned || *id != table.id) return InvalidPagingState();
  state.returned = *returned;
  for (std::size_t i = 0; i < order_columns; ++i) {
    std::optional<SqlCell> cell = Cell(rest);
    if (!cell) return InvalidPagingState();
    state.after.push_back(std::move(*cell));
  }
  if (!rest.empty()) return InvalidPagingState();
  FL_ASSERT(state.after.size() == order_columns);
  return state;
}

std::string FormatPagingState(const TableInfo& table, const PagingState& state) {
  FL_ASSERT(state.returned >= 0);
  std::string text = fmt::format("{}:{}:", table.id, state.returned);
  for (const SqlCell& cell : state.after) {
    switch (cell.type) {
      case SQLITE_INTEGER: {
        const std::string digits = std::to_string(cell.integer);
        text += fmt::format("i{}:{}", digits.size(), digits);
        break;
      }
      case SQLITE_FLOAT:
        text += fmt::format("r{}:", sizeof(double));
        text.append(reinterpret_cast<const char*>(&cell.real), sizeof(double));
        break;
      case SQLITE_TEXT:
      case SQLITE_BLOB:
        text += fmt::format("{}{}:", cell.type == SQLITE_TEXT ? 't' : 'b', cell.bytes.size());
        text += cell.bytes;
        break;
      default:
        text += "n0:";
    }
  }
  return text;
}

std::string AfterSql(const std::vector<OrderColumn>& order, bool nullable) {
  FL_ASSERT(!order.empty());
  std::string sql;
  for (std::size_t j = 0; j < order.size(); ++j) {
    std::string term;
    for (std::size_t i = 0; i < j; ++i) {
      term += order[i].sql_name + (nullable ? " IS ? AND " : " = ? AND ");
    }
    const std::string& column = order[j].sql_name;
    if (!nullable) {
      term += column + (order[j].descending ? " < ?" : " > ?");
    } else if (order[j].descending) {  // Nulls last: after v, the smaller and the nulls.
      term += fmt::format("({0} < ? OR ({0} IS NULL AND ? IS NOT NULL))", column);
    } else {  // Nulls first: after a null, every value.
      term += fmt::format("({0} > ? OR ({0} IS NOT NULL AND ? IS NULL))", column);
    }
    sql += fmt::format("{}({})", sql.empty() ? "" : " OR ", term);
  }
  return sql;
}

namespace {
void Bind(sqlite3_stmt* statement, int index, const SqlCell& cell) {
  switch (cell.type) {
    case SQLITE_INTEGER:
      sqlite3_bind_int64(statement, index, cell.integer);
      break;
    case SQLITE_FLOAT:
      sqlite3_bind_double(statement, index, cell.real);
      break;
    case SQLITE_TEXT:
      sqlite3_bind_text(statement, index, cell.bytes.data(), static_cast<int>(cell.bytes.size()),
                        SQLITE_TRANSIENT);
      break;
    case SQLITE_BLOB:
      sqlite3_bind_blob(statement, index, cell.bytes.data(), static_cast<int>(cell.bytes.size()),
                        SQLITE_TRANSIENT);
      break;
    default:
      sqlite3_bind_null(statement, index);
  }
}
}  // namespace

int BindAfter(sqlite3_stmt* statement, int index, const std::vector<SqlCell>& after,
              bool nullable) {
  FL_ASSERT(index >= 1);
  const int first = index;
  for (std::size_t j = 0; j < after.size(); ++j) {
    for (std::size_t i = 0; i <= j; ++i) Bind(statement, index++, after[i]);
    if (nullable) Bind(statement, index++, after[j]);  // The null test's.
  }
  // AfterSql's terms: 1 + 2 + ... + n placeholders (one more each if nullable).
  const std::size_t n = after.size();
  FL_ASSERT(static_cast<std::size_t>(index - first) == n * (n + 1) / 2 + (nullable ? n : 0));
  return index;
}

SqlCell ReadCell(sqlite3_stmt* statement, int column) {
  FL_ASSERT(column >= 0 && column < sqlite3_column_count(statement));
  SqlCell cell;
  cell.type = sqlite3_column_type(statement, column);
  if (cell.type == SQLITE_INTEGER) cell.integer = sqlite3_column_int64(statement, column);
  if (cell.type == SQLITE_FLOAT) cell.real = sqlite3_column_double(statement, column);
  if (cell.type == SQLITE_TEXT || cell.type == SQLITE_BLOB) {
    const auto* data = static_cast<const char*>(sqlite3_column_blob(statement, column));
    cell.bytes.assign(data == nullptr ? "" : data,
                      static_cast<std::size_t>(sqlite3_column_bytes(statement, column)));
  }
  return cell;
}

}  // namespace faultline::models::cql
