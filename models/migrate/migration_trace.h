// Trace events around one migration file (internal to models/migrate/; not
// installed), so a timeline and a Perfetto
// trace show each migration as a step: "migrate.begin" (runner, keyspace,
// version, file) when its file starts, "migrate.end" (keyspace, version,
// outcome) when it is done or has failed. A crash in between leaves the
// begin alone, which is the story.
#pragma once

#include <cstdint>
#include <string_view>

#include "models/cql/client.h"
#include "sim/status.h"

namespace faultline::models::migrate {

void TraceMigrationBegin(cql::CqlSession& session, std::string_view runner,
                         std::string_view keyspace, std::uint64_t version, std::string_view file);
void TraceMigrationEnd(cql::CqlSession& session, std::string_view keyspace, std::uint64_t version,
                       const sim::Status& outcome);

}  // namespace faultline::models::migrate
