// Secondary indexes and user-defined types in the catalog: each kept as the
// CREATE statement that made it (fl_indexes, fl_types), read back with the
// parser, and the columns that use a type resolved again when it changes.
#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "models/cql/catalog.h"
#include "models/cql/catalog_internal.h"
#include "models/cql/parser.h"
#include "models/cql/sql.h"
#include "models/cql/value.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

std::string NameList(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  for (const std::string& name : names) quoted.push_back(QuotedName(name));
  return fmt::format("{}", fmt::join(quoted, ", "));
}

}  // namespace

sim::Status CatalogSqlError(sqlite3* db, std::string_view what) {
  return sim::Status::IoError(fmt::format("{}: {}", what, sqlite3_errmsg(db)));
}

// The table's indexes' rows, after its own (fl_indexes).
int WriteIndexes(StatementCache& sql, const TableInfo& table) {
  SqlStatement insert(sql,
                      "INSERT INTO fl_indexes(table_id, name, ordinal, definition, kind, options) "
                      "VALUES (?, ?, ?, ?, ?, ?)");
  if (!insert.ok()) return insert.code();
  std::int64_t ordinal = 0;
  for (const IndexInfo& index : table.indexes) {
    FL_ASSERT_MSG(index.name == index.definition.name, "index {} defined as {}", index.name,
                  index.definition.name);
    sqlite3_reset(insert.get());
    insert.Bind(1, table.id);
    insert.Bind(2, index.name);
    insert.Bind(3, ordinal++);
    insert.Bind(4, IndexDefinitionText(table, index));
    insert.Bind(5, index.kind);
    sqlite3_bind_blob(insert.get(), 6, index.options.data(), static_cast<int>(index.options.size()),
                      SQLITE_TRANSIENT);
    if (insert.Step() != SQLITE_DONE) return insert.code();
  }
  return SQLITE_OK;
}

const IndexInfo* TableInfo::FindIndex(std::string_view index) const {
  for (const IndexInfo& info : indexes) {
    if (info.name == index) return &info;
  }
  return nullptr;
}

const IndexInfo* TableInfo::IndexUsing(std::string_view column) const {
  for (const IndexInfo& info : indexes) {
    if (info.Uses(column)) return &info;
  }
  return nullptr;
}

bool IndexInfo::Uses(std::string_view column) const {
  const auto& targets = definition.targets;
  const auto& included = definition.included;
  const auto& where = definition.where;
  return std::any_of(targets.begin(), targets.end(),
                     [&](const IndexTarget& target) { return target.column == column; }) ||
         std::find(included.begin(), included.end(), column) != included.end() ||
         std::any_of(where.begin(), where.end(),
                     [&](const Relation& relation) { return relation.column == column; });
}

std::string IndexInfo::SqlName(std::int64_t table_id) const {
  FL_ASSERT_MSG(definition.unique, "index {} is not unique: SQLite keeps no index for it", name);
  std::string hex;
  for (const char c : name) hex += fmt::format("{:02x}", static_cast<unsigned char>(c));
  return fmt::format("u{}_{}", table_id, hex);
}

std::string TypeDefinitionText(const std::string& keyspace, const UserType& type, bool laid_out) {
  std::vector<std::string> fields;
  for (std::size_t i = 0; i < type.field_names.size(); ++i) {
    fields.push_back(QuotedName(type.field_names[i]) + " " + type.field_types[i].ToString());
  }
  const std::string head =
      fmt::format("CREATE TYPE {}.{} (", QuotedName(keyspace), QuotedName(type.name));
  if (!laid_out) return fmt::format("{}{})", head, fmt::join(fields, ", "));
  return fmt::format("{}\n    {}\n)", head, fmt::join(fields, ",\n    "));
}

std::string IndexDefinitionText(const TableInfo& table, const IndexInfo& index) {
  const CreateIndex& made = index.definition;
  std::vector<std::string> targets;
  for (const IndexTarget& target : made.targets) targets.push_back(IndexTargetText(target));
  std::string key = fmt::format("{}", fmt::join(targets, ", "));
  if (made.hash_targets > 1) {
    const auto hash_end = targets.begin() + static_cast<std::ptrdiff_t>(made.hash_targets);
    key = fmt::format("({})", fmt::join(targets.begin(), hash_end, ", "));
    if (hash_end != targets.end())
      key += fmt::format(", {}", fmt::join(hash_end, targets.end(), ", "));
  }
  std::string text = fmt::format("CREATE {}{}INDEX {} ON {}.{} ({})", made.unique ? "UNIQUE " : "",
                                 made.custom ? "CUSTOM " : "", QuotedName(index.name),
                                 QuotedName(table.keyspace), QuotedName(table.name), key);
  if (!made.included.empty()) text += fmt::format(" INCLUDE ({})", NameList(made.included));
  if (!made.where_text.empty()) text += " WHERE " + made.where_text;
  if (!made.using_class.empty()) {
    std::string quoted;
    for (const char c : made.using_class)
      quoted += c == '\'' ? std::string("''") : std::string(1, c);
    text += fmt::format(" USING '{}'", quoted);
  }
  std::vector<std::string> with;
  for (const auto& [name, value] : made.options)
    with.push_back(fmt::format("{} = {}", QuotedName(name), value));
  std::string order;
  for (const auto& [column, descending] : made.clustering_order) {
    order += fmt::format("{}{} {}", order.empty() ? "" : ", ", QuotedName(column),
                         descending ? "DESC" : "ASC");
  }
  if (!order.empty()) with.push_back(fmt::format("CLUSTERING ORDER BY ({})", order));
  if (!with.empty()) text += fmt::format(" WITH {}", fmt::join(with, " AND "));
  return text;
}

// An index read back: its text must parse as the CREATE INDEX it was, on
// its own table, over columns the table has.
sim::Status Catalog::LoadIndexes(StatementCache& sql) {
  sqlite3* db = sql.db();
  SqlStatement select(sql,
                      "SELECT t.keyspace, t.name, i.name, i.definition, i.kind, i.options "
                      "FROM fl_indexes i JOIN fl_tables t ON t.id = i.table_id "
                      "ORDER BY i.table_id, i.ordinal");
  if (!select.ok()) return CatalogSqlError(db, "reading fl_indexes");
  while (select.Step() == SQLITE_ROW) {
    auto& table = keyspaces_.at(select.Text(0)).tables.at(select.Text(1));
    const std::string text = select.Text(3);
    ParseResult parsed = Parse(text);
    const auto* create = parsed.statements.size() == 1
                             ? std::get_if<CreateIndex>(&parsed.statements[0].statement)
                             : nullptr;
    if (parsed.error || create == nullptr || create->name != select.Text(2) ||
        create->table.name != table.name) {
      return sim::Status::Corruption(
          fmt::format("catalog of {}.{}: unreadable index '{}'", table.keyspace, table.name, text));
    }
    for (const IndexTarget& target : create->targets) {
      if (table.Find(target.column) == nullptr) {
        return sim::Status::Corruption(fmt::format("catalog of {}.{}: index {} on no column {}",
                                                   table.keyspace, table.name, create->name,
                                                   target.column));
      }
    }
    const std::string blob = select.Text(5);
    table.indexes.push_back(IndexInfo{create->name, *create, select.Text(4), blob});
  }
  if (select.code() != SQLITE_DONE) return CatalogSqlError(db, "reading fl_indexes");
  return sim::Status::Ok();
}

// A type read back: its text must parse as the CREATE TYPE it was, and
// name only types made before it (the order they were made in).
sim::Status Catalog::LoadTypes(StatementCache& sql) {
  sqlite3* db = sql.db();
  SqlStatement select(sql, "SELECT keyspace, name, definition FROM fl_types ORDER BY ordinal");
  if (!select.ok()) return CatalogSqlError(db, "reading fl_types");
  while (select.Step() == SQLITE_ROW) {
    const std::string text = select.Text(2);
    ParseResult parsed = Parse(text);
    const auto* create = parsed.statements.size() == 1
                             ? std::get_if<CreateType>(&parsed.statements[0].statement)
                             : nullptr;
    auto keyspace = keyspaces_.find(select.Text(0));
    if (parsed.error || create == nullptr || create->type.name != select.Text(1) ||
        keyspace == keyspaces_.end()) {
      return sim::Status::Corruption(fmt::format("unreadable type '{}'", text));
    }
    UserType type{create->type.name, {}, {}};
    for (const ColumnDefinition& field : create->fields) {
      type.field_names.push_back(field.name);
      type.field_types.push_back(field.type);
    }
    keyspace->second.types.insert_or_assign(type.name, std::move(type));
  }
  if (select.code() != SQLITE_DONE) return CatalogSqlError(db, "reading fl_types");
  // Only once all are read: ALTER TYPE may have given a type a field of a
  // type made after it.
  for (const auto& [name, keyspace] : keyspaces_) {
    for (const auto& [type_name, type] : keyspace.types) {
      const TypeName whole{type_name, {}};
      if (!std::holds_alternative<CqlType>(ResolveType(whole, &keyspace.types))) {
        return sim::Status::Corruption(
            fmt::format("type {}.{} names a type that is not there", name, type_name));
      }
    }
  }
  return sim::Status::Ok();
}

int Catalog::WriteType(StatementCache& sql, const std::string& keyspace, const UserType& type) {
  FL_ASSERT_MSG(type.field_names.size() == type.field_types.size() && !type.field_names.empty(),
                "type {} with {} names and {} types", type.name, type.field_names.size(),
                type.field_types.size());
  // A changed type keeps its place: the types it names were made before it.
  SqlStatement insert(sql,
                      "INSERT INTO fl_types(keyspace, name, ordinal, definition, field_names, "
                      "field_types) VALUES (?1, ?2, (SELECT coalesce(max(ordinal), 0) + 1 FROM "
                      "fl_types), ?3, ?4, ?5) ON CONFLICT (keyspace, name) DO UPDATE SET "
                      "definition = excluded.definition, field_names = excluded.field_names, "
                      "field_types = excluded.field_types");
  if (!insert.ok()) return insert.code();
  insert.Bind(1, keyspace);
  insert.Bind(2, type.name);
  insert.Bind(3, TypeDefinitionText(keyspace, type));
  Value names;
  names.kind = Value::Kind::kList;
  Value types = names;
  for (std::size_t i = 0; i < type.field_names.size(); ++i) {
    names.elements.push_back(Value::Text(type.field_names[i]));
    types.elements.push_back(Value::Text(type.field_types[i].ToString()));
  }
  const std::string names_blob = EncodeCollection(names);
  const std::string types_blob = EncodeCollection(types);
  sqlite3_bind_blob(insert.get(), 4, names_blob.data(), static_cast<int>(names_blob.size()),
                    SQLITE_TRANSIENT);
  sqlite3_bind_blob(insert.get(), 5, types_blob.data(), static_cast<int>(types_blob.size()),
                    SQLITE_TRANSIENT);
  return insert.Step() == SQLITE_DONE ? SQLITE_OK : insert.code();
}

int Catalog::EraseType(StatementCache& sql, const std::string& keyspace, const std::string& name) {
  SqlStatement erase(sql, "DELETE FROM fl_types WHERE keyspace = ? AND name = ?");
  if (!erase.ok()) return erase.code();
  erase.Bind(1, keyspace);
  erase.Bind(2, name);
  return erase.Step() == SQLITE_DONE ? SQLITE_OK : erase.code();
}

void Catalog::ApplyType(const std::string& keyspace, UserType type) {
  KeyspaceInfo& info = keyspaces_.at(keyspace);
  std::string name = type.name;
  info.types.insert_or_assign(std::move(name), std::move(type));
  ResolveColumnTypes(info);
}

void Catalog::ApplyTypeDropped(const std::string& keyspace, const std::string& name) {
  KeyspaceInfo& info = keyspaces_.at(keyspace);
  info.types.erase(name);
  ResolveColumnTypes(info);
}

// Each column's type again from its text, with the keyspace's types as they
// are now (a UDT's fields changed by ALTER TYPE).
void Catalog::ResolveColumnTypes(KeyspaceInfo& keyspace) {
  for (auto& [table_name, table] : keyspace.tables) {
    for (ColumnInfo& column : table.columns) {
      if (column.type.Depth() == 0) continue;  // Scalars name no type.
      const std::optional<TypeName> name = ParseTypeName(column.type.ToString());
      FL_ASSERT_MSG(name.has_value(), "column {}.{} of type {}", table_name, column.name,
                    column.type.ToString());
      std::variant<CqlType, CqlError> type = ResolveType(*name, &keyspace.types);
      FL_ASSERT_MSG(std::holds_alternative<CqlType>(type),
                    "column {}.{}: its type {} is gone (DROP TYPE checks it is unused)", table_name,
                    column.name, column.type.ToString());
      column.type = std::get<CqlType>(std::move(type));
    }
  }
}

const TableInfo* Catalog::FindIndexTable(const std::string& keyspace,
                                         std::string_view index) const {
  const KeyspaceInfo* info = FindKeyspace(keyspace);
  const auto names = index_tables_.find(keyspace);
  if (info == nullptr || names == index_tables_.end()) return nullptr;
  const auto named = names->second.find(index);
  if (named == names->second.end()) return nullptr;
  const TableInfo* table = FindTable(keyspace, named->second);
  FL_ASSERT_MSG(table != nullptr && table->FindIndex(index) != nullptr,
                "index {}.{} kept for table {}, which does not hold it", keyspace, index,
                named->second);
  return table;
}

std::string IndexTargetText(const IndexTarget& target) {
  const std::string_view function = IndexFunctionName(target.kind);
  if (function.empty()) return QuotedName(target.column);
  return fmt::format("{}({})", function, QuotedName(target.column));
}

}  // namespace faultline::models::cql
