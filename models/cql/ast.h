// The parsed form of the CQL subset the metadata store speaks (see
// ../shared/reference/ycql.md). Identifiers are normalised as CQL does:
// unquoted ones are lower-cased, double-quoted ones are kept as written.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "models/cql/lexer.h"

namespace faultline::models::cql {

// A statement's WITH options: name = value, as written, in order.
using Options = std::vector<std::pair<std::string, std::string>>;

// Offsets (`offset`, `*_offsets`) locate names in the parsed text, so that
// an error can put its caret under the offending token.
struct QualifiedName {
  std::string keyspace;  // Empty when the statement did not name one.
  std::string name;
  std::size_t offset = 0;
  friend bool operator==(const QualifiedName& a, const QualifiedName& b) {
    return a.keyspace == b.keyspace && a.name == b.name;
  }
};

struct TypeName {
  std::string base;  // "text", "bigint", "map", ...
  std::vector<TypeName> parameters;
  std::string ToString() const;  // "map<text, bigint>"
  friend bool operator==(const TypeName&, const TypeName&) = default;
};

struct Term {
  enum class Kind : unsigned char {
    kNull,
    kInteger,
    kFloat,
    kString,
    kBoolean,
    kBlob,
    kUuid,
    kBindMarker,
    kList,
    kSet,
    kMap,
    kUdt,  // {field: value, ...}: `fields` names each of `elements`.
  };
  Kind kind = Kind::kNull;
  std::string text;  // The literal's text.
  std::vector<std::string> fields;
  int bind_index = -1;         // For kBindMarker: its position among the statement's markers.
  std::vector<Term> elements;  // Collections; a map's keys and values alternate.
  std::size_t offset = 0;      // Where it starts in the statement's text.
};

// `column op value`, in WHERE and IF clauses; in SELECT's WHERE also
// `column IN (v, ...)`, op "IN" with the values as a kList term.
struct Relation {
  std::string column;
  std::size_t offset = 0;
  std::string op;  // = < > <= >= != IN
  Term value;
};

// `column = value`, or a counter/collection update: `c = c + v`,
// `c = c - v`, or `l = v + l` (prepend to a list).
struct Assignment {
  enum class Op : unsigned char { kSet, kAdd, kSubtract, kPrepend };
  std::string column;
  std::size_t offset = 0;
  Op op = Op::kSet;
  Term value;
};

struct ColumnDefinition {
  std::string name;
  std::size_t offset = 0;
  TypeName type;
  bool is_static = false;
};

struct CreateKeyspace {
  bool if_not_exists = false;
  std::string name;
  Options options;  // WITH name = value, as text.
};
struct DropKeyspace {
  bool if_exists = false;
  std::string name;
};
struct Use {
  std::string keyspace;
};
struct CreateTable {
  bool if_not_exists = false;
  QualifiedName table;
  std::vector<ColumnDefinition> columns;
  std::vector<std::string> partition_key;
  // Whether the partition key was marked as one (`c int PRIMARY KEY`, or
  // `PRIMARY KEY ((a, b), c)`) rather than taken as the key's first column.
  bool partition_key_marked = false;
  std::vector<std::string> clustering_key;
  std::vector<std::pair<std::string, bool>> clustering_order;  // Column, descending.
  Options options;                                             // WITH name = value, as text.
};
// ALTER TABLE t ADD c type | DROP c | RENAME c TO d | WITH name = value
// [AND ...]: one operation, and in `then` the statement's further ones, each
// on the same table, applied in order as one change. YCQL writes several as
// `ADD a int, b text`, `DROP a, b`, `RENAME a TO b, c TO d` or one action
// after another (parser_gram.y, alter_table_ops); Cassandra as `ADD (a int,
// b text)`, `DROP (a, b)`, `RENAME a TO b AND c TO d`, with `ADD IF NOT
// EXISTS` and `DROP`/`RENAME IF EXISTS` (Parser.g, alterTableStatement).
struct AlterTable {
  enum class Action : unsigned char { kAdd, kDrop, kRename, kWith };
  QualifiedName table;
  Action action = Action::kAdd;
  // For kAdd; for kDrop and kRename only the name; unused for kWith.
  ColumnDefinition column;
  std::string new_name;  // For kRename.
  std::size_t new_name_offset = 0;
  Options options;         // For kWith, as text.
  bool if_exists = false;  // ADD IF NOT EXISTS, DROP or RENAME IF EXISTS.
  std::vector<AlterTable> then;
};

// An option's value as written ("3600", "'a comment'", "{'class': ...}"),
// with a string's quotes taken off: what system_schema.tables shows.
inline std::string UnquotedOptionValue(std::string_view written) {
  if (written.size() < 2 || written.front() != '\'' || written.back() != '\'') {
    return std::string(written);
  }
  std::string value;
  for (std::size_t i = 1; i + 1 < written.size(); ++i) {
    value += written[i];
    if (written[i] == '\'' && written[i + 1] == '\'') ++i;  // '' is one quote.
  }
  return value;
}

// The operations of an ALTER TABLE statement, in order.
inline std::vector<const AlterTable*> Operations(const AlterTable& statement) {
  std::vector<const AlterTable*> operations = {&statement};
  for (const AlterTable& next : statement.then) operations.push_back(&next);
  return operations;
}
struct DropTable {
  bool if_exists = false;
  QualifiedName table;
};
// What an index is on: a column, or for a collection its keys, values or
// entries, or (frozen) the whole value: Cassandra's indexIdent (Parser.g).
struct IndexTarget {
  enum class Kind : unsigned char { kColumn, kKeys, kValues, kEntries, kFull };
  Kind kind = Kind::kColumn;
  std::string column;
  std::size_t offset = 0;
  friend bool operator==(const IndexTarget&, const IndexTarget&) = default;
};
// The functions a target applies to a collection, as CQL spells them.
inline constexpr std::pair<IndexTarget::Kind, std::string_view> kIndexFunctions[] = {
    {IndexTarget::Kind::kKeys, "keys"},
    {IndexTarget::Kind::kValues, "values"},
    {IndexTarget::Kind::kEntries, "entries"},
    {IndexTarget::Kind::kFull, "full"}};
// "keys" for kKeys, ...; empty for a plain column.
inline std::string_view IndexFunctionName(IndexTarget::Kind kind) {
  for (const auto& [function, name] : kIndexFunctions) {
    if (function == kind) return name;
  }
  return {};
}
// CREATE [UNIQUE] [CUSTOM] INDEX [IF NOT EXISTS] [name] ON t (target, ...)
// [INCLUDE | COVERING (column, ...)] [WHERE relation AND ...]
// [USING 'class'] [WITH name = value AND ... | CLUSTERING ORDER BY (...)]:
// the union of YCQL's grammar (parser_gram.y, IndexStmt) and Cassandra's
// (Parser.g, createIndexStatement); the engine refuses what its dialect lacks.
struct CreateIndex {
  bool unique = false;
  bool custom = false;
  bool if_not_exists = false;
  std::string name;  // Empty: the default name, table_column_idx.
  std::size_t name_offset = 0;
  QualifiedName table;
  std::vector<IndexTarget> targets;
  std::size_t hash_targets = 0;  // YCQL's ((a, b), c): how many targets form the hash key.
  std::vector<std::string> included;
  std::vector<std::size_t> included_offsets;
  std::vector<Relation> where;  // A partial index's predicate.
  std::string where_text;       // As written, for DESCRIBE.
  std::string using_class;      // USING '...'.
  std::size_t using_offset = 0;
  Options options;  // WITH name = value, as text.
  std::vector<std::pair<std::string, bool>> clustering_order;
};
// DROP INDEX [IF EXISTS] [keyspace.]name.
struct DropIndex {
  bool if_exists = false;
  QualifiedName index;
};
// CREATE TYPE [IF NOT EXISTS] [keyspace.]name (field type, ...).
struct CreateType {
  bool if_not_exists = false;
  QualifiedName type;
  std::vector<ColumnDefinition> fields;
};
// Cassandra's ALTER TYPE [IF EXISTS] name ADD [IF NOT EXISTS] field type |
// RENAME [IF EXISTS] f TO g [AND f2 TO g2 ...] (Parser.g, alterTypeStatement;
// YCQL has no ALTER TYPE).
struct AlterType {
  enum class Action : unsigned char { kAdd, kRename };
  QualifiedName type;
  bool if_exists = false;
  Action action = Action::kAdd;
  ColumnDefinition field;  // For kAdd.
  bool field_if_not_exists = false;
  bool rename_if_exists = false;
  struct Rename {
    std::string from;
    std::string to;
    std::size_t offset = 0;
  };
  std::vector<Rename> renames;  // For kRename.
  std::size_t action_offset = 0;
};
// DROP TYPE [IF EXISTS] [keyspace.]name.
struct DropType {
  bool if_exists = false;
  QualifiedName type;
};
// CREATE MATERIALIZED VIEW [IF NOT EXISTS] [ks.]name AS SELECT ... FROM
// [ks.]base WHERE ... PRIMARY KEY (...) [WITH ...], read as far as its names:
// neither store makes one (YCQL has no views; Cassandra 4 has them off by
// default, materialized_views_enabled: false).
struct CreateView {
  bool if_not_exists = false;
  QualifiedName view;
  QualifiedName base;
  std::size_t primary_offset = 0;  // Where PRIMARY KEY starts.
};
// DROP MATERIALIZED VIEW [IF EXISTS] [ks.]name.
struct DropView {
  bool if_exists = false;
  QualifiedName view;
  std::size_t materialized_offset = 0;
};
struct Truncate {
  QualifiedName table;
};
struct Insert {
  QualifiedName table;
  std::vector<std::string> columns;
  std::vector<std::size_t> column_offsets;
  std::vector<Term> values;
  bool if_not_exists = false;
  std::optional<Term> ttl;
};
struct Update {
  QualifiedName table;
  std::optional<Term> ttl;
  std::vector<Assignment> assignments;
  std::vector<Relation> where;
  std::vector<Relation> conditions;  // IF ...
  bool if_exists = false;
};
struct Delete {
  QualifiedName table;
  std::vector<std::string> columns;  // Empty: the whole row.
  std::vector<std::size_t> column_offsets;
  std::vector<Relation> where;
  std::vector<Relation> conditions;
  bool if_exists = false;
};
// ORDER BY column [ASC|DESC].
struct OrderingTerm {
  std::string column;
  std::size_t offset = 0;
  bool descending = false;
  friend bool operator==(const OrderingTerm&, const OrderingTerm&) = default;
};

struct Select {
  QualifiedName table;
  std::vector<std::string> columns;  // Empty with `star` or `count`.
  std::vector<std::size_t> column_offsets;
  bool star = false;
  bool count = false;  // SELECT count(*)
  std::vector<Relation> where;
  std::vector<OrderingTerm> order_by;
  std::optional<Term> limit;
  bool allow_filtering = false;
};
using Modification = std::variant<Insert, Update, Delete>;
struct Batch {
  std::vector<Modification> statements;
};
struct Describe {
  enum class What : unsigned char {
    kKeyspaces,
    kCluster,  // The cluster's name and partitioner, as ycqlsh prints them.
    kTables,
    kSchema,    // Every user keyspace, with its tables.
    kKeyspace,  // `keyspace`, or the session's when empty.
    kTable,
    kName,  // A bare name: the keyspace if there is one, else the table.
  };
  What what = What::kKeyspaces;
  std::string keyspace;  // For kKeyspace.
  QualifiedName table;   // For kTable and kName.
};

using Statement =
    std::variant<CreateKeyspace, DropKeyspace, Use, CreateTable, AlterTable, DropTable, CreateIndex,
                 DropIndex, CreateType, AlterType, DropType, CreateView, DropView, Truncate, Insert,
                 Update, Delete, Select, Batch, Describe>;

struct ParsedStatement {
  Statement statement;
  Position start;
  std::string text;  // The statement's own text, without the ';'.
  int bind_markers = 0;
  // The first thing YCQL's grammar refuses and Cassandra's takes (a name
  // YCQL reserves, a trailing comma): the syntax error YCQL gives, its
  // position counted in the whole parsed text.
  struct DialectError {
    std::size_t offset = 0;
    std::string message;
  };
  std::optional<DialectError> ycql_error;
  // The same for what Cassandra's grammar refuses and YCQL's takes.
  std::optional<DialectError> cassandra_error;
};

}  // namespace faultline::models::cql
