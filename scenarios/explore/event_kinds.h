// The kinds of fault event an exploration draws, one entry each: its name,
// what it means, whether it counts as a crash or a power loss against the
// schedule's bounds, the step kinds it inserts, and how one event of it is
// drawn. A schedule switches each kind on or off for a whole run (swarm
// testing), then draws a few events of the kinds on (explore/schedule.cc).
// A new kind of fault event is one entry in event_kinds.cc.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenarios/core/scenario.h"
#include "sim/random.h"

namespace faultline::scenarios {

// What the events of one schedule may act on: the workload's cluster, its
// facts worked out once per schedule.
struct DrawContext {
  std::vector<std::string> sites;         // Fault sites a run can pass (FaultSitesOf).
  std::vector<std::string> services;      // Services an event may hit (db-init, a job, is none).
  std::vector<std::string> with_volumes;  // Those that mount a volume.
  // (service, version): an upgrade or a rollback to another version of
  // its image the workload uses (starts at, sets, or defines).
  std::vector<std::pair<std::string, std::string>> upgradable;
};
DrawContext DrawContextOf(const Scenario& workload);

// One event as drawn: a [[fault]] at a site, or the steps it inserts (the
// first its fault step, the others coming with it, as an upgrade's `up`).
// Neither when the cluster has nothing the kind applies to.
struct DrawnEvent {
  std::optional<FaultSpec> fault;
  std::vector<Step> steps;
};

struct EventKind {
  std::string_view name;     // "crash", "kill", "latency": how a person names it.
  std::string_view meaning;  // One line.
  bool crash = false;        // Counts against ExploreBounds::max_crashes.
  bool power_loss = false;   // Counts against ExploreBounds::max_power_losses.
  // The step kinds (as a file names them) one event of it may insert,
  // first those that may begin an event; none for a [[fault]] at a site.
  std::vector<std::string_view> inserts;
  DrawnEvent (*draw)(const DrawContext& cluster, sim::Rng& random) = nullptr;
};

// Every kind, in the order a schedule switches them on.
const std::vector<EventKind>& EventKinds();
// The kind named so, or nullptr.
const EventKind* FindEventKind(std::string_view name);

// The kinds a schedule may draw when a person names those it may
// (`faults`, as "latency,loss") or those it may not (`no_faults`), not
// both: their names in the table's order, every kind but those excluded;
// empty with neither or when every kind is left (every kind:
// ExploreBounds::kinds). Or, in `error`,
// what is wrong in words: a name that is no kind (the nearest, and the
// kinds), an empty name, both lists given, no kind left.
struct ChosenEventKinds {
  std::vector<std::string> names;
  std::string error;
};
ChosenEventKinds ChooseEventKinds(const std::optional<std::string>& faults,
                                  const std::optional<std::string>& no_faults);
// The table's names, comma-separated, for help and errors.
std::string EventKindNames();

// Of the kinds a person chose (`names`, as ChooseEventKinds gives them;
// empty: every kind, and nothing is said), those `workload`'s cluster has
// nothing for (no fault site, no service to hit, no volume, no other
// version), said in words with what to write instead; empty when each has
// something. A kind asked for by name that could never be drawn would make
// an exploration that silently explores less than it was asked.
std::string KindsWithNothingToActOn(const Scenario& workload,
                                    const std::vector<std::string>& names);

}  // namespace faultline::scenarios
