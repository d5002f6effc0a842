#include "models/migrate/schema_model.h"

#include <fmt/format.h>

#include <algorithm>

#include "models/cql/parser.h"
#include "models/cql/types.h"
#include "models/migrate/statements.h"
#include "sim/assert.h"

namespace faultline::models::migrate {
namespace {

std::string TypeText(const cql::TypeName& name) {
  std::variant<cql::CqlType, cql::CqlError> type = cql::ResolveType(name);
  if (const auto* resolved = std::get_if<cql::CqlType>(&type)) return resolved->ToString();
  return name.ToString();
}

std::string_view KindOf(const cql::CreateTable& create, const cql::ColumnDefinition& column) {
  const auto in = [&](const std::vector<std::string>& key) {
    return std::find(key.begin(), key.end(), column.name) != key.end();
  };
  if (in(create.partition_key)) return "partition_key";
  if (in(create.clustering_key)) return "clustering";
  return column.is_static ? "static" : "regular";
}

bool InKeyspace(const cql::QualifiedName& name, const std::string& keyspace) {
  return name.keyspace.empty() || name.keyspace == keyspace;
}

}  // namespace

// A column's type and, for a key column, its part of the key: a table whose
// columns match but whose key differs is not the table the migrations made.
std::string DescribedType(std::string type, std::string_view kind) {
  if (kind == "partition_key") return type + ", partition key";
  if (kind == "clustering") return type + ", clustering";
  if (kind == "static") return type + ", static";
  return type;
}

void ApplyStatement(const cql::Statement& statement, const std::string& keyspace,
                    SchemaModel& schema) {
  if (const auto* create = std::get_if<cql::CreateTable>(&statement)) {
    if (!InKeyspace(create->table, keyspace)) return;
    // A plain CREATE of an existing table fails (Duplicate Object), so it
    // never shaped the schema. A CREATE ... IF NOT EXISTS of one is the
    // author's new definition, which the store silently ignores: the image's
    // code expects the new one, so that is the schema it must find.
    if (schema.contains(create->table.name) && !create->if_not_exists) return;
    auto& columns = schema[create->table.name];
    columns.clear();
    for (const cql::ColumnDefinition& column : create->columns) {
      columns[column.name] = DescribedType(TypeText(column.type), KindOf(*create, column));
    }
    // One entry a column (a name given twice keeps one).
    FL_ASSERT(columns.size() <= create->columns.size());
  } else if (const auto* alter = std::get_if<cql::AlterTable>(&statement)) {
    auto table = schema.find(alter->table.name);
    if (!InKeyspace(alter->table, keyspace) || table == schema.end()) return;
    // The model is of columns; WITH changes options only. ADD IF NOT EXISTS
    // keeps a column that is there.
    for (const cql::AlterTable* operation : cql::Operations(*alter)) {
      auto& columns = table->second;
      if (operation->action == cql::AlterTable::Action::kAdd) {
        if (operation->if_exists && columns.contains(operation->column.name)) continue;
        columns[operation->column.name] = TypeText(operation->column.type);
      } else if (operation->action == cql::AlterTable::Action::kDrop) {
        columns.erase(operation->column.name);
      } else if (operation->action == cql::AlterTable::Action::kRename) {
        auto column = columns.extract(operation->column.name);
        if (!column.empty()) {
          column.key() = operation->new_name;
          columns.insert(std::move(column));
        }
      }
    }
  } else if (const auto* drop = std::get_if<cql::DropTable>(&statement)) {
    if (InKeyspace(drop->table, keyspace)) schema.erase(drop->table.name);
  }
}

SchemaModel ExpectedSchema(const MigrationSource& source, const std::string& keyspace) {
  SchemaModel schema;
  for (const auto& [version, migration] : source.migrations()) {
    if (!migration.up) continue;
    for (const std::string& piece : SplitStatements(*migration.up)) {
      const cql::ParseResult parsed = cql::Parse(piece);
      for (const cql::ParsedStatement& statement : parsed.statements) {
        ApplyStatement(statement.statement, keyspace, schema);
      }
    }
  }
  return schema;
}

std::vector<std::string> SchemaDiff(const SchemaModel& expected, const SchemaModel& live,
                                    ExtraTables extra_tables, ExtraColumns extra_columns) {
  std::vector<std::string> lines;
  for (const auto& [table, columns] : expected) {
    auto found = live.find(table);
    if (found == live.end()) {
      lines.push_back(fmt::format("table {} is missing", table));
      continue;
    }
    for (const auto& [column, type] : columns) {
      auto have = found->second.find(column);
      if (have == found->second.end()) {
        lines.push_back(fmt::format("table {}: column {} ({}) is missing", table, column, type));
      } else if (have->second != type) {
        lines.push_back(fmt::format("table {}: column {} is {}, the migrations say {}", table,
                                    column, have->second, type));
      }
    }
    for (const auto& [column, type] : found->second) {
      if (extra_columns == ExtraColumns::kDifferent && !columns.contains(column)) {
        lines.push_back(
            fmt::format("table {}: column {} ({}) is not in the migrations", table, column, type));
      }
    }
  }
  for (const auto& [table, columns] : live) {
    if (extra_tables == ExtraTables::kDifferent && !expected.contains(table))
      lines.push_back(fmt::format("table {}: not in the migrations", table));
  }
  // A difference is only ever reported between schemas that differ.
  FL_ASSERT(lines.empty() || expected != live);
  return lines;
}

}  // namespace faultline::models::migrate
