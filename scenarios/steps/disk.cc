// The disks' steps: a power loss, a disk that fills, one that fails I/O,
// and repairing it (steps/perform.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fakes/runtime.h"
#include "fakes/volume.h"
#include "scenarios/steps/perform.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {

namespace {

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

}  // namespace

StepOutcome PerformPowerLoss(World& world, const Step& step) {
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
  return StepOutcome::Did(fmt::format("{} lost power for {}{}; {} kept {}", step.service,
                                      sim::FormatDuration(step.duration),
                                      had_container ? "" : " (no container was there)",
                                      VolumeNames(volumes), sim::SurvivorsName(step.survivors)));
}

StepOutcome PerformDiskFull(World& world, const Step& step) {
  const std::vector<fakes::Volume*> volumes = VolumesOf(world, step);
  for (fakes::Volume* volume : volumes) volume->SetCapacity(volume->used_bytes());
  return StepOutcome::Did("full: " + VolumeNames(volumes));
}

StepOutcome PerformDiskErrors(World& world, const Step& step) {
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
  return StepOutcome::Did(fmt::format("EIO on {} {}: {}", step.persistent ? "every" : "the next",
                                      fmt::join(step.io, ", "), VolumeNames(volumes)));
}

StepOutcome PerformDiskOk(World& world, const Step& step) {
  const std::vector<fakes::Volume*> volumes = VolumesOf(world, step);
  for (fakes::Volume* volume : volumes) volume->Repair();
  return StepOutcome::Did("healthy again: " + VolumeNames(volumes));
}

}  // namespace faultline::scenarios
