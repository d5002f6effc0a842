// Secondary indexes: CREATE INDEX and DROP INDEX, accepted and refused as
// each dialect does. YCQL: yugabyte-db src/yb/yql/cql/ql/parser/parser_gram.y
// (IndexStmt) and ptree/pt_create_index.cc; Cassandra:
// cql3/statements/schema/CreateIndexStatement.java and DropIndexStatement.java.
// An index changes the catalog only, except a UNIQUE one, which is also a
// SQLite unique index on the data table (catalog.h).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "models/cql/engine.h"
#include "models/cql/lexer.h"
#include "models/cql/sql.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

constexpr std::size_t kMaxNameTries = 1'000;

// Only [A-Za-z0-9_] of `text`, as both systems build a default name.
std::string WordCharacters(std::string_view text) {
  std::string kept;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') kept += c;
  }
  return kept;
}

// YCQL: the table, each indexed column, then "idx", joined by '_'
// (PTCreateIndex::Analyze). Cassandra: table_column_idx for one target,
// table_idx for several (IndexMetadata.generateDefaultIndexName).
std::string DefaultIndexName(Dialect dialect, const CreateIndex& statement) {
  std::string name = WordCharacters(statement.table.name) + "_";
  if (dialect == Dialect::kCassandra && statement.targets.size() != 1) return name + "idx";
  for (const IndexTarget& target : statement.targets) name += WordCharacters(target.column) + "_";
  return name + "idx";
}

// The `transactions` option's value without spaces and quotes, lower-cased
// ("{enabled:true}"), or empty when `options` has none.
std::string TransactionsText(const Options& options) {
  for (const auto& [name, value] : options) {
    if (name != "transactions") continue;
    std::string plain;
    for (const char c : value) {
      if (c != ' ' && c != '\'' && c != '"')
        plain += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return plain;
  }
  return {};
}

bool TableIsTransactional(const TableInfo& table) {
  return TransactionsText(table.options).find("enabled:true") != std::string::npos;
}

// The `transactions` option of an index: enabled unless it says false, and
// whether it says consistency_level: user_enforced.
struct IndexTransactions {
  bool enabled = true;
  bool user_enforced = false;
};
IndexTransactions TransactionsOf(const Options& options) {
  const std::string plain = TransactionsText(options);
  return IndexTransactions{plain.find("enabled:false") == std::string::npos,
                           plain.find("consistency_level:user_enforced") != std::string::npos};
}

// system_schema.indexes' options. YCQL (master/yql_indexes_vtable.cc): the
// target is the index's hash columns (in parentheses when several), then its
// range columns and the table's key columns it lacks; `include` and
// `predicate` when there are. Cassandra: the target as CQL writes it, and a
// custom index's class_name and OPTIONS.
std::string SystemOptions(Dialect dialect, const TableInfo& table, const CreateIndex& index) {
  std::map<std::string, std::string> options;
  std::vector<std::string> targets;
  for (const IndexTarget& target : index.targets) targets.push_back(IndexTargetText(target));
  if (dialect == Dialect::kYcql) {
    const std::size_t hash = std::max<std::size_t>(index.hash_targets, 1);
    std::string target =
        hash > 1 ? fmt::format("({})",
                               fmt::join(targets.begin(),
                                         targets.begin() + static_cast<std::ptrdiff_t>(hash), ", "))
                 : targets.front();
    for (std::size_t i = hash; i < targets.size(); ++i) target += ", " + targets[i];
    for (const ColumnInfo& column : table.columns) {
      const bool indexed =
          std::any_of(index.targets.begin(), index.targets.end(),
                      [&](const IndexTarget& t) { return t.column == column.name; });
      if (column.is_key() && !indexed) target += ", " + QuotedName(column.name);
    }
    options["target"] = target;
    std::vector<std::string> included;
    for (const std::string& name : index.included) included.push_back(QuotedName(name));
    if (!included.empty()) options["include"] = fmt::format("{}", fmt::join(included, ", "));
    if (!index.where_text.empty()) options["predicate"] = index.where_text;
  } else {
    options["target"] = fmt::format("{}", fmt::join(targets, ","));
    if (index.custom) {
      options["class_name"] = index.using_class;
      for (const auto& [name, value] : index.options) {
        if (name != "options") continue;
        for (auto& [key, entry] : MapEntries(value)) options[key] = entry;
      }
    }
  }
  Value map;
  map.kind = Value::Kind::kMap;
  for (const auto& [key, value] : options) {
    map.elements.push_back(Value::Text(key));
    map.elements.push_back(Value::Text(value));
  }
  return EncodeCollection(map);
}

// Targets alike but for where they were written.
bool SameTargets(const std::vector<IndexTarget>& a, const std::vector<IndexTarget>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.kind == y.kind && x.column == y.column;
  });
}

CqlError YcqlSyntaxError(std::string_view unexpected, std::size_t offset) {
  return At(
      SyntaxError(fmt::format("Invalid SQL Statement. syntax error, unexpected {}", unexpected)),
      offset);
}

}  // namespace

// What YCQL's grammar and analysis refuse (pt_create_index.cc, in its order).
std::optional<CqlError> Engine::CheckYcqlIndex(const TableInfo& table,
                                               const CreateIndex& statement) {
  // Not in YCQL's grammar: CUSTOM, USING 'class', keys()/values()/...
  if (statement.custom) return YcqlSyntaxError("CUSTOM", statement.table.offset);
  if (!statement.using_class.empty()) {
    return YcqlSyntaxError(fmt::format("string '{}'", statement.using_class),
                           statement.using_offset);
  }
  std::set<std::string> seen;
  for (const IndexTarget& target : statement.targets) {
    if (target.kind != IndexTarget::Kind::kColumn) return YcqlSyntaxError("'('", target.offset);
    const ColumnInfo* column = table.Find(target.column);
    if (column == nullptr) return At(UndefinedColumn(), target.offset);
    // PTIndexColumn::Analyze (ptree/pt_column_definition.cc), unless the
    // gflag cql_allow_static_column_index is set (it is not by default).
    if (column->is_static()) {
      return At(SyntaxError("Invalid SQL Statement. Static columns cannot be indexed."),
                target.offset);
    }
    // PTIndexColumn::Analyze: the code's title alone.
    if (!seen.insert(target.column).second) {
      return At(CqlError{ErrorCode::kDuplicateColumn, "Duplicate Column"}, target.offset);
    }
    // An index's columns are its key (CheckPrimaryType): no collections,
    // no counters; a frozen value is keyable.
    if (!column->type.IsKeyable()) {
      return At(InvalidPrimaryColumnType(
                    fmt::format("Invalid datatype for index column {}", target.column)),
                target.offset);
    }
  }
  for (std::size_t i = 0; i < statement.included.size(); ++i) {
    const ColumnInfo* column = table.Find(statement.included[i]);
    if (column == nullptr) return At(UndefinedColumn(), statement.included_offsets[i]);
    if (column->is_static()) {  // PTIndexColumn::SetupCoveringIndexColumn.
      return At(SyntaxError("Invalid SQL Statement. Static column not supported as a covering "
                            "index column"),
                statement.included_offsets[i]);
    }
    if (column->type.IsCollection()) {
      return At(FeatureNotSupported("Unsupported index datatype"), statement.included_offsets[i]);
    }
  }
  // A partial index's predicate names the table's columns.
  for (const Relation& relation : statement.where) {
    if (table.Find(relation.column) == nullptr) return At(UndefinedColumn(), relation.offset);
  }
  if (auto error = CheckTableOptions(statement.options)) return error;
  if (statement.unique && !statement.where.empty()) {
    // YCQL takes it; this store does not model a uniqueness that holds
    // over part of the rows, and says so rather than enforce it wrongly.
    return FeatureNotSupported("faultline's store does not model a partial UNIQUE index");
  }
  const IndexTransactions index = TransactionsOf(statement.options);
  if (!TableIsTransactional(table)) {
    if (index.enabled) {
      return InvalidTableDefinition(
          "Transactions cannot be enabled in an index of a table without transactions enabled.");
    }
    if (!index.user_enforced) {
      return InvalidTableDefinition(
          "Consistency level must be user-enforced in an index without transactions enabled.");
    }
  } else {
    if (!index.enabled) {
      return InvalidTableDefinition(
          "Transactions must be enabled in an index of a transactions-enabled table.");
    }
    if (index.user_enforced) {
      return InvalidTableDefinition(
          "User-enforced consistency level not allowed in a transactions-enabled index.");
    }
  }
  return std::nullopt;
}

// What Cassandra refuses (CreateIndexStatement.apply and validateIndexTarget,
// in their order; the name is checked by the caller).
std::optional<CqlError> Engine::CheckCassandraIndex(const TableInfo& table,
                                                    const CreateIndex& statement) {
  const auto refuse = [](std::string text) { return InvalidRequest(text); };
  // Not in Cassandra's grammar (Parser.g, createIndexStatement).
  if (statement.unique)
    return At(SyntaxError("Invalid SQL Statement. syntax error, unexpected 'UNIQUE'"), 0);
  if (!statement.included.empty()) {
    return At(SyntaxError("Invalid SQL Statement. syntax error, unexpected 'INCLUDE'"),
              statement.included_offsets.front());
  }
  if (!statement.where.empty() || statement.hash_targets > 0) {
    return SyntaxError("Invalid SQL Statement. syntax error, unexpected '('");
  }
  const bool has_options =
      std::any_of(statement.options.begin(), statement.options.end(),
                  [](const auto& option) { return option.first == "options"; });
  if (statement.custom && statement.using_class.empty()) {
    return refuse("CUSTOM index requires specifiying the index class");  // [sic]
  }
  if (!statement.custom && !statement.using_class.empty()) {
    return refuse("Cannot specify index class for a non-CUSTOM index");
  }
  if (!statement.custom && has_options)
    return refuse("Cannot specify options for a non-CUSTOM index");
  // Only OPTIONS is a property of an index (PropertyDefinitions.validate).
  for (const auto& [name, value] : statement.options) {
    if (name != "options") {
      return SyntaxError(fmt::format("Invalid SQL Statement. Unknown property '{}'", name));
    }
  }
  if (statement.using_class.find("SASIIndex") != std::string::npos) {
    // Cassandra 4's default (sasi_indexes_enabled: false).
    return refuse("SASI indexes are disabled. Enable in cassandra.yaml to use.");
  }
  if (table.IsCounterTable()) return refuse("Secondary indexes on counter tables aren't supported");
  for (const IndexTarget& target : statement.targets) {
    if (table.Find(target.column) == nullptr) {
      return refuse(fmt::format("Undefined column name {} in table {}.{}", target.column,
                                table.keyspace, table.name));
    }
  }
  if (!statement.custom && statement.targets.size() > 1) {
    return refuse("Only CUSTOM indexes support multiple columns");
  }
  std::set<std::string> seen;
  for (const IndexTarget& target : statement.targets) {
    if (!seen.insert(target.column).second) {
      return refuse(fmt::format("Duplicate column '{}' in index target list", target.column));
    }
    const ColumnInfo& column = *table.Find(target.column);
    const bool collection = column.type.IsCollection();
    const bool function = target.kind != IndexTarget::Kind::kColumn;
    if (column.role == ColumnInfo::Role::kPartitionKey && table.PartitionKeyColumns() == 1) {
      return refuse(fmt::format("Cannot create secondary index on the only partition key column {}",
                                column.name));
    }
    const std::string_view word = IndexFunctionName(target.kind);
    if (function && target.kind != IndexTarget::Kind::kFull && column.type.frozen && collection) {
      return refuse(fmt::format(
          "Cannot create {}() index on frozen column {}. Frozen collections are immutable and "
          "must be fully indexed by using the 'full({})' modifier",
          word, column.name, column.name));
    }
    if (target.kind == IndexTarget::Kind::kFull && !(collection && column.type.frozen)) {
      return refuse("full() indexes can only be created on frozen collections");
    }
    if (function && !collection) {
      return refuse(fmt::format(
          "Cannot create {}() index on {}. Non-collection columns only support simple indexes",
          word, column.name));
    }
    const bool map = column.type.kind == CqlType::Kind::kMap;
    if ((target.kind == IndexTarget::Kind::kKeys || target.kind == IndexTarget::Kind::kEntries) &&
        !map) {
      return refuse(fmt::format("Cannot create index on {} of column {} with non-map type", word,
                                column.name));
    }
  }
  return std::nullopt;
}

std::string UniqueIndexSql(const TableInfo& table, const IndexInfo& index) {
  FL_ASSERT(index.definition.unique);
  std::vector<std::string> columns;
  for (const IndexTarget& target : index.definition.targets) {
    const ColumnInfo* column = table.Find(target.column);
    FL_ASSERT_MSG(column != nullptr, "index {} on a column {}.{} lacks", index.name, table.name,
                  target.column);
    columns.push_back(column->sql_name);
  }
  return fmt::format("CREATE UNIQUE INDEX {} ON {} ({})", index.SqlName(table.id), table.sql_name,
                     fmt::join(columns, ", "));
}

Outcome Engine::Run(Session& session, const CreateIndex& statement) {
  std::variant<const TableInfo*, CqlError> resolved = ResolveTable(session, statement.table, true);
  if (auto* error = std::get_if<CqlError>(&resolved)) return std::move(*error);
  TableInfo table = *std::get<const TableInfo*>(resolved);
  const KeyspaceInfo& keyspace = *catalog_.FindKeyspace(table.keyspace);
  CreateIndex made = statement;
  made.if_not_exists = false;
  made.table = QualifiedName{table.keyspace, table.name, 0};
  if (dialect_ == Dialect::kCassandra) {
    // A bare collection column is indexed on its values (IndexTarget.Raw).
    for (IndexTarget& target : made.targets) {
      const ColumnInfo* column = table.Find(target.column);
      if (column != nullptr && target.kind == IndexTarget::Kind::kColumn &&
          column->type.IsCollection() && !column->type.frozen) {
        target.kind = IndexTarget::Kind::kValues;
      }
    }
    // Cassandra checks the name before the columns; YCQL's master checks
    // it after its analysis.
    if (!made.name.empty() && catalog_.FindIndexTable(table.keyspace, made.name) != nullptr) {
      if (statement.if_not_exists) return QueryResult{};
      return InvalidRequest(fmt::format("Index '{}' already exists", made.name));
    }
    if (auto error = CheckCassandraIndex(table, made)) return std::move(*error);
    for (const IndexInfo& index : table.indexes) {
      if (SameTargets(index.definition.targets, made.targets) &&
          index.definition.using_class == made.using_class) {
        if (statement.if_not_exists) return QueryResult{};
        return InvalidRequest(fmt::format(
            "Index {} is a duplicate of existing index {}",
            made.name.empty() ? DefaultIndexName(dialect_, made) : made.name, index.name));
      }
    }
  } else if (auto error = CheckYcqlIndex(table, made)) {
    return std::move(*error);
  }
  if (made.name.empty()) {
    made.name = DefaultIndexName(dialect_, made);
    // Cassandra takes the next free name (KeyspaceMetadata.findAvailableIndexName).
    const std::string base = made.name;
    for (std::size_t i = 1; dialect_ == Dialect::kCassandra && i < kMaxNameTries &&
                            catalog_.FindIndexTable(table.keyspace, made.name) != nullptr;
         ++i) {
      made.name = fmt::format("{}_{}", base, i);
    }
  }
  // YCQL: an index is a table, so its name is taken by any table or index
  // of the keyspace (the master's "Object '...' already exists").
  if (catalog_.FindIndexTable(table.keyspace, made.name) != nullptr ||
      (dialect_ == Dialect::kYcql && keyspace.tables.contains(made.name))) {
    if (statement.if_not_exists) return QueryResult{};
    return At(dialect_ == Dialect::kYcql
                  ? DuplicateObject(table.keyspace, made.name)
                  : InvalidRequest(fmt::format("Index '{}' already exists", made.name)),
              statement.name_offset);
  }
  IndexInfo index{made.name, made, made.custom ? "CUSTOM" : "COMPOSITES",
                  SystemOptions(dialect_, table, made)};
  // A UNIQUE index's SQLite index, on a table that has its SQLite table
  // (else its first write makes both: Materialize).
  const std::string sql =
      made.unique && Materialized(table) ? UniqueIndexSql(table, index) : std::string();
  table.indexes.push_back(std::move(index));
  if (!sql.empty()) ForgetPrepared();
  if (!Begin()) return SqliteFailure("CREATE INDEX");
  if (!sql.empty() && ExecSql(db_, sql) != SQLITE_OK) {
    // Rows already there break the uniqueness it asks for.
    const bool duplicates = sqlite3_extended_errcode(db_) == SQLITE_CONSTRAINT_UNIQUE;
    CqlError error =
        duplicates
            ? ExecError(fmt::format("Duplicate value disallowed by unique index {}", made.name))
            : SqliteFailure("CREATE INDEX");
    Rollback();
    return error;
  }
  if (Catalog::WriteTable(statements_, table, true) != SQLITE_OK || !Commit()) {
    CqlError error = SqliteFailure("CREATE INDEX");
    Rollback();
    return error;
  }
  const std::string keyspace_name = table.keyspace;
  catalog_.ApplyTable(std::move(table));
  FL_ASSERT(catalog_.FindIndexTable(keyspace_name, made.name) != nullptr);
  return QueryResult{QueryResult::Kind::kSchemaChange, {}, {}, {}, {}};
}

Outcome Engine::Run(Session& session, const DropIndex& statement) {
  std::variant<std::string, CqlError> keyspace_name =
      ResolveKeyspaceName(session, statement.index.keyspace);
  if (auto* error = std::get_if<CqlError>(&keyspace_name)) return std::move(*error);
  const std::string& keyspace = std::get<std::string>(keyspace_name);
  const TableInfo* holder = catalog_.FindIndexTable(keyspace, statement.index.name);
  if (holder == nullptr) {
    if (statement.if_exists) return QueryResult{};
    if (dialect_ == Dialect::kCassandra) {
      // [sic]: DropIndexStatement's message ends with a stray quote.
      return InvalidRequest(
          fmt::format("Index '{}.{}' doesn't exist'", keyspace, statement.index.name));
    }
    return At(ObjectNotFound(), statement.index.offset);
  }
  TableInfo table = *holder;
  const IndexInfo dropped = *table.FindIndex(statement.index.name);
  std::erase_if(table.indexes, [&](const IndexInfo& index) { return index.name == dropped.name; });
  const bool has_sqlite_index = dropped.definition.unique && Materialized(table);
  if (has_sqlite_index) ForgetPrepared();
  if (!Begin()) return SqliteFailure("DROP INDEX");
  if ((has_sqlite_index &&
       ExecSql(db_, fmt::format("DROP INDEX {}", dropped.SqlName(table.id))) != SQLITE_OK) ||
      Catalog::WriteTable(statements_, table, true) != SQLITE_OK || !Commit()) {
    CqlError error = SqliteFailure("DROP INDEX");
    Rollback();
    return error;
  }
  catalog_.ApplyTable(std::move(table));
  FL_ASSERT(catalog_.FindIndexTable(keyspace, statement.index.name) == nullptr);
  return QueryResult{QueryResult::Kind::kSchemaChange, {}, {}, {}, {}};
}

std::optional<CqlError> Engine::IndexedColumn(const TableInfo& table, const std::string& column,
                                              std::string_view verb) const {
  const IndexInfo* index = table.IndexUsing(column);
  if (index == nullptr) return std::nullopt;
  if (dialect_ == Dialect::kCassandra) {
    std::vector<std::string> names;
    for (const IndexInfo& each : table.indexes) {
      if (each.Uses(column)) names.push_back(each.name);
    }
    return InvalidRequest(
        fmt::format("Cannot {} column {} because it has dependent secondary "
                    "indexes ({})",
                    verb, column, fmt::join(names, ", ")));
  }
  // PTAlterTable::AppendModColumn.
  if (verb == "drop") {
    return FeatureNotYetImplemented(fmt::format(
        "Can't drop column used in an index. Remove '{}' index first and try again", index->name));
  }
  return FeatureNotYetImplemented(fmt::format(
      "Can't rename column used in an index. This column is used in '{}' index", index->name));
}

// YCQL's unique index holds the live rows only; SQLite's holds every row it
// stores, expired ones too. Before a write, the expired rows with the values
// it gives each UNIQUE index's columns go, so that they conflict with
// nothing (found through that index: no scan).
std::optional<CqlError> Engine::ForgetExpiredDuplicates(const TableInfo& table,
                                                        const Cells& cells) {
  for (const IndexInfo& index : table.indexes) {
    if (!index.definition.unique) continue;
    std::string condition;
    std::vector<const Value*> values;
    for (const IndexTarget& target : index.definition.targets) {
      const auto cell = std::find_if(cells.begin(), cells.end(), [&](const auto& given) {
        return given.first->name == target.column;
      });
      if (cell == cells.end() || cell->second.is_null()) break;
      condition += fmt::format(" AND {} = ?", cell->first->sql_name);
      values.push_back(&cell->second);
    }
    if (values.size() != index.definition.targets.size()) continue;  // Not all given.
    const std::string sql =
        fmt::format("DELETE FROM {} WHERE fl_expires <= ?{}", table.sql_name, condition);
    sqlite3_stmt* prepared = Prepared(sql);
    if (prepared == nullptr) return SqliteFailure("write");
    sqlite3_bind_int64(prepared, 1, Now());
    for (std::size_t i = 0; i < values.size(); ++i) {
      BindValue(prepared, static_cast<int>(i + 2), *values[i]);
    }
    if (!StepToDone(prepared)) return SqliteFailure("write");
  }
  return std::nullopt;
}

}  // namespace faultline::models::cql
