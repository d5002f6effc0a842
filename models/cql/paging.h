// Paging through a SELECT by key, as YCQL and Cassandra do: the paging state
// names the last row returned (its key, as SQLite stores it) and how many
// rows came before, and the next page starts after that key. Rows written
// or expired between pages neither repeat nor push others out of the
// result, as a row count would. The state belongs to its table: another
// table's is refused.
//
// Internal detail: the state is "<table id>:<rows so far>:" followed by each
// key cell as a type letter (i integer, r real, t text, b blob, n null), its
// length in bytes and ':', then its bytes.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/cql/catalog.h"
#include "models/cql/errors.h"

namespace faultline::models::cql {

// One column of the order rows come back in.
struct OrderColumn {
  std::string sql_name;
  bool descending = false;
};

// The order of a table's rows: its key, or a view's own order.
std::vector<OrderColumn> RowOrder(const TableInfo& table);
std::string OrderBySql(const std::vector<OrderColumn>& order);

// A cell as SQLite holds it.
struct SqlCell {
  int type = SQLITE_NULL;
  std::int64_t integer = 0;
  double real = 0;
  std::string bytes;
};

struct PagingState {
  std::int64_t returned = 0;   // Rows on earlier pages (for LIMIT).
  std::vector<SqlCell> after;  // The last row's order cells; empty on the first page.
};

// Empty text is the first page. Malformed, or another table's: Invalid
// paging state.
std::variant<PagingState, CqlError> ParsePagingState(const std::string& text,
                                                     const TableInfo& table,
                                                     std::size_t order_columns);
std::string FormatPagingState(const TableInfo& table, const PagingState& state);

// "(a > ?) OR (a = ? AND b < ?) ...": rows after `after` in `order`, with
// the cells to bind in order (BindAfter).
// With `nullable` (a table with static columns, whose static-only
// partitions read with null clustering columns), a null is a value too:
// equal to a null, before every other value (SQLite's order).
std::string AfterSql(const std::vector<OrderColumn>& order, bool nullable = false);
// Binds AfterSql's parameters from `index` on; returns the next index.
int BindAfter(sqlite3_stmt* statement, int index, const std::vector<SqlCell>& after,
              bool nullable = false);
SqlCell ReadCell(sqlite3_stmt* statement, int column);

}  // namespace faultline::models::cql
