#include "scenarios/explore/event_kinds.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <variant>

#include "fakes/compose.h"
#include "models/s3/kuri_node.h"
#include "models/s3/s3_proxy.h"
#include "models/s3/seed_images.h"
#include "scenarios/core/closest_name.h"
#include "scenarios/core/topology.h"
#include "scenarios/steps/steps.h"
#include "sim/assert.h"
#include "sim/fault.h"

namespace faultline::scenarios {
namespace {

template <typename T>
const T& Pick(const std::vector<T>& from, sim::Rng& random) {
  FL_ASSERT(!from.empty());
  return from[random.Uniform(from.size())];
}

// The versions of each node and proxy image the workload uses: those its
// services start at, those its set-image steps name, and its own images'.
// An upgrade or a rollback moves a service among them, never to a built-in
// release the story does not name: explored on a user's story with an
// image of their own, rollbacks to the built-in v1 were the two largest
// groups, and nothing to do with the story (issue #29).
std::map<std::string, std::set<std::string>> VersionsUsed(const Scenario& workload,
                                                          const fakes::ComposeSpec& compose) {
  std::map<std::string, std::set<std::string>> used;
  std::map<std::string, std::string> image_of;  // Service -> its image.
  for (const fakes::ServiceSpec& service : compose.services) {
    if (service.image != models::s3::kNodeImage && service.image != models::s3::kProxyImage) {
      continue;
    }
    used[service.image].insert(service.version);
    image_of.emplace(service.name, service.image);
  }
  for (const Step& step : workload.steps) {
    if (step.kind != Step::Kind::kSetImage) continue;
    if (const auto image = image_of.find(step.service); image != image_of.end()) {
      used[image->second].insert(step.version);
    }
  }
  for (const ImageSpec& image : workload.images) {
    used[image.service == "proxy" ? models::s3::kProxyImage : models::s3::kNodeImage].insert(
        image.version);
  }
  return used;
}

// --- [[fault]]s at fault sites ------------------------------------------------

FaultSpec SiteFault(sim::FaultAction action, const DrawContext& cluster, sim::Rng& random) {
  FaultSpec fault;
  fault.site = Pick(cluster.sites, random);
  fault.hit = 1 + random.Uniform(3);
  fault.action = action;
  return fault;
}

DrawnEvent DrawCrash(const DrawContext& cluster, sim::Rng& random) {
  if (cluster.sites.empty()) return {};
  return {SiteFault(sim::FaultAction::kCrash, cluster, random), {}};
}

DrawnEvent DrawError(const DrawContext& cluster, sim::Rng& random) {
  if (cluster.sites.empty()) return {};
  FaultSpec fault = SiteFault(sim::FaultAction::kError, cluster, random);
  fault.error = std::string(FaultErrors()[random.Uniform(FaultErrors().size())].name);
  return {std::move(fault), {}};
}

DrawnEvent DrawDelay(const DrawContext& cluster, sim::Rng& random) {
  if (cluster.sites.empty()) return {};
  FaultSpec fault = SiteFault(sim::FaultAction::kDelay, cluster, random);
  fault.delay = std::chrono::seconds(1 + random.Uniform(20));
  return {std::move(fault), {}};
}

// --- Steps ----------------------------------------------------------------------

// A fault step of `kind` on `service`, its duration its kind's default.
Step FaultStep(Step::Kind kind, std::string service) {
  Step step;
  step.kind = kind;
  step.service = std::move(service);
  step.narration = "explore: a fault drawn from the seed";
  return step;
}

// The steps of one event, each with its kind's default duration where it
// has none of its own.
DrawnEvent Steps(std::vector<Step> steps) {
  for (Step& each : steps) {
    if (each.duration == sim::Duration::zero()) each.duration = StepKindOf(each).default_duration;
  }
  return {std::nullopt, std::move(steps)};
}

// Another service than `service`, or none (its links to every host).
std::string PeerOf(const std::string& service, const DrawContext& cluster, sim::Rng& random) {
  std::vector<std::string> others;
  for (const std::string& other : cluster.services) {
    if (other != service) others.push_back(other);
  }
  return others.empty() || random.Bernoulli(0.5) ? std::string() : Pick(others, random);
}

DrawnEvent DrawKill(const DrawContext& cluster, sim::Rng& random) {
  if (cluster.services.empty()) return {};
  return Steps({FaultStep(Step::Kind::kKill, Pick(cluster.services, random))});
}

DrawnEvent DrawRestart(const DrawContext& cluster, sim::Rng& random) {
  if (cluster.services.empty()) return {};
  return Steps({FaultStep(Step::Kind::kRestart, Pick(cluster.services, random))});
}

// A link fault's step: on one service's links, to one peer or every other
// host, both ways or one.
Step LinkStep(Step::Kind kind, const DrawContext& cluster, sim::Rng& random) {
  Step step = FaultStep(kind, Pick(cluster.services, random));
  step.peer = PeerOf(step.service, cluster, random);
  step.one_way = random.Uniform(3) == 0;
  return step;
}

DrawnEvent DrawPartition(const DrawContext& cluster, sim::Rng& random) {
  if (cluster.services.empty()) return {};
  return Steps({LinkStep(Step::Kind::kPartition, cluster, random)});
}

DrawnEvent DrawLatency(const DrawContext& cluster, sim::Rng& random) {
  if (cluster.services.empty()) return {};
  Step step = LinkStep(Step::Kind::kLatency, cluster, random);
  step.duration = std::chrono::milliseconds(10 * (1 + random.Uniform(100)));
  step.extra = std::chrono::milliseconds(random.Uniform(100));
  const auto& distributions = fakes::NetworkOptions::kLatencies;
  step.distribution = distributions[random.Uniform(std::size(distributions))].value;
  return Steps({std::move(step)});
}

DrawnEvent DrawLoss(const DrawContext& cluster, sim::Rng& random) {
  if (cluster.services.empty()) return {};
  Step step = LinkStep(Step::Kind::kLoss, cluster, random);
  step.probability = static_cast<double>(1 + random.Uniform(5)) / 10.0;
  return Steps({std::move(step)});
}

DrawnEvent DrawPowerLoss(const DrawContext& cluster, sim::Rng& random) {
  if (cluster.with_volumes.empty()) return {};
  Step step = FaultStep(Step::Kind::kPowerLoss, Pick(cluster.with_volumes, random));
  step.survivors = sim::kSurvivors[random.Uniform(std::size(sim::kSurvivors))].value;
  return Steps({std::move(step)});
}

DrawnEvent DrawDiskFull(const DrawContext& cluster, sim::Rng& random) {
  if (cluster.with_volumes.empty()) return {};
  return Steps({FaultStep(Step::Kind::kDiskFull, Pick(cluster.with_volumes, random))});
}

DrawnEvent DrawDiskErrors(const DrawContext& cluster, sim::Rng& random) {
  if (cluster.with_volumes.empty()) return {};
  Step step = FaultStep(Step::Kind::kDiskErrors, Pick(cluster.with_volumes, random));
  step.io = {random.Bernoulli(0.5) ? "sync" : "write"};
  step.persistent = random.Bernoulli(0.5);
  return Steps({std::move(step)});
}

// As an operator upgrades: edit the compose file, then `up`, which
// recreates the service at its new version (a restart would not).
DrawnEvent DrawUpgrade(const DrawContext& cluster, sim::Rng& random) {
  if (cluster.upgradable.empty()) return {};
  const auto& [service, version] = Pick(cluster.upgradable, random);
  Step set_image = FaultStep(Step::Kind::kSetImage, service);
  set_image.version = version;
  Step up = FaultStep(Step::Kind::kUp, "");
  return Steps({std::move(set_image), std::move(up)});
}

// down then up, down -v then up, or clean.
DrawnEvent DrawCompose(const DrawContext&, sim::Rng& random) {
  const std::uint64_t which = random.Uniform(3);
  if (which == 2) return Steps({FaultStep(Step::Kind::kClean, "")});
  Step down = FaultStep(Step::Kind::kDown, "");
  down.number = static_cast<std::int64_t>(which);  // 1: down -v
  return Steps({std::move(down), FaultStep(Step::Kind::kUp, "")});
}

std::vector<EventKind> MakeEventKinds() {
  return {
      {.name = "crash",
       .meaning = "a process crashes at a pass of a fault site ([[fault]] action crash)",
       .crash = true,
       .draw = DrawCrash},
      {.name = "error",
       .meaning = "a pass of a fault site fails with an error (server, timeout, refused, io)",
       .draw = DrawError},
      {.name = "delay", .meaning = "a pass of a fault site waits 1 to 20 s", .draw = DrawDelay},
      {.name = "kill",
       .meaning = "a service is killed (its restart policy applies)",
       .crash = true,
       .inserts = {"kill"},
       .draw = DrawKill},
      {.name = "restart",
       .meaning = "a service is restarted",
       .inserts = {"restart"},
       .draw = DrawRestart},
      {.name = "partition",
       .meaning = "a service is cut off from every host, or from one, or one way",
       .inserts = {"partition"},
       .draw = DrawPartition},
      {.name = "power-loss",
       .meaning = "a service's machine loses power; its volumes keep what a disk model keeps",
       .crash = true,
       .power_loss = true,
       .inserts = {"power-loss"},
       .draw = DrawPowerLoss},
      {.name = "upgrade",
       .meaning = "a node or the proxy moves to another version the story uses (one it "
                  "starts at, sets or defines), on its kept volumes",
       .inserts = {"set-image", "up"},
       .draw = DrawUpgrade},
      {.name = "compose",
       .meaning = "the operator runs down then up, down -v then up, or clean",
       .inserts = {"down", "down -v", "clean", "up"},
       .draw = DrawCompose},
      {.name = "latency",
       .meaning = "a service's links get slower: 10 ms to 1 s, plus a drawn extra",
       .inserts = {"latency"},
       .draw = DrawLatency},
      {.name = "loss",
       .meaning = "a service's links drop 10% to 50% of their messages",
       .inserts = {"loss"},
       .draw = DrawLoss},
      {.name = "disk-full",
       .meaning = "a service's volumes cannot grow any more",
       .inserts = {"disk-full"},
       .draw = DrawDiskFull},
      {.name = "disk-errors",
       .meaning = "a service's volumes fail the next sync or write, or every one",
       .inserts = {"disk-errors"},
       .draw = DrawDiskErrors},
  };
}

// The table's own rules, checked once: names unique, each entry whole, and
// every step kind it inserts one of the step table, its first a fault step.
void CheckEventKinds(const std::vector<EventKind>& kinds) {
  std::set<std::string_view> names;
  for (const EventKind& kind : kinds) {
    FL_ASSERT_MSG(names.insert(kind.name).second, "event kind {} is in the table twice", kind.name);
    FL_ASSERT(kind.draw != nullptr && !kind.meaning.empty());
    FL_ASSERT(!kind.power_loss || kind.crash);  // A power loss is a crash too.
    for (const std::string_view inserted : kind.inserts) {
      const StepKind* step = FindStepKind(inserted);
      FL_ASSERT_MSG(step != nullptr, "event kind {} inserts no step kind '{}'", kind.name,
                    inserted);
      FL_ASSERT_MSG(step->fault || step->kind == Step::Kind::kUp,
                    "event kind {} inserts {}, which is no fault step", kind.name, inserted);
    }
  }
}

}  // namespace

DrawContext DrawContextOf(const Scenario& workload) {
  DrawContext cluster;
  cluster.sites = FaultSitesOf(workload);
  const fakes::ComposeSpec compose = ComposeSpecOf(workload);
  const std::map<std::string, std::set<std::string>> used = VersionsUsed(workload, compose);
  for (const fakes::ServiceSpec& service : compose.services) {
    if (service.image == models::s3::kDbInitImage) continue;  // A job: killing it is no story.
    cluster.services.push_back(service.name);
    if (!service.mounts.empty()) cluster.with_volumes.push_back(service.name);
    const auto versions = used.find(service.image);
    if (versions == used.end()) continue;
    for (const std::string& version : versions->second) {
      if (version != service.version) cluster.upgradable.emplace_back(service.name, version);
    }
  }
  return cluster;
}

const std::vector<EventKind>& EventKinds() {
  static const std::vector<EventKind> kKinds = [] {
    std::vector<EventKind> kinds = MakeEventKinds();  // Immutable once made.
    CheckEventKinds(kinds);
    return kinds;
  }();
  return kKinds;
}

const EventKind* FindEventKind(std::string_view name) {
  for (const EventKind& kind : EventKinds()) {
    if (kind.name == name) return &kind;
  }
  return nullptr;
}

std::string KindsWithNothingToActOn(const Scenario& workload,
                                    const std::vector<std::string>& names) {
  if (names.empty()) return {};
  const DrawContext cluster = DrawContextOf(workload);
  std::vector<std::string> idle;  // "upgrade (a node or the proxy moves to ...)"
  for (const std::string& name : names) {
    const EventKind* kind = FindEventKind(name);
    FL_ASSERT_MSG(kind != nullptr, "'{}' was chosen as a kind", name);
    // A draw comes back empty exactly when the cluster has nothing for its
    // kind, whatever it draws: one draw tells (the draws are the one place
    // that knows what each kind acts on).
    sim::Rng probe(1);
    const DrawnEvent drawn = kind->draw(cluster, probe);
    if (!drawn.fault && drawn.steps.empty()) {
      idle.push_back(fmt::format("'{}' ({})", name, kind->meaning));
    }
  }
  if (idle.empty()) return {};
  return fmt::format("{}'s cluster has nothing for {}: leave {} out", workload.name,
                     fmt::join(idle, "; nor for "), idle.size() == 1 ? "it" : "them");
}

std::string EventKindNames() {
  std::string names;
  for (const EventKind& kind : EventKinds()) {
    names += fmt::format("{}{}", names.empty() ? "" : ", ", kind.name);
  }
  return names;
}

namespace {

// The names of a comma-separated list, each a kind; or what is wrong.
std::variant<std::set<std::string_view>, std::string> KindsNamed(std::string_view list,
                                                                 std::string_view flag) {
  std::set<std::string_view> named;
  std::vector<std::string_view> choices;
  for (const EventKind& kind : EventKinds()) choices.push_back(kind.name);
  // A list longer than every kind named twice is no list of kinds.
  const std::size_t bound = 2 * choices.size() + 1;
  for (std::size_t start = 0, count = 0; start <= list.size(); ++count) {
    if (count >= bound) return fmt::format("{}: more names than there are kinds", flag);
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view name = list.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) return fmt::format("{} '{}': an empty name", flag, list);
    const EventKind* kind = FindEventKind(name);
    if (kind == nullptr) {
      const std::optional<std::string_view> near = ClosestName(name, choices);
      return fmt::format("{}: '{}' is no kind of fault event{}; the kinds: {}", flag, name,
                         near ? fmt::format(" (did you mean '{}'?)", *near) : "", EventKindNames());
    }
    named.insert(kind->name);
  }
  return named;
}

}  // namespace

ChosenEventKinds ChooseEventKinds(const std::optional<std::string>& faults,
                                  const std::optional<std::string>& no_faults) {
  if (faults && no_faults) return {.error = "give --faults or --no-faults, not both"};
  if (!faults && !no_faults) return {};
  const bool only = faults.has_value();
  const auto named = KindsNamed(only ? *faults : *no_faults, only ? "--faults" : "--no-faults");
  if (const auto* error = std::get_if<std::string>(&named)) return {.error = *error};
  const auto& listed = std::get<std::set<std::string_view>>(named);
  ChosenEventKinds chosen;
  for (const EventKind& kind : EventKinds()) {
    if (listed.contains(kind.name) == only) chosen.names.emplace_back(kind.name);
  }
  if (chosen.names.empty()) {
    return {.error = "--no-faults leaves no kind of fault event to draw; the kinds: " +
                     EventKindNames()};
  }
  // Every kind named is every kind: the same exploration as none named.
  if (chosen.names.size() == EventKinds().size()) chosen.names.clear();
  return chosen;
}

}  // namespace faultline::scenarios
