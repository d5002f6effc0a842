// Keyspace and table definitions: CREATE, ALTER, DROP, TRUNCATE, USE. Each
// change runs in one SQLite transaction with its catalog rows, and reaches
// the in-memory catalog only once committed.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "models/cql/collations.h"
#include "models/cql/engine.h"
#include "models/cql/sql.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

QueryResult SchemaChange() { return QueryResult{QueryResult::Kind::kSchemaChange, {}, {}, {}, {}}; }
QueryResult Void() { return QueryResult{}; }

}  // namespace

// Text-stored types whose order is not the text's compare with their
// collation (collations.h).
std::string SqlColumnDeclaration(const ColumnInfo& column) {
  const std::string_view collation = SqlCollation(column.type);
  return fmt::format("{} {}{}{}", column.sql_name, column.type.SqliteAffinity(),
                     collation.empty() ? "" : " COLLATE ", collation);
}

Outcome Engine::Run(Session&, const CreateKeyspace& statement) {
  if (catalog_.FindKeyspace(statement.name) != nullptr) {
    if (statement.if_not_exists) return Void();
    return KeyspaceAlreadyExists(statement.name);
  }
  KeyspaceInfo keyspace{statement.name, statement.options, {}, false};
  if (!Begin()) return SqliteFailure("CREATE KEYSPACE");
  if (Catalog::WriteKeyspace(statements_, keyspace) != SQLITE_OK || !Commit()) {
    Rollback();
    return SqliteFailure("CREATE KEYSPACE");
  }
  catalog_.ApplyKeyspace(std::move(keyspace));
  FL_ASSERT(catalog_.FindKeyspace(statement.name) != nullptr);
  return SchemaChange();
}

Outcome Engine::Run(Session&, const DropKeyspace& statement) {
  const KeyspaceInfo* keyspace = catalog_.FindKeyspace(statement.name);
  if (keyspace == nullptr) {
    if (statement.if_exists) return Void();
    return KeyspaceNotFound();
  }
  if (keyspace->system) return SystemNamespaceReadonly();
  // YugabyteDB refuses to drop a keyspace that still has tables (Cassandra
  // would drop them too).
  if (!keyspace->tables.empty()) {
    return ServerError(
        fmt::format("Cannot delete keyspace which has table: {}", keyspace->tables.begin()->first));
  }
  if (!Begin()) return SqliteFailure("DROP KEYSPACE");
  if (Catalog::EraseKeyspace(statements_, statement.name) != SQLITE_OK || !Commit()) {
    Rollback();
    return SqliteFailure("DROP KEYSPACE");
  }
  // The session keeps its keyspace, as in YCQL: later statements find no tables.
  catalog_.ApplyKeyspaceDropped(statement.name);
  FL_ASSERT(catalog_.FindKeyspace(statement.name) == nullptr);
  return SchemaChange();
}

Outcome Engine::Run(Session& session, const Use& statement) {
  if (catalog_.FindKeyspace(statement.keyspace) == nullptr) return KeyspaceNotFound();
  session.keyspace = statement.keyspace;
  return QueryResult{QueryResult::Kind::kSetKeyspace, {}, {}, {}, statement.keyspace};
}

namespace {

// The columns of a new table, checked and in catalog order (keys first).
std::variant<std::vector<ColumnInfo>, CqlError> DefineColumns(const CreateTable& statement,
                                                              const UserTypes& types) {
  if (statement.partition_key.empty()) {
    return MissingPrimaryKey("A primary key is required for table");
  }
  std::map<std::string, ColumnInfo> defined;
  for (const ColumnDefinition& definition : statement.columns) {
    std::variant<CqlType, CqlError> type = ResolveType(definition.type, &types);
    if (auto* error = std::get_if<CqlError>(&type)) return std::move(*error);
    const auto role = definition.is_static ? ColumnInfo::Role::kStatic : ColumnInfo::Role::kRegular;
    ColumnInfo column{definition.name, std::get<CqlType>(type), role, -1, false, ""};
    if (!defined.emplace(definition.name, std::move(column)).second) {
      return At(DuplicateColumn(definition.name), definition.offset);
    }
  }
  std::vector<ColumnInfo> columns;
  std::set<std::string> in_key;
  auto take_key = [&](const std::string& name, ColumnInfo::Role role,
                      int position) -> std::optional<CqlError> {
    auto found = defined.find(name);
    if (found == defined.end()) return UndefinedColumn();
    if (!in_key.insert(name).second) return DuplicateColumn(name);
    if (!found->second.type.IsKeyable()) {
      return InvalidPrimaryColumnType(
          fmt::format("Invalid datatype for primary key column {}", name));
    }
    found->second.role = role;
    found->second.position = position;
    columns.push_back(found->second);
    return std::nullopt;
  };
  for (std::size_t i = 0; i < statement.partition_key.size(); ++i) {
    if (auto error = take_key(statement.partition_key[i], ColumnInfo::Role::kPartitionKey,
                              static_cast<int>(i))) {
      return std::move(*error);
    }
  }
  for (std::size_t i = 0; i < statement.clustering_key.size(); ++i) {
    if (auto error = take_key(statement.clustering_key[i], ColumnInfo::Role::kClustering,
                              static_cast<int>(i))) {
      return std::move(*error);
    }
  }
  for (const ColumnDefinition& definition : statement.columns) {
    if (!in_key.contains(definition.name)) columns.push_back(defined.at(definition.name));
  }
  FL_ASSERT(columns.size() == statement.columns.size());
  FL_ASSERT(in_key.size() == statement.partition_key.size() + statement.clustering_key.size());
  return columns;
}

// Where a table may have static columns, in each system's words and order.
// YCQL (ptree/pt_create_table.cc, PTCreateTable::Analyze): one pass over the
// columns refuses a static hash column (one marked as the partition key) and
// any other static key column, then a static column in a table without a
// range column; -302. Cassandra (cql3/statements/schema/
// CreateTableStatement.java, builder()): a static key column, then a static
// column without clustering columns.
std::optional<CqlError> CheckStatics(const CreateTable& statement, Dialect dialect) {
  const auto in = [](const std::vector<std::string>& key, const std::string& name) {
    return std::find(key.begin(), key.end(), name) != key.end();
  };
  const ColumnDefinition* first_static = nullptr;
  for (const ColumnDefinition& column : statement.columns) {
    if (!column.is_static) continue;
    if (first_static == nullptr) first_static = &column;
    const bool hash = in(statement.partition_key, column.name);
    if (!hash && !in(statement.clustering_key, column.name)) continue;
    if (dialect == Dialect::kCassandra) {
      return InvalidRequest(
          fmt::format("Static column '{}' cannot be part of the PRIMARY KEY", column.name));
    }
    return At(InvalidTableDefinition(hash && statement.partition_key_marked
                                         ? "Hash column cannot be static"
                                         : "Primary key column cannot be static"),
              column.offset);
  }
  if (first_static == nullptr || !statement.clustering_key.empty()) return std::nullopt;
  if (dialect == Dialect::kCassandra) {
    return InvalidRequest(
        "Static columns are only useful (and thus allowed) if the table has at least one "
        "clustering column");
  }
  return At(InvalidTableDefinition("Static column not allowed in a table without a range column"),
            first_static->offset);
}

// CLUSTERING ORDER BY must name the clustering columns, in key order.
std::optional<CqlError> ApplyClusteringOrder(const CreateTable& statement,
                                             std::vector<ColumnInfo>& columns) {
  const auto& order = statement.clustering_order;
  if (order.empty()) return std::nullopt;
  if (order.size() > statement.clustering_key.size()) {
    return InvalidTableProperty("Only clustering key columns can be defined in CLUSTERING ORDER");
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i].first != statement.clustering_key[i]) {
      return InvalidTableProperty(
          "The order of columns in the CLUSTERING ORDER directive must be the one of the "
          "clustering key");
    }
    for (ColumnInfo& column : columns) {
      if (column.name == order[i].first) column.descending = order[i].second;
    }
  }
  return std::nullopt;
}

std::optional<CqlError> CheckCounters(const std::vector<ColumnInfo>& columns) {
  bool counters = false;
  bool others = false;
  for (const ColumnInfo& column : columns) {
    if (column.is_key()) continue;
    (column.type.kind == CqlType::Kind::kCounter ? counters : others) = true;
  }
  if (counters && others) {
    return InvalidTableDefinition("Cannot mix counter and non counter columns in the same table");
  }
  return std::nullopt;
}

// ALTER TABLE ... WITH: the table's options, each named one replaced (or
// added), the others kept, as YugabyteDB starts from the table's current
// properties and sets the altered ones on them
// (src/yb/yql/cql/ql/ptree/pt_alter_table.cc, ToTableProperties).
Options MergedOptions(Options options, const Options& altered) {
  for (const auto& option : altered) {
    auto same = std::find_if(options.begin(), options.end(),
                             [&option](const auto& kept) { return kept.first == option.first; });
    if (same == options.end()) {
      options.push_back(option);
    } else {
      same->second = option.second;
    }
  }
  return options;
}

std::string CreateTableSql(const TableInfo& table) {
  std::string sql = fmt::format("CREATE TABLE {} (", table.sql_name);
  std::string key;
  for (const ColumnInfo& column : table.columns) {
    if (column.is_static()) continue;  // In the static row's table.
    sql += SqlColumnDeclaration(column) + ", ";
    if (column.is_key()) {
      key += fmt::format("{}{}{}", key.empty() ? "" : ", ", column.sql_name,
                         column.descending ? " DESC" : "");
    }
  }
  FL_ASSERT_MSG(!key.empty(), "table {} has no key", table.sql_name);
  // Spares for later ADDs, so they need no SQLite DDL (spare_columns.cc).
  return sql + SpareColumnsSql(table) +
         fmt::format(
             "fl_live INTEGER NOT NULL DEFAULT 0, fl_expires INTEGER, PRIMARY KEY ({})) "
             "WITHOUT ROWID",
             key);
}

}  // namespace

bool Engine::Materialize(const TableInfo& table) {
  FL_ASSERT_MSG(transaction_depth_ > 0, "materializing {}.{} outside a transaction", table.keyspace,
                table.name);
  if (Materialized(table)) return true;
  ForgetPrepared();  // The schema changes.
  if (ExecSql(db_, CreateTableSql(table)) != SQLITE_OK) return false;
  if (table.HasStatics() && ExecSql(db_, StaticTableSql(table)) != SQLITE_OK) return false;
  for (const IndexInfo& index : table.indexes) {
    if (index.definition.unique && ExecSql(db_, UniqueIndexSql(table, index)) != SQLITE_OK) {
      return false;
    }
  }
  FL_ASSERT(Materialized(table));
  return true;
}

// WITH options: YCQL's own and the Cassandra ones it accepts (and ignores);
// a misspelt one is an error, not a silent no-op.
std::optional<CqlError> CheckTableOptions(const Options& options) {
  static const std::set<std::string, std::less<>> kKnown = {"default_time_to_live",
                                                            "transactions",
                                                            "tablets",
                                                            "bloom_filter_fp_chance",
                                                            "caching",
                                                            "comment",
                                                            "compaction",
                                                            "compression",
                                                            "crc_check_chance",
                                                            "dclocal_read_repair_chance",
                                                            "gc_grace_seconds",
                                                            "max_index_interval",
                                                            "memtable_flush_period_in_ms",
                                                            "min_index_interval",
                                                            "read_repair_chance",
                                                            "speculative_retry",
                                                            "partition_key_ttl"};
  constexpr std::int64_t kMaxTtl = 630'720'000;  // Twenty years, Cassandra's bound.
  for (const auto& [name, value] : options) {
    if (!kKnown.contains(name)) {
      return InvalidTableProperty(fmt::format("Unknown property '{}'", name));
    }
    if (name != "default_time_to_live") continue;
    std::int64_t ttl = -1;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), ttl);
    if (error != std::errc() || end != value.data() + value.size() || ttl < 0 || ttl > kMaxTtl) {
      return InvalidTableProperty(fmt::format(
          "default_time_to_live must be an integer from 0 to {}, not {}", kMaxTtl, value));
    }
  }
  return std::nullopt;
}

Outcome Engine::Run(Session& session, const CreateTable& statement) {
  std::variant<std::string, CqlError> keyspace_name =
      ResolveKeyspaceName(session, statement.table.keyspace);
  if (auto* error = std::get_if<CqlError>(&keyspace_name)) return std::move(*error);
  const std::string& keyspace = std::get<std::string>(keyspace_name);
  const KeyspaceInfo* info = catalog_.FindKeyspace(keyspace);
  if (info == nullptr) return At(KeyspaceNotFound(), statement.table.offset);
  if (info->system) return At(SystemNamespaceReadonly(), statement.table.offset);
  // The stale-schema failure: an existing table wins, whatever its columns.
  // In YCQL an index is a table too: its name is taken.
  if (info->tables.contains(statement.table.name) ||
      (dialect_ == Dialect::kYcql &&
       catalog_.FindIndexTable(keyspace, statement.table.name) != nullptr)) {
    if (statement.if_not_exists) return Void();
    return At(DuplicateObject(keyspace, statement.table.name), statement.table.offset);
  }
  std::variant<std::vector<ColumnInfo>, CqlError> columns = DefineColumns(statement, info->types);
  if (auto* error = std::get_if<CqlError>(&columns)) return std::move(*error);
  if (auto error = CheckStatics(statement, dialect_)) return std::move(*error);
  TableInfo table;
  table.keyspace = keyspace;
  table.name = statement.table.name;
  table.columns = std::move(std::get<std::vector<ColumnInfo>>(columns));
  if (auto error = ApplyClusteringOrder(statement, table.columns)) return std::move(*error);
  if (auto error = CheckCounters(table.columns)) return std::move(*error);
  if (auto error = CheckTableOptions(statement.options)) return std::move(*error);
  for (ColumnInfo& column : table.columns)
    column.sql_name = fmt::format("c{}", table.next_column++);
  table.options = statement.options;
  table.id = catalog_.next_table_id();
  table.sql_name = fmt::format("t{}", table.id);
  FL_ASSERT(table.next_column == static_cast<int>(table.columns.size()));
  FL_ASSERT(table.id >= 1);

  // The catalog alone: the SQLite tables wait for the first write
  // (Materialize), so no prepared statement is stale.
  if (!Begin()) return SqliteFailure("CREATE TABLE");
  if (Catalog::WriteTable(statements_, table, false) != SQLITE_OK ||
      Catalog::WriteNextTableId(statements_, table.id + 1) != SQLITE_OK || !Commit()) {
    CqlError error = SqliteFailure("CREATE TABLE");
    Rollback();
    return error;
  }
  catalog_.AllocateTableId();
  catalog_.ApplyTable(std::move(table));
  FL_ASSERT(catalog_.FindTable(keyspace, statement.table.name) != nullptr);
  return SchemaChange();
}

// Cassandra renames key columns only, in its words and order
// (cql3/statements/schema/AlterTableStatement.java, RenameColumns).
std::optional<CqlError> Engine::CheckCassandraRename(const TableInfo& table,
                                                     const AlterTable& statement) const {
  const ColumnInfo* column = table.Find(statement.column.name);
  if (column == nullptr) {
    return InvalidRequest(fmt::format("Column {} was not found in table {}.{}",
                                      statement.column.name, table.keyspace, table.name));
  }
  if (!column->is_key()) {
    return InvalidRequest(
        fmt::format("Cannot rename non PRIMARY KEY column {}", statement.column.name));
  }
  if (table.Find(statement.new_name) != nullptr) {
    return InvalidRequest(fmt::format(
        "Cannot rename column {} to {} in table '{}.{}'; another column with that name already "
        "exists",
        statement.column.name, statement.new_name, table.keyspace, table.name));
  }
  return std::nullopt;
}

// One operation of an ALTER TABLE on `table` (a copy, changed in place),
// with the SQLite statement it needs, if any; IF [NOT] EXISTS skips it.
std::optional<CqlError> Engine::ApplyAlter(const AlterTable& statement, TableInfo& table,
                                           std::vector<std::string>& sql) {
  const ColumnInfo* existing = table.Find(statement.column.name);
  if (statement.if_exists && statement.action != AlterTable::Action::kWith &&
      (statement.action == AlterTable::Action::kAdd) == (existing != nullptr)) {
    return std::nullopt;
  }
  if (statement.action == AlterTable::Action::kWith) {
    FL_ASSERT(!statement.options.empty());  // The parser wants one at least.
    if (auto error = CheckTableOptions(statement.options)) return error;
    table.options = MergedOptions(std::move(table.options), statement.options);
  } else if (statement.action == AlterTable::Action::kRename) {
    // Only the catalog's name changes: the SQLite column keeps its own
    // name (c<n>), so rows and keys stay as they are. YCQL's analysis
    // (ptree/pt_alter_table.cc, AppendModColumn) refuses an old name that
    // is not there and a new one that is; its key-column check skips a
    // rename, so a key column is renamed too (what YugabyteDB's master then
    // does with one is not checked here).
    if (dialect_ == Dialect::kCassandra) {
      if (auto error = CheckCassandraRename(table, statement)) return error;
    }
    if (existing == nullptr) return At(UndefinedColumn(), statement.column.offset);
    if (auto error = IndexedColumn(table, statement.column.name, "rename")) return error;
    if (table.Find(statement.new_name) != nullptr) {
      return At(DuplicateColumn(statement.new_name), statement.new_name_offset);
    }
    for (ColumnInfo& column : table.columns) {
      if (column.name == statement.column.name) column.name = statement.new_name;
    }
  } else if (statement.action == AlterTable::Action::kAdd) {
    if (existing != nullptr)
      return At(DuplicateColumn(statement.column.name), statement.column.offset);
    // Cassandra (AlterTableStatement.AddColumns); YCQL's grammar has no
    // STATIC here (the parser carries its syntax error).
    const bool has_clustering = table.KeyColumns() > table.PartitionKeyColumns();
    if (statement.column.is_static && !has_clustering) {
      return InvalidRequest(
          "Static columns are only useful (and thus allowed) if the table has at least one "
          "clustering column");
    }
    std::variant<CqlType, CqlError> type =
        ResolveType(statement.column.type, &catalog_.FindKeyspace(table.keyspace)->types);
    if (auto* error = std::get_if<CqlError>(&type)) return std::move(*error);
    ColumnInfo column{
        statement.column.name,
        std::get<CqlType>(type),
        statement.column.is_static ? ColumnInfo::Role::kStatic : ColumnInfo::Role::kRegular,
        -1,
        false,
        {}};
    // A regular column takes a spare when one fits (no SQLite DDL); a
    // static one lives in the static row's table, which has none.
    std::optional<std::string> spare;
    if (!column.is_static()) spare = TakeSpareColumn(db_, table, column.type);
    column.sql_name = spare ? *spare : fmt::format("c{}", table.next_column++);
    // A table is a counter table or not from its creation on.
    const bool adds_counter = column.type.kind == CqlType::Kind::kCounter;
    if (adds_counter != table.IsCounterTable()) {
      return At(InvalidTableDefinition(fmt::format(
                    "Cannot add a {}counter column ({}) in a {}counter table",
                    adds_counter ? "" : "non ", column.name, adds_counter ? "non " : "")),
                statement.column.offset);
    }
    // The static row's table exists while the table has a static column.
    const bool first_static = column.is_static() && !table.HasStatics();
    table.columns.push_back(column);
    if (first_static) {
      sql.push_back(StaticTableSql(table));
    } else if (!spare) {
      sql.push_back(fmt::format("ALTER TABLE {} ADD COLUMN {}",
                                column.is_static() ? table.StaticSqlName() : table.sql_name,
                                SqlColumnDeclaration(column)));
    }
  } else {
    if (existing == nullptr) return At(UndefinedColumn(), statement.column.offset);
    // YCQL refuses both, in different words: hash columns at analysis,
    // range columns when the master applies the change.
    if (existing->role == ColumnInfo::Role::kPartitionKey)
      return At(AlterKeyColumn(), statement.column.offset);
    if (existing->is_key()) return ExecError("cannot remove a key column");
    if (auto error = IndexedColumn(table, statement.column.name, "drop")) return error;
    const bool was_static = existing->is_static();
    const std::string sql_name = existing->sql_name;
    std::erase_if(table.columns,
                  [&](const ColumnInfo& column) { return column.name == statement.column.name; });
    if (was_static && !table.HasStatics()) {
      sql.push_back(fmt::format("DROP TABLE {}", table.StaticSqlName()));
    } else {
      sql.push_back(fmt::format("ALTER TABLE {} DROP COLUMN {}",
                                was_static ? table.StaticSqlName() : table.sql_name, sql_name));
    }
    if (was_static && table.HasStatics()) {
      // A static row whose only value was this column is gone with it.
      std::string empty;
      for (const ColumnInfo& column : table.columns) {
        if (column.is_static()) empty += fmt::format(" AND {} IS NULL", column.sql_name);
      }
      sql.push_back(
          fmt::format("DELETE FROM {} WHERE fl_live = 0{}", table.StaticSqlName(), empty));
    }
  }
  return std::nullopt;
}

Outcome Engine::Run(Session& session, const AlterTable& statement) {
  std::variant<const TableInfo*, CqlError> resolved = ResolveTable(session, statement.table, true);
  if (auto* error = std::get_if<CqlError>(&resolved)) return std::move(*error);
  TableInfo table = *std::get<const TableInfo*>(resolved);
  std::vector<std::string> sql;  // None for WITH or RENAME: only the catalog changes.
  const std::vector<const AlterTable*> operations = Operations(statement);
  for (const AlterTable* operation : operations) {
    if (auto error = ApplyAlter(*operation, table, sql)) return std::move(*error);
  }
  FL_ASSERT(sql.size() <= 2 * operations.size());  // At most a change and a clean-up each.
  // A table not yet materialized changes in the catalog alone: its first
  // write makes it as it is by then.
  if (!Materialized(*std::get<const TableInfo*>(resolved))) sql.clear();
  if (!sql.empty()) ForgetPrepared();
  if (!Begin()) return SqliteFailure("ALTER TABLE");
  const bool applied = std::all_of(sql.begin(), sql.end(), [this](const std::string& one) {
    return ExecSql(db_, one) == SQLITE_OK;
  });
  if (!applied || Catalog::WriteTable(statements_, table, true) != SQLITE_OK || !Commit()) {
    CqlError error = SqliteFailure("ALTER TABLE");
    Rollback();
    return error;
  }
  const std::string keyspace = table.keyspace;
  const std::string name = table.name;
  catalog_.ApplyTable(std::move(table));
  const TableInfo* altered = catalog_.FindTable(keyspace, name);
  FL_ASSERT(altered != nullptr);
  // The last operation's column is as it left it.
  const AlterTable& last = *operations.back();
  switch (last.action) {
    case AlterTable::Action::kAdd:
      FL_ASSERT(altered->Find(last.column.name) != nullptr);
      break;
    case AlterTable::Action::kDrop:
      FL_ASSERT(altered->Find(last.column.name) == nullptr);
      break;
    case AlterTable::Action::kRename:
      FL_ASSERT(last.if_exists || altered->Find(last.new_name) != nullptr);
      break;
    case AlterTable::Action::kWith:
      break;
  }
  return SchemaChange();
}

Outcome Engine::Run(Session& session, const DropTable& statement) {
  std::variant<const TableInfo*, CqlError> resolved = ResolveTable(session, statement.table, true);
  if (auto* error = std::get_if<CqlError>(&resolved)) {
    if (statement.if_exists && error->code != ErrorCode::kSystemNamespaceReadonly &&
        error->code != ErrorCode::kNoKeyspace) {
      return Void();
    }
    return std::move(*error);
  }
  const TableInfo table = *std::get<const TableInfo*>(resolved);
  const bool materialized = Materialized(table);
  if (materialized) ForgetPrepared();
  if (!Begin()) return SqliteFailure("DROP TABLE");
  if ((materialized && ExecSql(db_, fmt::format("DROP TABLE {}", table.sql_name)) != SQLITE_OK) ||
      (materialized && table.HasStatics() &&
       ExecSql(db_, fmt::format("DROP TABLE {}", table.StaticSqlName())) != SQLITE_OK) ||
      Catalog::EraseTable(statements_, table) != SQLITE_OK || !Commit()) {
    CqlError error = SqliteFailure("DROP TABLE");
    Rollback();
    return error;
  }
  catalog_.ApplyTableDropped(table.keyspace, table.name);
  FL_ASSERT(catalog_.FindTable(table.keyspace, table.name) == nullptr);
  return SchemaChange();
}

// YCQL: CREATE MATERIALIZED VIEW fits only PostgreSQL's inactive form, so
// Cassandra's (with PRIMARY KEY) is a syntax error there, and DROP
// MATERIALIZED VIEW is PARSER_CQL_INVALID (parser_gram.y, ql_drop_type).
// Cassandra 4: views are off by default (CreateViewStatement), so none
// exists to drop (DropViewStatement).
Outcome Engine::Run(Session&, const CreateView& statement) {
  if (dialect_ == Dialect::kYcql) {
    return At(SyntaxError("Invalid SQL Statement. syntax error, unexpected PRIMARY"),
              statement.primary_offset);
  }
  return InvalidRequest("Materialized views are disabled. Enable in cassandra.yaml to use.");
}

Outcome Engine::Run(Session& session, const DropView& statement) {
  if (dialect_ == Dialect::kYcql) {
    return At(CqlStatementInvalid(""), statement.materialized_offset);
  }
  if (statement.if_exists) return Void();
  std::variant<std::string, CqlError> keyspace =
      ResolveKeyspaceName(session, statement.view.keyspace);
  if (auto* error = std::get_if<CqlError>(&keyspace)) return std::move(*error);
  return InvalidRequest(fmt::format("Materialized view '{}.{}' doesn't exist",
                                    std::get<std::string>(keyspace), statement.view.name));
}

Outcome Engine::Run(Session& session, const Truncate& statement) {
  std::variant<const TableInfo*, CqlError> resolved = ResolveTable(session, statement.table, true);
  if (auto* error = std::get_if<CqlError>(&resolved)) return std::move(*error);
  const TableInfo& table = *std::get<const TableInfo*>(resolved);
  if (!Materialized(table)) return Void();  // Never written: nothing to remove.
  if (!Begin()) return SqliteFailure("TRUNCATE");
  if (ExecSql(db_, fmt::format("DELETE FROM {}", table.sql_name)) != SQLITE_OK ||
      (table.HasStatics() &&
       ExecSql(db_, fmt::format("DELETE FROM {}", table.StaticSqlName())) != SQLITE_OK) ||
      !Commit()) {
    CqlError error = SqliteFailure("TRUNCATE");
    Rollback();
    return error;
  }
  return Void();
}

}  // namespace faultline::models::cql
