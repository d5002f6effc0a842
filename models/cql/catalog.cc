#include "models/cql/catalog.h"
#include "models/cql/catalog_internal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <variant>

#include "models/cql/keywords.h"
#include "models/cql/lexer.h"
#include "models/cql/parser.h"
#include "models/cql/sql.h"
#include "models/cql/value.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

// The catalog's own tables, created in one transaction; SQLite's
// user_version records which layout a file has, so that an open of a current
// file changes nothing.
// 2: system.local (fl_system_local). 3: secondary indexes (fl_indexes,
// fl_system_indexes) and user-defined types (fl_types, fl_system_types).
// 4: system.local's address, identity and token columns; system.peers and
// (Cassandra's) system.peers_v2. 5: system_schema.tables' default_time_to_live,
// gc_grace_seconds, comment, compaction, caching and compression (read from
// the options by fl_option and fl_option_map, which RegisterCatalogFunctions
// adds to the connection; a map the table does not set reads null). A store saved at an older
// layout gets the tables it lacks when it is next opened (kSchema adds tables, and drops
// the views of the layouts before 7).
// 6: system_schema.keyspaces' replication for the system keyspaces too, as
// YugabyteDB gives every keyspace one (yql_keyspaces_vtable.cc); the Python
// driver cannot read a keyspace without it. 7: the system tables are no
// longer views: each read of one has its rows' SELECT in its FROM
// (SystemRows, catalog_system.cc), so a new store creates none (their eight CREATE VIEWs
// were half of what a new store's catalog cost); the views of older
// layouts are dropped.
constexpr int kCatalogLayout = 7;
constexpr std::string_view kSchema = R"sql(
BEGIN IMMEDIATE;
CREATE TABLE IF NOT EXISTS fl_meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS fl_keyspaces(
  name TEXT PRIMARY KEY, options TEXT NOT NULL, replication BLOB);
CREATE TABLE IF NOT EXISTS fl_tables(
  keyspace TEXT, name TEXT, id INTEGER UNIQUE NOT NULL, options TEXT NOT NULL,
  next_column INTEGER NOT NULL, PRIMARY KEY(keyspace, name));
CREATE TABLE IF NOT EXISTS fl_columns(
  table_id INTEGER, name TEXT, type TEXT NOT NULL, role TEXT NOT NULL, position INTEGER NOT NULL,
  clustering_order TEXT NOT NULL, sql_name TEXT NOT NULL, ordinal INTEGER NOT NULL,
  PRIMARY KEY(table_id, name));
CREATE TABLE IF NOT EXISTS fl_types(
  keyspace TEXT, name TEXT, ordinal INTEGER NOT NULL, definition TEXT NOT NULL,
  field_names BLOB, field_types BLOB, PRIMARY KEY(keyspace, name));
CREATE TABLE IF NOT EXISTS fl_indexes(
  table_id INTEGER, name TEXT, ordinal INTEGER NOT NULL, definition TEXT NOT NULL,
  kind TEXT NOT NULL, options BLOB, PRIMARY KEY(table_id, name));
DROP VIEW IF EXISTS fl_system_keyspaces;
DROP VIEW IF EXISTS fl_system_tables;
DROP VIEW IF EXISTS fl_system_columns;
DROP VIEW IF EXISTS fl_system_indexes;
DROP VIEW IF EXISTS fl_system_types;
DROP VIEW IF EXISTS fl_system_local;
DROP VIEW IF EXISTS fl_system_peers;
DROP VIEW IF EXISTS fl_system_peers_v2;
PRAGMA user_version = 7;
COMMIT;
)sql";

ColumnInfo::Role RoleFromName(std::string_view name) {
  if (name == "partition_key") return ColumnInfo::Role::kPartitionKey;
  if (name == "clustering") return ColumnInfo::Role::kClustering;
  if (name == "static") return ColumnInfo::Role::kStatic;
  return ColumnInfo::Role::kRegular;
}

// A table read back from disk must be one this code could have written: its
// SQLite names go into SQL text, and the engine relies on the key columns
// coming first, in order.
sim::Status CheckLoadedTable(const TableInfo& table) {
  auto corrupt = [&](std::string_view what) {
    return sim::Status::Corruption(
        fmt::format("catalog of {}.{}: {}", table.keyspace, table.name, what));
  };
  std::set<std::string> sql_names;
  int partition = 0;
  int clustering = 0;
  bool regular_seen = false;
  for (const ColumnInfo& column : table.columns) {
    const std::string& sql = column.sql_name;
    int number = -1;
    const char* digits = sql.data() + std::min<std::size_t>(1, sql.size());
    const auto [end, error] = std::from_chars(digits, sql.data() + sql.size(), number);
    if (sql.size() < 2 || sql[0] != 'c' || error != std::errc() || end != sql.data() + sql.size() ||
        number < 0 || number >= table.next_column || !sql_names.insert(sql).second) {
      return corrupt(fmt::format("bad storage name '{}' for column {}", sql, column.name));
    }
    bool in_order = true;
    if (column.role == ColumnInfo::Role::kPartitionKey) {
      in_order = !regular_seen && clustering == 0 && column.position == partition++;
    } else if (column.role == ColumnInfo::Role::kClustering) {
      in_order = !regular_seen && partition > 0 && column.position == clustering++;
    } else {
      regular_seen = true;
    }
    if (!in_order) return corrupt(fmt::format("column {} is out of key order", column.name));
  }
  FL_ASSERT(sql_names.size() == table.columns.size());
  if (partition == 0) return corrupt("no partition key");
  if (table.HasStatics() && clustering == 0) return corrupt("static columns without clustering");
  return sim::Status::Ok();
}

// Options are stored one per line, "name=value", with \\, \n and \= escaped.
std::string Escaped(std::string_view text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '\\' || c == '=') {
      escaped += '\\';
      escaped += c;
    } else if (c == '\n') {
      escaped += "\\n";
    } else {
      escaped += c;
    }
  }
  FL_ASSERT(escaped.size() >= text.size());
  return escaped;
}

// Undoes Escaped() up to an unescaped `stop` (or the end); moves `at` past it.
std::string Unescaped(std::string_view text, std::size_t& at, char stop) {
  std::string out;
  while (at < text.size() && text[at] != stop) {
    if (text[at] == '\\' && at + 1 < text.size()) {
      ++at;
      out += text[at] == 'n' ? '\n' : text[at];
    } else {
      out += text[at];
    }
    ++at;
  }
  if (at < text.size()) ++at;  // The stop character.
  FL_ASSERT(at <= text.size());
  return out;
}

}  // namespace

const char* RoleName(ColumnInfo::Role role) {
  switch (role) {
    case ColumnInfo::Role::kPartitionKey:
      return "partition_key";
    case ColumnInfo::Role::kClustering:
      return "clustering";
    case ColumnInfo::Role::kStatic:
      return "static";
    case ColumnInfo::Role::kRegular:
      break;
  }
  return "regular";
}

const ColumnInfo* TableInfo::Find(std::string_view column) const {
  for (const ColumnInfo& info : columns) {
    if (info.name == column) return &info;
  }
  return nullptr;
}

std::size_t TableInfo::KeyColumns() const {
  return static_cast<std::size_t>(
      std::count_if(columns.begin(), columns.end(), [](const auto& c) { return c.is_key(); }));
}

std::size_t TableInfo::PartitionKeyColumns() const {
  return static_cast<std::size_t>(std::count_if(columns.begin(), columns.end(), [](const auto& c) {
    return c.role == ColumnInfo::Role::kPartitionKey;
  }));
}

bool TableInfo::HasStatics() const {
  return std::any_of(columns.begin(), columns.end(), [](const auto& c) { return c.is_static(); });
}

std::string TableInfo::StaticSqlName() const { return fmt::format("s{}", id); }

bool TableInfo::IsCounterTable() const {
  return std::any_of(columns.begin(), columns.end(),
                     [](const auto& c) { return c.type.kind == CqlType::Kind::kCounter; });
}

std::string EncodeOptions(const Options& options) {
  std::string text;
  for (const auto& [name, value] : options) text += Escaped(name) + "=" + Escaped(value) + "\n";
  return text;
}

Options DecodeOptions(std::string_view text) {
  Options options;
  std::size_t at = 0;
  constexpr std::size_t kMaxOptions = 10'000;
  while (at < text.size() && options.size() < kMaxOptions) {
    std::string name = Unescaped(text, at, '=');
    std::string value = Unescaped(text, at, '\n');
    options.emplace_back(std::move(name), std::move(value));
  }
  FL_ASSERT(options.size() <= kMaxOptions);
  return options;
}

namespace {
// The arguments (options, name) of the SQL functions below: the named
// option's value as written, if the table's stored options have it.
std::optional<std::string> NamedOption(sqlite3_value** arguments) {
  const auto* text = sqlite3_value_text(arguments[0]);
  const auto* name = sqlite3_value_text(arguments[1]);
  if (text == nullptr || name == nullptr) return std::nullopt;
  const std::string_view wanted(reinterpret_cast<const char*>(name));
  for (auto& [option, value] : DecodeOptions(reinterpret_cast<const char*>(text))) {
    if (option == wanted) return std::move(value);
  }
  return std::nullopt;
}

// fl_option(options, name): the named option's value (UnquotedOptionValue),
// or NULL.
void OptionFunction(sqlite3_context* context, int count, sqlite3_value** arguments) {
  FL_ASSERT(count == 2);
  const std::optional<std::string> value = NamedOption(arguments);
  if (!value) return sqlite3_result_null(context);
  const std::string plain = UnquotedOptionValue(*value);
  sqlite3_result_text(context, plain.data(), static_cast<int>(plain.size()), SQLITE_TRANSIENT);
}

// fl_option_map(options, name): the named map option's entries, in the
// store's encoding of a map<text, text>, or NULL when the table sets none.
void OptionMapFunction(sqlite3_context* context, int count, sqlite3_value** arguments) {
  FL_ASSERT(count == 2);
  const std::optional<std::string> value = NamedOption(arguments);
  if (!value) return sqlite3_result_null(context);
  Value map;
  map.kind = Value::Kind::kMap;
  for (auto& [key, entry] : MapEntries(*value)) {
    map.elements.push_back(Value::Text(std::move(key)));
    map.elements.push_back(Value::Text(std::move(entry)));
  }
  const std::string encoded = EncodeCollection(map);
  sqlite3_result_blob(context, encoded.data(), static_cast<int>(encoded.size()), SQLITE_TRANSIENT);
}
}  // namespace

int RegisterCatalogFunctions(sqlite3* db) {
  constexpr int kFlags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
  const int code = sqlite3_create_function_v2(db, "fl_option", 2, kFlags, nullptr, &OptionFunction,
                                              nullptr, nullptr, nullptr);
  if (code != SQLITE_OK) return code;
  return sqlite3_create_function_v2(db, "fl_option_map", 2, kFlags, nullptr, &OptionMapFunction,
                                    nullptr, nullptr, nullptr);
}

std::vector<std::pair<std::string, std::string>> MapEntries(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> entries;
  const LexResult lexed = Lex(text);
  const std::vector<Token>& tokens = lexed.tokens;
  for (std::size_t i = 0; i + 2 < tokens.size(); ++i) {
    if (tokens[i].kind == TokenKind::kString && tokens[i + 1].IsSymbol(":") &&
        tokens[i + 2].kind != TokenKind::kSymbol && tokens[i + 2].kind != TokenKind::kEnd) {
      entries.emplace_back(tokens[i].text, tokens[i + 2].text);
      i += 2;
    }
  }
  return entries;
}

sim::Status Catalog::Load(StatementCache& sql, Dialect dialect) {
  sqlite3* db = sql.db();
  keyspaces_.clear();
  index_tables_.clear();
  next_table_id_ = 1;
  std::int64_t current_layout = -1;
  {
    SqlStatement layout(sql, "PRAGMA user_version");
    if (!layout.ok() || layout.Step() != SQLITE_ROW)
      return CatalogSqlError(db, "reading the layout");
    current_layout = layout.Int(0);
  }
  if (current_layout != kCatalogLayout) {
    static_assert(kCatalogLayout == 7, "kSchema sets user_version to the layout");
    if (sqlite3_exec(db, std::string(kSchema).c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
      sim::Status error = CatalogSqlError(db, "creating the catalog");
      (void)sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      return error;
    }
  }
  AddSystemKeyspace(dialect);
  if (sim::Status status = LoadKeyspaces(sql); !status.ok()) return status;
  if (sim::Status status = LoadTypes(sql); !status.ok()) return status;
  if (sim::Status status = LoadTables(sql); !status.ok()) return status;
  // Ids are never reused, even those of tables dropped before a restart.
  SqlStatement next(sql, "SELECT value FROM fl_meta WHERE name = 'next_table_id'");
  if (!next.ok()) return CatalogSqlError(db, "reading fl_meta");
  if (next.Step() == SQLITE_ROW) next_table_id_ = std::max(next_table_id_, next.Int(0));
  FL_ASSERT(next_table_id_ >= 1);
  if (sim::Status status = LoadColumns(sql); !status.ok()) return status;
  for (const auto& [name, keyspace] : keyspaces_) {
    for (const auto& [table_name, table] : keyspace.tables) RememberIndexesOf(table);
  }
  return sim::Status::Ok();
}

sim::Status Catalog::LoadKeyspaces(StatementCache& sql) {
  sqlite3* db = sql.db();
  SqlStatement select(sql, "SELECT name, options FROM fl_keyspaces ORDER BY name");
  if (!select.ok()) return CatalogSqlError(db, "reading fl_keyspaces");
  while (select.Step() == SQLITE_ROW) {
    KeyspaceInfo keyspace;
    keyspace.name = select.Text(0);
    keyspace.options = DecodeOptions(select.Text(1));
    keyspaces_.emplace(keyspace.name, std::move(keyspace));
  }
  if (select.code() != SQLITE_DONE) return CatalogSqlError(db, "reading fl_keyspaces");
  return sim::Status::Ok();
}

sim::Status Catalog::LoadTables(StatementCache& sql) {
  sqlite3* db = sql.db();
  SqlStatement select(sql, "SELECT keyspace, name, id, options, next_column FROM fl_tables");
  if (!select.ok()) return CatalogSqlError(db, "reading fl_tables");
  while (select.Step() == SQLITE_ROW) {
    TableInfo table;
    table.keyspace = select.Text(0);
    table.name = select.Text(1);
    table.id = select.Int(2);
    table.sql_name = fmt::format("t{}", table.id);
    table.options = DecodeOptions(select.Text(3));
    table.next_column = static_cast<int>(select.Int(4));
    next_table_id_ = std::max(next_table_id_, table.id + 1);
    FL_ASSERT(next_table_id_ > table.id);
    auto keyspace = keyspaces_.find(table.keyspace);
    if (keyspace == keyspaces_.end()) {
      return sim::Status::Corruption(
          fmt::format("table {}.{} has no keyspace", table.keyspace, table.name));
    }
    keyspace->second.tables.emplace(table.name, std::move(table));
  }
  if (select.code() != SQLITE_DONE) return CatalogSqlError(db, "reading fl_tables");
  return sim::Status::Ok();
}

namespace {

using TablesById = std::map<std::int64_t, std::pair<KeyspaceInfo*, TableInfo*>>;
using ResolvedTypes = std::map<std::pair<const KeyspaceInfo*, std::string>, CqlType, std::less<>>;
enum class ColumnsRead : unsigned char { kRead, kOutOfOrder };

// `query`'s rows of fl_columns (table_id, ordinal, name, type, role,
// position, clustering_order, sql_name) appended to their tables. With
// `in_order_only`, a row whose ordinal is not its table's next stops the
// read (kOutOfOrder; the tables are then partly read). A type's text is
// parsed once per keyspace.
std::variant<ColumnsRead, sim::Status> ReadColumns(StatementCache& sql, const std::string& query,
                                                   const TablesById& by_id, ResolvedTypes& types,
                                                   bool in_order_only) {
  SqlStatement select(sql, query);
  if (!select.ok()) return CatalogSqlError(sql.db(), "reading fl_columns");
  std::int64_t current_id = 0;
  std::pair<KeyspaceInfo*, TableInfo*> current{nullptr, nullptr};
  while (select.Step() == SQLITE_ROW) {
    if (const std::int64_t id = select.Int(0); id != current_id || current.second == nullptr) {
      const auto found = by_id.find(id);
      current_id = id;
      current = found != by_id.end() ? found->second : std::pair{nullptr, nullptr};
    }
    // A column of no table (the join this replaced skipped it too).
    if (current.second == nullptr) continue;
    TableInfo& table = *current.second;
    if (in_order_only && select.Int(1) != static_cast<std::int64_t>(table.columns.size())) {
      return ColumnsRead::kOutOfOrder;
    }
    KeyspaceInfo& keyspace = *current.first;
    std::pair<const KeyspaceInfo*, std::string> key{&keyspace, std::string(select.View(3))};
    auto type = types.find(key);
    if (type == types.end()) {
      const std::optional<TypeName> type_name = ParseTypeName(key.second);
      if (!type_name) return sim::Status::Corruption("unreadable column type " + key.second);
      std::variant<CqlType, CqlError> resolved = ResolveType(*type_name, &keyspace.types);
      if (!std::holds_alternative<CqlType>(resolved)) {
        return sim::Status::Corruption("unknown column type " + key.second);
      }
      type = types.emplace(std::move(key), std::get<CqlType>(std::move(resolved))).first;
    }
    table.columns.push_back(ColumnInfo{select.Text(2), type->second, RoleFromName(select.View(4)),
                                       static_cast<int>(select.Int(5)), select.View(6) == "desc",
                                       select.Text(7)});
  }
  if (select.code() != SQLITE_DONE) return CatalogSqlError(sql.db(), "reading fl_columns");
  return ColumnsRead::kRead;
}

}  // namespace

sim::Status Catalog::LoadColumns(StatementCache& sql) {
  // A snapshot reads every column of the store at each observation (a
  // 1,000-file folder's 6,000): each table is found by its id, and the
  // rows are read as SQLite stores them, where a table's columns lie
  // together in order (WriteTable writes them so), without sorting them
  // through the primary key's index; read sorted when they do not.
  TablesById by_id;
  for (auto& [keyspace_name, keyspace] : keyspaces_) {
    if (keyspace.system) continue;  // Its tables are the code's, not in fl_tables.
    for (auto& [table_name, table] : keyspace.tables) {
      FL_ASSERT(table.columns.empty());
      by_id.emplace(table.id, std::pair{&keyspace, &table});
    }
  }
  constexpr std::string_view kColumns =
      "SELECT table_id, ordinal, name, type, role, position, clustering_order, sql_name "
      "FROM fl_columns";
  ResolvedTypes types;
  std::variant<ColumnsRead, sim::Status> read =
      ReadColumns(sql, std::string(kColumns), by_id, types, true);
  if (std::holds_alternative<ColumnsRead>(read) &&
      std::get<ColumnsRead>(read) == ColumnsRead::kOutOfOrder) {
    for (auto& [id, table] : by_id) table.second->columns.clear();
    read = ReadColumns(sql, std::string(kColumns) + " ORDER BY table_id, ordinal", by_id, types,
                       false);
  }
  if (const auto* status = std::get_if<sim::Status>(&read)) return *status;
  FL_ASSERT(std::get<ColumnsRead>(read) == ColumnsRead::kRead);
  if (sim::Status status = LoadIndexes(sql); !status.ok()) return status;
  for (const auto& [name, keyspace] : keyspaces_) {
    if (keyspace.system) continue;
    for (const auto& [table_name, table] : keyspace.tables) {
      if (sim::Status status = CheckLoadedTable(table); !status.ok()) return status;
    }
  }
  return sim::Status::Ok();
}

StatementCache::~StatementCache() {
  FL_ASSERT_MSG(borrowed_ == 0, "{} kept statements still borrowed", borrowed_);
  Clear();
}

sqlite3_stmt* StatementCache::Get(const std::string& sql) {
  if (const auto found = statements_.find(sql); found != statements_.end()) return found->second;
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &statement, nullptr) != SQLITE_OK) {
    sqlite3_finalize(statement);
    return nullptr;
  }
  if (statements_.size() >= kMaxKept && borrowed_ == 0) Clear();
  // Borrowed ones stay, so the bound may be passed by what one caller
  // holds at once (a handful).
  FL_ASSERT(statements_.size() < 2 * kMaxKept);
  statements_.emplace(sql, statement);
  return statement;
}

void StatementCache::Clear() {
  FL_ASSERT_MSG(borrowed_ == 0, "clearing kept statements while {} are borrowed", borrowed_);
  for (auto& [sql, statement] : statements_) sqlite3_finalize(statement);
  statements_.clear();
}

void StatementCache::GiveBack() {
  FL_ASSERT(borrowed_ > 0);
  --borrowed_;
}

int Catalog::WriteKeyspace(StatementCache& sql, const KeyspaceInfo& keyspace) {
  FL_ASSERT_MSG(!keyspace.system && !keyspace.name.empty(), "writing keyspace '{}'", keyspace.name);
  // system_schema.keyspaces shows the replication options as a map<text, text>.
  Value replication;
  replication.kind = Value::Kind::kMap;
  replication.elements = {Value::Text("class"), Value::Text("SimpleStrategy"),
                          Value::Text("replication_factor"), Value::Text("1")};
  SqlStatement insert(
      sql, "INSERT OR REPLACE INTO fl_keyspaces(name, options, replication) VALUES (?, ?, ?)");
  if (!insert.ok()) return insert.code();
  insert.Bind(1, keyspace.name);
  insert.Bind(2, EncodeOptions(keyspace.options));
  const std::string blob = EncodeCollection(replication);
  sqlite3_bind_blob(insert.get(), 3, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
  return insert.Step() == SQLITE_DONE ? SQLITE_OK : insert.code();
}

int Catalog::EraseKeyspace(StatementCache& sql, const std::string& keyspace) {
  SqlStatement erase_types(sql, "DELETE FROM fl_types WHERE keyspace = ?");
  if (!erase_types.ok()) return erase_types.code();
  erase_types.Bind(1, keyspace);
  if (erase_types.Step() != SQLITE_DONE) return erase_types.code();
  SqlStatement erase(sql, "DELETE FROM fl_keyspaces WHERE name = ?");
  if (!erase.ok()) return erase.code();
  erase.Bind(1, keyspace);
  return erase.Step() == SQLITE_DONE ? SQLITE_OK : erase.code();
}

int Catalog::WriteTable(StatementCache& sql, const TableInfo& table, bool replace) {
  FL_ASSERT_MSG(!table.read_only && table.id > 0, "writing table {}.{}", table.keyspace,
                table.name);
  FL_ASSERT(table.PartitionKeyColumns() >= 1);
  if (replace) {
    if (int code = EraseTable(sql, table); code != SQLITE_OK) return code;
  }
  SqlStatement insert(sql,
                      "INSERT INTO fl_tables(keyspace, name, id, options, next_column) "
                      "VALUES (?, ?, ?, ?, ?)");
  if (!insert.ok()) return insert.code();
  insert.Bind(1, table.keyspace);
  insert.Bind(2, table.name);
  insert.Bind(3, table.id);
  insert.Bind(4, EncodeOptions(table.options));
  insert.Bind(5, std::int64_t{table.next_column});
  if (insert.Step() != SQLITE_DONE) return insert.code();
  SqlStatement column(sql,
                      "INSERT INTO fl_columns(table_id, name, type, role, position, "
                      "clustering_order, sql_name, ordinal) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  if (!column.ok()) return column.code();
  std::int64_t ordinal = 0;
  for (const ColumnInfo& info : table.columns) {
    sqlite3_reset(column.get());
    column.Bind(1, table.id);
    column.Bind(2, info.name);
    column.Bind(3, info.type.ToString());
    column.Bind(4, RoleName(info.role));
    column.Bind(5, std::int64_t{info.position});
    column.Bind(6, info.role != ColumnInfo::Role::kClustering ? "none"
                   : info.descending                          ? "desc"
                                                              : "asc");
    column.Bind(7, info.sql_name);
    column.Bind(8, ordinal++);
    if (column.Step() != SQLITE_DONE) return column.code();
  }
  FL_ASSERT(ordinal == static_cast<std::int64_t>(table.columns.size()));
  return WriteIndexes(sql, table);
}

int Catalog::WriteNextTableId(StatementCache& sql, std::int64_t next) {
  FL_ASSERT(next >= 1);
  SqlStatement write(sql,
                     "INSERT OR REPLACE INTO fl_meta(name, value) VALUES ('next_table_id', ?)");
  if (!write.ok()) return write.code();
  write.Bind(1, next);
  return write.Step() == SQLITE_DONE ? SQLITE_OK : write.code();
}

int Catalog::EraseTable(StatementCache& sql, const TableInfo& table) {
  FL_ASSERT(table.id > 0 && !table.read_only);
  SqlStatement erase_indexes(sql, "DELETE FROM fl_indexes WHERE table_id = ?");
  if (!erase_indexes.ok()) return erase_indexes.code();
  erase_indexes.Bind(1, table.id);
  if (erase_indexes.Step() != SQLITE_DONE) return erase_indexes.code();
  SqlStatement erase_columns(sql, "DELETE FROM fl_columns WHERE table_id = ?");
  SqlStatement erase_table(sql, "DELETE FROM fl_tables WHERE id = ?");
  if (!erase_columns.ok()) return erase_columns.code();
  if (!erase_table.ok()) return erase_table.code();
  erase_columns.Bind(1, table.id);
  erase_table.Bind(1, table.id);
  if (erase_columns.Step() != SQLITE_DONE) return erase_columns.code();
  return erase_table.Step() == SQLITE_DONE ? SQLITE_OK : erase_table.code();
}

const KeyspaceInfo* Catalog::FindKeyspace(const std::string& name) const {
  auto found = keyspaces_.find(name);
  return found == keyspaces_.end() ? nullptr : &found->second;
}

const TableInfo* Catalog::FindTable(const std::string& keyspace, const std::string& name) const {
  const KeyspaceInfo* info = FindKeyspace(keyspace);
  if (info == nullptr) return nullptr;
  auto found = info->tables.find(name);
  return found == info->tables.end() ? nullptr : &found->second;
}

void Catalog::ApplyKeyspace(KeyspaceInfo keyspace) {
  std::string name = keyspace.name;
  index_tables_.erase(name);
  for (const auto& [table_name, table] : keyspace.tables) RememberIndexesOf(table);
  keyspaces_.insert_or_assign(std::move(name), std::move(keyspace));
}

void Catalog::ApplyKeyspaceDropped(const std::string& keyspace) {
  keyspaces_.erase(keyspace);
  index_tables_.erase(keyspace);
}

void Catalog::ApplyTable(TableInfo table) {
  auto& tables = keyspaces_.at(table.keyspace).tables;
  if (const auto old = tables.find(table.name); old != tables.end()) ForgetIndexesOf(old->second);
  RememberIndexesOf(table);
  std::string name = table.name;
  tables.insert_or_assign(std::move(name), std::move(table));
}

void Catalog::ApplyTableDropped(const std::string& keyspace, const std::string& name) {
  auto& tables = keyspaces_.at(keyspace).tables;
  if (const auto old = tables.find(name); old != tables.end()) ForgetIndexesOf(old->second);
  tables.erase(name);
}

void Catalog::RememberIndexesOf(const TableInfo& table) {
  if (table.indexes.empty()) return;
  auto& names = index_tables_[table.keyspace];
  for (const IndexInfo& index : table.indexes) names.emplace(index.name, table.name);
}

void Catalog::ForgetIndexesOf(const TableInfo& table) {
  const auto keyspace = index_tables_.find(table.keyspace);
  if (keyspace == index_tables_.end()) return;
  for (const IndexInfo& index : table.indexes) {
    const auto named = keyspace->second.find(index.name);
    if (named != keyspace->second.end() && named->second == table.name) {
      keyspace->second.erase(named);
    }
  }
}

}  // namespace faultline::models::cql
