// Static columns: one value per partition (catalog.h says where they are
// stored). What reads and writes need to see a table's two SQLite tables as
// the one CQL table: the rows a SELECT reads, the stored row a conditional
// or combining write starts from, and the split of a write's cells between
// the partition's static row and its clustering row.
#include <fmt/format.h>

#include <algorithm>

#include "models/cql/engine.h"
#include "models/cql/sql.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

std::string LiveIn(std::string_view alias) {
  return fmt::format("({0}.fl_expires IS NULL OR {0}.fl_expires > :now)", alias);
}

// "r.c0 = s.c0 AND r.c1 = s.c1" over the partition key.
std::string SamePartition(const TableInfo& table) {
  std::string sql;
  for (const ColumnInfo& column : table.columns) {
    if (column.role != ColumnInfo::Role::kPartitionKey) continue;
    sql += fmt::format("{0}r.{1} = s.{1}", sql.empty() ? "" : " AND ", column.sql_name);
  }
  FL_ASSERT(!sql.empty());
  return sql;
}

}  // namespace

std::string StaticTableSql(const TableInfo& table) {
  FL_ASSERT(table.HasStatics());
  std::string sql = fmt::format("CREATE TABLE {} (", table.StaticSqlName());
  std::string key;
  for (const ColumnInfo& column : table.columns) {
    if (column.role == ColumnInfo::Role::kPartitionKey) {
      key += (key.empty() ? "" : ", ") + column.sql_name;
    } else if (!column.is_static()) {
      continue;
    }
    sql += SqlColumnDeclaration(column) + ", ";
  }
  return sql + fmt::format(
                   "fl_live INTEGER NOT NULL DEFAULT 0, fl_expires INTEGER, PRIMARY KEY ({})) "
                   "WITHOUT ROWID",
                   key);
}

// Each row of the partition with its static values, then each partition with
// static values and no live row as one row whose clustering and regular
// columns are null. Its columns are the table's SQLite names and
// fl_expires, so a SELECT reads it as it reads the table itself.
std::string RowSource(const TableInfo& table, bool materialized) {
  if (table.read_only) {
    FL_ASSERT_MSG(!table.row_source.empty(), "system table {} without its rows", table.name);
    return table.row_source;
  }
  if (!materialized) {
    // Every column a read may name (the regular, static and hidden ones),
    // null, in no row.
    std::string columns;
    for (const ColumnInfo& column : table.columns) columns += "NULL AS " + column.sql_name + ", ";
    return "(SELECT " + columns + "NULL AS fl_live, NULL AS fl_expires WHERE 0)";
  }
  if (!table.HasStatics()) return table.sql_name;
  std::string joined;
  std::string alone;
  for (const ColumnInfo& column : table.columns) {
    const char* from = column.is_static() ? "s" : "r";
    joined += fmt::format("{}.{} AS {}, ", from, column.sql_name, column.sql_name);
    const bool static_side = column.is_static() || column.role == ColumnInfo::Role::kPartitionKey;
    alone += static_side ? fmt::format("s.{}, ", column.sql_name) : std::string("NULL, ");
  }
  const std::string same = SamePartition(table);
  return fmt::format(
      "(SELECT {0}r.fl_expires AS fl_expires FROM {1} AS r LEFT JOIN {2} AS s ON {3} AND {4} "
      "UNION ALL SELECT {5}s.fl_expires FROM {2} AS s WHERE {4} AND NOT EXISTS "
      "(SELECT 1 FROM {1} AS r WHERE {3} AND {6}))",
      joined, table.sql_name, table.StaticSqlName(), same, LiveIn("s"), alone, LiveIn("r"));
}

int Engine::BindNow(sqlite3_stmt* statement) {
  const int now = sqlite3_bind_parameter_index(statement, ":now");
  if (now == 0) return 1;
  sqlite3_bind_int64(statement, now, Now());
  // :now comes first in the text (RowSource is the FROM), so the positional
  // parameters follow it.
  FL_ASSERT(now == 1);
  return 2;
}

Engine::StoragePart Engine::RowPart(const TableInfo& table) {
  StoragePart part{table.sql_name, {}, {}};
  for (const ColumnInfo& column : table.columns) {
    (column.is_key() ? part.keys : part.values).push_back(&column);
  }
  std::erase_if(part.values, [](const ColumnInfo* column) { return column->is_static(); });
  return part;
}

Engine::StoragePart Engine::StaticPart(const TableInfo& table) {
  FL_ASSERT(table.HasStatics());
  StoragePart part{table.StaticSqlName(), {}, {}};
  for (const ColumnInfo& column : table.columns) {
    if (column.role == ColumnInfo::Role::kPartitionKey) part.keys.push_back(&column);
    if (column.is_static()) part.values.push_back(&column);
  }
  return part;
}

std::optional<CqlError> Engine::Upsert(const TableInfo& table, const Cells& cells,
                                       const Value& expires, bool is_insert) {
  const bool whole_key = std::count_if(cells.begin(), cells.end(), [](const auto& cell) {
                           return cell.first->is_key();
                         }) == static_cast<std::ptrdiff_t>(table.KeyColumns());
  Cells row;
  Cells statics;
  for (const auto& cell : cells) {
    if (cell.first->role == ColumnInfo::Role::kPartitionKey) statics.push_back(cell);
    (cell.first->is_static() ? statics : row).push_back(cell);
  }
  // A write of the partition key alone sets static columns only (the
  // statement's checks made sure).
  FL_ASSERT(whole_key || row.size() == table.PartitionKeyColumns());
  const std::size_t partition = table.PartitionKeyColumns();
  if (statics.size() > partition) {
    // The static row never counts as made by an INSERT: it exists while a
    // static value is set.
    if (auto error = UpsertPart(table, StaticPart(table), statics, expires, is_insert, false)) {
      return error;
    }
    std::vector<Value> key;  // In key order, whatever the statement's order.
    for (std::size_t i = 0; i < partition; ++i) {
      const auto cell = std::find_if(cells.begin(), cells.end(),
                                     [&](const auto& c) { return c.first == &table.columns[i]; });
      FL_ASSERT(cell != cells.end());
      key.push_back(cell->second);
    }
    if (auto error = ForgetPartIfEmpty(StaticPart(table), key)) return error;
  }
  // An UPDATE of static columns alone (YCQL takes the whole key for it)
  // leaves the row as it is, its TTL too.
  const bool row_untouched = !is_insert && row.size() == table.KeyColumns();
  if (!whole_key || row_untouched) return std::nullopt;
  return UpsertPart(table, RowPart(table), row, expires, is_insert, is_insert);
}

std::optional<CqlError> Engine::ForgetIfEmpty(const TableInfo& table,
                                              const std::vector<Value>& key) {
  if (key.size() == table.KeyColumns()) {
    if (auto error = ForgetPartIfEmpty(RowPart(table), key)) return error;
  }
  if (!table.HasStatics()) return std::nullopt;
  const std::vector<Value> partition(
      key.begin(), key.begin() + static_cast<std::ptrdiff_t>(table.PartitionKeyColumns()));
  return ForgetPartIfEmpty(StaticPart(table), partition);
}

// A static table's stored row: the clustering row's columns and the
// partition's static ones, named in SQL by :k<i> (the key) and :now. It is
// there when either part is; with the partition key alone, the static row.
std::variant<std::optional<Row>, CqlError> Engine::ReadRowWithStatics(
    const TableInfo& table, const std::vector<Value>& key) {
  FL_ASSERT(table.HasStatics());
  const bool whole_key = key.size() == table.KeyColumns();
  FL_ASSERT(whole_key || key.size() == table.PartitionKeyColumns());
  std::string row_on;
  std::string static_on;
  std::string columns = whole_key ? "r.fl_live IS NOT NULL" : "0";
  columns += ", s.fl_live IS NOT NULL";
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    const ColumnInfo& column = table.columns[i];
    if (i < key.size()) {
      row_on += fmt::format("r.{} = :k{} AND ", column.sql_name, i);
      if (column.role == ColumnInfo::Role::kPartitionKey) {
        static_on += fmt::format("s.{} = :k{} AND ", column.sql_name, i);
      }
    }
    if (column.is_key()) continue;
    columns += column.is_static() ? ", s." + column.sql_name
               : whole_key        ? ", r." + column.sql_name
                                  : std::string(", NULL");
  }
  std::string sql = fmt::format("SELECT {} FROM (SELECT 1)", columns);
  if (whole_key)
    sql += fmt::format(" LEFT JOIN {} AS r ON {}{}", table.sql_name, row_on, LiveIn("r"));
  sql += fmt::format(" LEFT JOIN {} AS s ON {}{}", table.StaticSqlName(), static_on, LiveIn("s"));
  sqlite3_stmt* prepared = Prepared(sql);
  if (prepared == nullptr) return SqliteFailure("read");
  for (std::size_t i = 0; i < key.size(); ++i) {
    const int index = sqlite3_bind_parameter_index(prepared, fmt::format(":k{}", i).c_str());
    FL_ASSERT(index > 0);
    BindValue(prepared, index, key[i]);
  }
  sqlite3_bind_int64(prepared, sqlite3_bind_parameter_index(prepared, ":now"), Now());
  unreadable_cell_ = false;
  const int code = sqlite3_step(prepared);
  std::optional<Row> row;
  if (code == SQLITE_ROW &&
      (sqlite3_column_int(prepared, 0) != 0 || sqlite3_column_int(prepared, 1) != 0)) {
    row.emplace();
    int at = 2;
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
      const ColumnInfo& column = table.columns[i];
      if (column.is_key()) {
        row->push_back(i < key.size() ? key[i] : Value::Null());
      } else {
        row->push_back(ReadValue(prepared, at++, column.type));
      }
    }
    FL_ASSERT(row->size() == table.columns.size());
  }
  sqlite3_reset(prepared);
  if (code != SQLITE_ROW) return SqliteFailure("read");
  if (unreadable_cell_) return UnreadableCell();
  return row;
}

// Cassandra's StatementRestrictions: a write of static columns alone names
// the partition, not a row. YCQL takes the whole key as well
// (pt_dml.cc, AnalyzeWhereExpr).
std::optional<CqlError> Engine::StaticsOnlyWithClustering(bool statics_only, bool names_clustering,
                                                          std::string_view verb) const {
  if (dialect_ != Dialect::kCassandra || !statics_only || !names_clustering) return std::nullopt;
  return InvalidRequest(fmt::format(
      "Invalid restrictions on clustering columns since the {} statement modifies only static "
      "columns",
      verb));
}

// A DELETE of columns: static ones with the partition key (or, in YCQL, the
// whole key); regular ones with the whole key, which Cassandra says in its
// own words (DeleteStatement.addUpdateForKey). YCQL: pt_delete.cc.
std::optional<CqlError> Engine::CheckStaticDelete(const TableInfo& table, const WriteTarget& target,
                                                  const std::vector<const ColumnInfo*>& deleted,
                                                  bool names_non_static) const {
  if (deleted.empty()) return std::nullopt;
  const std::size_t partition = table.PartitionKeyColumns();
  const bool names_clustering = target.restrictions.size() > partition;
  if (names_non_static) return std::nullopt;  // AnalyzeWriteWhere wanted the whole key.
  if (auto error = StaticsOnlyWithClustering(true, names_clustering, "DELETE")) return error;
  if (target.restrictions.size() != target.key.size()) {
    return CqlStatementInvalid(
        "DELETE statement cannot specify both target columns and range condition");
  }
  if (target.key.size() != partition && target.key.size() != table.KeyColumns()) {
    return CqlStatementInvalid("Missing condition on key columns in WHERE clause");
  }
  return std::nullopt;
}

std::optional<CqlError> Engine::DeleteFromStatics(const TableInfo& table, const WriteTarget& target,
                                                  const std::vector<const ColumnInfo*>& deleted) {
  if (!table.HasStatics()) return std::nullopt;
  const std::size_t partition = table.PartitionKeyColumns();
  // Only a DELETE of the whole partition (its key and nothing more) takes
  // the static row with it; one of rows in it leaves the row alone.
  const bool whole_partition =
      deleted.empty() && target.restrictions.size() == partition && target.key.size() == partition;
  std::string set;
  for (const ColumnInfo* column : deleted) {
    if (column->is_static())
      set += fmt::format("{}{} = NULL", set.empty() ? "" : ", ", column->sql_name);
  }
  if (!whole_partition && set.empty()) return std::nullopt;
  FL_ASSERT(target.key.size() >= partition);
  std::string where;
  for (std::size_t i = 0; i < partition; ++i) {
    where += fmt::format("{}{} = ?", i == 0 ? "" : " AND ", table.columns[i].sql_name);
  }
  const std::string sql =
      whole_partition ? fmt::format("DELETE FROM {} WHERE {}", table.StaticSqlName(), where)
                      : fmt::format("UPDATE {} SET {} WHERE {}", table.StaticSqlName(), set, where);
  sqlite3_stmt* prepared = Prepared(sql);
  if (prepared == nullptr) return SqliteFailure("DELETE");
  for (std::size_t i = 0; i < partition; ++i) {
    BindValue(prepared, static_cast<int>(i + 1), target.key[i]);
  }
  if (!StepToDone(prepared)) return SqliteFailure("DELETE");
  return std::nullopt;
}

}  // namespace faultline::models::cql
