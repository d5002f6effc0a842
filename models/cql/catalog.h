// The store's catalog: keyspaces, tables and their columns, kept in memory
// for lookups and persisted in SQLite (tables fl_keyspaces, fl_tables,
// fl_columns) in the same transaction as the change it describes, so a crash
// leaves catalog and data consistent.
//
// How CQL maps onto SQLite (an internal detail):
// - A CQL table is a SQLite table "t<id>" WITHOUT ROWID whose primary key is
//   the CQL primary key (partition key columns, then clustering columns with
//   their order). Ids are never reused, so a dropped and re-created table
//   starts empty even if a stale prepared statement survives somewhere.
//   The SQLite table (with its static row table and UNIQUE indexes) is made
//   by the table's first write, as the catalog has it then
//   (Engine::Materialize): until then DDL changes only the catalog rows,
//   and reads find no rows. SQLite's own DDL parses and scans its whole
//   schema, so a folder of N CREATE TABLEs cost N squared; most tables a
//   migration folder makes are not written while it runs.
// - A CQL column is a SQLite column "c<n>" (n counts per table and is never
//   reused: a column dropped and added again comes back empty, as in CQL).
//   The SQLite names dodge SQLite's case-insensitive identifiers, which
//   would merge CQL's "Name" and name.
// - Each data table has hidden columns fl_expires, the virtual time (ms)
//   at which the row's TTL ends (or null), and fl_live, set by INSERT: YCQL's
//   liveness column, which keeps a row whose columns are all null.
// - Static columns are a second SQLite table "s<id>" WITHOUT ROWID keyed by
//   the partition key columns (same c<n> names), with the static columns
//   and the same hidden columns; a read joins it to each row of the
//   partition, and a partition with static values and no rows reads as one
//   row with null clustering columns, as in CQL.
// - system_schema.keyspaces, .tables, .columns and .indexes are SQLite views
//   over the catalog tables, so they are read through the same path as user
//   tables.
// - A secondary index is its CREATE INDEX text in fl_indexes (read back with
//   the parser); a UNIQUE one is also a SQLite unique index "u<id>_<hex of
//   its name>" on the data table, which SQLite keeps in the same transaction
//   as each write (YCQL's transactional index). Other indexes need no SQLite
//   index: SELECT scans, and answers the same.
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/cql/ast.h"
#include "models/cql/types.h"
#include "sim/status.h"

namespace faultline::models::cql {

// Which system the store speaks for: YCQL's (the default) or Apache
// Cassandra's, where the two differ in what DDL they accept, their error
// texts, and their system tables.
enum class Dialect : unsigned char { kYcql, kCassandra };

struct ColumnInfo {
  // A static column holds one value per partition, shown on each of its rows.
  enum class Role : unsigned char { kPartitionKey, kClustering, kRegular, kStatic };
  std::string name;
  CqlType type;
  Role role = Role::kRegular;
  int position = -1;  // Within the partition or clustering key; -1 for regular columns.
  bool descending = false;
  std::string sql_name;

  bool is_key() const { return role == Role::kPartitionKey || role == Role::kClustering; }
  bool is_static() const { return role == Role::kStatic; }
};

// A secondary index: its definition as the statement that made it, with the
// name, keyspace and table filled in.
struct IndexInfo {
  std::string name;
  CreateIndex definition;
  std::string kind;     // system_schema.indexes' kind: COMPOSITES or CUSTOM.
  std::string options;  // system_schema.indexes' options, a map<text, text> encoded.

  // Whether `column` is indexed, included or in the partial index's WHERE.
  bool Uses(std::string_view column) const;
  // The SQLite unique index, for a UNIQUE one.
  std::string SqlName(std::int64_t table_id) const;
};

struct TableInfo {
  std::string keyspace;
  std::string name;
  std::int64_t id = 0;
  std::string sql_name;
  // Partition key columns, clustering columns (each in key order), then the
  // regular columns in the order they were added.
  std::vector<ColumnInfo> columns;
  Options options;
  std::vector<IndexInfo> indexes;  // In the order they were made.
  int next_column = 0;             // For naming the next column's SQLite column.
  bool read_only = false;
  // A system table's rows: a parenthesized SELECT over the catalog's own
  // tables (catalog_system.cc), what a read has as its FROM.
  std::string row_source;
  std::string order_by;  // SQL ORDER BY for SELECT, when not the key order.

  const ColumnInfo* Find(std::string_view column) const;
  const IndexInfo* FindIndex(std::string_view index) const;
  // The first index that uses `column`, or nullptr.
  const IndexInfo* IndexUsing(std::string_view column) const;
  std::size_t KeyColumns() const;
  std::size_t PartitionKeyColumns() const;
  bool IsCounterTable() const;
  // Static columns live in their own SQLite table, "s<id>", keyed by the
  // partition key; it exists exactly while the table has a static column.
  bool HasStatics() const;
  std::string StaticSqlName() const;
};

struct KeyspaceInfo {
  std::string name;
  Options options;
  std::map<std::string, TableInfo> tables;
  bool system = false;
  UserTypes types;  // CREATE TYPE's, by name.
};

// SQLite statements of one connection, prepared once and kept by their
// text: SQLite parses a statement's text whenever it prepares it, and the
// store runs the same few again and again (each catalog write, each
// version row). After a change to SQLite's schema SQLite prepares a kept
// statement again by itself when it next runs; its owner forgets them all
// before such a change (Clear) so none outlives a table it names.
class StatementCache {
 public:
  static constexpr std::size_t kMaxKept = 4096;  // Then all go, rather than grow forever.

  explicit StatementCache(sqlite3* db) : db_(db) {}
  ~StatementCache();
  StatementCache(const StatementCache&) = delete;
  StatementCache& operator=(const StatementCache&) = delete;

  // The statement for `sql`, reset by whoever used it last; nullptr when
  // it does not prepare (sqlite3_errmsg(db()) says why).
  sqlite3_stmt* Get(const std::string& sql);
  void Clear();
  std::size_t size() const { return statements_.size(); }
  sqlite3* db() const { return db_; }

  // A statement in use across another Get (SqlStatement borrows one):
  // while any is, the bound does not clear the others.
  void Borrow() { ++borrowed_; }
  void GiveBack();

 private:
  sqlite3* db_;
  std::map<std::string, sqlite3_stmt*, std::less<>> statements_;
  int borrowed_ = 0;
};

class Catalog {
 public:
  static constexpr const char* kSystemKeyspace = "system_schema";

  // Creates the catalog tables and views if missing, then loads them.
  // (With the connection's kept statements: a read-only snapshot loads it
  // again after each change of the store's bytes.)
  [[nodiscard]] sim::Status Load(StatementCache& sql, Dialect dialect = Dialect::kYcql);

  const KeyspaceInfo* FindKeyspace(const std::string& name) const;
  const TableInfo* FindTable(const std::string& keyspace, const std::string& name) const;
  // The table holding the index named so in `keyspace`, or nullptr.
  const TableInfo* FindIndexTable(const std::string& keyspace, std::string_view index) const;
  const std::map<std::string, KeyspaceInfo>& keyspaces() const { return keyspaces_; }
  std::int64_t next_table_id() const { return next_table_id_; }

  // Persisting a change: each writes the catalog rows (inside the caller's
  // transaction, with the connection's kept statements) and returns
  // SQLite's error code. Apply*() then updates the in-memory view, once
  // the transaction has committed.
  static int WriteKeyspace(StatementCache& sql, const KeyspaceInfo& keyspace);
  static int EraseKeyspace(StatementCache& sql, const std::string& keyspace);
  // With `replace`, the table's old rows (and columns) go first.
  static int WriteTable(StatementCache& sql, const TableInfo& table, bool replace);
  static int EraseTable(StatementCache& sql, const TableInfo& table);
  static int WriteNextTableId(StatementCache& sql, std::int64_t next);
  // A user-defined type's row in fl_types (a new one, or its new definition).
  static int WriteType(StatementCache& sql, const std::string& keyspace, const UserType& type);
  static int EraseType(StatementCache& sql, const std::string& keyspace, const std::string& name);

  void ApplyKeyspace(KeyspaceInfo keyspace);
  void ApplyKeyspaceDropped(const std::string& keyspace);
  void ApplyTable(TableInfo table);
  void ApplyTableDropped(const std::string& keyspace, const std::string& name);
  // A type made, changed or dropped; the columns of the keyspace's tables
  // are resolved again, since a UDT column holds its type's fields.
  void ApplyType(const std::string& keyspace, UserType type);
  void ApplyTypeDropped(const std::string& keyspace, const std::string& name);
  std::int64_t AllocateTableId() { return next_table_id_++; }

 private:
  sim::Status LoadKeyspaces(StatementCache& sql);
  sim::Status LoadTables(StatementCache& sql);
  sim::Status LoadColumns(StatementCache& sql);
  sim::Status LoadIndexes(StatementCache& sql);
  sim::Status LoadTypes(StatementCache& sql);
  void ResolveColumnTypes(KeyspaceInfo& keyspace);
  void AddSystemKeyspace(Dialect dialect);
  // index_tables_ kept as tables come and go.
  void RememberIndexesOf(const TableInfo& table);
  void ForgetIndexesOf(const TableInfo& table);

  std::map<std::string, KeyspaceInfo> keyspaces_;
  // Keyspace -> index name -> the table holding it: FindIndexTable without
  // looking through every table (YCQL asks at each CREATE TABLE, so a
  // folder's cost would grow with the tables made before).
  std::map<std::string, std::map<std::string, std::string, std::less<>>> index_tables_;
  std::int64_t next_table_id_ = 1;
};

// The CREATE TYPE statement that makes `type` in `keyspace`: on one line as
// the catalog stores it, or laid out as DESCRIBE prints it (without the ';').
std::string TypeDefinitionText(const std::string& keyspace, const UserType& type,
                               bool laid_out = false);

// An index target as CQL writes it: "v", "keys(m)", "full(f)".
std::string IndexTargetText(const IndexTarget& target);

// The CREATE INDEX statement that makes `index` on `table`, as the catalog
// stores it and DESCRIBE shows it (without the ';').
std::string IndexDefinitionText(const TableInfo& table, const IndexInfo& index);

// A map literal's string entries ({'class': 'X', 'size': 1}): an option's
// or a custom index's OPTIONS. What is not a key and a value is skipped.
std::vector<std::pair<std::string, std::string>> MapEntries(std::string_view text);

// Adds fl_option(options, name) (a value, as UnquotedOptionValue gives it) and
// fl_option_map(options, name) (a map option as a map<text, text>) to the
// connection; the catalog's system_schema.tables view reads them. Before
// Catalog::Load.
int RegisterCatalogFunctions(sqlite3* db);

// A column's role as fl_columns stores it and system_schema.columns' kind
// shows it: "partition_key", "clustering", "regular", "static".
const char* RoleName(ColumnInfo::Role role);

// Options as the catalog stores them ("name=value" lines) and back.
std::string EncodeOptions(const Options& options);
Options DecodeOptions(std::string_view text);

}  // namespace faultline::models::cql
