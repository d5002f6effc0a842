// The system keyspaces as the catalog shows them: system_schema's tables
// (SELECTs over the catalog's own tables), system.local and system.peers (and
// Cassandra's system.peers_v2).
#include <fmt/format.h>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/cql/catalog.h"
#include "models/cql/catalog_internal.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

CqlType Scalar(CqlType::Kind kind) { return CqlType{kind, false, {}}; }

// The columns of the widest table with no rows.
constexpr int kMostEmptyColumns = 12;

ColumnInfo SystemColumn(std::string name, CqlType type, ColumnInfo::Role role, int position,
                        int index) {
  return ColumnInfo{std::move(name), std::move(type), role,
                    position,        false,           fmt::format("c{}", index)};
}

std::string HexOf(const Value& collection) {
  constexpr std::string_view kDigits = "0123456789abcdef";
  std::string hex;
  for (const char c : EncodeCollection(collection)) {
    const auto byte = static_cast<unsigned char>(c);
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0xf];
  }
  return hex;
}

// The rows of each system table, over the catalog's own tables: a SELECT
// that each read of the table has as its FROM (TableInfo::row_source), its
// columns c0, c1, ... in the table's order. (They were views before layout 7:
// a new store's eight CREATE VIEWs were half of what its catalog cost, paid
// by every run, for tables only drivers and schema checks read.) `rows` is
// the table's name in the map below.
std::string SystemRowsText(std::string_view rows) {
  // system.local's tokens (a set<text> in the store's encoding) and the
  // system keyspaces' replication (a map<text, text>: a one-node store's).
  Value tokens;
  tokens.kind = Value::Kind::kSet;
  tokens.elements.push_back(Value::Text("-9223372036854775808"));
  Value replication;
  replication.kind = Value::Kind::kMap;
  for (const char* part :
       {"class", "org.apache.cassandra.locator.SimpleStrategy", "replication_factor", "1"}) {
    replication.elements.push_back(Value::Text(part));
  }
  const std::string system_replication = HexOf(replication);
  if (rows == "keyspaces") {
    return fmt::format(
        "SELECT name AS c0, 1 AS c1, replication AS c2 FROM fl_keyspaces "
        "UNION ALL SELECT 'system', 1, X'{0}' UNION ALL SELECT 'system_auth', 1, X'{0}' "
        "UNION ALL SELECT 'system_schema', 1, X'{0}'",
        system_replication);
  }
  if (rows == "tables") {
    return "SELECT keyspace AS c0, name AS c1, printf('00000000-0000-4000-8000-%012x', id) AS c2, "
           "CAST(coalesce(fl_option(options, 'default_time_to_live'), '0') AS INTEGER) AS c3, "
           "CAST(coalesce(fl_option(options, 'gc_grace_seconds'), '864000') AS INTEGER) AS c4, "
           "coalesce(fl_option(options, 'comment'), '') AS c5, "
           "fl_option_map(options, 'compaction') AS c6, fl_option_map(options, 'caching') AS c7, "
           "fl_option_map(options, 'compression') AS c8 FROM fl_tables";
  }
  if (rows == "columns") {
    return "SELECT t.keyspace AS c0, t.name AS c1, c.name AS c2, c.clustering_order AS c3, "
           "c.role AS c4, c.position AS c5, c.type AS c6, c.ordinal AS c7 "
           "FROM fl_columns c JOIN fl_tables t ON t.id = c.table_id";
  }
  if (rows == "indexes") {
    return "SELECT t.keyspace AS c0, t.name AS c1, i.name AS c2, i.kind AS c3, i.options AS c4 "
           "FROM fl_indexes i JOIN fl_tables t ON t.id = i.table_id";
  }
  if (rows == "types") {
    return "SELECT keyspace AS c0, name AS c1, field_names AS c2, field_types AS c3 FROM fl_types";
  }
  if (rows == "local") {
    return fmt::format(
        "SELECT 'local' AS c0, 'COMPLETED' AS c1, 'local cluster' AS c2, '3.4.2' AS c3, "
        "'datacenter1' AS c4, '4' AS c5, 'org.apache.cassandra.dht.Murmur3Partitioner' AS c6, "
        "'rack1' AS c7, '3.9-SNAPSHOT' AS c8, '20.1.0' AS c9, '127.0.0.1' AS c10, "
        "'127.0.0.1' AS c11, '127.0.0.1' AS c12, 0 AS c13, "
        "'5a2c1f3e-0b1d-4c6a-9e8f-0d1c2b3a4f50' AS c14, "
        "'00000000-0000-0000-0000-000000000000' AS c15, X'{}' AS c16",
        HexOf(tokens));
  }
  // None (system.peers; system_schema's tables YugabyteDB keeps empty): as
  // many columns as the widest of them.
  FL_ASSERT_MSG(rows == "none", "no rows for system table {}", rows);
  std::string columns;
  for (int i = 0; i < kMostEmptyColumns; ++i) columns += fmt::format(", NULL AS c{}", i);
  return "SELECT " + columns.substr(2) + " WHERE 0";
}

// SystemRowsText, worked out once: every catalog load (each store open and
// each refreshed observation) builds the system tables again. A constant of
// the code, the same in every simulation.
const std::string& SystemRows(std::string_view rows) {
  static const std::map<std::string, std::string, std::less<>> kRows = [] {
    std::map<std::string, std::string, std::less<>> all;
    for (const char* name :
         {"keyspaces", "tables", "columns", "indexes", "types", "local", "none"}) {
      all.emplace(name, "(" + SystemRowsText(name) + ")");
    }
    return all;
  }();
  const auto found = kRows.find(rows);
  FL_ASSERT_MSG(found != kRows.end(), "no rows for system table {}", rows);
  return found->second;
}

// `rows` names its SystemRows; `sql_name` is what messages call it.
TableInfo SystemTable(std::string name, std::string sql_name, std::string_view rows) {
  TableInfo table;
  table.keyspace = Catalog::kSystemKeyspace;
  table.name = std::move(name);
  table.sql_name = std::move(sql_name);
  table.read_only = true;
  table.row_source = SystemRows(rows);
  return table;
}

// system_schema's tables YugabyteDB keeps empty (YQLEmptyVTable: its
// yql_triggers_vtable.cc and the functions, aggregates and views ones), with
// their key columns and the ones drivers read; the Python driver reads every
// one when it connects. Their rows come from an empty view of enough columns.
void AddEmptySchemaTables(KeyspaceInfo& system) {
  using Kind = CqlType::Kind;
  using Role = ColumnInfo::Role;
  const CqlType text = Scalar(Kind::kText);
  const CqlType texts{Kind::kList, true, {text}};
  const CqlType options{Kind::kMap, true, {text, text}};
  struct Column {
    const char* name;
    CqlType type;
  };
  const auto add = [&system](const char* name, std::vector<Column> columns, int clustering) {
    TableInfo table = SystemTable(name, fmt::format("system_schema.{}", name), "none");
    FL_ASSERT(columns.size() <= kMostEmptyColumns);
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const int index = static_cast<int>(i);
      const Role role = i == 0                ? Role::kPartitionKey
                        : index <= clustering ? Role::kClustering
                                              : Role::kRegular;
      const int position = role == Role::kPartitionKey ? 0
                           : role == Role::kClustering ? index - 1
                                                       : -1;
      table.columns.push_back(
          SystemColumn(columns[i].name, columns[i].type, role, position, index));
    }
    system.tables.emplace(table.name, std::move(table));
  };
  add("functions",
      {{"keyspace_name", text},
       {"function_name", text},
       {"argument_types", texts},
       {"argument_names", texts},
       {"body", text},
       {"called_on_null_input", Scalar(Kind::kBoolean)},
       {"language", text},
       {"return_type", text}},
      2);
  add("aggregates",
      {{"keyspace_name", text},
       {"aggregate_name", text},
       {"argument_types", texts},
       {"final_func", text},
       {"initcond", text},
       {"return_type", text},
       {"state_func", text},
       {"state_type", text}},
      2);
  add("triggers",
      {{"keyspace_name", text}, {"table_name", text}, {"trigger_name", text}, {"options", options}},
      2);
  add("views",
      {{"keyspace_name", text},
       {"view_name", text},
       {"base_table_id", Scalar(Kind::kUuid)},
       {"base_table_name", text},
       {"include_all_columns", Scalar(Kind::kBoolean)},
       {"where_clause", text},
       {"id", Scalar(Kind::kUuid)},
       {"comment", text},
       {"default_time_to_live", Scalar(Kind::kInt)},
       {"gc_grace_seconds", Scalar(Kind::kInt)},
       {"caching", options},
       {"compaction", options}},
      1);
}

}  // namespace

void Catalog::AddSystemKeyspace(Dialect dialect) {
  using Kind = CqlType::Kind;
  using Role = ColumnInfo::Role;
  KeyspaceInfo system;
  system.name = kSystemKeyspace;
  system.system = true;
  const CqlType text = Scalar(Kind::kText);

  TableInfo keyspaces = SystemTable("keyspaces", "fl_system_keyspaces", "keyspaces");
  keyspaces.columns = {
      SystemColumn("keyspace_name", text, Role::kPartitionKey, 0, 0),
      SystemColumn("durable_writes", Scalar(Kind::kBoolean), Role::kRegular, -1, 1),
      SystemColumn("replication", CqlType{Kind::kMap, false, {text, text}}, Role::kRegular, -1, 2),
  };
  TableInfo tables = SystemTable("tables", "fl_system_tables", "tables");
  tables.columns = {
      SystemColumn("keyspace_name", text, Role::kPartitionKey, 0, 0),
      SystemColumn("table_name", text, Role::kClustering, 0, 1),
      SystemColumn("id", Scalar(Kind::kUuid), Role::kRegular, -1, 2),
      SystemColumn("default_time_to_live", Scalar(Kind::kInt), Role::kRegular, -1, 3),
      SystemColumn("gc_grace_seconds", Scalar(Kind::kInt), Role::kRegular, -1, 4),
      SystemColumn("comment", text, Role::kRegular, -1, 5),
      SystemColumn("compaction", CqlType{Kind::kMap, false, {text, text}}, Role::kRegular, -1, 6),
      SystemColumn("caching", CqlType{Kind::kMap, false, {text, text}}, Role::kRegular, -1, 7),
      SystemColumn("compression", CqlType{Kind::kMap, false, {text, text}}, Role::kRegular, -1, 8),
  };
  TableInfo columns = SystemTable("columns", "fl_system_columns", "columns");
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
  TableInfo indexes = SystemTable("indexes", "fl_system_indexes", "indexes");
  indexes.order_by = "c0, c1, c2";
  indexes.columns = {
      SystemColumn("keyspace_name", text, Role::kPartitionKey, 0, 0),
      SystemColumn("table_name", text, Role::kClustering, 0, 1),
      SystemColumn("index_name", text, Role::kClustering, 1, 2),
      SystemColumn("kind", text, Role::kRegular, -1, 3),
      SystemColumn("options", CqlType{Kind::kMap, false, {text, text}}, Role::kRegular, -1, 4),
  };
  TableInfo types = SystemTable("types", "fl_system_types", "types");
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
  AddEmptySchemaTables(system);
  keyspaces_.emplace(system.name, std::move(system));
  // system.local, the row a driver reads first: the values YugabyteDB's
  // LocalVTable gives (yugabyte-db src/yb/master/yql_local_vtable.cc), its
  // text columns only (no addresses, tokens or host id here).
  KeyspaceInfo local_keyspace{"system", {}, {}, true};
  TableInfo local = SystemTable("local", "fl_system_local", "local");
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
  TableInfo peers = SystemTable("peers", "fl_system_peers", "none");
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
    TableInfo peers_v2 = SystemTable("peers_v2", "fl_system_peers_v2", "none");
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

}  // namespace faultline::models::cql
