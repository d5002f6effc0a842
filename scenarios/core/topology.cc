#include "scenarios/core/topology.h"

#include <set>

#include "fakes/sqlite_vfs.h"
#include "models/cql/client.h"
#include "models/cql/server.h"
#include "models/migrate/runner.h"
#include "models/s3/kuri_node.h"
#include "models/s3/seed_images.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

void Apply(const ServiceOverride& change, fakes::ServiceSpec& service) {
  if (change.restart) service.restart = *change.restart;
  if (change.depends_on) service.depends_on = *change.depends_on;
  if (change.data) {
    for (fakes::MountSpec& mount : service.mounts) {
      mount.kind = *change.data;
      if (*change.data == fakes::VolumeKind::kNamedVolume) mount.source = service.name + "-data";
    }
  }
  for (const auto& [key, value] : change.env) service.environment[key] = value;
}

// The proxy's BACKENDS follow the nodes' names and ports, unless a
// [[service]] sets it.
void RouteProxyToNodes(const Scenario& scenario, fakes::ComposeSpec& spec) {
  for (const ServiceOverride& change : scenario.services) {
    if (change.name == "s3-proxy" && change.env.contains("BACKENDS")) return;
  }
  std::string backends;
  for (const fakes::ServiceSpec& service : spec.services) {
    if (service.image != models::s3::kNodeImage) continue;
    backends += fmt::format("{}{}:{}", backends.empty() ? "" : ",", service.name,
                            models::s3::NodePort(service));
  }
  for (fakes::ServiceSpec& service : spec.services) {
    if (service.image == models::s3::kProxyImage) service.environment["BACKENDS"] = backends;
  }
}

}  // namespace

fakes::ComposeSpec ComposeSpecOf(const Scenario& scenario) {
  FL_ASSERT_MSG(scenario.nodes >= 1 && scenario.nodes <= models::s3::kMaxNodes,
                "scenario {} has {} nodes", scenario.name, scenario.nodes);
  fakes::ComposeSpec spec = models::s3::ClusterComposeSpec(
      models::s3::ClusterShape{.nodes = scenario.nodes,
                               .shared_node_keyspace = scenario.shared_node_keyspace,
                               .node_version = scenario.node_version,
                               .db_init_version = scenario.db_init_version});
  for (fakes::ServiceSpec& service : spec.services) {
    if (service.image == models::s3::kProxyImage) service.version = scenario.proxy_version;
    if (service.image == models::cql::kStoreImage) service.version = scenario.store_version;
    for (const ServiceOverride& change : scenario.services) {
      if (change.name == service.name) Apply(change, service);
    }
  }
  RouteProxyToNodes(scenario, spec);
  // One store, one proxy, `nodes` nodes, each name once.
  std::set<std::string> names;
  int stores = 0;
  int proxies = 0;
  int nodes = 0;
  for (const fakes::ServiceSpec& service : spec.services) {
    FL_ASSERT_MSG(names.insert(service.name).second, "service {} twice", service.name);
    stores += service.image == models::cql::kStoreImage ? 1 : 0;
    proxies += service.image == models::s3::kProxyImage ? 1 : 0;
    nodes += service.image == models::s3::kNodeImage ? 1 : 0;
  }
  FL_ASSERT(stores == 1);
  FL_ASSERT(proxies == 1);
  FL_ASSERT(nodes == scenario.nodes);
  return spec;
}

namespace {

// The runner image `image` at `version` migrates with: the scenario's own
// image's, or the built-in one's; empty for an unknown version.
std::string RunnerOf(const Scenario& scenario, const std::string& image,
                     const std::string& version) {
  for (const ImageSpec& own : scenario.images) {
    const std::string own_image =
        own.service == "proxy" ? models::s3::kProxyImage : models::s3::kNodeImage;
    if (own_image == image && own.version == version) return own.runner;
  }
  if (image == models::s3::kNodeImage) {
    auto images = models::s3::SeedNodeImages();
    auto found = images.find(version);
    if (found != images.end()) return std::string(found->second.runner->name());
  }
  if (image == models::s3::kProxyImage) {
    auto images = models::s3::SeedProxyImages();
    auto found = images.find(version);
    if (found != images.end()) return std::string(found->second.runner->name());
  }
  return {};
}

void AddRunnerSites(const std::string& runner_name, const std::string& keyspace,
                    std::set<std::string>& sites) {
  const std::shared_ptr<models::migrate::MigrationRunner> runner =
      models::migrate::MakeRunner(runner_name);
  if (runner == nullptr) return;
  for (std::string& site : runner->FaultSites(keyspace)) sites.insert(std::move(site));
}

}  // namespace

std::vector<std::string> FaultSitesOf(const Scenario& scenario) {
  std::set<std::string> sites = {fakes::SqliteVfs::kSiteOpen,     fakes::SqliteVfs::kSiteRead,
                                 fakes::SqliteVfs::kSiteWrite,    fakes::SqliteVfs::kSiteSync,
                                 fakes::SqliteVfs::kSiteTruncate, fakes::SqliteVfs::kSiteDelete};
  for (const fakes::ServiceSpec& service : ComposeSpecOf(scenario).services) {
    std::string keyspace;
    if (service.image == models::s3::kNodeImage) keyspace = models::s3::NodeKeyspace(service);
    if (service.image == models::s3::kProxyImage) keyspace = models::s3::kIndexKeyspace;
    if (keyspace.empty()) continue;
    std::set<std::string> versions = {service.version};
    for (const Step& step : scenario.steps) {
      if (step.kind == Step::Kind::kSetImage && step.service == service.name) {
        versions.insert(step.version);
      }
    }
    for (const std::string& version : versions) {
      AddRunnerSites(RunnerOf(scenario, service.image, version), keyspace, sites);
    }
  }
  for (const Step& step : scenario.steps) {
    if (step.kind == Step::Kind::kMigrateVersion || step.kind == Step::Kind::kMigrateForce ||
        step.kind == Step::Kind::kMigrate) {
      AddRunnerSites("golang-migrate", step.keyspace, sites);
    }
  }
  FL_ASSERT(sites.contains(fakes::SqliteVfs::kSiteWrite));  // The store always has its disk.
  return {sites.begin(), sites.end()};
}

const std::vector<FaultError>& FaultErrors() {
  // The texts are gocql's (conn.go ErrTimeoutNoResponse, session.go
  // ErrNoConnections) and the kernel's, as the runners pass them on.
  static const std::vector<FaultError> kErrors = {
      {"server", sim::StatusCode::kInternal, "Server Error"},
      {"timeout", sim::StatusCode::kTimedOut, models::cql::kGocqlTimeout},
      {"refused", sim::StatusCode::kUnavailable, models::cql::kGocqlNoHosts},
      {"io", sim::StatusCode::kIoError, "input/output error"},
  };
  return kErrors;
}

std::vector<ServiceImage> ServicesOf(const Scenario& scenario) {
  std::vector<ServiceImage> services;
  for (const fakes::ServiceSpec& service : ComposeSpecOf(scenario).services) {
    services.push_back({service.name, service.image});
  }
  return services;
}

std::vector<std::string> MatchingServices(std::string_view pattern,
                                          const std::vector<ServiceImage>& services) {
  std::vector<std::string> matching;
  const bool prefix = pattern.ends_with('*');
  if (prefix) pattern.remove_suffix(1);
  for (const ServiceImage& service : services) {
    if (prefix ? service.name.starts_with(pattern) : service.name == pattern) {
      matching.push_back(service.name);
    }
  }
  return matching;
}

}  // namespace faultline::scenarios
