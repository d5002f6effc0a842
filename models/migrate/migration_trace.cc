#include "models/migrate/migration_trace.h"

#include "sim/assert.h"
#include "sim/simulation.h"

namespace faultline::models::migrate {

void TraceMigrationBegin(cql::CqlSession& session, std::string_view runner,
                         std::string_view keyspace, std::uint64_t version, std::string_view file) {
  FL_ASSERT(!runner.empty());
  session.network().simulation().Emit(
      "migrate.begin",
      {{"runner", runner}, {"keyspace", keyspace}, {"version", version}, {"file", file}});
}

void TraceMigrationEnd(cql::CqlSession& session, std::string_view keyspace, std::uint64_t version,
                       const sim::Status& outcome) {
  session.network().simulation().Emit(
      "migrate.end",
      {{"keyspace", keyspace}, {"version", version}, {"outcome", outcome.ToString()}});
}

}  // namespace faultline::models::migrate
