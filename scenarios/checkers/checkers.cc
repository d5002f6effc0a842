#include "scenarios/checkers/checkers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "models/cql/server.h"
#include "models/cql/store_snapshot.h"
#include "models/migrate/schema_check.h"
#include "models/s3/kuri_node.h"
#include "models/s3/s3.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

namespace cql = models::cql;
namespace s3 = models::s3;

// The node service whose node_id is `node_id`, if any.
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

// The object's bytes in the node's data directory, or nullptr.
const fakes::SimFile* StoredBytes(World& world, const std::string& node,
                                  const s3::ObjectPath& object) {
  const fakes::Volume* data = MountedVolume(world, node, s3::kNodeDataDirectory);
  return data == nullptr ? nullptr : data->Find(s3::NodeObjectPath(object));
}

// filecoingw_s3.s3objects as the store holds it now, read once for both
// end-of-run checkers (one scan, not a query per object).
struct Index {
  bool exists = false;       // The table does.
  bool has_node_id = false;  // The new era's column.
  // (bucket, key) -> node_id (null: empty).
  std::map<std::pair<std::string, std::string>, std::optional<std::string>> rows;
};

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

CheckResult AcknowledgedWrites(World& world, const sim::Result<Index>& index) {
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

CheckResult IndexPointsAtBytes(World& world, const sim::Result<Index>& index) {
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

// The index, or an empty one when the store never wrote a database.
sim::Result<Index> ObservedIndex(World& world) {
  sim::Result<std::unique_ptr<cql::StoreSnapshot>> store = ObserveStore(world);
  if (store.status().code() == sim::StatusCode::kNotFound) return Index{};  // Nothing indexed.
  if (!store.ok()) return store.status();
  return ReadIndex(**store);
}

// What the image `service` runs (or will run, without a container) is
// known to do, or nullptr for an image without migrations.
const World::ImageFacts* ImageFactsOf(const World& world, const ServedService& service) {
  std::string version;
  if (world.runtime.HasContainer(service.name)) {
    version = world.runtime.running_version(service.name);
  }
  if (version.empty()) {
    for (const fakes::ServiceSpec& spec : world.spec.services) {
      if (spec.name == service.name) version = spec.version;
    }
  }
  const auto image = world.images.find({service.image, version});
  return image == world.images.end() ? nullptr : &image->second;
}

// Whether more than one served service uses `keyspace`: the nodes write
// their index rows into the proxy's filecoingw_s3, and nodes may share one
// keyspace. In such a keyspace a table one image's migrations do not define
// may well be another's, so only an exclusive keyspace must hold nothing else.
bool SharedKeyspace(const World& world, const std::string& keyspace) {
  const auto uses = [&keyspace](const ServedService& service) {
    return service.keyspace == keyspace ||
           (service.image == s3::kNodeImage && keyspace == s3::kIndexKeyspace);
  };
  return std::count_if(world.served.begin(), world.served.end(), uses) > 1;
}

bool StoreServes(const World& world) {
  return std::all_of(world.served.begin(), world.served.end(), [&](const ServedService& s) {
    return s.image != cql::kStoreImage || IsServing(world, s);
  });
}

// Which serving nodes and proxies have another schema than their image's
// migrations define, now ("" if none). While the store does not serve it is
// not read (its file may hold a transaction it will roll back).
std::string SchemaViolations(World& world) {
  if (!StoreServes(world)) return "";
  std::unique_ptr<cql::StoreSnapshot> store;
  std::string violations;
  for (const ServedService& service : world.served) {
    if (service.keyspace.empty() || !IsServing(world, service)) continue;
    FL_ASSERT(service.image != cql::kStoreImage);  // Only the store has no keyspace.
    const World::ImageFacts* image = ImageFactsOf(world, service);
    if (image == nullptr) continue;  // An image without migrations.
    if (store == nullptr) {
      sim::Result<std::unique_ptr<cql::StoreSnapshot>> opened = ObserveStore(world);
      if (!opened.ok()) {
        return fmt::format("{} serves, but {}", service.name, opened.status().message());
      }
      store = std::move(opened).value();
    }
    sim::Result<models::migrate::SchemaModel> live =
        models::migrate::SnapshotSchema(*store, service.keyspace);
    const models::migrate::SchemaModel expected =
        models::migrate::ExpectedSchema(image->migrations, service.keyspace);
    // Its runner's version table, when the image names its own, is
    // bookkeeping too (SnapshotSchema leaves out the default names).
    if (live.ok()) live->erase(image->version_table);
    std::string diff;
    if (!live.ok()) {
      diff = live.status().ToString();
    } else {
      const models::migrate::ExtraTables extra = SharedKeyspace(world, service.keyspace)
                                                     ? models::migrate::ExtraTables::kAllowed
                                                     : models::migrate::ExtraTables::kDifferent;
      for (const std::string& line : models::migrate::SchemaDiff(expected, *live, extra)) {
        diff += line + "; ";
      }
    }
    if (!diff.empty()) {
      violations += fmt::format("{} serves {} with {}", service.name, service.keyspace, diff);
    }
  }
  return violations;
}

// Which services serve (the store included), in which incarnation and image
// version: the schema check reads the store again only when this changes,
// or when a schema statement ran or a volume was wiped or removed. Costs
// O(services), with no allocation once the versions are copied.
void ServingFingerprint(const World& world,
                        std::vector<std::tuple<bool, std::uint32_t, std::string>>& fingerprint) {
  fingerprint.resize(world.served.size());
  FL_ASSERT(fingerprint.size() == world.served.size());
  for (std::size_t i = 0; i < world.served.size(); ++i) {
    const ServedService& service = world.served[i];
    const bool serving = IsServing(world, service);
    auto& [was_serving, incarnation, version] = fingerprint[i];
    was_serving = serving;
    incarnation = serving ? world.runtime.incarnation(service.name) : 0;
    if (!serving) {
      version.clear();
    } else if (version != world.runtime.running_version(service.name)) {
      version = world.runtime.running_version(service.name);
    }
  }
}

CheckResult Converges(World& world) {
  CheckResult check{"converges", true, ""};
  for (const ServedService& service : world.served) {
    if (!IsServing(world, service.name)) {
      check.held = false;
      check.actual += fmt::format("{} is not serving; ", service.name);
    }
  }
  return check;
}

// A statement that may change a schema: CREATE, ALTER or DROP.
bool IsSchemaStatement(const std::string& text) {
  std::size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  std::string verb;
  for (std::size_t i = start; i < text.size() && verb.size() < 6; ++i) {
    verb += static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
  }
  return verb.starts_with("CREATE") || verb.starts_with("ALTER") || verb.starts_with("DROP");
}

}  // namespace

void Checkers::Write(const sim::TraceEvent& event) {
  if (schema_statement_seen_) return;
  if (event.name == "volume.wipe" || event.name == "volume.remove") {
    schema_statement_seen_ = true;  // The store's data may have gone with it.
    return;
  }
  if (event.name != "cql.statement") return;
  const sim::TraceValue* statement = event.Find("statement");
  if (statement != nullptr && IsSchemaStatement(statement->ToString())) {
    schema_statement_seen_ = true;
  }
}

void Checkers::After(World& world) {
  if (!schema_violation_.empty()) return;
  // Two buffers, swapped: no allocation per step once the versions are in.
  ServingFingerprint(world, next_fingerprint_);
  const bool changed = next_fingerprint_ != serving_fingerprint_;
  std::swap(next_fingerprint_, serving_fingerprint_);
  if (!schema_statement_seen_ && !changed) return;
  schema_statement_seen_ = false;
  const std::string violation = SchemaViolations(world);
  if (!violation.empty()) {
    schema_violation_ =
        fmt::format("at {}: {}", sim::FormatTime(world.simulation.Now()), violation);
  }
}

std::vector<CheckResult> Checkers::Verdicts(World& world) {
  After(world);
  const sim::Result<Index> index = ObservedIndex(world);
  FL_ASSERT(!index.ok() || index->exists || index->rows.empty());
  std::vector<CheckResult> verdicts = {
      AcknowledgedWrites(world, index), IndexPointsAtBytes(world, index),
      CheckResult{"schema-matches-image", schema_violation_.empty(), schema_violation_},
      Converges(world)};
  // One verdict per checker, in kCheckerNames's order (the runner and the
  // file reader name them from there).
  FL_ASSERT(verdicts.size() == std::size(kCheckerNames));
  for (std::size_t i = 0; i < verdicts.size(); ++i) FL_ASSERT(verdicts[i].what == kCheckerNames[i]);
  return verdicts;
}

}  // namespace faultline::scenarios
