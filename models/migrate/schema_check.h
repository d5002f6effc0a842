// The schema a migration folder defines, worked out by reading its CQL (the
// store's own parser), and its difference from what a keyspace really has
// (system_schema.columns): the start-up check the safe runner makes before
// it lets a service serve.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "models/cql/ast.h"
#include "models/cql/client.h"
#include "models/cql/store_snapshot.h"
#include "models/migrate/source.h"
#include "sim/sim.h"

namespace faultline::models::migrate {

// table -> column -> type as DESCRIBE names it ("text", "map<text, bigint>"),
// with a key column's part of the key ("text, partition key", "int, clustering").
using SchemaModel = std::map<std::string, std::map<std::string, std::string>>;

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

// The keyspace's tables and columns as the store reports them, without the
// runners' own bookkeeping tables.
sim::Awaitable<sim::Result<SchemaModel>> LiveSchema(cql::CqlSession& session,
                                                    const std::string& keyspace);

// The same, read from a snapshot of the store's database (store_snapshot.h):
// no request, no process, no virtual time. A keyspace the snapshot lacks
// reads as an empty schema.
sim::Result<SchemaModel> SnapshotSchema(cql::StoreSnapshot& snapshot, const std::string& keyspace);

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
