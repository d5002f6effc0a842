// What catalog.cc and its parts share (internal to models/cql/; not
// installed): catalog_system.cc builds the system keyspaces,
// catalog_definitions.cc keeps indexes and user-defined types.
#pragma once

#include <sqlite3.h>

#include <string_view>

#include "models/cql/catalog.h"
#include "sim/status.h"

namespace faultline::models::cql {

// SQLite's error, said as what the catalog was doing.
sim::Status CatalogSqlError(sqlite3* db, std::string_view what);

// The table's indexes' rows in fl_indexes, after the table's own.
int WriteIndexes(StatementCache& sql, const TableInfo& table);

}  // namespace faultline::models::cql
