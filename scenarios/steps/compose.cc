// The compose and container steps: up, down, clean, set-image, restart,
// kill, stop, and the waits (steps/perform.h).
#include <fmt/format.h>

#include <chrono>
#include <functional>

#include "fakes/runtime.h"
#include "scenarios/steps/perform.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

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
  FL_ASSERT(only.empty() || services.size() <= 1);
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
StepOutcome NoContainer(const std::string& service, std::string_view verb) {
  return StepOutcome::Failed(
      fmt::format("cannot {} {}: no such container (is the cluster up?)", verb, service));
}

}  // namespace

StepOutcome PerformUp(World& world, const Step&) {
  // A `down` still stopping containers would stop the ones this up revives:
  // as compose runs one command after another, let it finish first (bounded).
  if (!world.runtime.idle()) {
    world.Advance(kStopBound, [&world] { return world.runtime.idle(); });
  }
  // As `docker compose up --wait`: done once every service has started and
  // those running serve (at most kUpBound).
  const std::uint64_t asked = world.runtime.operations_asked();
  const sim::Status up = world.op.ComposeUp(world.spec);
  if (!up.ok()) return StepOutcome::Failed("compose up failed: " + up.message());
  const bool done = world.Advance(kUpBound, ServingOrDown(world, "", asked));
  std::string text = done ? "compose up" : "compose up" + Unfinished(kUpBound);
  // As compose reports a service a failed dependency held back; a later
  // `up` starts it again.
  for (const std::string& held : world.runtime.HeldBack()) text += "; not started: " + held;
  return StepOutcome::Did(std::move(text));
}

StepOutcome PerformDown(World& world, const Step& step) {
  FL_ASSERT(step.number == 0 || step.number == 1);  // down, or down -v.
  const std::uint64_t asked = world.runtime.operations_asked();
  world.op.ComposeDown(step.number == 1);
  const bool done =
      world.Advance(kStopBound, [&world, asked] { return world.runtime.DoneSince(asked); });
  return StepOutcome::Did(
      std::string(step.number == 1 ? "compose down -v" : "compose down (volumes kept)") +
      (done ? "" : Unfinished(kStopBound)));
}

StepOutcome PerformClean(World& world, const Step&) {
  world.op.Clean();
  return StepOutcome::Did("host data directories emptied; named volumes are not touched");
}

StepOutcome PerformSetImage(World& world, const Step& step) {
  FL_ASSERT(!step.version.empty());
  int changed = 0;
  for (fakes::ServiceSpec& service : world.spec.services) {
    if (service.name != step.service) continue;
    service.version = step.version;
    ++changed;
  }
  FL_ASSERT_MSG(changed == 1, "set-image: {} services named {}", changed, step.service);
  // The compose file changes; the next `up` recreates the container.
  return StepOutcome::Did(
      fmt::format("the compose file now has {} at image version {}", step.service, step.version));
}

StepOutcome PerformRestart(World& world, const Step& step) {
  if (!world.runtime.HasContainer(step.service)) return NoContainer(step.service, "restart");
  const std::uint64_t asked = world.runtime.operations_asked();
  world.op.Restart(step.service);
  return StepOutcome::Did(world.Advance(kRestartBound, ServingOrDown(world, step.service, asked))
                              ? "restarted " + step.service
                              : "restarted " + step.service + ", not serving yet");
}

StepOutcome PerformKill(World& world, const Step& step) {
  if (!world.runtime.HasContainer(step.service)) return NoContainer(step.service, "kill");
  world.runtime.Kill(step.service);
  // Done once the runtime has seen the exit (its restart policy then takes over).
  world.Advance(kStopBound, [&world, &step] {
    return world.runtime.state(step.service) != fakes::ContainerState::kRunning;
  });
  return StepOutcome::Did("killed " + step.service);
}

StepOutcome PerformStop(World& world, const Step& step) {
  if (!world.runtime.HasContainer(step.service)) return NoContainer(step.service, "stop");
  const std::uint64_t asked = world.runtime.operations_asked();
  world.runtime.Stop(step.service);
  return StepOutcome::Did(
      world.Advance(kStopBound, [&world, asked] { return world.runtime.DoneSince(asked); })
          ? "stopped " + step.service
          : "stopping " + step.service + Unfinished(kStopBound));
}

StepOutcome PerformWait(World& world, const Step& step) {
  FL_ASSERT(step.duration >= sim::Duration::zero());
  const sim::TimePoint until = world.simulation.Now() + step.duration;
  world.Advance(step.duration, nullptr);
  FL_ASSERT(!world.budget_spent().empty() || world.simulation.Now() == until);
  return StepOutcome::Did("waited " + sim::FormatDuration(step.duration));
}

StepOutcome PerformWaitFor(World& world, const Step& step) {
  FL_ASSERT(!step.state.empty());
  FL_ASSERT(step.duration > sim::Duration::zero());
  const bool reached = world.Advance(step.duration, [&world, &step] {
    return world.runtime.HasContainer(step.service) &&
           fakes::ContainerStateName(world.runtime.state(step.service)) == step.state;
  });
  const std::string now =
      world.runtime.HasContainer(step.service)
          ? std::string(fakes::ContainerStateName(world.runtime.state(step.service)))
          : "absent";
  std::string words =
      fmt::format("{} is {} at {}", step.service, now, sim::FormatTime(world.simulation.Now()));
  return reached ? StepOutcome::Did(std::move(words)) : StepOutcome::Failed(std::move(words));
}

}  // namespace faultline::scenarios
