// index-points-at-bytes: every row of filecoingw_s3.s3objects names a node
// whose data directory holds the object.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "models/cql/server.h"
#include "models/s3/kuri_node.h"
#include "models/s3/s3.h"
#include "scenarios/checkers/end_of_run.h"
#include "sim/assert.h"

namespace faultline::scenarios::checkers {

namespace cql = models::cql;
namespace s3 = models::s3;

namespace {

// An index row's object where its node_id says, or, in an index without
// node_id (the old era's), on any node.
bool IndexedBytesExist(World& world, const s3::ObjectPath& object,
                       const std::optional<std::string>& node_id, bool has_node_id) {
  if (has_node_id) {
    if (!node_id) return false;
    const std::optional<ServedService> node = NodeWithId(world, *node_id);
    return node && StoredBytes(world, node->name, object) != nullptr;
  }
  return std::any_of(world.served.begin(), world.served.end(), [&](const ServedService& node) {
    return node.image == s3::kNodeImage && StoredBytes(world, node.name, object) != nullptr;
  });
}

}  // namespace

CheckResult IndexPointsAtBytes(const EndOfRun& end) {
  World& world = end.world;
  const sim::Result<Index>& index = end.index;
  CheckResult check{"index-points-at-bytes", true, ""};
  if (!index.ok()) return {"index-points-at-bytes", false, index.status().message()};
  for (const auto& [key, node_id] : index->rows) {
    const s3::ObjectPath object{key.first, key.second};
    if (!IndexedBytesExist(world, object, node_id, index->has_node_id)) {
      check.held = false;
      check.actual += fmt::format("{}/{} on '{}': no bytes; ", object.bucket, object.key,
                                  !index->has_node_id ? "any node" : node_id.value_or("null"));
    }
  }
  return check;
}

}  // namespace faultline::scenarios::checkers
