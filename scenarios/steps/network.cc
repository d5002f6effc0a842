// The network's steps: partitions, clogs, latency and loss on links, and
// healing them (steps/perform.h).
#include <fmt/format.h>

#include "fakes/network.h"
#include "scenarios/steps/perform.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"
#include "sim/names.h"

namespace faultline::scenarios {
namespace {

using Latency = fakes::NetworkOptions::Latency;

// The hosts on the other side of `step`: its peer, or every other service
// and helper host.
std::vector<std::string> OtherSide(const World& world, const Step& step) {
  FL_ASSERT(!step.service.empty());
  if (!step.peer.empty()) return {step.peer};
  std::vector<std::string> hosts;
  for (const fakes::ServiceSpec& service : world.spec.services) {
    if (service.name != step.service) hosts.push_back(service.name);
  }
  for (const char* helper : kHelperHosts) hosts.emplace_back(helper);
  FL_ASSERT(!hosts.empty());
  return hosts;
}

// Acts on every link of `step` (both ways, unless it is one way).
template <typename Act>
void OnLinks(const World& world, const Step& step, Act act) {
  for (const std::string& other : OtherSide(world, step)) {
    act(step.service, other);
    if (!step.one_way) act(other, step.service);
  }
}

}  // namespace

std::string Between(const Step& step) {
  const std::string peer = step.peer.empty() ? "every other host" : step.peer;
  return step.one_way ? fmt::format("from {} to {}", step.service, peer)
                      : fmt::format("between {} and {}", step.service, peer);
}

StepOutcome PerformPartition(World& world, const Step& step) {
  OnLinks(world, step, [&](const std::string& from, const std::string& to) {
    world.network.BlockLink(from, to);
  });
  return StepOutcome::Did(
      step.peer.empty() ? step.service + " cut off from every other host"
      : step.one_way    ? fmt::format("messages from {} to {} are dropped", step.service, step.peer)
                     : fmt::format("{} and {} cannot reach each other", step.service, step.peer));
}

StepOutcome PerformHeal(World& world, const Step&) {
  world.network.Heal();
  FL_ASSERT(!world.network.HasBlockedOrClogged());
  return StepOutcome::Did("every link unblocked and unclogged");
}

StepOutcome PerformClog(World& world, const Step& step) {
  FL_ASSERT(step.duration > sim::Duration::zero());
  const sim::TimePoint until = world.simulation.Now() + step.duration;
  OnLinks(world, step, [&](const std::string& from, const std::string& to) {
    world.network.Clog(from, to, until);
  });
  return StepOutcome::Did(fmt::format("messages between {} and {} held until {}", step.service,
                                      step.peer.empty() ? "every other host" : step.peer,
                                      sim::FormatTime(until)));
}

StepOutcome PerformLatency(World& world, const Step& step) {
  const Latency distribution = step.distribution.value_or(Latency::kExponential);
  const std::string extra =
      fmt::format("{} plus an extra of mean {} ({})", sim::FormatDuration(step.duration),
                  sim::FormatDuration(step.extra),
                  sim::NameOf(fakes::NetworkOptions::kLatencies, distribution));
  if (step.service.empty()) {
    world.network.SetLatency(distribution, step.duration, step.extra);
    return StepOutcome::Did("every message takes " + extra);
  }
  OnLinks(world, step, [&](const std::string& from, const std::string& to) {
    world.network.SetLinkLatency(from, to, distribution, step.duration, step.extra);
  });
  return StepOutcome::Did(fmt::format("messages {} take {}", Between(step), extra));
}

StepOutcome PerformLoss(World& world, const Step& step) {
  FL_ASSERT(step.probability >= 0.0 && step.probability <= 1.0);
  if (step.service.empty()) {
    world.network.SetLoss(step.probability);
    return StepOutcome::Did(
        fmt::format("each message is lost with probability {:g}", step.probability));
  }
  OnLinks(world, step, [&](const std::string& from, const std::string& to) {
    world.network.SetLinkLoss(from, to, step.probability);
  });
  return StepOutcome::Did(fmt::format("each message {} is lost with probability {:g}",
                                      Between(step), step.probability));
}

}  // namespace faultline::scenarios
