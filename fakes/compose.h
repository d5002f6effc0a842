// Compose-like specifications: what services run, from which image version,
// with which volumes, dependencies, restart policy and health check. The
// runtime that carries them out is fakes/runtime.h.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fakes/volume.h"
#include "sim/names.h"
#include "sim/sim.h"

namespace faultline::fakes {

class ContainerContext;

// A container's main program; its result is the exit code.
using EntryPoint = std::function<sim::Awaitable<int>(ContainerContext&)>;
// A health probe: true when the container is healthy right now.
using HealthProbe = std::function<sim::Awaitable<bool>(ContainerContext&)>;

struct MountSpec {
  std::string source;  // A named volume's name, or a host directory's path.
  std::string target;  // Where the container sees it, e.g. "/var/lib/yugabyte".
  VolumeKind kind = VolumeKind::kNamedVolume;
};

enum class RestartPolicy : unsigned char { kNo, kAlways, kOnFailure };
inline constexpr sim::Named<RestartPolicy> kRestartPolicies[] = {
    {RestartPolicy::kNo, "no"},
    {RestartPolicy::kAlways, "always"},
    {RestartPolicy::kOnFailure, "on-failure"}};

enum class DependencyCondition : unsigned char {
  kStarted,                // service_started
  kHealthy,                // service_healthy
  kCompletedSuccessfully,  // service_completed_successfully
};
// As a scenario's depends_on names them.
inline constexpr sim::Named<DependencyCondition> kDependencyConditions[] = {
    {DependencyCondition::kStarted, "started"},
    {DependencyCondition::kHealthy, "healthy"},
    {DependencyCondition::kCompletedSuccessfully, "completed"}};

struct HealthCheck {
  HealthProbe probe;
  sim::Duration interval = std::chrono::seconds(1);
  int retries = 3;  // Consecutive failures that make it unhealthy.
  sim::Duration start_period = sim::Duration::zero();
};

struct ServiceSpec {
  std::string name;
  std::string image;
  std::string version;
  std::vector<MountSpec> mounts;
  std::map<std::string, std::string> environment;
  std::vector<std::pair<std::string, DependencyCondition>> depends_on;
  RestartPolicy restart = RestartPolicy::kNo;
  std::optional<HealthCheck> healthcheck;
  sim::Duration stop_grace_period = std::chrono::seconds(10);
};

struct ComposeSpec {
  std::vector<ServiceSpec> services;
};

// A depends_on cycle of `spec`, as the services around it with the first
// one again at the end ("a", "b", "a"); empty when there is none. A
// dependency on a service the spec does not define is no cycle.
std::vector<std::string> FindDependencyCycle(const ComposeSpec& spec);

}  // namespace faultline::fakes
