#include "models/migrate/schema_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

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

// The name the store gives an unnamed index: table_columns_idx (YCQL's, and
// Cassandra's for the one target its plain indexes take).
std::string IndexName(const cql::CreateIndex& index) {
  if (!index.name.empty()) return index.name;
  std::string name = index.table.name + "_";
  for (const cql::IndexTarget& target : index.targets) name += target.column + "_";
  return name + "idx";
}

// CREATE and DROP INDEX. Like a table's, an index made IF NOT EXISTS under a
// taken name is the author's new definition (the store keeps the old one).
void ApplyIndexStatement(const cql::Statement& statement, const std::string& keyspace,
                         SchemaModel& schema) {
  if (const auto* create = std::get_if<cql::CreateIndex>(&statement)) {
    const auto table = schema.find(create->table.name);
    if (!InKeyspace(create->table, keyspace) || table == schema.end()) return;
    const std::string name = IndexName(*create);
    if (schema.indexes.contains(name) && !create->if_not_exists) return;
    std::set<std::string> on;
    for (const cql::IndexTarget& target : create->targets) on.insert(target.column);
    const std::set<std::string> included(create->included.begin(), create->included.end());
    schema.indexes[name] = IndexShape(create->table.name, on, included, table->second);
  } else if (const auto* drop = std::get_if<cql::DropIndex>(&statement)) {
    if (InKeyspace(drop->index, keyspace)) schema.indexes.erase(drop->index.name);
  }
}

// CREATE, ALTER and DROP TYPE, as ApplyStatement counts a table's.
void ApplyTypeStatement(const cql::Statement& statement, const std::string& keyspace,
                        SchemaModel& schema) {
  if (const auto* create = std::get_if<cql::CreateType>(&statement)) {
    if (!InKeyspace(create->type, keyspace)) return;
    if (schema.types.contains(create->type.name) && !create->if_not_exists) return;
    std::vector<std::string> names;
    std::vector<std::string> types;
    for (const cql::ColumnDefinition& field : create->fields) {
      names.push_back(field.name);
      types.push_back(field.type.ToString());
    }
    schema.types[create->type.name] = TypeShape(names, types);
  } else if (const auto* alter = std::get_if<cql::AlterType>(&statement)) {
    const auto type = schema.types.find(alter->type.name);
    if (!InKeyspace(alter->type, keyspace) || type == schema.types.end()) return;
    // Where a field's name starts in ", " + shape (a type's own ", " could
    // match too, for a field named like a type: taken as good enough here).
    const auto field_at = [&](const std::string& name) {
      return (", " + type->second).find(", " + name + " ");
    };
    if (alter->action == cql::AlterType::Action::kAdd) {
      if (field_at(alter->field.name) == std::string::npos) {
        type->second += ", " + alter->field.name + " " + alter->field.type.ToString();
      }
      return;
    }
    for (const cql::AlterType::Rename& rename : alter->renames) {
      const std::size_t at = field_at(rename.from);
      if (at != std::string::npos) type->second.replace(at, rename.from.size(), rename.to);
    }
  } else if (const auto* drop = std::get_if<cql::DropType>(&statement)) {
    if (InKeyspace(drop->type, keyspace)) schema.types.erase(drop->type.name);
  }
}

// "index x ..." lines of SchemaDiff, for indexes or types (`what`).
void DiffDefinitions(std::string_view what, const std::map<std::string, std::string>& expected,
                     const std::map<std::string, std::string>& live, bool extra_allowed,
                     std::vector<std::string>& lines) {
  for (const auto& [name, shape] : expected) {
    const auto found = live.find(name);
    if (found == live.end()) {
      lines.push_back(fmt::format("{} {} ({}) is missing", what, name, shape));
    } else if (found->second != shape) {
      lines.push_back(
          fmt::format("{} {} is {}, the migrations say {}", what, name, found->second, shape));
    }
  }
  for (const auto& [name, shape] : live) {
    if (!extra_allowed && !expected.contains(name)) {
      lines.push_back(fmt::format("{} {} ({}): not in the migrations", what, name, shape));
    }
  }
}

}  // namespace

std::string IndexShape(const std::string& table, const std::set<std::string>& on,
                       const std::set<std::string>& included,
                       const std::map<std::string, std::string>& table_columns) {
  const auto is_key = [&](const std::string& column) {
    const auto found = table_columns.find(column);
    return found != table_columns.end() &&
           (found->second.ends_with(", partition key") || found->second.ends_with(", clustering"));
  };
  std::vector<std::string> columns;
  for (const std::string& column : on) {
    if (!is_key(column)) columns.push_back(column);
  }
  std::string shape = fmt::format("{} ({})", table, fmt::join(columns, ", "));
  if (!included.empty()) shape += fmt::format(" INCLUDE ({})", fmt::join(included, ", "));
  return shape;
}

std::string TypeShape(const std::vector<std::string>& names,
                      const std::vector<std::string>& types) {
  FL_ASSERT(names.size() == types.size());
  std::string shape;
  for (std::size_t i = 0; i < names.size(); ++i) {
    shape += fmt::format("{}{} {}", i == 0 ? "" : ", ", names[i], types[i]);
  }
  return shape;
}

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
        columns[operation->column.name] = DescribedType(
            TypeText(operation->column.type), operation->column.is_static ? "static" : "regular");
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
    if (!InKeyspace(drop->table, keyspace)) return;
    schema.erase(drop->table.name);
    // Its indexes go with it.
    std::erase_if(schema.indexes, [&](const auto& index) {
      return index.second.starts_with(drop->table.name + " (");
    });
  } else {
    ApplyIndexStatement(statement, keyspace, schema);
    ApplyTypeStatement(statement, keyspace, schema);
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
  const bool extra_allowed = extra_tables == ExtraTables::kAllowed;
  DiffDefinitions("index", expected.indexes, live.indexes, extra_allowed, lines);
  DiffDefinitions("type", expected.types, live.types, extra_allowed, lines);
  // A difference is only ever reported between schemas that differ.
  FL_ASSERT(lines.empty() || expected != live);
  return lines;
}

}  // namespace faultline::models::migrate
