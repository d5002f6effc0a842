// The store's object index as the data checkers read it, and where an
// object's bytes are (checkers/end_of_run.h).
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

sim::Result<Index> ReadIndex(cql::StoreSnapshot& store) {
  Index index;
  const cql::TableInfo* table = store.catalog().FindTable(s3::kIndexKeyspace, s3::kObjectsTable);
  if (table == nullptr) return index;
  index.exists = true;
  index.has_node_id = table->Find("node_id") != nullptr;
  cql::Outcome rows = store.Read(fmt::format("SELECT bucket, key{} FROM {}.{}",
                                             index.has_node_id ? ", node_id" : "",
                                             s3::kIndexKeyspace, s3::kObjectsTable));
  if (const auto* error = std::get_if<cql::CqlError>(&rows)) {
    return sim::Status::IoError("cannot read the index: " + error->message);
  }
  for (cql::Row& row : std::get<cql::QueryResult>(rows).rows) {
    FL_ASSERT(row.size() == (index.has_node_id ? 3u : 2u));
    std::optional<std::string> node_id;
    if (index.has_node_id && row[2].kind == cql::Value::Kind::kText) node_id = row[2].bytes;
    index.rows.emplace(std::pair(std::move(row[0].bytes), std::move(row[1].bytes)),
                       std::move(node_id));
  }
  return index;
}

}  // namespace

std::optional<ServedService> NodeWithId(World& world, const std::string& node_id) {
  for (const fakes::ServiceSpec& spec : world.spec.services) {
    if (spec.image == s3::kNodeImage && s3::NodeId(spec) == node_id) {
      for (const ServedService& service : world.served) {
        if (service.name == spec.name) return service;
      }
    }
  }
  return std::nullopt;
}

const fakes::SimFile* StoredBytes(World& world, const std::string& node,
                                  const s3::ObjectPath& object) {
  const fakes::Volume* data = MountedVolume(world, node, s3::kNodeDataDirectory);
  return data == nullptr ? nullptr : data->Find(s3::NodeObjectPath(object));
}

sim::Result<Index> ObservedIndex(World& world) {
  sim::Result<cql::StoreSnapshot*> store = ObserveStore(world);
  if (store.status().code() == sim::StatusCode::kNotFound) return Index{};  // Nothing indexed.
  if (!store.ok()) return store.status();
  return ReadIndex(**store);
}

}  // namespace faultline::scenarios::checkers
