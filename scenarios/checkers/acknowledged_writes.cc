// acknowledged-writes: every object a PUT was acknowledged for (and not
// deleted since) is readable as a GET through the proxy would read it: an
// index row names a serving node whose data directory holds those bytes (or
// those of a PUT whose outcome is unknown, or, after a DELETE whose outcome
// is unknown, no object: World::Indeterminate).
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

// What a GET through the proxy would answer for `path`, observed: the
// proxy's index lookup (of node_id, or of the row alone for the old image),
// then the bytes on the node it names (or on any serving node). Empty when
// it would return the acknowledged bytes; else what stands in the way.
struct Unreadable {
  std::string why;      // Empty: readable.
  bool absent = false;  // There is no object to read (not: other bytes, or no one to ask).
};

Unreadable WhyUnreadable(World& world, const Index& index, const std::string& path,
                         const World::Acknowledged& acknowledged,
                         const World::Indeterminate* indeterminate) {
  const std::optional<s3::ObjectPath> object = s3::ParseObjectPath(path);
  FL_ASSERT_MSG(object.has_value(), "an acknowledged path is not an object path: {}", path);
  bool reads_node_id = true;
  for (const ServedService& service : world.served) {
    if (service.image != s3::kProxyImage) continue;
    if (!IsServing(world, service)) return {service.name + " is not serving"};
    const auto image =
        world.images.find({service.image, world.runtime.running_version(service.name)});
    if (image != world.images.end()) reads_node_id = image->second.reads_node_id;
  }
  if (!index.exists) return {"the index table does not exist"};
  if (reads_node_id && !index.has_node_id) return {"Undefined Column. Column doesn't exist"};
  const auto row = index.rows.find({object->bucket, object->key});
  if (row == index.rows.end()) return {"no index row", true};
  const auto matches = [&](const ServedService& node) -> Unreadable {
    const fakes::SimFile* file = StoredBytes(world, node.name, *object);
    if (file == nullptr) return {"no bytes on " + node.name, true};
    // What a GET would answer: the file as the version the node runs reads it.
    const auto facts = world.images.find({node.image, world.runtime.running_version(node.name)});
    const std::string bytes =
        facts == world.images.end()
            ? file->contents()
            : s3::ServedObjectBytes(facts->second.node_code, file->contents());
    const bool ours =
        acknowledged.Matches(bytes) || (indeterminate != nullptr && indeterminate->Matches(bytes));
    return {ours ? "" : "other bytes on " + node.name};
  };
  if (!reads_node_id) {
    // The old proxy asks every backend: any serving node with the bytes.
    for (const ServedService& node : world.served) {
      if (node.image != s3::kNodeImage || !IsServing(world, node)) continue;
      if (StoredBytes(world, node.name, *object) != nullptr) return matches(node);
    }
    // Absent only when some node serves and none has it (a 404); with no
    // node serving the proxy answers 503, which is no deletion.
    const bool any_serving = std::any_of(
        world.served.begin(), world.served.end(),
        [&](const auto& n) { return n.image == s3::kNodeImage && IsServing(world, n); });
    return {"no serving node holds the bytes", any_serving};
  }
  if (!row->second) return {"the index row has no node_id"};
  const std::optional<ServedService> node = NodeWithId(world, *row->second);
  if (!node) return {fmt::format("node_id '{}' is no node", *row->second)};
  if (!IsServing(world, *node)) return {node->name + " is not serving"};
  return matches(*node);
}

}  // namespace

CheckResult AcknowledgedWrites(const EndOfRun& end) {
  World& world = end.world;
  const sim::Result<Index>& index = end.index;
  CheckResult check{"acknowledged-writes", true, ""};
  if (world.acknowledged.empty()) return check;
  if (!index.ok()) return {"acknowledged-writes", false, index.status().message()};
  for (const auto& [path, acknowledged] : world.acknowledged) {
    const auto maybe = world.indeterminate.find(path);
    const World::Indeterminate* indeterminate =
        maybe == world.indeterminate.end() ? nullptr : &maybe->second;
    const auto [why, absent] = WhyUnreadable(world, *index, path, acknowledged, indeterminate);
    // After a DELETE of unknown outcome, the object may be gone: only bytes
    // that are there and are none of the PUTs' would be wrong.
    const bool may_be_gone = indeterminate != nullptr && indeterminate->maybe_deleted;
    if (!why.empty() && !(absent && may_be_gone)) {
      check.held = false;
      check.actual += fmt::format("{}: {}; ", path, OneLine(why, 60));
    }
  }
  return check;
}

}  // namespace faultline::scenarios::checkers
