#include "scenarios/topology.h"

#include "models/cql/server.h"
#include "models/s3/seed_images.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

fakes::DependencyCondition Condition(const std::string& condition) {
  if (condition == "healthy") return fakes::DependencyCondition::kHealthy;
  if (condition == "completed") return fakes::DependencyCondition::kCompletedSuccessfully;
  return fakes::DependencyCondition::kStarted;
}

void Apply(const ServiceOverride& change, fakes::ServiceSpec& service) {
  if (change.restart == "no") service.restart = fakes::RestartPolicy::kNo;
  if (change.restart == "always") service.restart = fakes::RestartPolicy::kAlways;
  if (change.restart == "on-failure") service.restart = fakes::RestartPolicy::kOnFailure;
  if (change.depends_on) {
    service.depends_on.clear();
    for (const auto& [name, condition] : *change.depends_on) {
      service.depends_on.emplace_back(name, Condition(condition));
    }
  }
  if (!change.data.empty()) {
    for (fakes::MountSpec& mount : service.mounts) {
      mount.kind = change.data == "named" ? fakes::VolumeKind::kNamedVolume
                                          : fakes::VolumeKind::kHostDirectory;
      if (change.data == "named") mount.source = service.name + "-data";
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
  return spec;
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
