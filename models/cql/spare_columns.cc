// Spare columns: why ALTER TABLE ... ADD costs the same on the thousandth
// table as on the first (issue #26).
//
// SQLite's own ALTER TABLE ADD COLUMN parses the whole schema again
// (alter.c, renameReloadSchema), so a migration that adds a column to each
// of N tables costs in proportion to N squared: three quarters of a
// 300-file golang-migrate run. Instead each table is created with a few
// spare SQLite columns of the common declarations, named on from the
// table's next column number (c<next>, c<next+1>, ...); a CQL ADD whose
// declaration a spare has takes it, with no SQLite DDL at all. A spare
// holds no value until taken (the SQLite record of a row written before
// reads NULL there, as for a column ALTER TABLE adds), so a taken spare is
// the column ADD COLUMN would have made. When none fits (the spares are
// used up, or the type needs a collation), ADD falls back to SQLite's
// ALTER TABLE, named after the last spare. A store made before spares had
// none, and takes that path.
#include <sqlite3.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "models/cql/collations.h"
#include "models/cql/engine.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

// The declarations ADD meets most (text, then integers, then collections
// and blobs), in the order the spares are laid out.
constexpr std::array<std::string_view, 8> kSpareDeclarations = {
    "TEXT", "INTEGER", "BLOB", "TEXT", "INTEGER", "BLOB", "REAL", "TEXT"};
// SQLite's bound on a table's columns (SQLITE_MAX_COLUMN, Debian's build).
constexpr int kSqliteMaxColumns = 2000;
// fl_live and fl_expires.
constexpr int kBookkeepingColumns = 2;

}  // namespace

std::string_view SqlCollation(const CqlType& type) {
  if (type.kind == CqlType::Kind::kDecimal) return kDecimalCollation;
  if (type.kind == CqlType::Kind::kTimeuuid) return kTimeuuidCollation;
  return {};
}

std::string SpareColumnsSql(const TableInfo& table) {
  int used = kBookkeepingColumns;
  for (const ColumnInfo& column : table.columns) used += column.is_static() ? 0 : 1;
  const int spares =
      std::clamp(kSqliteMaxColumns - used, 0, static_cast<int>(kSpareDeclarations.size()));
  std::string sql;
  for (int i = 0; i < spares; ++i) {
    sql += fmt::format("c{} {}, ", table.next_column + i, kSpareDeclarations[i]);
  }
  return sql;
}

std::optional<std::string> TakeSpareColumn(sqlite3* db, TableInfo& table, const CqlType& type) {
  FL_ASSERT(table.next_column >= 0);
  const std::string_view wanted = type.SqliteAffinity();
  const bool plain = SqlCollation(type).empty();
  // Spares are contiguous from next_column; each is looked at once, so
  // this ends within the table's column bound.
  for (int probed = 0; probed < kSqliteMaxColumns; ++probed) {
    const std::string name = fmt::format("c{}", table.next_column);
    const char* declared = nullptr;
    const char* collation = nullptr;
    if (sqlite3_table_column_metadata(db, "main", table.sql_name.c_str(), name.c_str(), &declared,
                                      &collation, nullptr, nullptr, nullptr) != SQLITE_OK) {
      return std::nullopt;  // No spare left: next_column names a new one.
    }
    ++table.next_column;  // Taken, or passed over for good.
    if (plain && declared != nullptr && wanted == declared && collation != nullptr &&
        std::string_view(collation) == "BINARY") {
      return name;
    }
  }
  FL_PANIC("table {} has more than {} columns", table.sql_name, kSqliteMaxColumns);
}

}  // namespace faultline::models::cql
