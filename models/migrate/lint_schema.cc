// The lint's rules over statements and over the folder's schema history:
// which statements cannot run twice or delete data, and IF NOT EXISTS hiding
// another definition, a column retyped, a down failing on what it meets.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "models/migrate/lint_internal.h"
#include "models/migrate/statements.h"
#include "sim/assert.h"

namespace faultline::models::migrate::linting {
namespace {

// One ALTER TABLE operation that fails when it runs a second time, and why.
std::optional<std::string> AlterNotIdempotent(const cql::AlterTable& alter) {
  // WITH sets options to the same values again: it can run twice; so do
  // Cassandra's ADD IF NOT EXISTS and DROP/RENAME IF EXISTS.
  if (alter.action == cql::AlterTable::Action::kWith || alter.if_exists) return std::nullopt;
  if (alter.action == cql::AlterTable::Action::kRename) {
    return fmt::format(
        "ALTER TABLE {} RENAME {} TO {} fails if the file runs again (the old name is gone "
        "then: Undefined Column)",
        NameOf(alter.table), alter.column.name, alter.new_name);
  }
  // YCQL has no way to write it that runs twice: say what a team does
  // instead (found trying it as a new user, who followed the advice to add
  // a new ALTER file and still failed the gate).
  const bool add = alter.action == cql::AlterTable::Action::kAdd;
  return fmt::format(
      "ALTER TABLE {} {} {} fails if the file runs again (Cassandra 4.1 takes {}; YCQL has no "
      "such form: keep the ALTER alone in its file, so that after a crash in it `migrate force` "
      "to its own version is right when the column is {}, and say so in the file (`-- "
      "faultline:ignore needs-force <why>`, and `lost-version`), or use a runner that records "
      "each statement (`--runner safe`))",
      NameOf(alter.table), add ? "ADD" : "DROP", alter.column.name,
      add ? "ADD IF NOT EXISTS" : "DROP IF EXISTS", add ? "there" : "gone");
}

std::string ColumnsDiff(const std::map<std::string, std::string>& before,
                        const std::map<std::string, std::string>& after) {
  std::vector<std::string> parts;
  for (const auto& [column, type] : after) {
    auto old = before.find(column);
    if (old == before.end()) parts.push_back("adds " + column);
    if (old != before.end() && old->second != type) {
      parts.push_back(fmt::format("{} {} -> {}", column, old->second, type));
    }
  }
  for (const auto& [column, type] : before) {
    if (!after.contains(column)) parts.push_back("drops " + column);
  }
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

std::map<std::string, std::string> ColumnsOf(const cql::CreateTable& create,
                                             const std::string& keyspace) {
  SchemaModel one;
  ApplyStatement(create, keyspace, one);
  return one.empty() ? std::map<std::string, std::string>{} : one.begin()->second;
}

// Whether the older folder shipped this up file as it is: on the volumes it
// left, the file is applied and never runs again, so its CREATE cannot be
// skipped against what it made itself.
bool ShippedAsIs(const Context& context, const Migration& migration) {
  if (context.input.older == nullptr || !migration.up) return false;
  return std::any_of(context.input.older->begin(), context.input.older->end(),
                     [&](const MigrationFile& file) {
                       return file.name == migration.up_name && file.contents == *migration.up;
                     });
}

// What an index is on, to compare two definitions of one name: "t (a,
// keys(m)) INCLUDE (b) WHERE ... USING '...'".
std::string IndexShape(const cql::CreateIndex& index) {
  std::string shape = index.table.name + " (";
  for (std::size_t i = 0; i < index.targets.size(); ++i) {
    const cql::IndexTarget& target = index.targets[i];
    const std::string_view function = cql::IndexFunctionName(target.kind);
    shape += (i > 0 ? ", " : "") +
             (function.empty() ? target.column : fmt::format("{}({})", function, target.column));
  }
  shape += ")";
  if (!index.included.empty())
    shape += fmt::format(" INCLUDE ({})", fmt::join(index.included, ", "));
  if (!index.where_text.empty()) shape += " WHERE " + index.where_text;
  if (!index.using_class.empty()) shape += fmt::format(" USING '{}'", index.using_class);
  if (index.unique) shape = "UNIQUE " + shape;
  return shape;
}

// An index made IF NOT EXISTS under a name an earlier file gave another
// definition: the store keeps the first and says nothing.
void IndexHistory(const Context& context, const std::string& file, const LocatedStatement& at,
                  std::map<std::string, std::string>& indexes) {
  if (const auto* index = std::get_if<cql::CreateIndex>(&at.statement)) {
    if (index->name.empty()) return;  // Named by the store from its columns.
    const std::string shape = IndexShape(*index);
    const auto earlier = indexes.find(index->name);
    if (index->if_not_exists && earlier != indexes.end() && earlier->second != shape) {
      context.Add("if-not-exists-hides-drift", file, at.line, at.column,
                  fmt::format("CREATE INDEX IF NOT EXISTS {} ON {} when an earlier file made it "
                              "ON {}: the store keeps the old index and says nothing",
                              index->name, shape, earlier->second));
      return;
    }
    indexes.emplace(index->name, shape);
  } else if (const auto* drop = std::get_if<cql::DropIndex>(&at.statement)) {
    indexes.erase(drop->index.name);
  } else if (const auto* drop_table = std::get_if<cql::DropTable>(&at.statement)) {
    std::erase_if(indexes, [&](const auto& entry) {
      return entry.second.starts_with(drop_table->table.name + " (") ||
             entry.second.starts_with("UNIQUE " + drop_table->table.name + " (");
    });
  }
}

// A type made IF NOT EXISTS under a name an earlier file gave other fields:
// the store keeps the first and says nothing. ALTER TYPE changes what the
// earlier definition is.
void TypeHistory(const Context& context, const std::string& file, const LocatedStatement& at,
                 std::map<std::string, std::string>& types) {
  const auto fields_of = [](const std::vector<cql::ColumnDefinition>& fields) {
    std::vector<std::string> parts;
    for (const cql::ColumnDefinition& field : fields) {
      parts.push_back(field.name + " " + field.type.ToString());
    }
    return fmt::format("({})", fmt::join(parts, ", "));
  };
  if (const auto* create = std::get_if<cql::CreateType>(&at.statement)) {
    const std::string fields = fields_of(create->fields);
    const auto earlier = types.find(create->type.name);
    if (create->if_not_exists && earlier != types.end() && earlier->second != fields) {
      context.Add("if-not-exists-hides-drift", file, at.line, at.column,
                  fmt::format("CREATE TYPE IF NOT EXISTS {} {} when an earlier file made it {}: "
                              "the store keeps the old type and says nothing",
                              create->type.name, fields, earlier->second));
      return;
    }
    types.emplace(create->type.name, fields);
  } else if (const auto* alter = std::get_if<cql::AlterType>(&at.statement)) {
    types.erase(alter->type.name);  // Its fields are no longer the CREATE's.
  } else if (const auto* drop = std::get_if<cql::DropType>(&at.statement)) {
    types.erase(drop->type.name);
  }
}

// One ALTER TABLE operation in the folder's history: a dropped column is
// remembered with its type, and one added again with another is retyped.
void AlterHistory(const Context& context, const std::string& file, const LocatedStatement& at,
                  const cql::AlterTable& alter, const SchemaModel& schema,
                  std::map<std::pair<std::string, std::string>, std::string>& dropped) {
  const std::string& keyspace = context.input.keyspace;
  const auto table = schema.find(alter.table.name);
  if (table != schema.end() && alter.action == cql::AlterTable::Action::kDrop) {
    const auto column = table->second.find(alter.column.name);
    if (column != table->second.end()) {
      dropped[{alter.table.name, alter.column.name}] = column->second;
    }
  }
  if (alter.action != cql::AlterTable::Action::kAdd) return;
  const auto gone = dropped.find({alter.table.name, alter.column.name});
  cql::AlterTable one = alter;
  one.then.clear();
  one.if_exists = false;
  SchemaModel probe = {{alter.table.name, {}}};
  ApplyStatement(one, keyspace, probe);
  const std::string type = probe[alter.table.name][alter.column.name];
  if (gone != dropped.end() && gone->second != type) {
    context.Add("column-retyped", file, at.line, at.column,
                fmt::format("{}.{} is added as {}, dropped as {}: Cassandra refuses it, "
                            "and old rows hold the old type",
                            alter.table.name, alter.column.name, type, gone->second));
  }
}

}  // namespace

std::string NameOf(const cql::QualifiedName& name) {
  return name.keyspace.empty() ? name.name : name.keyspace + "." + name.name;
}

// A statement that fails when it runs a second time, and why: golang-migrate
// re-runs a whole file after a force to the version before it.
std::optional<std::string> NotIdempotent(const cql::Statement& statement) {
  if (const auto* create = std::get_if<cql::CreateTable>(&statement)) {
    if (!create->if_not_exists) {
      return fmt::format("CREATE TABLE {} fails if the file runs again (Duplicate Object)",
                         NameOf(create->table));
    }
  } else if (const auto* keyspace = std::get_if<cql::CreateKeyspace>(&statement)) {
    if (!keyspace->if_not_exists) {
      return fmt::format("CREATE KEYSPACE {} fails if the file runs again (Duplicate Object)",
                         keyspace->name);
    }
  } else if (const auto* drop = std::get_if<cql::DropTable>(&statement)) {
    if (!drop->if_exists) {
      return fmt::format("DROP TABLE {} fails if the file runs again (Object Not Found)",
                         NameOf(drop->table));
    }
  } else if (const auto* drop_keyspace = std::get_if<cql::DropKeyspace>(&statement)) {
    if (!drop_keyspace->if_exists) {
      return fmt::format("DROP KEYSPACE {} fails if the file runs again (Object Not Found)",
                         drop_keyspace->name);
    }
  } else if (const auto* type = std::get_if<cql::CreateType>(&statement)) {
    if (!type->if_not_exists) {
      return fmt::format("CREATE TYPE {} fails if the file runs again (Duplicate Type)",
                         NameOf(type->type));
    }
  } else if (const auto* alter_type = std::get_if<cql::AlterType>(&statement)) {
    if (alter_type->action == cql::AlterType::Action::kAdd && !alter_type->field_if_not_exists) {
      return fmt::format(
          "ALTER TYPE {} ADD {} fails if the file runs again (the field exists then; Cassandra "
          "takes ADD IF NOT EXISTS)",
          NameOf(alter_type->type), alter_type->field.name);
    }
    if (alter_type->action == cql::AlterType::Action::kRename && !alter_type->rename_if_exists) {
      return fmt::format(
          "ALTER TYPE {} RENAME {} fails if the file runs again (the old name is gone then; "
          "Cassandra takes RENAME IF EXISTS)",
          NameOf(alter_type->type), alter_type->renames.front().from);
    }
  } else if (const auto* drop_type = std::get_if<cql::DropType>(&statement)) {
    if (!drop_type->if_exists) {
      return fmt::format("DROP TYPE {} fails if the file runs again (Type Not Found)",
                         NameOf(drop_type->type));
    }
  } else if (const auto* index = std::get_if<cql::CreateIndex>(&statement)) {
    if (!index->if_not_exists) {
      return fmt::format(
          "CREATE INDEX {}fails if the file runs again (Duplicate Object in YCQL, \"already "
          "exists\" or \"is a duplicate of existing index\" in Cassandra)",
          index->name.empty() ? "ON " + NameOf(index->table) + " " : index->name + " ");
    }
  } else if (const auto* drop_index = std::get_if<cql::DropIndex>(&statement)) {
    if (!drop_index->if_exists) {
      return fmt::format("DROP INDEX {} fails if the file runs again (Object Not Found)",
                         NameOf(drop_index->index));
    }
  } else if (const auto* alter = std::get_if<cql::AlterTable>(&statement)) {
    for (const cql::AlterTable* operation : cql::Operations(*alter)) {
      if (std::optional<std::string> why = AlterNotIdempotent(*operation)) return why;
    }
  }
  return std::nullopt;
}

std::optional<std::string> Destructive(const cql::Statement& statement) {
  if (const auto* drop = std::get_if<cql::DropTable>(&statement)) {
    return fmt::format("DROP TABLE {} deletes the table and every row in it", NameOf(drop->table));
  }
  if (const auto* drop = std::get_if<cql::DropKeyspace>(&statement)) {
    return fmt::format("DROP KEYSPACE {} deletes every table in it", drop->name);
  }
  if (const auto* truncate = std::get_if<cql::Truncate>(&statement)) {
    return fmt::format("TRUNCATE {} deletes every row", NameOf(truncate->table));
  }
  const auto* alter = std::get_if<cql::AlterTable>(&statement);
  if (alter == nullptr) return std::nullopt;
  for (const cql::AlterTable* operation : cql::Operations(*alter)) {
    if (operation->action != cql::AlterTable::Action::kDrop) continue;
    return fmt::format(
        "ALTER TABLE {} DROP {} deletes the column's data, and code still "
        "running the previous image reads it",
        NameOf(alter->table), operation->column.name);
  }
  return std::nullopt;
}

bool NamesAnotherKeyspace(const cql::Statement& statement, const std::string& keyspace) {
  return std::visit(
      [&](const auto& s) {
        if constexpr (requires { s.table.keyspace; }) {
          return !s.table.keyspace.empty() && s.table.keyspace != keyspace;
        } else if constexpr (requires { s.index.keyspace; }) {
          return !s.index.keyspace.empty() && s.index.keyspace != keyspace;
        } else if constexpr (requires { s.type.keyspace; }) {
          return !s.type.keyspace.empty() && s.type.keyspace != keyspace;
        }
        return false;
      },
      statement);
}

// The rules that follow the schema through the folder's history: a table
// or an index re-created IF NOT EXISTS with another definition (here, or as
// the older folder made it), and a column dropped and added again with
// another type.
void LintHistory(const Context& context, const MigrationSource& source,
                 const SchemaModel& older_schema) {
  const std::string& keyspace = context.input.keyspace;
  SchemaModel schema;
  std::map<std::pair<std::string, std::string>, std::string> dropped;  // (table, column) -> type
  std::map<std::string, std::string> indexes;                          // name -> IndexShape
  std::map<std::string, std::string> types;                            // name -> its fields
  for (const auto& [version, migration] : source.migrations()) {
    if (!migration.up) continue;
    for (const LocatedStatement& at : StatementsOf(*migration.up, context.input.multi_statement)) {
      if (NamesAnotherKeyspace(at.statement, keyspace)) continue;  // Not this keyspace's history.
      IndexHistory(context, migration.up_name, at, indexes);
      TypeHistory(context, migration.up_name, at, types);
      if (const auto* create = std::get_if<cql::CreateTable>(&at.statement)) {
        const std::map<std::string, std::string> columns = ColumnsOf(*create, keyspace);
        const auto earlier = schema.find(create->table.name);
        const auto shipped = older_schema.find(create->table.name);
        if (create->if_not_exists && earlier != schema.end() && earlier->second != columns) {
          context.Add("if-not-exists-hides-drift", migration.up_name, at.line, at.column,
                      fmt::format("CREATE TABLE IF NOT EXISTS {} with other columns than an "
                                  "earlier file made ({}): the store keeps the old table and "
                                  "says nothing",
                                  create->table.name, ColumnsDiff(earlier->second, columns)));
        } else if (create->if_not_exists && earlier == schema.end() &&
                   !ShippedAsIs(context, migration) && shipped != older_schema.end() &&
                   shipped->second != columns) {
          context.Add("if-not-exists-hides-drift", migration.up_name, at.line, at.column,
                      fmt::format("CREATE TABLE IF NOT EXISTS {} with other columns than the "
                                  "older folder made ({}): on a volume it left, the store keeps "
                                  "the old table and says nothing",
                                  create->table.name, ColumnsDiff(shipped->second, columns)));
        }
        for (const auto& [column, type] : columns) {
          auto gone = dropped.find({create->table.name, column});
          if (gone != dropped.end() && gone->second != type) {
            context.Add("column-retyped", migration.up_name, at.line, at.column,
                        fmt::format("{}.{} comes back as {}, dropped as {}: rows written before "
                                    "and code still running the old image disagree",
                                    create->table.name, column, type, gone->second));
          }
        }
      } else if (const auto* alter = std::get_if<cql::AlterTable>(&at.statement)) {
        for (const cql::AlterTable* operation : cql::Operations(*alter)) {
          AlterHistory(context, migration.up_name, at, *operation, schema, dropped);
        }
      } else if (const auto* drop = std::get_if<cql::DropTable>(&at.statement)) {
        // The dropped columns a table remembers go with the table: a table
        // made again under its name is a new one (Cassandra checks a re-added
        // column against the table's own droppedColumns, in
        // AlterTableStatement's "Cannot re-add previously dropped column";
        // DROP TABLE removes that metadata with the rest).
        std::erase_if(dropped,
                      [&](const auto& entry) { return entry.first.first == drop->table.name; });
      }
      ApplyStatement(at.statement, keyspace, schema);
    }
  }
}

// Why `statement` fails on `schema`, when it names a table or column that
// is not there (and says no IF EXISTS): a down file that drops what its up
// never made stops `migrate down` half-way.
std::optional<std::string> FailsOn(const cql::Statement& statement, const std::string& keyspace,
                                   const SchemaModel& schema) {
  if (NamesAnotherKeyspace(statement, keyspace)) return std::nullopt;
  if (const auto* drop = std::get_if<cql::DropTable>(&statement)) {
    if (!drop->if_exists && !schema.contains(drop->table.name)) {
      return fmt::format(
          "DROP TABLE {}: there is no such table then (Object Not Found), so "
          "`migrate down` fails here",
          drop->table.name);
    }
  }
  if (const auto* alter = std::get_if<cql::AlterTable>(&statement)) {
    const auto table = schema.find(alter->table.name);
    if (table == schema.end()) {
      return fmt::format(
          "ALTER TABLE {}: there is no such table then, so `migrate down` fails "
          "here",
          alter->table.name);
    }
    for (const cql::AlterTable* operation : cql::Operations(*alter)) {
      const bool needs_column = operation->action == cql::AlterTable::Action::kDrop ||
                                operation->action == cql::AlterTable::Action::kRename;
      if (needs_column && !operation->if_exists &&
          !table->second.contains(operation->column.name)) {
        return fmt::format(
            "ALTER TABLE {} {} {}: there is no such column then, so `migrate "
            "down` fails here",
            alter->table.name,
            operation->action == cql::AlterTable::Action::kDrop ? "DROP" : "RENAME",
            operation->column.name);
      }
    }
  }
  return std::nullopt;
}

}  // namespace faultline::models::migrate::linting
