// The schema a migration folder defines, worked out by reading its CQL with
// the store's own parser, and the difference of two such schemas: pure
// functions, with nothing of a session or a store (schema_check.h reads a
// live keyspace into the same model).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/cql/ast.h"
#include "models/migrate/source.h"

namespace faultline::models::migrate {

// A keyspace's schema as both a migration folder and a live store give it:
// as a map, table -> column -> type as DESCRIBE names it ("text",
// "map<text, bigint>"), with a key column's part of the key ("text,
// partition key", "int, clustering"); each table's options that
// system_schema.tables shows (kComparedOptions); and the keyspace's
// secondary indexes and user-defined types, each by name as a shape
// (IndexShape, TypeShape).
// It is the map it extends (a value type, never deleted through the base),
// so that the code that reads tables reads it as before.
// Indexes compare by what they cover, not by name: the two stores name an
// unnamed index differently when its default name is taken, and one makes
// a second index on the same columns where the other says it is a
// duplicate; the names are for messages.
struct SchemaModel : std::map<std::string, std::map<std::string, std::string>> {
  using map::map;
  std::map<std::string, std::map<std::string, std::string>> options;  // table -> name -> value.
  std::map<std::string, std::string> indexes;                         // name -> IndexShape.
  std::map<std::string, std::string> types;                           // name -> TypeShape.

  std::set<std::string> IndexShapes() const;
  friend bool operator==(const SchemaModel& a, const SchemaModel& b);
};

// The table options the model compares, with the value a table that does
// not set one has: those system_schema.tables shows as columns.
struct ComparedOption {
  std::string_view name;
  std::string_view unset;
};
inline constexpr ComparedOption kComparedOptions[] = {
    {"default_time_to_live", "0"}, {"gc_grace_seconds", "864000"}, {"comment", ""}};

// What an index covers, comparable across the two readings: its table, the
// columns it is on other than the table's key columns (YCQL's target lists
// those too), and the ones it includes: "spans (service) INCLUDE (ts)".
std::string IndexShape(const std::string& table, const std::set<std::string>& on,
                       const std::set<std::string>& included,
                       const std::map<std::string, std::string>& table_columns);
// A type's fields in order: "street text, zip int".
std::string TypeShape(const std::vector<std::string>& names, const std::vector<std::string>& types);

// A column's type and, for a key column, its part of the key ("text,
// partition key"): a table whose columns match but whose key differs is not
// the table the migrations made. `kind` as system_schema.columns says it.
std::string DescribedType(std::string type, std::string_view kind);

// What running every up migration of `source`, in order, would leave in
// `keyspace` as its author meant it (statements naming another keyspace are
// left out): a CREATE TABLE IF NOT EXISTS of a table made before counts as
// its new definition, which a real store would ignore without a word.
SchemaModel ExpectedSchema(const MigrationSource& source, const std::string& keyspace);

// One statement's effect on `schema`, as ExpectedSchema counts it (a plain
// CREATE of an existing table changes nothing; CREATE ... IF NOT EXISTS
// is the author's new definition).
void ApplyStatement(const cql::Statement& statement, const std::string& keyspace,
                    SchemaModel& schema);

// One line per difference, empty when none: "table s3objects: column node_id
// (text) is missing", "table cidgroups is missing", "table old: not in the
// migrations", "index by_owner is on objects (bucket), the migrations say
// objects (owner)", "type address is missing".
// With ExtraTables::kAllowed, a live table the migrations do not define is
// no difference (nor is an index or a type): in a keyspace that several
// images share (filecoingw_s3 holds the nodes' tables beside the proxy's)
// another image may own it.
// With ExtraColumns::kAllowed, a live column the migrations do not define
// is none either: a newer image's additions, on a rollback.
enum class ExtraTables : unsigned char { kDifferent, kAllowed };
enum class ExtraColumns : unsigned char { kDifferent, kAllowed };
std::vector<std::string> SchemaDiff(const SchemaModel& expected, const SchemaModel& live,
                                    ExtraTables extra_tables = ExtraTables::kDifferent,
                                    ExtraColumns extra_columns = ExtraColumns::kDifferent);

}  // namespace faultline::models::migrate
