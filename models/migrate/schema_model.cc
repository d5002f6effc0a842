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

// `written` (a statement's WITH options) applied to a table's compared
// options: each one named takes its value, the others stay.
void ApplyOptions(const cql::Options& written, std::map<std::string, std::string>& options) {
  for (const ComparedOption& compared : kComparedOptions) {
    options.try_emplace(std::string(compared.name), compared.unset);
  }
  for (const auto& [name, value] : written) {
    auto found = options.find(name);
    if (found != options.end()) found->second = cql::UnquotedOptionValue(value);
  }
  FL_ASSERT(options.size() == std::size(kComparedOptions));
}

std::string OptionsText(const std::map<std::string, std::string>& options) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : options) {
    parts.push_back(name == "comment" ? fmt::format("{} = '{}'", name, value)
                                      : fmt::format("{} = {}", name, value));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The name the store gives an unnamed index: table_columns_idx (YCQL's, and
// Cassandra's for the one target its plain indexes take). Only messages
// show it: indexes compare by shape.
std::string IndexName(const cql::CreateIndex& index) {
  if (!index.name.empty()) return index.name;
  std::string name = index.table.name + "_";
  for (const cql::IndexTarget& target : index.targets) name += target.column + "_";
  return name + "idx";
}

// CREATE and DROP INDEX. Like a table's, an index made IF NOT EXISTS under a
// taken name is the author's new definition (the store keeps the old one).
// A plain CREATE under a taken name changes nothing, but an unnamed one of
// another shape is Cassandra's next free name (YCQL refuses it, and a
// store that refused a migration serves nothing to compare).
void ApplyIndexStatement(const cql::Statement& statement, const std::string& keyspace,
                         SchemaModel& schema) {
  if (const auto* create = std::get_if<cql::CreateIndex>(&statement)) {
    const auto table = schema.find(create->table.name);
    if (!InKeyspace(create->table, keyspace) || table == schema.end()) return;
    std::set<std::string> on;
    for (const cql::IndexTarget& target : create->targets) on.insert(target.column);
    const std::set<std::string> included(create->included.begin(), create->included.end());
    const std::string shape = IndexShape(create->table.name, on, included, table->second);
    std::string name = IndexName(*create);
    if (schema.indexes.contains(name) && !create->if_not_exists) {
      if (!create->name.empty() || schema.IndexShapes().contains(shape)) return;
      constexpr int kMaxSuffix = 1'000;
      const std::string base = name;
      for (int i = 1; i < kMaxSuffix && schema.indexes.contains(name); ++i) {
        name = fmt::format("{}_{}", base, i);
      }
    }
    schema.indexes[name] = shape;
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

// "index x ..." lines of SchemaDiff: by shape, named as each side names it.
void DiffIndexes(const std::map<std::string, std::string>& expected,
                 const std::map<std::string, std::string>& live, bool extra_allowed,
                 std::vector<std::string>& lines) {
  std::set<std::string> live_shapes;
  for (const auto& [name, shape] : live) live_shapes.insert(shape);
  std::set<std::string> expected_shapes;
  for (const auto& [name, shape] : expected) {
    expected_shapes.insert(shape);
    if (live_shapes.contains(shape)) continue;
    const auto same_name = live.find(name);
    lines.push_back(same_name == live.end() ? fmt::format("index {} ({}) is missing", name, shape)
                                            : fmt::format("index {} is {}, the migrations say {}",
                                                          name, same_name->second, shape));
  }
  for (const auto& [name, shape] : live) {
    if (extra_allowed || expected_shapes.contains(shape)) continue;
    const auto same_name = expected.find(name);
    if (same_name != expected.end() && !live_shapes.contains(same_name->second)) continue;
    lines.push_back(fmt::format("index {} ({}): not in the migrations", name, shape));
  }
}

// "type x ..." lines of SchemaDiff. With `extra_allowed` (a rollback onto a
// newer image's schema), a type may have fields the migrations do not add
// after theirs.
void DiffDefinitions(std::string_view what, const std::map<std::string, std::string>& expected,
                     const std::map<std::string, std::string>& live, bool extra_allowed,
                     std::vector<std::string>& lines) {
  for (const auto& [name, shape] : expected) {
    const auto found = live.find(name);
    if (found == live.end()) {
      lines.push_back(fmt::format("{} {} ({}) is missing", what, name, shape));
    } else if (found->second != shape &&
               !(extra_allowed && found->second.starts_with(shape + ", "))) {
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

std::set<std::string> SchemaModel::IndexShapes() const {
  std::set<std::string> shapes;
  for (const auto& [name, shape] : indexes) shapes.insert(shape);
  return shapes;
}

bool operator==(const SchemaModel& a, const SchemaModel& b) {
  using Tables = std::map<std::string, std::map<std::string, std::string>>;
  return static_cast<const Tables&>(a) == static_cast<const Tables&>(b) && a.options == b.options &&
         a.types == b.types && a.IndexShapes() == b.IndexShapes();
}

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
    schema.options[create->table.name].clear();
    ApplyOptions(create->options, schema.options[create->table.name]);
    for (const cql::ColumnDefinition& column : create->columns) {
      columns[column.name] = DescribedType(TypeText(column.type), KindOf(*create, column));
    }
    // One entry a column (a name given twice keeps one).
    FL_ASSERT(columns.size() <= create->columns.size());
  } else if (const auto* alter = std::get_if<cql::AlterTable>(&statement)) {
    auto table = schema.find(alter->table.name);
    if (!InKeyspace(alter->table, keyspace) || table == schema.end()) return;
    // WITH changes the compared options; ADD IF NOT EXISTS keeps a column
    // that is there.
    for (const cql::AlterTable* operation : cql::Operations(*alter)) {
      auto& columns = table->second;
      if (operation->action == cql::AlterTable::Action::kWith) {
        ApplyOptions(operation->options, schema.options[alter->table.name]);
      }
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
    schema.options.erase(drop->table.name);
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
    const auto expected_options = expected.options.find(table);
    const auto live_options = live.options.find(table);
    if (expected_options != expected.options.end() && live_options != live.options.end() &&
        expected_options->second != live_options->second) {
      lines.push_back(fmt::format("table {}: options are {}, the migrations say {}", table,
                                  OptionsText(live_options->second),
                                  OptionsText(expected_options->second)));
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
  DiffIndexes(expected.indexes, live.indexes, extra_tables == ExtraTables::kAllowed, lines);
  DiffDefinitions("type", expected.types, live.types,
                  extra_tables == ExtraTables::kAllowed || extra_columns == ExtraColumns::kAllowed,
                  lines);
  // A difference is only ever reported between schemas that differ.
  FL_ASSERT(lines.empty() || expected != live);
  return lines;
}

}  // namespace faultline::models::migrate
