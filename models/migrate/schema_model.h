// The schema a migration folder defines, worked out by reading its CQL with
// the store's own parser, and the difference of two such schemas: pure
// functions, with nothing of a session or a store (schema_check.h reads a
// live keyspace into the same model).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "models/cql/ast.h"
#include "models/migrate/source.h"

namespace faultline::models::migrate {

// table -> column -> type as DESCRIBE names it ("text", "map<text, bigint>"),
// with a key column's part of the key ("text, partition key", "int, clustering").
using SchemaModel = std::map<std::string, std::map<std::string, std::string>>;

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
// migrations".
// With ExtraTables::kAllowed, a live table the migrations do not define is
// no difference: in a keyspace that several images share (filecoingw_s3
// holds the nodes' tables beside the proxy's) another image may own it.
// With ExtraColumns::kAllowed, a live column the migrations do not define
// is none either: a newer image's additions, on a rollback.
enum class ExtraTables : unsigned char { kDifferent, kAllowed };
enum class ExtraColumns : unsigned char { kDifferent, kAllowed };
std::vector<std::string> SchemaDiff(const SchemaModel& expected, const SchemaModel& live,
                                    ExtraTables extra_tables = ExtraTables::kDifferent,
                                    ExtraColumns extra_columns = ExtraColumns::kDifferent);

}  // namespace faultline::models::migrate
