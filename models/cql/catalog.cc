#include "models/cql/catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <variant>

#include "models/cql/keywords.h"
#include "models/cql/parser.h"
#include "models/cql/sql.h"
#include "models/cql/value.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

// The catalog's own tables and views, created in one transaction; SQLite's
// user_version records which layout a file has, so that an open of a current
// file changes nothing.
// 2: system.local (fl_system_local). 3: secondary indexes (fl_indexes,
// fl_system_indexes) and user-defined types (fl_types, fl_system_types).
// 4: system.local's address, identity and token columns; system.peers and
// (Cassandra's) system.peers_v2. A store saved at an older
// layout gets the tables and views it lacks when it is next opened (kSchema only adds).
constexpr int kCatalogLayout = 4;
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
CREATE VIEW fl_system_keyspaces AS
  SELECT name AS c0, 1 AS c1, replication AS c2 FROM fl_keyspaces
  UNION ALL SELECT 'system', 1, NULL
  UNION ALL SELECT 'system_auth', 1, NULL
  UNION ALL SELECT 'system_schema', 1, NULL;
DROP VIEW IF EXISTS fl_system_tables;
DROP VIEW IF EXISTS fl_system_columns;
CREATE VIEW fl_system_tables AS
  SELECT keyspace AS c0, name AS c1, printf('00000000-0000-4000-8000-%012x', id) AS c2
  FROM fl_tables;
CREATE VIEW fl_system_columns AS
  SELECT t.keyspace AS c0, t.name AS c1, c.name AS c2, c.clustering_order AS c3, c.role AS c4,
         c.position AS c5, c.type AS c6, c.ordinal AS c7
  FROM fl_columns c JOIN fl_tables t ON t.id = c.table_id;
DROP VIEW IF EXISTS fl_system_indexes;
CREATE VIEW fl_system_indexes AS
  SELECT t.keyspace AS c0, t.name AS c1, i.name AS c2, i.kind AS c3, i.options AS c4
  FROM fl_indexes i JOIN fl_tables t ON t.id = i.table_id;
DROP VIEW IF EXISTS fl_system_types;
CREATE VIEW fl_system_types AS
  SELECT keyspace AS c0, name AS c1, field_names AS c2, field_types AS c3 FROM fl_types;
DROP VIEW IF EXISTS fl_system_local;
CREATE VIEW fl_system_local AS
  SELECT 'local' AS c0, 'COMPLETED' AS c1, 'local cluster' AS c2, '3.4.2' AS c3,
         'datacenter1' AS c4, '4' AS c5, 'org.apache.cassandra.dht.Murmur3Partitioner' AS c6,
         'rack1' AS c7, '3.9-SNAPSHOT' AS c8, '20.1.0' AS c9,
         '127.0.0.1' AS c10, '127.0.0.1' AS c11, '127.0.0.1' AS c12, 0 AS c13,
         '5a2c1f3e-0b1d-4c6a-9e8f-0d1c2b3a4f50' AS c14,
         '00000000-0000-0000-0000-000000000000' AS c15, X'{tokens}' AS c16;
DROP VIEW IF EXISTS fl_system_peers;
CREATE VIEW fl_system_peers AS
  SELECT NULL AS c0, NULL AS c1, NULL AS c2, NULL AS c3, NULL AS c4, NULL AS c5, NULL AS c6,
         NULL AS c7, NULL AS c8 WHERE 0;
DROP VIEW IF EXISTS fl_system_peers_v2;
CREATE VIEW fl_system_peers_v2 AS
  SELECT NULL AS c0, NULL AS c1, NULL AS c2, NULL AS c3, NULL AS c4, NULL AS c5, NULL AS c6,
         NULL AS c7, NULL AS c8, NULL AS c9, NULL AS c10, NULL AS c11 WHERE 0;
PRAGMA user_version = 4;
COMMIT;
)sql";

// kSchema with system.local's tokens (a set<text> in the store's encoding)
// filled in.
std::string SchemaSql() {
  Value tokens;
  tokens.kind = Value::Kind::kSet;
  tokens.elements.push_back(Value::Text("-9223372036854775808"));
  std::string hex;
  for (const char c : EncodeCollection(tokens)) {
    hex += fmt::format("{:02x}", static_cast<unsigned char>(c));
  }
  return fmt::format(fmt::runtime(kSchema), fmt::arg("tokens", hex));
}

const char* RoleName(ColumnInfo::Role role) {
  switch (role) {
    case ColumnInfo::Role::kPartitionKey:
      return "partition_key";
    case ColumnInfo::Role::kClustering:
      return "clustering";
    case ColumnInfo::Role::kRegular:
      break;
  }
  return "regular";
}

ColumnInfo::Role RoleFromName(std::string_view name) {
  if (name == "partition_key") return ColumnInfo::Role::kPartitionKey;
  if (name == "clustering") return ColumnInfo::Role::kClustering;
  return ColumnInfo::Role::kRegular;
}

CqlType Scalar(CqlType::Kind kind) { return CqlType{kind, false, {}}; }

ColumnInfo SystemColumn(std::string name, CqlType type, ColumnInfo::Role role, int position,
                        int index) {
  return ColumnInfo{std::move(name), std::move(type), role,
                    position,        false,           fmt::format("c{}", index)};
}

TableInfo SystemTable(std::string name, std::string sql_name) {
  TableInfo table;
  table.keyspace = Catalog::kSystemKeyspace;
  table.name = std::move(name);
  table.sql_name = std::move(sql_name);
  table.read_only = true;
  return table;
}

sim::Status SqlError(sqlite3* db, std::string_view what) {
  return sim::Status::IoError(fmt::format("{}: {}", what, sqlite3_errmsg(db)));
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

// The table's indexes' rows, after its own (fl_indexes).
int WriteIndexes(sqlite3* db, const TableInfo& table) {
  SqlStatement insert(db,
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

}  // namespace

const ColumnInfo* TableInfo::Find(std::string_view column) const {
  for (const ColumnInfo& info : columns) {
    if (info.name == column) return &info;
  }
  return nullptr;
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
  return std::any_of(targets.begin(), targets.end(),
                     [&](const IndexTarget& target) { return target.column == column; }) ||
         std::find(included.begin(), included.end(), column) != included.end();
}

std::string IndexInfo::SqlName(std::int64_t table_id) const {
  FL_ASSERT_MSG(definition.unique, "index {} is not unique: SQLite keeps no index for it", name);
  std::string hex;
  for (const char c : name) hex += fmt::format("{:02x}", static_cast<unsigned char>(c));
  return fmt::format("u{}_{}", table_id, hex);
}

namespace {

std::string TargetText(const IndexTarget& target) {
  static constexpr std::pair<IndexTarget::Kind, std::string_view> kFunctions[] = {
      {IndexTarget::Kind::kKeys, "keys"},
      {IndexTarget::Kind::kValues, "values"},
      {IndexTarget::Kind::kEntries, "entries"},
      {IndexTarget::Kind::kFull, "full"}};
  for (const auto& [kind, word] : kFunctions) {
    if (target.kind == kind) return fmt::format("{}({})", word, QuotedName(target.column));
  }
  FL_ASSERT(target.kind == IndexTarget::Kind::kColumn);
  return QuotedName(target.column);
}

std::string NameList(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  for (const std::string& name : names) quoted.push_back(QuotedName(name));
  return fmt::format("{}", fmt::join(quoted, ", "));
}

}  // namespace

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
  for (const IndexTarget& target : made.targets) targets.push_back(TargetText(target));
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
    with.push_back(fmt::format("{} = {}", name, value));
  std::string order;
  for (const auto& [column, descending] : made.clustering_order) {
    order += fmt::format("{}{} {}", order.empty() ? "" : ", ", QuotedName(column),
                         descending ? "DESC" : "ASC");
  }
  if (!order.empty()) with.push_back(fmt::format("CLUSTERING ORDER BY ({})", order));
  if (!with.empty()) text += fmt::format(" WITH {}", fmt::join(with, " AND "));
  return text;
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

sim::Status Catalog::Load(sqlite3* db, Dialect dialect) {
  keyspaces_.clear();
  next_table_id_ = 1;
  std::int64_t current_layout = -1;
  {
    SqlStatement layout(db, "PRAGMA user_version");
    if (!layout.ok() || layout.Step() != SQLITE_ROW) return SqlError(db, "reading the layout");
    current_layout = layout.Int(0);
  }
  if (current_layout != kCatalogLayout) {
    static_assert(kCatalogLayout == 4, "kSchema sets user_version to the layout");
    if (sqlite3_exec(db, SchemaSql().c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
      sim::Status error = SqlError(db, "creating the catalog");
      (void)sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      return error;
    }
  }
  AddSystemKeyspace(dialect);
  if (sim::Status status = LoadKeyspaces(db); !status.ok()) return status;
  if (sim::Status status = LoadTypes(db); !status.ok()) return status;
  if (sim::Status status = LoadTables(db); !status.ok()) return status;
  // Ids are never reused, even those of tables dropped before a restart.
  SqlStatement next(db, "SELECT value FROM fl_meta WHERE name = 'next_table_id'");
  if (!next.ok()) return SqlError(db, "reading fl_meta");
  if (next.Step() == SQLITE_ROW) next_table_id_ = std::max(next_table_id_, next.Int(0));
  FL_ASSERT(next_table_id_ >= 1);
  return LoadColumns(db);
}

void Catalog::AddSystemKeyspace(Dialect dialect) {
  using Kind = CqlType::Kind;
  using Role = ColumnInfo::Role;
  KeyspaceInfo system;
  system.name = kSystemKeyspace;
  system.system = true;
  const CqlType text = Scalar(Kind::kText);

  TableInfo keyspaces = SystemTable("keyspaces", "fl_system_keyspaces");
  keyspaces.columns = {
      SystemColumn("keyspace_name", text, Role::kPartitionKey, 0, 0),
      SystemColumn("durable_writes", Scalar(Kind::kBoolean), Role::kRegular, -1, 1),
      SystemColumn("replication", CqlType{Kind::kMap, false, {text, text}}, Role::kRegular, -1, 2),
  };
  TableInfo tables = SystemTable("tables", "fl_system_tables");
  tables.columns = {
      SystemColumn("keyspace_name", text, Role::kPartitionKey, 0, 0),
      SystemColumn("table_name", text, Role::kClustering, 0, 1),
      SystemColumn("id", Scalar(Kind::kUuid), Role::kRegular, -1, 2),
  };
  TableInfo columns = SystemTable("columns", "fl_system_columns");
  columns.order_by = "c0, c1, c7";  // Each table's columns in schema order, as YCQL lists them.
  columns.columns = {
      SystemColumn("keyspace_name", text, Role::kPartitionKey, 0, 0),
      SystemColumn("table_name", text, Role::kClustering, 0, 1),
      SystemColumn("column_name", text, Role::kClustering, 1, 2),
      SystemColumn("clustering_order", text, Role::kRegular, -1, 3),
      SystemColumn("kind", text, Role::kRegular, -1, 4),
      SystemColumn("position", Scalar(Kind::kInt), Role::kRegular, -1, 5),
      SystemColumn("type", text, Role::kRegular, -1, 6),
  };
  TableInfo indexes = SystemTable("indexes", "fl_system_indexes");
  indexes.order_by = "c0, c1, c2";
  indexes.columns = {
      SystemColumn("keyspace_name", text, Role::kPartitionKey, 0, 0),
      SystemColumn("table_name", text, Role::kClustering, 0, 1),
      SystemColumn("index_name", text, Role::kClustering, 1, 2),
      SystemColumn("kind", text, Role::kRegular, -1, 3),
      SystemColumn("options", CqlType{Kind::kMap, false, {text, text}}, Role::kRegular, -1, 4),
  };
  TableInfo types = SystemTable("types", "fl_system_types");
  const CqlType texts{Kind::kList, false, {text}};
  types.columns = {
      SystemColumn("keyspace_name", text, Role::kPartitionKey, 0, 0),
      SystemColumn("type_name", text, Role::kClustering, 0, 1),
      SystemColumn("field_names", texts, Role::kRegular, -1, 2),
      SystemColumn("field_types", texts, Role::kRegular, -1, 3),
  };
  for (TableInfo* table : {&keyspaces, &tables, &columns, &indexes, &types}) {
    system.tables.emplace(table->name, std::move(*table));
  }
  keyspaces_.emplace(system.name, std::move(system));
  // system.local, the row a driver reads first: the values YugabyteDB's
  // LocalVTable gives (yugabyte-db src/yb/master/yql_local_vtable.cc), its
  // text columns only (no addresses, tokens or host id here).
  KeyspaceInfo local_keyspace{"system", {}, {}, true};
  TableInfo local = SystemTable("local", "fl_system_local");
  local.keyspace = "system";
  const CqlType inet = Scalar(Kind::kInet);
  const CqlType uuid = Scalar(Kind::kUuid);
  const CqlType tokens{Kind::kSet, false, {text}};
  int index = 0;
  const auto add = [&index](TableInfo& table, const char* name, const CqlType& type) {
    const bool key = index == 0;
    table.columns.push_back(
        SystemColumn(name, type, key ? Role::kPartitionKey : Role::kRegular, key ? 0 : -1, index));
    ++index;
  };
  for (const char* name :
       {"key", "bootstrapped", "cluster_name", "cql_version", "data_center",
        "native_protocol_version", "partitioner", "rack", "release_version", "thrift_version"}) {
    add(local, name, text);
  }
  // The columns drivers read to find the node and its schema (yql_local_vtable.cc).
  add(local, "broadcast_address", inet);
  add(local, "listen_address", inet);
  add(local, "rpc_address", inet);
  add(local, "gossip_generation", Scalar(Kind::kInt));
  add(local, "host_id", uuid);
  add(local, "schema_version", uuid);
  add(local, "tokens", tokens);
  local_keyspace.tables.emplace(local.name, std::move(local));
  // system.peers, empty: a one-node store has no peers (yql_peers_vtable.cc
  // skips the node the client talks to), with the columns drivers read.
  TableInfo peers = SystemTable("peers", "fl_system_peers");
  peers.keyspace = "system";
  index = 0;
  for (const auto& [name, type] :
       std::vector<std::pair<const char*, CqlType>>{{"peer", inet},
                                                    {"data_center", text},
                                                    {"host_id", uuid},
                                                    {"preferred_ip", inet},
                                                    {"rack", text},
                                                    {"release_version", text},
                                                    {"rpc_address", inet},
                                                    {"schema_version", uuid},
                                                    {"tokens", tokens}}) {
    add(peers, name, type);
  }
  local_keyspace.tables.emplace(peers.name, std::move(peers));
  // Cassandra 4's peers_v2 (SystemKeyspace.java); YugabyteDB has none, so a
  // query of it is Object Not Found there, and drivers fall back to peers.
  if (dialect == Dialect::kCassandra) {
    TableInfo peers_v2 = SystemTable("peers_v2", "fl_system_peers_v2");
    peers_v2.keyspace = "system";
    index = 0;
    for (const auto& [name, type] :
         std::vector<std::pair<const char*, CqlType>>{{"peer", inet},
                                                      {"peer_port", Scalar(Kind::kInt)},
                                                      {"data_center", text},
                                                      {"host_id", uuid},
                                                      {"preferred_ip", inet},
                                                      {"preferred_port", Scalar(Kind::kInt)},
                                                      {"rack", text},
                                                      {"release_version", text},
                                                      {"native_address", inet},
                                                      {"native_port", Scalar(Kind::kInt)},
                                                      {"schema_version", uuid},
                                                      {"tokens", tokens}}) {
      add(peers_v2, name, type);
    }
    peers_v2.columns[1].role = Role::kClustering;  // PRIMARY KEY ((peer), peer_port)
    peers_v2.columns[1].position = 0;
    local_keyspace.tables.emplace(peers_v2.name, std::move(peers_v2));
  }
  keyspaces_.emplace(local_keyspace.name, std::move(local_keyspace));
  // YCQL's other system keyspace, listed but without tables here.
  keyspaces_.emplace("system_auth", KeyspaceInfo{"system_auth", {}, {}, true});
  FL_ASSERT(keyspaces_.contains(kSystemKeyspace) && keyspaces_.contains("system"));
}

sim::Status Catalog::LoadKeyspaces(sqlite3* db) {
  SqlStatement select(db, "SELECT name, options FROM fl_keyspaces ORDER BY name");
  if (!select.ok()) return SqlError(db, "reading fl_keyspaces");
  while (select.Step() == SQLITE_ROW) {
    KeyspaceInfo keyspace;
    keyspace.name = select.Text(0);
    keyspace.options = DecodeOptions(select.Text(1));
    keyspaces_.emplace(keyspace.name, std::move(keyspace));
  }
  if (select.code() != SQLITE_DONE) return SqlError(db, "reading fl_keyspaces");
  return sim::Status::Ok();
}

sim::Status Catalog::LoadTables(sqlite3* db) {
  SqlStatement select(db,
                      "SELECT keyspace, name, id, options, next_column FROM fl_tables ORDER BY id");
  if (!select.ok()) return SqlError(db, "reading fl_tables");
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
  if (select.code() != SQLITE_DONE) return SqlError(db, "reading fl_tables");
  return sim::Status::Ok();
}

sim::Status Catalog::LoadColumns(sqlite3* db) {
  SqlStatement select(db,
                      "SELECT t.keyspace, t.name, c.name, c.type, c.role, c.position, "
                      "c.clustering_order, c.sql_name FROM fl_columns c JOIN fl_tables t "
                      "ON t.id = c.table_id ORDER BY c.table_id, c.ordinal");
  if (!select.ok()) return SqlError(db, "reading fl_columns");
  while (select.Step() == SQLITE_ROW) {
    KeyspaceInfo& keyspace = keyspaces_.at(select.Text(0));
    auto& table = keyspace.tables.at(select.Text(1));
    const std::string type_text = select.Text(3);
    const std::optional<TypeName> type_name = ParseTypeName(type_text);
    if (!type_name) return sim::Status::Corruption("unreadable column type " + type_text);
    std::variant<CqlType, CqlError> type = ResolveType(*type_name, &keyspace.types);
    if (!std::holds_alternative<CqlType>(type)) {
      return sim::Status::Corruption("unknown column type " + type_text);
    }
    table.columns.push_back(
        ColumnInfo{select.Text(2), std::get<CqlType>(type), RoleFromName(select.Text(4)),
                   static_cast<int>(select.Int(5)), select.Text(6) == "desc", select.Text(7)});
  }
  if (select.code() != SQLITE_DONE) return SqlError(db, "reading fl_columns");
  if (sim::Status status = LoadIndexes(db); !status.ok()) return status;
  for (const auto& [name, keyspace] : keyspaces_) {
    if (keyspace.system) continue;
    for (const auto& [table_name, table] : keyspace.tables) {
      if (sim::Status status = CheckLoadedTable(table); !status.ok()) return status;
    }
  }
  return sim::Status::Ok();
}

// An index read back: its text must parse as the CREATE INDEX it was, on
// its own table, over columns the table has.
sim::Status Catalog::LoadIndexes(sqlite3* db) {
  SqlStatement select(db,
                      "SELECT t.keyspace, t.name, i.name, i.definition, i.kind, i.options "
                      "FROM fl_indexes i JOIN fl_tables t ON t.id = i.table_id "
                      "ORDER BY i.table_id, i.ordinal");
  if (!select.ok()) return SqlError(db, "reading fl_indexes");
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
  if (select.code() != SQLITE_DONE) return SqlError(db, "reading fl_indexes");
  return sim::Status::Ok();
}

// A type read back: its text must parse as the CREATE TYPE it was, and
// name only types made before it (the order they were made in).
sim::Status Catalog::LoadTypes(sqlite3* db) {
  SqlStatement select(db, "SELECT keyspace, name, definition FROM fl_types ORDER BY ordinal");
  if (!select.ok()) return SqlError(db, "reading fl_types");
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
      if (!std::holds_alternative<CqlType>(ResolveType(field.type, &keyspace->second.types))) {
        return sim::Status::Corruption(fmt::format("type {} has a field of no known type: {}",
                                                   type.name, field.type.ToString()));
      }
    }
    keyspace->second.types.insert_or_assign(type.name, std::move(type));
  }
  if (select.code() != SQLITE_DONE) return SqlError(db, "reading fl_types");
  return sim::Status::Ok();
}

int Catalog::WriteType(sqlite3* db, const std::string& keyspace, const UserType& type) {
  FL_ASSERT_MSG(type.field_names.size() == type.field_types.size() && !type.field_names.empty(),
                "type {} with {} names and {} types", type.name, type.field_names.size(),
                type.field_types.size());
  // A changed type keeps its place: the types it names were made before it.
  SqlStatement insert(db,
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

int Catalog::EraseType(sqlite3* db, const std::string& keyspace, const std::string& name) {
  SqlStatement erase(db, "DELETE FROM fl_types WHERE keyspace = ? AND name = ?");
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

int Catalog::WriteKeyspace(sqlite3* db, const KeyspaceInfo& keyspace) {
  FL_ASSERT_MSG(!keyspace.system && !keyspace.name.empty(), "writing keyspace '{}'", keyspace.name);
  // system_schema.keyspaces shows the replication options as a map<text, text>.
  Value replication;
  replication.kind = Value::Kind::kMap;
  replication.elements = {Value::Text("class"), Value::Text("SimpleStrategy"),
                          Value::Text("replication_factor"), Value::Text("1")};
  SqlStatement insert(
      db, "INSERT OR REPLACE INTO fl_keyspaces(name, options, replication) VALUES (?, ?, ?)");
  if (!insert.ok()) return insert.code();
  insert.Bind(1, keyspace.name);
  insert.Bind(2, EncodeOptions(keyspace.options));
  const std::string blob = EncodeCollection(replication);
  sqlite3_bind_blob(insert.get(), 3, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
  return insert.Step() == SQLITE_DONE ? SQLITE_OK : insert.code();
}

int Catalog::EraseKeyspace(sqlite3* db, const std::string& keyspace) {
  SqlStatement erase_types(db, "DELETE FROM fl_types WHERE keyspace = ?");
  if (!erase_types.ok()) return erase_types.code();
  erase_types.Bind(1, keyspace);
  if (erase_types.Step() != SQLITE_DONE) return erase_types.code();
  SqlStatement erase(db, "DELETE FROM fl_keyspaces WHERE name = ?");
  if (!erase.ok()) return erase.code();
  erase.Bind(1, keyspace);
  return erase.Step() == SQLITE_DONE ? SQLITE_OK : erase.code();
}

int Catalog::WriteTable(sqlite3* db, const TableInfo& table, bool replace) {
  FL_ASSERT_MSG(!table.read_only && table.id > 0, "writing table {}.{}", table.keyspace,
                table.name);
  FL_ASSERT(table.PartitionKeyColumns() >= 1);
  if (replace) {
    if (int code = EraseTable(db, table); code != SQLITE_OK) return code;
  }
  SqlStatement insert(db,
                      "INSERT INTO fl_tables(keyspace, name, id, options, next_column) "
                      "VALUES (?, ?, ?, ?, ?)");
  if (!insert.ok()) return insert.code();
  insert.Bind(1, table.keyspace);
  insert.Bind(2, table.name);
  insert.Bind(3, table.id);
  insert.Bind(4, EncodeOptions(table.options));
  insert.Bind(5, std::int64_t{table.next_column});
  if (insert.Step() != SQLITE_DONE) return insert.code();
  SqlStatement column(db,
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
  return WriteIndexes(db, table);
}

int Catalog::WriteNextTableId(sqlite3* db, std::int64_t next) {
  FL_ASSERT(next >= 1);
  SqlStatement write(db, "INSERT OR REPLACE INTO fl_meta(name, value) VALUES ('next_table_id', ?)");
  if (!write.ok()) return write.code();
  write.Bind(1, next);
  return write.Step() == SQLITE_DONE ? SQLITE_OK : write.code();
}

int Catalog::EraseTable(sqlite3* db, const TableInfo& table) {
  FL_ASSERT(table.id > 0 && !table.read_only);
  SqlStatement erase_indexes(db, "DELETE FROM fl_indexes WHERE table_id = ?");
  if (!erase_indexes.ok()) return erase_indexes.code();
  erase_indexes.Bind(1, table.id);
  if (erase_indexes.Step() != SQLITE_DONE) return erase_indexes.code();
  SqlStatement erase_columns(db, "DELETE FROM fl_columns WHERE table_id = ?");
  SqlStatement erase_table(db, "DELETE FROM fl_tables WHERE id = ?");
  if (!erase_columns.ok()) return erase_columns.code();
  if (!erase_table.ok()) return erase_table.code();
  erase_columns.Bind(1, table.id);
  erase_table.Bind(1, table.id);
  if (erase_columns.Step() != SQLITE_DONE) return erase_columns.code();
  return erase_table.Step() == SQLITE_DONE ? SQLITE_OK : erase_table.code();
}

const TableInfo* Catalog::FindIndexTable(const std::string& keyspace,
                                         std::string_view index) const {
  const KeyspaceInfo* info = FindKeyspace(keyspace);
  if (info == nullptr) return nullptr;
  for (const auto& [name, table] : info->tables) {
    if (table.FindIndex(index) != nullptr) return &table;
  }
  return nullptr;
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
  keyspaces_.insert_or_assign(std::move(name), std::move(keyspace));
}

void Catalog::ApplyKeyspaceDropped(const std::string& keyspace) { keyspaces_.erase(keyspace); }

void Catalog::ApplyTable(TableInfo table) {
  auto& tables = keyspaces_.at(table.keyspace).tables;
  std::string name = table.name;
  tables.insert_or_assign(std::move(name), std::move(table));
}

void Catalog::ApplyTableDropped(const std::string& keyspace, const std::string& name) {
  keyspaces_.at(keyspace).tables.erase(name);
}

}  // namespace faultline::models::cql
