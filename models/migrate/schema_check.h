// The schema a migration folder defines, worked out by reading its CQL (the
// store's own parser), and its difference from what a keyspace really has
// (system_schema.columns, .indexes, .types): the start-up check the safe
// runner makes before it lets a service serve.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/cql/client.h"
#include "models/cql/store_snapshot.h"
#include "models/migrate/schema_model.h"
#include "models/migrate/source.h"
#include "sim/sim.h"

namespace faultline::models::migrate {

// The keyspace's tables and columns, indexes and types as the store reports
// them (three queries), without the runners' own bookkeeping tables.
sim::Awaitable<sim::Result<SchemaModel>> LiveSchema(cql::CqlSession& session,
                                                    const std::string& keyspace);

// The same, read from a snapshot of the store's database (store_snapshot.h):
// no request, no process, no virtual time. A keyspace the snapshot lacks
// reads as an empty schema.
// (From the catalog the snapshot has read, SchemaFromCatalog, where it can
// say what the queries would.)
sim::Result<SchemaModel> SnapshotSchema(cql::StoreSnapshot& snapshot, const std::string& keyspace);
// The same by kQueries on the snapshot, as LiveSchema asks them (for
// comparing the two ways).
sim::Result<SchemaModel> SnapshotSchemaByQueries(cql::StoreSnapshot& snapshot,
                                                 const std::string& keyspace);
// The rows of system_schema's views, from the catalog they are views of:
// nullopt when the view's SQL would read a stored option another way (a
// default_time_to_live that is not plain digits).
std::optional<SchemaModel> SchemaFromCatalog(const cql::Catalog& catalog,
                                             const std::string& keyspace);

}  // namespace faultline::models::migrate
