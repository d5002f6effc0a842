// The cluster a scenario runs on, as data. Its [topology] (image versions,
// how many nodes, their keyspaces) and [[service]] changes (restart policy,
// data mount, depends_on, environment) make one compose file; the runtime
// runs it, the runner acts on its services, the checkers observe them and
// the file reader checks names against it. Nothing else spells out the
// cluster's services, ports or keyspaces.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fakes/compose.h"
#include "scenarios/core/scenario.h"

namespace faultline::scenarios {

// The compose file of `scenario`'s cluster.
fakes::ComposeSpec ComposeSpecOf(const Scenario& scenario);

// A service of the cluster and the image it runs.
struct ServiceImage {
  std::string name;
  std::string image;
};
// Every service of `scenario`'s cluster, in the compose file's order.
std::vector<ServiceImage> ServicesOf(const Scenario& scenario);

// Every fault site a run of `scenario` can pass, sorted: the disk's (the
// store's SQLite I/O), and for each node and proxy the sites of the runner
// of every image version it may run (its topology's, and any set-image
// step's) in the keyspace it migrates, and golang-migrate's for the
// keyspaces the operator's migrate steps name.
std::vector<std::string> FaultSitesOf(const Scenario& scenario);

// The services of `services` that `pattern` names: itself, or with a final
// '*' every one whose name starts with the rest ("kuri-*").
std::vector<std::string> MatchingServices(std::string_view pattern,
                                          const std::vector<ServiceImage>& services);

}  // namespace faultline::scenarios
