#include "scenarios/checkers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>

#include "models/cql/server.h"
#include "models/cql/store_snapshot.h"
#include "models/migrate/schema_check.h"
#include "models/s3/kuri_node.h"
#include "models/s3/s3.h"
#include "scenarios/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

namespace cql = models::cql;
namespace s3 = models::s3;

// The store's database as its volume holds it now; NotFound when there is
// no store or it never wrote a database.
sim::Result<std::unique_ptr<cql::StoreSnapshot>> OpenStore(World& world) {
  for (const ServedService& service : world.served) {
    if (service.image != cql::kStoreImage) continue;
    const fakes::Volume* volume = MountedVolume(world, service.name, cql::kStoreDataDirectory);
    if (volume == nullptr) break;
    const std::int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                    world.simulation.Now().time_since_epoch())
                                    .count();
    return cql::StoreSnapshot::Open(*volume, fakes::SqliteVfs::kEpochUnixMs + now_ms);
  }
  return sim::Status::NotFound("the compose file has no store with a data volume");
}

// A missing keyspace or table reads as no rows: nothing was indexed.
bool IsAbsent(const cql::CqlError& error) {
  return error.code == cql::ErrorCode::kObjectNotFound || error.code == cql::ErrorCode::kNoKeyspace;
}

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

// What a GET through the proxy would answer for `path`, observed: the
// proxy's index lookup, then the bytes on the node it names. Empty when it
// would return `body`; else what stands in the way.
std::string WhyUnreadable(World& world, cql::StoreSnapshot& store, const std::string& path,
                          const std::string& body) {
  const std::optional<s3::ObjectPath> object = s3::ParseObjectPath(path);
  FL_ASSERT_MSG(object.has_value(), "an acknowledged path is not an object path: {}", path);
  for (const ServedService& service : world.served) {
    if (service.image == s3::kProxyImage && !IsServing(world, service.name)) {
      return service.name + " is not serving";
    }
  }
  std::vector<cql::Value> key;
  key.push_back(cql::Value::Text(object->bucket));
  key.push_back(cql::Value::Text(object->key));
  cql::Outcome lookup =
      store.Read(fmt::format("SELECT node_id FROM {}.{} WHERE bucket = ? AND key = ?",
                             s3::kIndexKeyspace, s3::kObjectsTable),
                 std::move(key));
  if (const auto* error = std::get_if<cql::CqlError>(&lookup)) return error->message;
  const std::vector<cql::Row>& rows = std::get<cql::QueryResult>(lookup).rows;
  if (rows.empty()) return "no index row";
  const cql::Value& node_id = rows.front().at(0);
  if (node_id.kind != cql::Value::Kind::kText) return "the index row has no node_id";
  const std::optional<ServedService> node = NodeWithId(world, node_id.bytes);
  if (!node) return fmt::format("node_id '{}' is no node", node_id.bytes);
  if (!IsServing(world, node->name)) return node->name + " is not serving";
  const fakes::SimFile* bytes = StoredBytes(world, node->name, *object);
  if (bytes == nullptr) return "no bytes on " + node->name;
  if (bytes->contents() != body) return "other bytes on " + node->name;
  return "";
}

CheckResult AcknowledgedWrites(World& world) {
  CheckResult check{"acknowledged-writes", true, ""};
  if (world.acknowledged.empty()) return check;
  sim::Result<std::unique_ptr<cql::StoreSnapshot>> store = OpenStore(world);
  if (!store.ok()) return {"acknowledged-writes", false, store.status().message()};
  for (const auto& [path, body] : world.acknowledged) {
    const std::string why = WhyUnreadable(world, **store, path, body);
    if (!why.empty()) {
      check.held = false;
      check.actual += fmt::format("{}: {}; ", path, OneLine(why, 60));
    }
  }
  return check;
}

CheckResult IndexPointsAtBytes(World& world) {
  CheckResult check{"index-points-at-bytes", true, ""};
  sim::Result<std::unique_ptr<cql::StoreSnapshot>> store = OpenStore(world);
  if (store.status().code() == sim::StatusCode::kNotFound) return check;  // Nothing indexed.
  if (!store.ok()) return {"index-points-at-bytes", false, store.status().message()};
  cql::Outcome rows = (*store)->Read(
      fmt::format("SELECT bucket, key, node_id FROM {}.{}", s3::kIndexKeyspace, s3::kObjectsTable));
  if (const auto* error = std::get_if<cql::CqlError>(&rows)) {
    if (IsAbsent(*error)) return check;
    return {"index-points-at-bytes", false, "cannot read the index: " + error->message};
  }
  for (const cql::Row& row : std::get<cql::QueryResult>(rows).rows) {
    FL_ASSERT(row.size() == 3);
    const s3::ObjectPath object{row.at(0).bytes, row.at(1).bytes};
    const std::optional<ServedService> node =
        row.at(2).is_null() ? std::nullopt : NodeWithId(world, row.at(2).bytes);
    if (!node || StoredBytes(world, node->name, object) == nullptr) {
      check.held = false;
      check.actual += fmt::format("{}/{} on '{}': no bytes; ", object.bucket, object.key,
                                  row.at(2).is_null() ? "null" : row.at(2).bytes);
    }
  }
  return check;
}

// Which serving nodes and proxies have another schema than their image's
// migrations define, now ("" if none).
std::string SchemaViolations(World& world) {
  std::unique_ptr<cql::StoreSnapshot> store;
  std::string violations;
  for (const ServedService& service : world.served) {
    if (service.keyspace.empty() || !IsServing(world, service.name)) continue;
    const auto migrations =
        world.image_migrations.find({service.image, world.runtime.running_version(service.name)});
    if (migrations == world.image_migrations.end()) continue;  // An image without migrations.
    if (store == nullptr) {
      sim::Result<std::unique_ptr<cql::StoreSnapshot>> opened = OpenStore(world);
      if (!opened.ok())
        return fmt::format("{} serves, but {}", service.name, opened.status().message());
      store = std::move(opened).value();
    }
    sim::Result<models::migrate::SchemaModel> live =
        models::migrate::SnapshotSchema(*store, service.keyspace);
    std::string diff;
    if (!live.ok()) {
      diff = live.status().ToString();
    } else {
      for (const std::string& line : models::migrate::SchemaDiff(
               models::migrate::ExpectedSchema(migrations->second, service.keyspace), *live,
               models::migrate::ExtraTables::kAllowed)) {
        diff += line + "; ";
      }
    }
    if (!diff.empty()) {
      violations += fmt::format("{} serves {} with {}", service.name, service.keyspace, diff);
    }
  }
  return violations;
}

// Which services serve, in which incarnation and image version: the schema
// check reads the store again only when this changes (or a schema statement ran).
// Costs O(services), with no allocation once the versions are copied.
void ServingFingerprint(const World& world,
                        std::vector<std::tuple<bool, std::uint32_t, std::string>>& fingerprint) {
  fingerprint.resize(world.served.size());
  for (std::size_t i = 0; i < world.served.size(); ++i) {
    const ServedService& service = world.served[i];
    const bool serving = !service.keyspace.empty() && IsServing(world, service);
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
    if (service.keyspace.empty()) continue;  // The store serves its clients' needs.
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
  if (schema_statement_seen_ || event.name != "cql.statement") return;
  const sim::TraceValue* statement = event.Find("statement");
  if (statement != nullptr && IsSchemaStatement(statement->ToString())) {
    schema_statement_seen_ = true;
  }
}

void Checkers::After(World& world) {
  if (!schema_violation_.empty()) return;
  std::vector<std::tuple<bool, std::uint32_t, std::string>> before = serving_fingerprint_;
  ServingFingerprint(world, serving_fingerprint_);
  if (!schema_statement_seen_ && before == serving_fingerprint_) return;
  schema_statement_seen_ = false;
  const std::string violation = SchemaViolations(world);
  if (!violation.empty()) {
    schema_violation_ =
        fmt::format("at {}: {}", sim::FormatTime(world.simulation.Now()), violation);
  }
}

std::vector<CheckResult> Checkers::Verdicts(World& world) {
  After(world);
  return {AcknowledgedWrites(world), IndexPointsAtBytes(world),
          CheckResult{"schema-matches-image", schema_violation_.empty(), schema_violation_},
          Converges(world)};
}

}  // namespace faultline::scenarios
