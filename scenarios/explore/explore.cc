#include "scenarios/explore/explore.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>
#include <variant>

#include "models/s3/kuri_node.h"
#include "models/s3/s3_proxy.h"
#include "models/s3/seed_images.h"
#include "scenarios/checkers/checkers.h"
#include "scenarios/core/topology.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/steps/steps.h"
#include "sim/assert.h"
#include "sim/random.h"

namespace faultline::scenarios {
namespace {

// The kinds of fault event a schedule draws from, each switched on or off
// for a whole run (swarm testing).
enum class EventKind : unsigned char {
  kSiteCrash,  // [[fault]] action = "crash" at a fault site
  kSiteError,  // ... "error"
  kSiteDelay,  // ... "delay"
  kKill,       // a kill step
  kRestart,    // a restart step
  kPartition,  // a partition step isolating a service
  kPowerLoss,  // a power-loss step
  kUpgrade,    // set-image to the next or previous release, then up
  kCompose,    // down then up, down -v then up, or clean
  kNetwork,    // latency or loss on one service's links
  kDisk,       // a full disk, or one that fails syncs or writes
};
constexpr EventKind kEventKinds[] = {
    EventKind::kSiteCrash, EventKind::kSiteError, EventKind::kSiteDelay,
    EventKind::kKill,      EventKind::kRestart,   EventKind::kPartition,
    EventKind::kPowerLoss, EventKind::kUpgrade,   EventKind::kCompose};

// One product's consecutive releases, oldest first: an upgrade moves a
// service one release on, a rollback one back. (The other built-in
// versions are other runners, not releases.)
const std::vector<std::string>* ReleasesOf(std::string_view image) {
  static const std::vector<std::string> kEras = {"v1", "v2"};
  if (image == models::s3::kNodeImage || image == models::s3::kProxyImage) return &kEras;
  return nullptr;
}

bool IsCrash(EventKind kind) {
  return kind == EventKind::kSiteCrash || kind == EventKind::kKill || kind == EventKind::kPowerLoss;
}

template <typename T>
const T& Pick(const std::vector<T>& from, sim::Rng& random) {
  FL_ASSERT(!from.empty());
  return from[random.Uniform(from.size())];
}

FaultSpec DrawSiteFault(EventKind kind, const std::vector<std::string>& sites, sim::Rng& random) {
  FaultSpec fault;
  fault.site = Pick(sites, random);
  fault.hit = 1 + random.Uniform(3);
  switch (kind) {
    case EventKind::kSiteCrash:
      fault.action = sim::FaultAction::kCrash;
      break;
    case EventKind::kSiteError:
      fault.action = sim::FaultAction::kError;
      fault.error = std::string(FaultErrors()[random.Uniform(FaultErrors().size())].name);
      break;
    case EventKind::kSiteDelay:
      fault.action = sim::FaultAction::kDelay;
      fault.delay = std::chrono::seconds(1 + random.Uniform(20));
      break;
    default:
      FL_PANIC("not a site fault: {}", static_cast<int>(kind));
  }
  return fault;
}

// The steps of one fault event (one, or two for an upgrade or a compose
// cycle), or none when the cluster has nothing it applies to.
std::vector<Step> DrawFaultSteps(EventKind kind, const Scenario& workload, sim::Rng& random) {
  const fakes::ComposeSpec spec = ComposeSpecOf(workload);
  std::vector<std::string> services;
  std::vector<std::string> with_volumes;
  std::vector<std::pair<std::string, std::string>> upgradable;  // service, version to move to
  for (const fakes::ServiceSpec& service : spec.services) {
    if (service.image == models::s3::kDbInitImage) continue;  // A job: killing it is no story.
    services.push_back(service.name);
    if (!service.mounts.empty()) with_volumes.push_back(service.name);
    if (const std::vector<std::string>* releases = ReleasesOf(service.image)) {
      const auto at = std::find(releases->begin(), releases->end(), service.version);
      if (at == releases->end()) continue;
      if (at + 1 != releases->end()) upgradable.emplace_back(service.name, *(at + 1));
      if (at != releases->begin()) upgradable.emplace_back(service.name, *(at - 1));
    }
  }
  Step step;
  step.narration = "explore: a fault drawn from the seed";
  const auto done = [](std::vector<Step> steps) {
    for (Step& each : steps) {
      if (each.duration == sim::Duration::zero()) each.duration = StepKindOf(each).default_duration;
    }
    return steps;
  };
  // Another service than `service`, or none (its links to every host).
  const auto peer_of = [&](const std::string& service) {
    std::vector<std::string> others;
    for (const std::string& other : services) {
      if (other != service) others.push_back(other);
    }
    return others.empty() || random.Bernoulli(0.5) ? std::string() : Pick(others, random);
  };
  switch (kind) {
    case EventKind::kKill:
    case EventKind::kRestart:
      step.kind = kind == EventKind::kKill ? Step::Kind::kKill : Step::Kind::kRestart;
      step.service = Pick(services, random);
      return done({step});
    case EventKind::kPartition:
      // Full (isolated from every host), partial (from one peer), or one way.
      step.kind = Step::Kind::kPartition;
      step.service = Pick(services, random);
      step.peer = peer_of(step.service);
      step.one_way = random.Uniform(3) == 0;
      return done({step});
    case EventKind::kNetwork:
      step.service = Pick(services, random);
      step.peer = peer_of(step.service);
      step.one_way = random.Uniform(3) == 0;
      if (random.Bernoulli(0.5)) {
        static constexpr const char* kDistributions[] = {"fixed", "uniform", "exponential"};
        step.kind = Step::Kind::kLatency;
        step.duration = std::chrono::milliseconds(10 * (1 + random.Uniform(100)));
        step.extra = std::chrono::milliseconds(random.Uniform(100));
        step.distribution = kDistributions[random.Uniform(3)];
      } else {
        step.kind = Step::Kind::kLoss;
        step.probability = static_cast<double>(1 + random.Uniform(5)) / 10.0;
      }
      return done({step});
    case EventKind::kDisk:
      if (with_volumes.empty()) return {};
      step.service = Pick(with_volumes, random);
      if (random.Bernoulli(0.5)) {
        step.kind = Step::Kind::kDiskFull;
      } else {
        step.kind = Step::Kind::kDiskErrors;
        step.io = {random.Bernoulli(0.5) ? "sync" : "write"};
        step.persistent = random.Bernoulli(0.5);
      }
      return done({step});
    case EventKind::kPowerLoss:
      if (with_volumes.empty()) return {};
      step.kind = Step::Kind::kPowerLoss;
      step.service = Pick(with_volumes, random);
      step.survivors = static_cast<sim::Survivors>(random.Uniform(3));
      return done({step});
    case EventKind::kUpgrade: {
      if (upgradable.empty()) return {};
      const auto& [service, version] = Pick(upgradable, random);
      step.kind = Step::Kind::kSetImage;
      step.service = service;
      step.version = version;
      // As an operator upgrades: edit the compose file, then `up`, which
      // recreates the service at its new version (a restart would not).
      Step up = step;
      up.kind = Step::Kind::kUp;
      up.service.clear();
      up.version.clear();
      return done({step, up});
    }
    case EventKind::kCompose: {
      const std::uint64_t which = random.Uniform(3);
      if (which == 2) {
        step.kind = Step::Kind::kClean;
        return done({step});
      }
      step.kind = Step::Kind::kDown;
      step.number = static_cast<std::int64_t>(which);  // 1: down -v
      Step up = step;
      up.kind = Step::Kind::kUp;
      up.number = 0;
      return done({step, up});
    }
    default:
      FL_PANIC("not a fault step: {}", static_cast<int>(kind));
  }
}

}  // namespace

Scenario DrawSchedule(const Scenario& workload, std::uint64_t seed, const ExploreBounds& bounds) {
  FL_ASSERT(bounds.max_events >= 1);
  Scenario drawn = workload;
  sim::Rng random = sim::Rng(seed).Fork("explore");
  std::vector<EventKind> on;
  for (const EventKind kind : kEventKinds) {
    if (random.Bernoulli(0.5)) on.push_back(kind);
  }
  if (on.empty()) on.push_back(kEventKinds[random.Uniform(std::size(kEventKinds))]);
  const std::vector<std::string> sites = FaultSitesOf(workload);
  const int events =
      1 + static_cast<int>(random.Uniform(static_cast<std::uint64_t>(bounds.max_events)));
  int crashes = 0;
  int power_losses = 0;
  std::vector<std::string> said;
  // glued[i]: step i belongs to the event of step i - 1.
  std::vector<bool> glued(drawn.steps.size(), false);
  for (int tries = 0, made = 0; made < events && tries < 8 * events; ++tries) {
    const EventKind kind = Pick(on, random);
    if (IsCrash(kind) && crashes >= bounds.max_crashes) continue;
    if (kind == EventKind::kPowerLoss && power_losses >= bounds.max_power_losses) continue;
    if (kind == EventKind::kSiteCrash || kind == EventKind::kSiteError ||
        kind == EventKind::kSiteDelay) {
      drawn.faults.push_back(DrawSiteFault(kind, sites, random));
      said.push_back(DescribeFault(drawn.faults.back()));
      ++made;
      crashes += IsCrash(kind) ? 1 : 0;
      continue;
    }
    std::vector<Step> steps = DrawFaultSteps(kind, workload, random);
    if (steps.empty()) continue;  // Nothing in this cluster it applies to: no event.
    ++made;
    crashes += IsCrash(kind) ? 1 : 0;
    power_losses += kind == EventKind::kPowerLoss ? 1 : 0;
    // Between two steps, after the first (the workload's `up`), and never
    // inside an event of two steps (an upgrade's set-image and its up).
    std::vector<std::size_t> places;
    for (std::size_t at = 1; at <= drawn.steps.size(); ++at) {
      if (at == drawn.steps.size() || !glued[at]) places.push_back(at);
    }
    std::size_t before = Pick(places, random);
    // Inside a wait, at a time drawn from it: the wait is split in two.
    if (before < drawn.steps.size() && drawn.steps[before].kind == Step::Kind::kWait &&
        drawn.steps[before].duration > std::chrono::seconds(1) && random.Bernoulli(0.5)) {
      Step& wait = drawn.steps[before];
      const auto whole = std::chrono::duration_cast<std::chrono::milliseconds>(wait.duration);
      const std::chrono::milliseconds first(
          1 + random.Uniform(static_cast<std::uint64_t>(whole.count() - 1)));
      Step rest = wait;
      rest.narration.clear();
      rest.expect.clear();  // The wait's expectations stay with its end.
      std::swap(rest.expect, wait.expect);
      rest.duration = wait.duration - first;
      wait.duration = first;
      drawn.steps.insert(drawn.steps.begin() + static_cast<std::ptrdiff_t>(before) + 1, rest);
      glued.insert(glued.begin() + static_cast<std::ptrdiff_t>(before) + 1, false);
      ++before;
    }
    said.push_back(fmt::format("{} before step {}", StepKindOf(steps.front()).show(steps.front()),
                               before + 1));
    // Data gone by an operator's own action is no failure: a down -v or a
    // clean exempts the data checkers for this run.
    for (const CheckerSpec& checker : WholeRunCheckers()) {
      if (ExemptedBy(checker, StepKindOf(steps.front()).name))
        drawn.checkers[std::string(checker.name)] = false;
    }
    drawn.steps.insert(drawn.steps.begin() + static_cast<std::ptrdiff_t>(before), steps.begin(),
                       steps.end());
    std::vector<bool> joined(steps.size(), true);
    joined.front() = false;
    glued.insert(glued.begin() + static_cast<std::ptrdiff_t>(before), joined.begin(), joined.end());
    FL_ASSERT(glued.size() == drawn.steps.size());
  }
  FL_ASSERT(FaultEventCount(drawn) >= FaultEventCount(workload));
  drawn.story =
      fmt::format("Drawn by faultline explore from seed {}: {}.", seed, fmt::join(said, "; "));
  return drawn;
}

bool InShard(std::uint64_t run, const Shard& shard) {
  FL_ASSERT(shard.count >= 1 && shard.index < shard.count);
  return run % shard.count == shard.index;
}

std::vector<DrawnGroup> ExploreRuns(const Scenario& workload, const ExploreOptions& options,
                                    int* runs_done) {
  FL_ASSERT(options.runs >= 0);
  const auto started = std::chrono::steady_clock::now();
  std::vector<DrawnGroup> groups;
  std::map<std::string, std::size_t> by_key;  // Signature::Key -> index in groups.
  int done = 0;
  for (int run = 0; run < options.runs; ++run) {
    if (!InShard(static_cast<std::uint64_t>(run), options.shard)) continue;
    if (options.wall_time_limit &&
        std::chrono::steady_clock::now() - started >= *options.wall_time_limit) {
      break;
    }
    const std::uint64_t seed = options.seed + static_cast<std::uint64_t>(run);
    const Scenario drawn = DrawSchedule(workload, seed, options.bounds);
    const ScenarioResult played = RunScenario(drawn, {.seed = seed});
    ++done;
    if (const std::optional<Signature> signature =
            SignatureOf(drawn, played, options.expectations)) {
      auto [found, inserted] = by_key.emplace(signature->Key(), groups.size());
      if (inserted) {
        groups.push_back(DrawnGroup{*signature, 0, seed});
        if (options.on_new_group) options.on_new_group(*signature, seed);
      }
      ++groups[found->second].count;
    }
    if (options.on_progress) options.on_progress(done, static_cast<int>(groups.size()));
  }
  if (runs_done != nullptr) *runs_done = done;
  return groups;
}

std::vector<DrawnGroup> MergeDrawnGroups(const std::vector<std::vector<DrawnGroup>>& parts) {
  std::map<std::string, DrawnGroup> by_key;
  for (const std::vector<DrawnGroup>& part : parts) {
    for (const DrawnGroup& group : part) {
      auto [found, inserted] = by_key.emplace(group.signature.Key(), group);
      if (inserted) continue;
      found->second.count += group.count;
      found->second.first_seed = std::min(found->second.first_seed, group.first_seed);
    }
  }
  std::vector<DrawnGroup> merged;
  for (auto& [key, group] : by_key) merged.push_back(std::move(group));
  // In the order a single run would have found them: by first seed.
  std::sort(merged.begin(), merged.end(),
            [](const DrawnGroup& a, const DrawnGroup& b) { return a.first_seed < b.first_seed; });
  return merged;
}

namespace {

// The repro's story: where it was found, the schedule that remains after
// shrinking (each fault and fault step, in order), and what fails.
std::string RemainingSchedule(const FailureGroup& group, const std::string& workload) {
  const Scenario& repro = group.repro.scenario;
  std::vector<std::string> events;
  if (!repro.crash_site.empty()) {
    events.push_back(fmt::format("crash at {} (hit {})", repro.crash_site, repro.crash_hit));
  }
  for (const FaultSpec& fault : repro.faults) events.push_back(DescribeFault(fault));
  for (std::size_t i = 0; i < repro.steps.size(); ++i) {
    const Step& step = repro.steps[i];
    if (IsFaultStep(step.kind)) {
      events.push_back(fmt::format("{} at step {}", StepKindOf(step).show(step), i + 1));
    }
  }
  return fmt::format(
      "Found by faultline explore in {} from seed {} ({} fault events drawn), shrunk to {}: {}. "
      "Then {} fails: {}.",
      workload, group.first_seed, FaultEventCount(group.first), FaultEventCount(repro),
      fmt::join(events, "; "), group.signature.checker, group.signature.violation);
}

}  // namespace

std::vector<FailureGroup> ShrinkGroups(const Scenario& workload,
                                       const std::vector<DrawnGroup>& drawn,
                                       const ExploreBounds& bounds, bool expectations) {
  std::vector<FailureGroup> merged;
  std::map<std::string, std::size_t> by_repro;  // The repro's Signature::Key -> index in merged.
  for (const DrawnGroup& found : drawn) {
    FailureGroup group{found.signature,
                       found.count,
                       found.first_seed,
                       DrawSchedule(workload, found.first_seed, bounds),
                       {}};
    group.repro = Shrink(group.first, group.first_seed, group.signature, expectations);
    group.repro.scenario.seed = group.first_seed;
    group.repro.scenario.name = workload.name + "-repro";
    group.repro.scenario.title =
        fmt::format("Found by faultline explore in {}: {} fails ({})", workload.name,
                    group.signature.checker, group.signature.violation);
    group.repro.scenario.lesson.clear();  // The workload's lesson is not this failure's.
    group.repro.scenario.story = RemainingSchedule(group, workload.name);
    // The signature of what remains: the same failure, fewer faults.
    group.signature.faults = SignatureFaults(group.repro.scenario);
    auto [at, inserted] = by_repro.emplace(group.signature.Key(), merged.size());
    if (inserted) {
      merged.push_back(std::move(group));
    } else {
      // Groups come by first seed, so the one kept has the first seed.
      merged[at->second].count += group.count;
    }
  }
  return merged;
}

ExploreResult Explore(const Scenario& workload, const ExploreOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  ExploreResult result;
  const std::vector<DrawnGroup> drawn = ExploreRuns(workload, options, &result.runs);
  result.groups = ShrinkGroups(workload, drawn, options.bounds, options.expectations);
  result.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace faultline::scenarios
