#include "models/migrate/schema_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <set>

#include "models/cql/catalog.h"
#include "models/cql/parser.h"
#include "models/cql/value.h"
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

// Both ways of reading a live schema ask the store the same questions.
constexpr const char* kColumnsQuery =
    "SELECT table_name, column_name, type, kind FROM system_schema.columns WHERE "
    "keyspace_name = ?";
constexpr const char* kTablesQuery =
    "SELECT table_name, default_time_to_live, gc_grace_seconds, comment FROM "
    "system_schema.tables WHERE keyspace_name = ?";
constexpr const char* kIndexesQuery =
    "SELECT table_name, index_name, options FROM system_schema.indexes WHERE keyspace_name = ?";
constexpr const char* kTypesQuery =
    "SELECT type_name, field_names, field_types FROM system_schema.types WHERE "
    "keyspace_name = ?";

constexpr const char* kQueries[] = {kColumnsQuery, kTablesQuery, kIndexesQuery, kTypesQuery};

using Rows = std::vector<cql::Row>;

// The column names in an index's target or include option: "v", "keys(m)",
// "(a, b), c", "\"Name\"" (function names are not columns).
std::set<std::string> NamesIn(std::string_view text) {
  std::set<std::string> names;
  std::size_t i = 0;
  while (i < text.size()) {
    std::string name;
    if (text[i] == '"') {
      for (++i; i < text.size(); ++i) {
        if (text[i] == '"' && (i + 1 >= text.size() || text[i + 1] != '"')) break;
        if (text[i] == '"') ++i;  // "" is one quote.
        name += text[i];
      }
      ++i;
      names.insert(name);
      continue;
    }
    while (i < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
      name += text[i++];
    }
    if (name.empty()) {
      ++i;
    } else if (i >= text.size() || text[i] != '(') {
      names.insert(name);
    }
  }
  return names;
}

std::string OptionOf(const cql::Value& options, std::string_view key) {
  for (std::size_t i = 0; i + 1 < options.elements.size(); i += 2) {
    if (options.elements[i].bytes == key) return options.elements[i + 1].bytes;
  }
  return "";
}

std::vector<std::string> TextsOf(const cql::Value& list) {
  std::vector<std::string> texts;
  for (const cql::Value& element : list.elements) texts.push_back(element.bytes);
  return texts;
}

// The answers to kQueries, in its order.
SchemaModel SchemaFromRows(const std::vector<Rows>& answers) {
  FL_ASSERT(answers.size() == std::size(kQueries));
  const Rows& columns = answers[0];
  const Rows& tables = answers[1];
  const Rows& indexes = answers[2];
  const Rows& types = answers[3];
  SchemaModel schema;
  for (const cql::Row& row : columns) {
    FL_ASSERT(row.size() == 4);
    if (BookkeepingTables().contains(row.at(0).bytes)) continue;
    schema[row.at(0).bytes][row.at(1).bytes] = DescribedType(row.at(2).bytes, row.at(3).bytes);
  }
  for (const cql::Row& row : tables) {
    FL_ASSERT(row.size() == 1 + std::size(kComparedOptions));
    if (BookkeepingTables().contains(row.at(0).bytes)) continue;
    auto& options = schema.options[row.at(0).bytes];
    for (std::size_t i = 0; i < std::size(kComparedOptions); ++i) {
      const cql::Value& value = row.at(i + 1);
      options[std::string(kComparedOptions[i].name)] =
          value.kind == cql::Value::Kind::kInt ? std::to_string(value.integer) : value.bytes;
    }
  }
  for (const cql::Row& row : indexes) {
    FL_ASSERT(row.size() == 3);
    const std::string& table = row.at(0).bytes;
    static const std::map<std::string, std::string> kNoColumns;
    const auto columns_of = schema.find(table);
    schema.indexes[row.at(1).bytes] = IndexShape(
        table, NamesIn(OptionOf(row.at(2), "target")), NamesIn(OptionOf(row.at(2), "include")),
        columns_of == schema.end() ? kNoColumns : columns_of->second);
  }
  for (const cql::Row& row : types) {
    FL_ASSERT(row.size() == 3);
    schema.types[row.at(0).bytes] = TypeShape(TextsOf(row.at(1)), TextsOf(row.at(2)));
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
  std::vector<Rows> answers;
  for (const char* query : kQueries) {
    std::vector<cql::Value> values;
    values.push_back(cql::Value::Text(keyspace));
    cql::ClientResult rows = co_await session.Query(query, std::move(values));
    if (!rows.ok()) co_return sim::Status::Unavailable(rows.ToString());
    answers.push_back(std::move(rows.result.rows));
  }
  co_return SchemaFromRows(answers);
}

namespace {

// A compared option as system_schema.tables shows it: the view's
// CAST(coalesce(fl_option(options, name), unset) AS INTEGER) for the
// integer ones (catalog.cc), the unquoted text for comment. nullopt for a
// stored integer option that is not plain decimal digits in an int's
// range, which SQLite's CAST reads its own way.
std::optional<std::string> ShownOption(const cql::Options& options, const ComparedOption& option) {
  std::optional<std::string> value;
  for (const auto& [name, written] : options) {
    if (name == option.name) {
      value = cql::UnquotedOptionValue(written);
      break;  // fl_option takes the first.
    }
  }
  if (option.name == "comment") return value.value_or(std::string(option.unset));
  if (!value) return std::string(option.unset);
  std::int64_t number = 0;
  const char* end = value->data() + value->size();
  const auto [stop, error] = std::from_chars(value->data(), end, number);
  if (error != std::errc() || stop != end || number < std::numeric_limits<std::int32_t>::min() ||
      number > std::numeric_limits<std::int32_t>::max()) {
    return std::nullopt;
  }
  return std::to_string(number);
}

// The target or include option of an index, from its stored options (a
// map<text, text> in the store's encoding), as OptionOf reads the row.
std::string IndexOption(const cql::IndexInfo& index, std::string_view key) {
  const cql::CqlType text{cql::CqlType::Kind::kText, false, {}};
  const cql::CqlType map{cql::CqlType::Kind::kMap, false, {text, text}};
  const std::optional<cql::Value> options = cql::DecodeCollection(index.options, map);
  return options ? OptionOf(*options, key) : "";
}

}  // namespace

// What SchemaFromRows makes of kQueries' answers, from the catalog the
// views read: the same rows, without SQLite running the views, and in
// time in proportion to the keyspace's tables only.
std::optional<SchemaModel> SchemaFromCatalog(const cql::Catalog& catalog,
                                             const std::string& keyspace) {
  SchemaModel schema;
  const cql::KeyspaceInfo* found = catalog.FindKeyspace(keyspace);
  if (found == nullptr) return schema;
  // The catalog's tables come in name order, as the model keeps them: each
  // goes at the end (a lookup of each cost the keyspace's size in string
  // compares, at every observation).
  for (const auto& [name, table] : found->tables) {
    if (BookkeepingTables().contains(name) || table.columns.empty()) continue;
    auto& columns =
        schema.emplace_hint(schema.end(), name, std::map<std::string, std::string>{})->second;
    for (const cql::ColumnInfo& column : table.columns) {
      columns.insert_or_assign(column.name,
                               DescribedType(column.type.ToString(), cql::RoleName(column.role)));
    }
    auto& options =
        schema.options
            .emplace_hint(schema.options.end(), name, std::map<std::string, std::string>{})
            ->second;
    for (const ComparedOption& option : kComparedOptions) {
      std::optional<std::string> shown = ShownOption(table.options, option);
      if (!shown) return std::nullopt;
      options.insert_or_assign(std::string(option.name), std::move(*shown));
    }
    FL_ASSERT(std::prev(schema.end())->first == name);
  }
  for (const auto& [name, table] : found->tables) {
    if (table.indexes.empty()) continue;
    static const std::map<std::string, std::string> kNoColumns;
    const auto columns_of = schema.find(name);
    for (const cql::IndexInfo& index : table.indexes) {
      schema.indexes[index.name] = IndexShape(
          name, NamesIn(IndexOption(index, "target")), NamesIn(IndexOption(index, "include")),
          columns_of == schema.end() ? kNoColumns : columns_of->second);
    }
  }
  for (const auto& [name, type] : found->types) {
    std::vector<std::string> types;
    for (const cql::TypeName& field : type.field_types) types.push_back(field.ToString());
    schema.types[name] = TypeShape(type.field_names, types);
  }
  return schema;
}

sim::Result<SchemaModel> SnapshotSchema(cql::StoreSnapshot& snapshot, const std::string& keyspace) {
  if (std::optional<SchemaModel> schema = SchemaFromCatalog(snapshot.catalog(), keyspace)) {
    return *std::move(schema);
  }
  return SnapshotSchemaByQueries(snapshot, keyspace);
}

sim::Result<SchemaModel> SnapshotSchemaByQueries(cql::StoreSnapshot& snapshot,
                                                 const std::string& keyspace) {
  std::vector<Rows> answers;
  for (const char* query : kQueries) {
    std::vector<cql::Value> values;
    values.push_back(cql::Value::Text(keyspace));
    cql::Outcome outcome = snapshot.Read(query, std::move(values));
    if (const auto* error = std::get_if<cql::CqlError>(&outcome)) {
      return sim::Status::IoError(error->message);
    }
    answers.push_back(std::move(std::get<cql::QueryResult>(outcome).rows));
  }
  return SchemaFromRows(answers);
}

}  // namespace faultline::models::migrate
