// What the whole-run checkers share (internal to checkers/; not installed):
// the run's end as they observe it, read once for all of them, and each
// checker's verdict, one per file. Everything here observes: no process is
// started, no message sent, the trace is untouched.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "fakes/volume.h"
#include "models/cql/store_snapshot.h"
#include "models/s3/s3.h"
#include "scenarios/core/results.h"
#include "scenarios/world/world.h"
#include "sim/status.h"

namespace faultline::scenarios::checkers {

// filecoingw_s3.s3objects as the store holds it now, read once for both
// data checkers (one scan, not a query per object).
struct Index {
  bool exists = false;       // The table does.
  bool has_node_id = false;  // The new era's column.
  // (bucket, key) -> node_id (null: empty).
  std::map<std::pair<std::string, std::string>, std::optional<std::string>> rows;
};
// The index, or an empty one when the store never wrote a database.
sim::Result<Index> ObservedIndex(World& world);

// The node service whose node_id is `node_id`, if any.
std::optional<ServedService> NodeWithId(World& world, const std::string& node_id);
// The object's bytes in the node's data directory, or nullptr.
const fakes::SimFile* StoredBytes(World& world, const std::string& node,
                                  const models::s3::ObjectPath& object);

// The run's end as every checker sees it.
struct EndOfRun {
  World& world;
  const sim::Result<Index>& index;
  // schema-matches-image's first violation, seen after some step; empty: none.
  const std::string& schema_violation;
};

// Each checker's verdict (the table in checkers.cc names them).
CheckResult AcknowledgedWrites(const EndOfRun& end);  // acknowledged_writes.cc
CheckResult IndexPointsAtBytes(const EndOfRun& end);  // index_points_at_bytes.cc
CheckResult SchemaMatchesImage(const EndOfRun& end);  // schema_matches_image.cc
CheckResult Converges(const EndOfRun& end);           // converges.cc

// schema-matches-image's look after a step (schema_matches_image.cc):
// which serving nodes and proxies have another schema than their image's
// migrations define, now ("" if none).
std::string SchemaViolations(World& world);

}  // namespace faultline::scenarios::checkers
