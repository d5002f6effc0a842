// schema-matches-image: at the end of every step, every serving node and
// proxy has, in the keyspace it migrates, exactly the schema the migrations
// of the image version it runs define.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "models/cql/server.h"
#include "models/migrate/schema_check.h"
#include "models/s3/kuri_node.h"
#include "models/s3/s3.h"
#include "scenarios/checkers/end_of_run.h"
#include "sim/assert.h"

namespace faultline::scenarios::checkers {

namespace cql = models::cql;
namespace s3 = models::s3;

namespace {

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

}  // namespace

// While the store does not serve it is not read (its file may hold a
// transaction it will roll back).
std::string SchemaViolations(World& world) {
  if (!StoreServes(world)) return "";
  cql::StoreSnapshot* store = nullptr;  // The world's, opened on first need.
  std::string violations;
  for (const ServedService& service : world.served) {
    if (service.keyspace.empty() || !IsServing(world, service)) continue;
    FL_ASSERT(service.image != cql::kStoreImage);  // Only the store has no keyspace.
    const World::ImageFacts* image = ImageFactsOf(world, service);
    if (image == nullptr) continue;  // An image without migrations.
    if (store == nullptr) {
      sim::Result<cql::StoreSnapshot*> opened = ObserveStore(world);
      if (!opened.ok()) {
        return fmt::format("{} serves, but {}", service.name, opened.status().message());
      }
      store = std::move(opened).value();
    }
    sim::Result<models::migrate::SchemaModel> live =
        models::migrate::SnapshotSchema(*store, service.keyspace);
    auto [known, first] = image->expected_schemas.try_emplace(service.keyspace);
    if (first) known->second = models::migrate::ExpectedSchema(image->migrations, service.keyspace);
    const models::migrate::SchemaModel& expected = known->second;
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

CheckResult SchemaMatchesImage(const EndOfRun& end) {
  return {"schema-matches-image", end.schema_violation.empty(), end.schema_violation};
}

}  // namespace faultline::scenarios::checkers
