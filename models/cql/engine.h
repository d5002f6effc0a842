// The metadata store's engine: executes parsed CQL statements on a SQLite
// database with YCQL's semantics and error texts. It is synchronous and
// single-threaded: the store process runs one statement at a time, which is
// what makes the catalog strongly consistent (of two concurrent CREATE TABLE
// for one name, the first executed wins and the second gets Duplicate Object).
//
// Semantics kept deliberately simple, and where they differ from YCQL:
// - A TTL belongs to the row (USING TTL n on INSERT or UPDATE sets when the
//   whole row expires), not to each cell.
// - Rows come back in primary key order, partitions included (YCQL orders
//   partitions by hash).
// - On a table with static columns, a conditional write's IF EXISTS and IF
//   NOT EXISTS count the partition's static values as the row.
//
// The engine speaks one of two dialects: YCQL's (the default), or Apache
// Cassandra's where the two differ in what they accept (secondary indexes
// so far), each with its own error texts.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

#include "models/cql/ast.h"
#include "models/cql/catalog.h"
#include "models/cql/errors.h"
#include "models/cql/paging.h"
#include "models/cql/value.h"
#include "sim/status.h"

namespace faultline::models::cql {

struct ColumnSpec {
  std::string name;
  CqlType type;
  friend bool operator==(const ColumnSpec&, const ColumnSpec&) = default;
};

using Row = std::vector<Value>;
// A write's columns and their values.
using Cells = std::vector<std::pair<const ColumnInfo*, Value>>;

// What a write's WHERE clause selects, checked as YCQL checks it
// (pt_dml.cc): equality on the key columns, and for DELETE ranges on
// clustering columns.
struct WriteTarget {
  std::vector<Value> key;  // Equality values of the leading key columns, in key order.
  // Every restriction, for the SQL: column, operator, value.
  std::vector<std::tuple<const ColumnInfo*, std::string, Value>> restrictions;
  bool full_key = false;  // All key columns restricted by equality, nothing else.
};

struct QueryResult {
  enum class Kind : unsigned char { kVoid, kRows, kSetKeyspace, kSchemaChange, kText };
  Kind kind = Kind::kVoid;
  std::vector<ColumnSpec> columns;  // kRows.
  std::vector<Row> rows;
  std::string paging_state;  // kRows: non-empty when more rows follow.
  std::string text;          // kText: DESCRIBE output; kSetKeyspace: the keyspace.
};

using Outcome = std::variant<QueryResult, CqlError>;

// A client's connection state.
struct Session {
  std::string keyspace;  // Set by USE.
};

// Paging: at most page_size rows per result (0: all), continuing from
// paging_state (from the previous page's result).
// It has constructors, so it is not an aggregate: GCC 12 miscompiles
// aggregate temporaries with string members built in a co_await expression,
// and default arguments of client calls are exactly that.
struct PageRequest {
  PageRequest() = default;
  explicit PageRequest(std::int32_t size, std::string state = {})
      : page_size(size), paging_state(std::move(state)) {}
  std::int32_t page_size = 0;
  std::string paging_state;
};

class Engine {
 public:
  // Milliseconds since the Unix epoch, for TTLs.
  using Clock = std::function<std::int64_t()>;

  // Opens the engine on `db`, creating the catalog on a fresh database and
  // loading it on an existing one. The engine does not own `db`.
  static std::variant<std::unique_ptr<Engine>, sim::Status> Open(sqlite3* db, Clock clock,
                                                                 Dialect dialect = Dialect::kYcql);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  Outcome Execute(Session& session, const ParsedStatement& statement,
                  std::span<const Value> bound = {}, const PageRequest& page = {});
  // Parses `text` and executes its statements in turn, stopping after the
  // first error; one outcome per statement run.
  std::vector<Outcome> ExecuteScript(Session& session, std::string_view text);

  // The syntax error of a statement that only the other dialect's grammar
  // takes (ParsedStatement::ycql_error, cassandra_error), if it is one.
  std::optional<CqlError> DialectError(const ParsedStatement& statement) const;

  const Catalog& catalog() const { return catalog_; }
  Dialect dialect() const { return dialect_; }
  // Reads the catalog again from the database, which changed under a
  // read-only engine (StoreSnapshot::Refresh).
  sim::Status ReloadCatalog() { return catalog_.Load(statements_, dialect_); }
  // SQLite statements currently prepared and cached.
  std::size_t cached_statements() const { return statements_.size(); }

 private:
  Engine(sqlite3* db, Clock clock, Dialect dialect)
      : db_(db), clock_(std::move(clock)), dialect_(dialect), statements_(db) {}

  // Statement kinds; defined in engine_ddl.cc, engine_write.cc, engine_read.cc.
  Outcome Run(Session& session, const CreateKeyspace& statement);
  Outcome Run(Session& session, const DropKeyspace& statement);
  Outcome Run(Session& session, const Use& statement);
  Outcome Run(Session& session, const CreateTable& statement);
  Outcome Run(Session& session, const AlterTable& statement);
  Outcome Run(Session& session, const DropTable& statement);
  std::optional<CqlError> ApplyAlter(const AlterTable& statement, TableInfo& table,
                                     std::vector<std::string>& sql);
  std::optional<CqlError> CheckCassandraRename(const TableInfo& table,
                                               const AlterTable& statement) const;
  // User-defined types: engine_type.cc.
  Outcome Run(Session& session, const CreateType& statement);
  Outcome Run(Session& session, const AlterType& statement);
  Outcome Run(Session& session, const DropType& statement);
  std::variant<const KeyspaceInfo*, CqlError> TypeKeyspace(const Session& session,
                                                           const QualifiedName& type) const;
  std::optional<CqlError> CheckTypeFields(const std::string& keyspace, const std::string& type,
                                          const std::vector<ColumnDefinition>& fields);
  // Writes `type` and commits; the catalog learns it once committed.
  Outcome CommitType(const std::string& keyspace, UserType type, std::string_view what);
  // Materialized views, which neither store makes: engine_ddl.cc.
  Outcome Run(Session& session, const CreateView& statement);
  Outcome Run(Session& session, const DropView& statement);
  // Secondary indexes: engine_index.cc.
  Outcome Run(Session& session, const CreateIndex& statement);
  Outcome Run(Session& session, const DropIndex& statement);
  std::optional<CqlError> CheckYcqlIndex(const TableInfo& table, const CreateIndex& statement);
  std::optional<CqlError> CheckCassandraIndex(const TableInfo& table, const CreateIndex& statement);
  // Why `column` cannot be dropped or renamed (`verb`), if an index uses it.
  std::optional<CqlError> IndexedColumn(const TableInfo& table, const std::string& column,
                                        std::string_view verb) const;
  Outcome Run(Session& session, const Truncate& statement);
  Outcome Run(Session& session, const Batch& statement);
  Outcome Run(Session& session, const Describe& statement);
  Outcome RunModification(Session& session, const Modification& statement);
  Outcome RunSelect(Session& session, const Select& statement, const PageRequest& page);
  // A SELECT's WHERE as SQL, its parameters, and which columns it
  // restricts how (= < > and ! for !=): engine_read.cc.
  struct SelectWhere {
    std::string sql;
    std::vector<Value> parameters;
    std::set<std::pair<const ColumnInfo*, char>> restricted;
  };
  std::variant<SelectWhere, CqlError> WhereOf(const TableInfo& table, const Select& statement);
  std::optional<CqlError> AddInRelation(const Relation& relation, const ColumnInfo& column,
                                        SelectWhere& where);
  std::optional<CqlError> AddRelation(const Relation& relation, const ColumnInfo& column,
                                      SelectWhere& where);
  Outcome CountRows(const TableInfo& table, const SelectWhere& where, std::int64_t limit,
                    QueryResult result);
  Outcome ReadRows(const TableInfo& table, const std::vector<const ColumnInfo*>& selected,
                   const SelectWhere& where, const std::vector<OrderColumn>& order,
                   std::int64_t limit, const PageRequest& page, QueryResult result);
  Outcome RunInsert(const TableInfo& table, const Insert& statement);
  Outcome RunUpdate(const TableInfo& table, const Update& statement);
  // An UPDATE's SET part as cells (engine_write.cc): each value, combined
  // with `current`'s for an increment or an append.
  std::optional<CqlError> AssignedCells(const TableInfo& table, const Update& statement,
                                        const std::optional<Row>& current, Cells& cells);
  Outcome RunDelete(const TableInfo& table, const Delete& statement);
  // DELETE's two parts: the rows it selects, or their `deleted` columns;
  // and the static row, for a whole partition or static columns.
  // What each system refuses of a write to static columns (engine_static.cc).
  std::optional<CqlError> StaticsOnlyWithClustering(bool statics_only, bool names_clustering,
                                                    std::string_view verb) const;
  std::optional<CqlError> CheckStaticDelete(const TableInfo& table, const WriteTarget& target,
                                            const std::vector<const ColumnInfo*>& deleted,
                                            bool names_non_static) const;
  std::optional<CqlError> DeleteFromRows(const TableInfo& table, const WriteTarget& target,
                                         const std::vector<const ColumnInfo*>& deleted);
  std::optional<CqlError> DeleteFromStatics(const TableInfo& table, const WriteTarget& target,
                                            const std::vector<const ColumnInfo*>& deleted);

  // The table a statement names, with Object Not Found and friends.
  std::variant<const TableInfo*, CqlError> ResolveTable(const Session& session,
                                                        const QualifiedName& name,
                                                        bool for_write) const;
  std::variant<std::string, CqlError> ResolveKeyspaceName(const Session& session,
                                                          const std::string& named) const;

  // A table's SQLite tables (its rows, its static row, its UNIQUE indexes)
  // are made by its first write, not by CREATE TABLE: SQLite's DDL parses
  // and scans its whole schema (a migration folder of N tables cost N
  // squared), and most tables a folder makes are written long after it
  // ran, if ever. Until then DDL changes the catalog alone, and a read
  // reads no rows (RowSource with materialized false): what CQL sees is
  // the same.
  bool Materialized(const TableInfo& table) const;
  // Makes them, inside the caller's transaction (engine_ddl.cc); false
  // on a SQLite error.
  bool Materialize(const TableInfo& table);
  // SQLite plumbing.
  sqlite3_stmt* Prepared(const std::string& sql);  // Cached; nullptr on error.
  // Steps `statement` (prepared from `sql` when null) once and resets it:
  // whether it ran to its end.
  bool StepOnce(sqlite3_stmt*& statement, const char* sql);
  void ForgetPrepared();  // Before schema changes.
  CqlError SqliteFailure(std::string_view what);
  bool Begin();
  bool Commit();
  void Rollback();
  // Runs a SQLite statement to completion; false on an error.
  bool StepToDone(sqlite3_stmt* statement);
  void BindValue(sqlite3_stmt* statement, int index, const Value& value);
  // A cell as a Value; a collection whose bytes do not decode sets
  // unreadable_cell_ and reads as null.
  Value ReadValue(sqlite3_stmt* statement, int column, const CqlType& type);
  CqlError UnreadableCell() const {
    return ServerError("Corruption: a stored collection value cannot be read");
  }
  std::int64_t Now() const { return clock_(); }
  // The positional parameters' first index, after binding :now if the
  // statement names it (a RowSource does): engine_static.cc.
  int BindNow(sqlite3_stmt* statement);
  // The live row with these key values (the whole key, or on a table with
  // static columns the partition key alone), if any: every column, in table
  // order.
  std::variant<std::optional<Row>, CqlError> ReadRow(const TableInfo& table,
                                                     const std::vector<Value>& key);
  std::variant<std::optional<Row>, CqlError> ReadRowWithStatics(const TableInfo& table,
                                                                const std::vector<Value>& key);
  // Writes `cells` (the key's among them: the whole key, or the partition
  // key for static columns alone) as an upsert; `expires` is the row's TTL
  // end or null. INSERT replaces the row's TTL, UPDATE keeps it.
  std::optional<CqlError> Upsert(const TableInfo& table, const Cells& cells, const Value& expires,
                                 bool is_insert);
  // Removes the row if no INSERT made it live and all its columns are null,
  // and the partition's static row if all its static columns are.
  std::optional<CqlError> ForgetIfEmpty(const TableInfo& table, const std::vector<Value>& key);
  // One of a table's SQLite tables: its rows ("t<id>", keyed by the whole
  // key) or its static row ("s<id>", by the partition key).
  struct StoragePart {
    std::string sql_name;
    std::vector<const ColumnInfo*> keys;
    std::vector<const ColumnInfo*> values;
  };
  static StoragePart RowPart(const TableInfo& table);
  static StoragePart StaticPart(const TableInfo& table);
  // Rows past their TTL that hold the values `cells` give a UNIQUE index:
  // gone for CQL, but still in SQLite's unique index (engine_index.cc).
  std::optional<CqlError> ForgetExpiredDuplicates(const TableInfo& table, const Cells& cells);
  // `is_insert`: the TTL is replaced (INSERT's rule) rather than kept;
  // `marks_live`: the row exists even with every column null.
  std::optional<CqlError> UpsertPart(const TableInfo& table, const StoragePart& part,
                                     const Cells& cells, const Value& expires, bool is_insert,
                                     bool marks_live);
  std::optional<CqlError> ForgetPartIfEmpty(const StoragePart& part, const std::vector<Value>& key);

  sqlite3* db_;
  Clock clock_;
  Dialect dialect_;
  Catalog catalog_;
  StatementCache statements_;      // Every SQLite statement the engine runs again.
  sqlite3_stmt* begin_ = nullptr;  // BEGIN IMMEDIATE and COMMIT, prepared once (StepOnce).
  sqlite3_stmt* commit_ = nullptr;
  std::span<const Value> bound_;  // The current statement's bound values.
  int transaction_depth_ = 0;
  bool unreadable_cell_ = false;
};

// `error`, located at `offset` in the parsed text.
inline CqlError At(CqlError error, std::size_t offset) {
  error.offset = offset;
  return error;
}

// WITH options of a table or an index: YCQL's own and the Cassandra ones it
// accepts (and ignores); a misspelt one is Invalid Table Property.
std::optional<CqlError> CheckTableOptions(const Options& options);

// "c0, c1": the SQLite names of the table's key columns.
std::string KeyColumnList(const TableInfo& table);

// A column's SQLite declaration: "c3 TEXT COLLATE ...".
std::string SqlColumnDeclaration(const ColumnInfo& column);
// The collation a type's SQLite column declares (collations.h), or none.
std::string_view SqlCollation(const CqlType& type);
// Spare columns (spare_columns.cc): the declarations CREATE TABLE adds
// after the table's own, "c7 TEXT, c8 INTEGER, ..., ", named from its next
// column number; and for an added column of `type`, the spare that fits
// it, if any, past which `table.next_column` moves (past every spare
// looked at). None: no spare fits, and next_column names a new column.
std::string SpareColumnsSql(const TableInfo& table);
std::optional<std::string> TakeSpareColumn(sqlite3* db, TableInfo& table, const CqlType& type);
// The CREATE TABLE of a table's static row table (engine_static.cc).
std::string StaticTableSql(const TableInfo& table);
// What a SELECT reads the table's rows from: its SQLite table, or for a
// table with static columns a query that joins them in; for a table not
// yet materialized (Engine::Materialized), a query of no rows with the
// same columns.
std::string RowSource(const TableInfo& table, bool materialized);
// The SQLite UNIQUE index that keeps a UNIQUE secondary index (engine_index.cc).
std::string UniqueIndexSql(const TableInfo& table, const IndexInfo& index);

// A cell or a whole result as ycqlsh prints it: a header, a rule, rows, and
// "(N rows)"; DESCRIBE text as is; nothing for other results.
std::string FormatResult(const QueryResult& result);

}  // namespace faultline::models::cql
