#include "scenarios/steps/steps.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>

#include "fakes/network.h"
#include "fakes/runtime.h"
#include "models/cql/client.h"
#include "models/operator/operator.h"
#include "scenarios/steps/s3.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

using sim::Awaitable;
using Kind = Step::Kind;
using Field = StepField;

// How long an operation may take before the step goes on without it.
constexpr sim::Duration kUpBound = std::chrono::seconds(5);
constexpr sim::Duration kRestartBound = std::chrono::seconds(2);
constexpr sim::Duration kStopBound = std::chrono::minutes(1);

std::string Unfinished(sim::Duration bound) {
  return fmt::format(" (not finished after {})", sim::FormatDuration(bound));
}

// Done when the runtime has carried out the operations asked for since
// `asked` and each of the served services (all, or `only`) that runs serves.
std::function<bool()> ServingOrDown(World& world, const std::string& only, std::uint64_t asked) {
  std::vector<ServedService> services;
  for (const ServedService& service : world.served) {
    if (only.empty() || service.name == only) services.push_back(service);
  }
  return [&world, asked, services = std::move(services)] {
    if (!world.runtime.DoneSince(asked)) return false;
    for (const ServedService& service : services) {
      // A container that exited or waits to restart has done what it will.
      const bool running = world.runtime.HasContainer(service.name) &&
                           world.runtime.state(service.name) == fakes::ContainerState::kRunning;
      if (running && !IsServing(world, service)) return false;
    }
    return true;
  };
}

// What docker says when there is no container to act on (before `up`, or
// after `down`).
std::string NoContainer(const std::string& service, std::string_view verb) {
  return fmt::format("cannot {} {}: no such container (is the cluster up?)", verb, service);
}

// --- Compose and containers ------------------------------------------------

std::string PerformUp(World& world, const Step&, int&) {
  // A `down` still stopping containers would stop the ones this up revives:
  // as compose runs one command after another, let it finish first (bounded).
  if (!world.runtime.idle()) {
    world.Advance(kStopBound, [&world] { return world.runtime.idle(); });
  }
  // As `docker compose up --wait`: done once every service has started and
  // those running serve (at most kUpBound).
  const std::uint64_t asked = world.runtime.operations_asked();
  const sim::Status up = world.op.ComposeUp(world.spec);
  if (!up.ok()) return "compose up failed: " + up.message();
  const bool done = world.Advance(kUpBound, ServingOrDown(world, "", asked));
  return done ? "compose up" : "compose up" + Unfinished(kUpBound);
}

std::string PerformDown(World& world, const Step& step, int&) {
  const std::uint64_t asked = world.runtime.operations_asked();
  world.op.ComposeDown(step.number == 1);
  const bool done =
      world.Advance(kStopBound, [&world, asked] { return world.runtime.DoneSince(asked); });
  return std::string(step.number == 1 ? "compose down -v" : "compose down (volumes kept)") +
         (done ? "" : Unfinished(kStopBound));
}

std::string PerformClean(World& world, const Step&, int&) {
  world.op.Clean();
  return "host data directories emptied; named volumes are not touched";
}

std::string PerformSetImage(World& world, const Step& step, int&) {
  FL_ASSERT(!step.version.empty());
  for (fakes::ServiceSpec& service : world.spec.services) {
    if (service.name == step.service) service.version = step.version;
  }
  // The compose file changes; the next `up` recreates the container.
  return fmt::format("the compose file now has {} at image version {}", step.service, step.version);
}

std::string PerformRestart(World& world, const Step& step, int&) {
  if (!world.runtime.HasContainer(step.service)) return NoContainer(step.service, "restart");
  const std::uint64_t asked = world.runtime.operations_asked();
  world.op.Restart(step.service);
  return world.Advance(kRestartBound, ServingOrDown(world, step.service, asked))
             ? "restarted " + step.service
             : "restarted " + step.service + ", not serving yet";
}

std::string PerformKill(World& world, const Step& step, int&) {
  if (!world.runtime.HasContainer(step.service)) return NoContainer(step.service, "kill");
  world.runtime.Kill(step.service);
  // Done once the runtime has seen the exit (its restart policy then takes over).
  world.Advance(kStopBound, [&world, &step] {
    return world.runtime.state(step.service) != fakes::ContainerState::kRunning;
  });
  return "killed " + step.service;
}

std::string PerformStop(World& world, const Step& step, int&) {
  if (!world.runtime.HasContainer(step.service)) return NoContainer(step.service, "stop");
  const std::uint64_t asked = world.runtime.operations_asked();
  world.runtime.Stop(step.service);
  return world.Advance(kStopBound, [&world, asked] { return world.runtime.DoneSince(asked); })
             ? "stopped " + step.service
             : "stopping " + step.service + Unfinished(kStopBound);
}

std::string PerformWait(World& world, const Step& step, int&) {
  FL_ASSERT(step.duration >= sim::Duration::zero());
  world.Advance(step.duration, nullptr);
  return "waited " + sim::FormatDuration(step.duration);
}

std::string PerformWaitFor(World& world, const Step& step, int&) {
  FL_ASSERT(!step.state.empty());
  FL_ASSERT(step.duration > sim::Duration::zero());
  world.Advance(step.duration, [&world, &step] {
    return world.runtime.HasContainer(step.service) &&
           fakes::ContainerStateName(world.runtime.state(step.service)) == step.state;
  });
  const std::string now =
      world.runtime.HasContainer(step.service)
          ? std::string(fakes::ContainerStateName(world.runtime.state(step.service)))
          : "absent";
  return fmt::format("{} is {} at {}", step.service, now, sim::FormatTime(world.simulation.Now()));
}

// --- The operator: ycqlsh and the migrate CLI ------------------------------

std::string PerformCql(World& world, const Step& step, int&) {
  return world.RunProcess(kShellHost,
                          [&world, &step](models::cql::CqlSession& s) -> Awaitable<std::string> {
                            co_return co_await world.op.Cql(s, step.statement);
                          });
}

std::string PerformMigrateVersion(World& world, const Step& step, int&) {
  return world.RunProcess(kMigrateHost,
                          [&world, &step](models::cql::CqlSession& s) -> Awaitable<std::string> {
                            co_return co_await world.op.MigrateVersion(s, step.keyspace);
                          });
}

std::string PerformMigrateForce(World& world, const Step& step, int&) {
  return world.RunProcess(kMigrateHost,
                          [&world, &step](models::cql::CqlSession& s) -> Awaitable<std::string> {
                            co_return co_await world.op.MigrateForce(s, step.keyspace, step.number);
                          });
}

// The folder the CLI's -path names: the migrations of the image version
// `service` runs (or, without one, of the service that migrates the
// keyspace), as its image ships them.
const models::migrate::MigrationSource& MigrateCliFolder(World& world, const Step& step) {
  static const models::migrate::MigrationSource kNone;
  for (const ServedService& served : world.served) {
    const bool chosen =
        step.service.empty() ? served.keyspace == step.keyspace : served.name == step.service;
    if (!chosen || !world.runtime.HasContainer(served.name)) continue;
    // The version its container runs (or, not started yet, will run).
    std::string version = world.runtime.running_version(served.name);
    if (version.empty()) version = world.runtime.container_spec(served.name).version;
    const auto image = world.images.find({served.image, version});
    if (image != world.images.end()) return image->second.migrations;
  }
  return kNone;
}

std::string PerformMigrate(World& world, const Step& step, int&) {
  const models::migrate::MigrationSource& folder = MigrateCliFolder(world, step);
  return world.RunProcess(
      kMigrateHost, [&world, &step, &folder](models::cql::CqlSession& s) -> Awaitable<std::string> {
        const models::ops::MigrateCliOutcome outcome =
            co_await world.op.MigrateCli(s, step.keyspace, folder, step.command);
        std::string text = outcome.output;
        if (!text.empty() && text.back() == '\n') text.pop_back();
        if (outcome.exit_code != 0) text += fmt::format("\n(exit status {})", outcome.exit_code);
        co_return text.empty() ? std::string("(no output, exit status 0)") : text;
      });
}

std::string PerformRecreateKeyspace(World& world, const Step& step, int&) {
  return world.RunProcess(kShellHost,
                          [&world, &step](models::cql::CqlSession& s) -> Awaitable<std::string> {
                            co_return co_await world.op.RecreateKeyspace(s, step.keyspace);
                          });
}

// --- The network ---------------------------------------------------------

// The hosts on the other side of `step`: its peer, or every other service
// and helper host.
std::vector<std::string> OtherSide(const World& world, const Step& step) {
  if (!step.peer.empty()) return {step.peer};
  std::vector<std::string> hosts;
  for (const fakes::ServiceSpec& service : world.spec.services) {
    if (service.name != step.service) hosts.push_back(service.name);
  }
  for (const char* helper : kHelperHosts) hosts.emplace_back(helper);
  FL_ASSERT(!hosts.empty());
  return hosts;
}

std::string PerformPartition(World& world, const Step& step, int&) {
  FL_ASSERT(!step.service.empty());
  for (const std::string& other : OtherSide(world, step)) {
    world.network.BlockLink(step.service, other);
    if (!step.one_way) world.network.BlockLink(other, step.service);
  }
  return step.peer.empty() ? step.service + " cut off from every other host"
         : step.one_way ? fmt::format("messages from {} to {} are dropped", step.service, step.peer)
                        : fmt::format("{} and {} cannot reach each other", step.service, step.peer);
}

std::string PerformHeal(World& world, const Step&, int&) {
  world.network.Heal();
  return "every link unblocked and unclogged";
}

std::string PerformClog(World& world, const Step& step, int&) {
  FL_ASSERT(step.duration > sim::Duration::zero());
  const sim::TimePoint until = world.simulation.Now() + step.duration;
  for (const std::string& other : OtherSide(world, step)) {
    world.network.Clog(step.service, other, until);
    if (!step.one_way) world.network.Clog(other, step.service, until);
  }
  return fmt::format("messages between {} and {} held until {}", step.service,
                     step.peer.empty() ? "every other host" : step.peer, sim::FormatTime(until));
}

// "from kuri-1 to yugabyte", "between kuri-1 and every other host".
std::string Between(const Step& step) {
  const std::string peer = step.peer.empty() ? "every other host" : step.peer;
  return step.one_way ? fmt::format("from {} to {}", step.service, peer)
                      : fmt::format("between {} and {}", step.service, peer);
}

std::optional<fakes::NetworkOptions::Latency> LatencyNamed(std::string_view name) {
  if (name == "fixed") return fakes::NetworkOptions::Latency::kFixed;
  if (name == "uniform") return fakes::NetworkOptions::Latency::kUniform;
  if (name == "exponential") return fakes::NetworkOptions::Latency::kExponential;
  return std::nullopt;
}

std::string PerformLatency(World& world, const Step& step, int&) {
  const std::optional<fakes::NetworkOptions::Latency> distribution =
      LatencyNamed(step.distribution.empty() ? "exponential" : step.distribution);
  FL_ASSERT(distribution.has_value());  // The reader checks the name.
  const std::string extra =
      fmt::format("{} plus an extra of mean {} ({})", sim::FormatDuration(step.duration),
                  sim::FormatDuration(step.extra),
                  step.distribution.empty() ? "exponential" : step.distribution);
  if (step.service.empty()) {
    world.network.SetLatency(*distribution, step.duration, step.extra);
    return "every message takes " + extra;
  }
  for (const std::string& other : OtherSide(world, step)) {
    world.network.SetLinkLatency(step.service, other, *distribution, step.duration, step.extra);
    if (!step.one_way) {
      world.network.SetLinkLatency(other, step.service, *distribution, step.duration, step.extra);
    }
  }
  return fmt::format("messages {} take {}", Between(step), extra);
}

std::string PerformLoss(World& world, const Step& step, int&) {
  FL_ASSERT(step.probability >= 0.0 && step.probability <= 1.0);
  if (step.service.empty()) {
    world.network.SetLoss(step.probability);
    return fmt::format("each message is lost with probability {:g}", step.probability);
  }
  for (const std::string& other : OtherSide(world, step)) {
    world.network.SetLinkLoss(step.service, other, step.probability);
    if (!step.one_way) world.network.SetLinkLoss(other, step.service, step.probability);
  }
  return fmt::format("each message {} is lost with probability {:g}", Between(step),
                     step.probability);
}

// --- Disks -----------------------------------------------------------------

// The volumes `step` acts on: the one it names, or every one its service
// mounts (the reader checked that there is one).
std::vector<fakes::Volume*> VolumesOf(World& world, const Step& step) {
  std::vector<fakes::Volume*> volumes;
  for (const fakes::ServiceSpec& service : world.spec.services) {
    if (service.name != step.service) continue;
    for (const fakes::MountSpec& mount : service.mounts) {
      if (!step.volume.empty() && mount.source != step.volume) continue;
      if (fakes::Volume* volume = world.runtime.FindVolume(mount.source, mount.kind)) {
        volumes.push_back(volume);
      }
    }
  }
  return volumes;
}

std::string VolumeNames(const std::vector<fakes::Volume*>& volumes) {
  std::string names;
  for (const fakes::Volume* volume : volumes) names += (names.empty() ? "" : ", ") + volume->name();
  return names.empty() ? "no volume (none exists yet)" : names;
}

std::string PerformPowerLoss(World& world, const Step& step, int&) {
  FL_ASSERT(step.duration > sim::Duration::zero());  // The table's default, or the reader's check.
  const bool had_container = world.runtime.HasContainer(step.service);
  if (had_container) world.runtime.PowerOff(step.service);
  // Each loss draws from a stream of its own, named by where and when.
  sim::Rng random = world.simulation.Random(fmt::format(
      "power-loss/{}/{}", step.service, world.simulation.Now().time_since_epoch().count()));
  const std::vector<fakes::Volume*> volumes = VolumesOf(world, step);
  for (fakes::Volume* volume : volumes) {
    volume->LoseUnsynced(random, fakes::CrashModel::Of(step.survivors));
  }
  world.Advance(step.duration, nullptr);  // The power stays off.
  if (had_container) world.runtime.PowerOn(step.service);
  return fmt::format("{} lost power for {}{}; {} kept {}", step.service,
                     sim::FormatDuration(step.duration),
                     had_container ? "" : " (no container was there)", VolumeNames(volumes),
                     sim::SurvivorsName(step.survivors));
}

std::string PerformDiskFull(World& world, const Step& step, int&) {
  const std::vector<fakes::Volume*> volumes = VolumesOf(world, step);
  for (fakes::Volume* volume : volumes) volume->SetCapacity(volume->used_bytes());
  return "full: " + VolumeNames(volumes);
}

std::string PerformDiskErrors(World& world, const Step& step, int&) {
  FL_ASSERT(!step.io.empty());  // The reader requires one at least.
  fakes::DiskErrors errors;
  errors.persistent = step.persistent;
  for (const std::string& io : step.io) {
    const std::optional<fakes::DiskIo> named = fakes::DiskIoNamed(io);
    FL_ASSERT_MSG(named.has_value(), "disk I/O {} (checked when read)", io);
    errors.read = errors.read || *named == fakes::DiskIo::kRead;
    errors.write = errors.write || *named == fakes::DiskIo::kWrite;
    errors.sync = errors.sync || *named == fakes::DiskIo::kSync;
  }
  FL_ASSERT(errors.any());
  const std::vector<fakes::Volume*> volumes = VolumesOf(world, step);
  for (fakes::Volume* volume : volumes) volume->SetErrors(errors);
  return fmt::format("EIO on {} {}: {}", step.persistent ? "every" : "the next",
                     fmt::join(step.io, ", "), VolumeNames(volumes));
}

std::string PerformDiskOk(World& world, const Step& step, int&) {
  const std::vector<fakes::Volume*> volumes = VolumesOf(world, step);
  for (fakes::Volume* volume : volumes) volume->Repair();
  return "healthy again: " + VolumeNames(volumes);
}

// --- The table -----------------------------------------------------------

std::string OnVolume(const Step& step) {
  return step.volume.empty() ? std::string() : " (volume " + step.volume + ")";
}

std::vector<StepKind> MakeStepKinds() {
  const auto required = [](Field field) { return StepFieldUse{field, true}; };
  const auto optional = [](Field field) { return StepFieldUse{field, false}; };
  return {
      {.kind = Kind::kUp,
       .name = "up",
       .show = [](const Step&) -> std::string { return "docker compose up"; },
       .perform = PerformUp},
      {.kind = Kind::kDown,
       .name = "down",
       .fault = true,
       .show = [](const Step&) -> std::string { return "docker compose down"; },
       .perform = PerformDown},
      {.kind = Kind::kDown,
       .name = "down -v",
       .number = 1,
       .fault = true,
       .show = [](const Step&) -> std::string { return "docker compose down -v"; },
       .perform = PerformDown},
      {.kind = Kind::kClean,
       .name = "clean",
       .fault = true,
       .show = [](const Step&) -> std::string { return "clean the host data directories"; },
       .perform = PerformClean},
      {.kind = Kind::kSetImage,
       .name = "set-image",
       .fields = {required(Field::kService), required(Field::kVersion)},
       .fault = true,
       .show =
           [](const Step& s) {
             return fmt::format("edit the compose file: {} image {}", s.service, s.version);
           },
       .perform = PerformSetImage},
      {.kind = Kind::kRestart,
       .name = "restart",
       .fields = {required(Field::kService)},
       .fault = true,
       .show = [](const Step& s) { return "docker compose restart " + s.service; },
       .perform = PerformRestart},
      {.kind = Kind::kWait,
       .name = "wait",
       .fields = {required(Field::kFor)},
       .show = [](const Step& s) { return "wait " + sim::FormatDuration(s.duration); },
       .perform = PerformWait},
      {.kind = Kind::kS3,
       .name = "s3",
       .fields = {required(Field::kMethod), required(Field::kPath), optional(Field::kQuery),
                  optional(Field::kBody), optional(Field::kService)},
       .show =
           [](const Step& s) {
             return fmt::format("{} {}{}{}{}", s.method, s.path, s.query.empty() ? "" : "?",
                                s.query, s.service.empty() ? "" : " (to " + s.service + ")");
           },
       .perform = PerformS3},
      {.kind = Kind::kCql,
       .name = "cql",
       .fields = {required(Field::kStatement)},
       .show = [](const Step& s) { return "ycqlsh -e \"" + s.statement + "\""; },
       .perform = PerformCql},
      {.kind = Kind::kMigrateVersion,
       .name = "migrate-version",
       .fields = {required(Field::kKeyspace)},
       .show = [](const Step& s) { return "migrate version (" + s.keyspace + ")"; },
       .perform = PerformMigrateVersion},
      {.kind = Kind::kMigrateForce,
       .name = "migrate-force",
       .number = -1,
       .fields = {required(Field::kKeyspace), required(Field::kTo)},
       .show =
           [](const Step& s) { return fmt::format("migrate force {} ({})", s.number, s.keyspace); },
       .perform = PerformMigrateForce},
      {.kind = Kind::kMigrate,
       .name = "migrate",
       .fields = {required(Field::kKeyspace), required(Field::kCommand), optional(Field::kService)},
       .show =
           [](const Step& s) {
             return fmt::format(
                 "migrate -path {} -database 'cassandra://yugabyte:9042/{}?x-multi-statement=true' "
                 "{}",
                 s.service.empty() ? "<its folder>" : s.service + "'s folder", s.keyspace,
                 s.command);
           },
       .perform = PerformMigrate},
      {.kind = Kind::kRecreateKeyspace,
       .name = "recreate-keyspace",
       .fields = {required(Field::kKeyspace)},
       .show = [](const Step& s) { return "drop and re-create keyspace " + s.keyspace; },
       .perform = PerformRecreateKeyspace},
      {.kind = Kind::kKill,
       .name = "kill",
       .fields = {required(Field::kService)},
       .fault = true,
       .show = [](const Step& s) { return "docker kill " + s.service; },
       .perform = PerformKill},
      {.kind = Kind::kWaitFor,
       .name = "wait-for",
       .fields = {required(Field::kService), required(Field::kUntil), optional(Field::kFor)},
       .default_duration = std::chrono::minutes(10),
       .show =
           [](const Step& s) {
             return fmt::format("wait until {} is {} (at most {})", s.service, s.state,
                                sim::FormatDuration(s.duration));
           },
       .perform = PerformWaitFor},
      {.kind = Kind::kMultipart,
       .name = "multipart",
       .fields = {required(Field::kPath), required(Field::kParts)},
       .show =
           [](const Step& s) {
             return fmt::format("multipart upload of {} parts to {}", s.parts.size(), s.path);
           },
       .perform = PerformMultipart},
      {.kind = Kind::kStop,
       .name = "stop",
       .fields = {required(Field::kService)},
       .show = [](const Step& s) { return "docker compose stop " + s.service; },
       .perform = PerformStop},
      {.kind = Kind::kPartition,
       .name = "partition",
       .fields = {required(Field::kService), optional(Field::kPeer), optional(Field::kOneWay)},
       .fault = true,
       .show =
           [](const Step& s) {
             return s.peer.empty() ? "isolate " + s.service
                                   : fmt::format("partition {} {} {}", s.service,
                                                 s.one_way ? "->" : "<->", s.peer);
           },
       .perform = PerformPartition},
      {.kind = Kind::kHeal,
       .name = "heal",
       .show = [](const Step&) -> std::string { return "heal the network"; },
       .perform = PerformHeal},
      {.kind = Kind::kClog,
       .name = "clog",
       .fields = {required(Field::kService), optional(Field::kPeer), required(Field::kFor),
                  optional(Field::kOneWay)},
       .show =
           [](const Step& s) {
             return fmt::format("clog {} {} {} for {}", s.service, s.one_way ? "->" : "<->",
                                s.peer.empty() ? "everyone" : s.peer,
                                sim::FormatDuration(s.duration));
           },
       .perform = PerformClog},
      {.kind = Kind::kLatency,
       .name = "latency",
       .fields = {required(Field::kBase), optional(Field::kExtra), optional(Field::kDistribution),
                  optional(Field::kService), optional(Field::kPeer), optional(Field::kOneWay)},
       .fault = true,
       .show =
           [](const Step& s) {
             return fmt::format("latency {} + {} {}{}", sim::FormatDuration(s.duration),
                                s.distribution.empty() ? "exponential" : s.distribution,
                                sim::FormatDuration(s.extra),
                                s.service.empty() ? std::string() : " " + Between(s));
           },
       .perform = PerformLatency},
      {.kind = Kind::kLoss,
       .name = "loss",
       .fields = {required(Field::kProbability), optional(Field::kService), optional(Field::kPeer),
                  optional(Field::kOneWay)},
       .fault = true,
       .show =
           [](const Step& s) {
             return fmt::format("loss {:g}{}", s.probability,
                                s.service.empty() ? std::string() : " " + Between(s));
           },
       .perform = PerformLoss},
      {.kind = Kind::kPowerLoss,
       .name = "power-loss",
       .fields = {required(Field::kService), optional(Field::kSurvives), optional(Field::kFor)},
       .default_duration = std::chrono::seconds(10),
       .fault = true,
       .show =
           [](const Step& s) {
             return fmt::format("power loss on {} for {} (keeping {})", s.service,
                                sim::FormatDuration(s.duration), sim::SurvivorsName(s.survivors));
           },
       .perform = PerformPowerLoss},
      {.kind = Kind::kDiskFull,
       .name = "disk-full",
       .fields = {required(Field::kService), optional(Field::kVolume)},
       .fault = true,
       .show = [](const Step& s) { return "fill the disk of " + s.service + OnVolume(s); },
       .perform = PerformDiskFull},
      {.kind = Kind::kDiskErrors,
       .name = "disk-errors",
       .fields = {required(Field::kService), required(Field::kOn), optional(Field::kPersistent),
                  optional(Field::kVolume)},
       .fault = true,
       .show =
           [](const Step& s) {
             return fmt::format("EIO on {} {} for {}{}", fmt::join(s.io, ", "),
                                s.persistent ? "from now on" : "once", s.service, OnVolume(s));
           },
       .perform = PerformDiskErrors},
      {.kind = Kind::kDiskOk,
       .name = "disk-ok",
       .fields = {required(Field::kService), optional(Field::kVolume)},
       .show = [](const Step& s) { return "repair the disk of " + s.service + OnVolume(s); },
       .perform = PerformDiskOk},
  };
}

}  // namespace

// The table's own rules, checked once: names unique, no field twice in a
// kind, an optional `for` has its default. (A Step::Kind without an entry
// cannot be read from a file; StepKindOf names it if code builds one.)
void CheckTable(const std::vector<StepKind>& kinds) {
  std::set<std::string_view> names;
  for (const StepKind& kind : kinds) {
    FL_ASSERT_MSG(names.insert(kind.name).second, "step kind {} is in the table twice", kind.name);
    FL_ASSERT(kind.show != nullptr);
    FL_ASSERT(kind.perform != nullptr);
    std::set<StepField> fields;
    for (const StepFieldUse& use : kind.fields) {
      FL_ASSERT_MSG(fields.insert(use.field).second, "{} takes {} twice", kind.name,
                    StepFieldKey(use.field));
      if (use.field == Field::kFor && !use.required) {
        FL_ASSERT_MSG(kind.default_duration > sim::Duration::zero(),
                      "{}: an optional 'for' "
                      "needs a default",
                      kind.name);
      }
    }
    for (const StepFieldUse& use : kind.fields) FieldSpecOf(use.field);  // Each has an entry.
    // A kind whose number is a field (-1) takes `to`, and only it.
    FL_ASSERT((kind.number < 0) == fields.contains(Field::kTo));
  }
}

const std::vector<StepKind>& StepKinds() {
  static const std::vector<StepKind> kKinds = [] {
    std::vector<StepKind> kinds = MakeStepKinds();  // Immutable once made.
    CheckTable(kinds);
    return kinds;
  }();
  return kKinds;
}

const StepKind* FindStepKind(std::string_view name) {
  for (const StepKind& kind : StepKinds()) {
    if (kind.name == name) return &kind;
  }
  return nullptr;
}

const StepKind& StepKindOf(const Step& step) {
  for (const StepKind& kind : StepKinds()) {
    // Kinds that share a Step::Kind differ by the number their name sets.
    if (kind.kind == step.kind && (kind.number < 0 || kind.number == step.number)) {
      FL_ASSERT(kind.kind == step.kind);
      return kind;
    }
  }
  FL_PANIC("step kind {} is not in the table", static_cast<int>(step.kind));
}

}  // namespace faultline::scenarios
