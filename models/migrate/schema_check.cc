#include "models/migrate/schema_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "models/cql/parser.h"
#include "sim/assert.h"

namespace faultline::models::migrate {
namespace {

// The runners' own tables: never part of a service's schema.
const std::set<std::string>& BookkeepingTables() {
  static const std::set<std::string> kTables = {"schema_migrations", "faultline_migrations",
                                                "faultline_migration_lock"};
  return kTables;
}

}  // namespace

namespace {

// Both ways of reading a live schema ask the store the same question.
constexpr const char* kColumnsQuery =
    "SELECT table_name, column_name, type, kind FROM system_schema.columns WHERE "
    "keyspace_name = ?";

SchemaModel SchemaFromColumns(const std::vector<cql::Row>& rows) {
  SchemaModel schema;
  for (const cql::Row& row : rows) {
    FL_ASSERT(row.size() == 4);
    if (BookkeepingTables().contains(row.at(0).bytes)) continue;
    schema[row.at(0).bytes][row.at(1).bytes] = DescribedType(row.at(2).bytes, row.at(3).bytes);
  }
  // Every table named has a column, and none is the runners' own.
  for (const auto& [table, columns] : schema) {
    FL_ASSERT(!columns.empty());
    FL_ASSERT(!BookkeepingTables().contains(table));
  }
  return schema;
}

}  // namespace

sim::Awaitable<sim::Result<SchemaModel>> LiveSchema(cql::CqlSession& session,
                                                    const std::string& keyspace) {
  std::vector<cql::Value> values;
  values.push_back(cql::Value::Text(keyspace));
  cql::ClientResult rows = co_await session.Query(kColumnsQuery, std::move(values));
  if (!rows.ok()) co_return sim::Status::Unavailable(rows.ToString());
  co_return SchemaFromColumns(rows.result.rows);
}

sim::Result<SchemaModel> SnapshotSchema(cql::StoreSnapshot& snapshot, const std::string& keyspace) {
  std::vector<cql::Value> values;
  values.push_back(cql::Value::Text(keyspace));
  cql::Outcome outcome = snapshot.Read(kColumnsQuery, std::move(values));
  if (const auto* error = std::get_if<cql::CqlError>(&outcome)) {
    return sim::Status::IoError(error->message);
  }
  return SchemaFromColumns(std::get<cql::QueryResult>(outcome).rows);
}

}  // namespace faultline::models::migrate
