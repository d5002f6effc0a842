// SQLite collations for the CQL types stored as text whose order is not the
// text's: decimals (by value: 9 < 10, and 10 = 10.0) and timeuuids (by the
// time in them, as Cassandra orders them). Columns of those types are
// declared with them, so keys, WHERE comparisons and ORDER BY all agree.
// A database exported with such a table needs them to be read by SQL that
// compares those columns; other queries work in any SQLite.
#pragma once

#include <sqlite3.h>

#include <string_view>

namespace faultline::models::cql {

inline constexpr std::string_view kDecimalCollation = "FL_DECIMAL";
inline constexpr std::string_view kTimeuuidCollation = "FL_TIMEUUID";

// Registers both on `db`; SQLITE_OK or SQLite's error.
int RegisterCollations(sqlite3* db);

// <0, 0, >0, as the collations order them (exposed for tests).
int CompareDecimals(std::string_view a, std::string_view b);
int CompareTimeuuids(std::string_view a, std::string_view b);

}  // namespace faultline::models::cql
