// Random network schedules: hosts call each other while links are blocked,
// partitioned and healed at random times. Safety: no message is ever
// delivered across a blocked link. Liveness: once healed, every message is
// delivered unless the loss model dropped it, and the trace records each drop.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "fakes/network.h"

namespace faultline::fakes {
namespace {

using sim::Awaitable;
using std::chrono::microseconds;

constexpr int kHosts = 4;
constexpr std::uint16_t kPort = 1;

struct Chaos {
  enum class Kind : unsigned char { kBlock, kPartition, kHeal };
  Kind kind = Kind::kHeal;
  std::int64_t at_us = 0;
  int a = 0;
  int b = 0;
};

void showValue(const Chaos& chaos, std::ostream& out) {
  static const char* kKinds[] = {"block", "partition", "heal"};
  out << kKinds[static_cast<int>(chaos.kind)] << "@" << chaos.at_us << "us(h" << chaos.a << ", h"
      << chaos.b << ")";
}

std::string Host(int index) { return "h" + std::to_string(index); }

// Checks every event as it is recorded, while the network's state is that
// of the moment, and follows each message sent after the heal to its fate.
class DeliveryChecker final : public sim::TraceSink {
 public:
  void Write(const sim::TraceEvent& event) override {
    if (network == nullptr) return;
    const bool send = event.name == "net.send";
    const bool deliver = event.name == "net.deliver";
    const bool drop = event.name == "net.drop";
    if (!send && !deliver && !drop) return;
    const std::uint64_t id = event.Find("id")->AsUint();
    if (deliver &&
        network->IsBlocked(event.Find("from")->AsString(), event.Find("to")->AsString())) {
      ++delivered_across_partition;
    }
    if (send && healed) after_heal.insert(id);
    if (!after_heal.contains(id)) return;
    if (deliver) delivered_after_heal.insert(id);
    if (drop && event.Find("reason")->AsString() == "loss") lost_after_heal.insert(id);
    if (drop && event.Find("reason")->AsString() != "loss") ++blocked_after_heal;
  }

  const Network* network = nullptr;
  bool healed = false;
  int delivered_across_partition = 0;
  int blocked_after_heal = 0;
  std::set<std::uint64_t> after_heal;
  std::set<std::uint64_t> delivered_after_heal;
  std::set<std::uint64_t> lost_after_heal;
};

RC_GTEST_PROP(NetworkPropertyTest, PartitionsAreNeverCrossedAndHealingDeliversEverything, ()) {
  const auto chaos = *rc::gen::container<std::vector<Chaos>>(rc::gen::apply(
      [](Chaos::Kind kind, std::int64_t at_us, int a, int b) {
        return Chaos{kind, at_us, a, b};
      },
      rc::gen::element(Chaos::Kind::kBlock, Chaos::Kind::kPartition, Chaos::Kind::kHeal),
      rc::gen::inRange<std::int64_t>(0, 20'000), rc::gen::inRange(0, kHosts),
      rc::gen::inRange(0, kHosts)));
  const double loss = *rc::gen::element(0.0, 0.1);
  const double duplication = *rc::gen::element(0.0, 0.1);
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  RC_LOG() << "simulation seed " << seed << ", loss " << loss << ", duplication " << duplication
           << "\n";

  DeliveryChecker checker;
  sim::Simulation simulation({.seed = seed, .sinks = {&checker}});
  Network network(simulation, {.loss_probability = loss, .duplicate_probability = duplication});
  checker.network = &network;
  constexpr auto kHealAt = microseconds(25'000);
  int calls_after_heal_ok = 0;
  for (int h = 0; h < kHosts; ++h) {
    sim::Process& host = simulation.AddProcess(Host(h));
    host.Start([&, h]() -> Awaitable<int> {
      network.Listen(host, kPort, [](Request request) -> Awaitable<Response> {
        co_return Response(200, request.body);
      });
      sim::Rng random = simulation.Random(Host(h));
      // Safety phase: calls while the chaos runs.
      for (int i = 0; i < 20; ++i) {
        co_await sim::SleepFor(microseconds(random.UniformInt(0, 1500)));
        const Endpoint to(Host(static_cast<int>(random.Uniform(kHosts))), kPort);
        (void)co_await network.Call(to, Request("GET", "/"), microseconds(3000));
      }
      // Liveness phase, after the heal: everything gets through.
      co_await sim::SleepUntil(sim::kTimeZero + kHealAt + microseconds(1000));
      for (int i = 0; i < 5; ++i) {
        const Endpoint to(Host((h + i) % kHosts), kPort);
        const sim::Result<Response> result =
            co_await network.Call(to, Request("GET", "/"), std::chrono::seconds(1));
        if (result.ok()) ++calls_after_heal_ok;
      }
      co_await sim::SleepFor(std::chrono::hours(1));
      co_return 0;
    });
  }
  simulation.Spawn("chaos", [&]() -> Awaitable<void> {
    std::vector<Chaos> ordered = chaos;
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Chaos& x, const Chaos& y) { return x.at_us < y.at_us; });
    for (const Chaos& event : ordered) {
      co_await sim::SleepUntil(sim::kTimeZero + microseconds(event.at_us));
      switch (event.kind) {
        case Chaos::Kind::kBlock:
          network.BlockLink(Host(event.a), Host(event.b));
          break;
        case Chaos::Kind::kPartition:
          network.Partition({Host(event.a)}, {Host(event.b)});
          break;
        case Chaos::Kind::kHeal:
          network.Heal();
          break;
      }
    }
    co_await sim::SleepUntil(sim::kTimeZero + kHealAt);
    network.Heal();
    checker.healed = true;
  });
  simulation.RunFor(std::chrono::seconds(10));

  RC_ASSERT(checker.delivered_across_partition == 0);
  RC_ASSERT(checker.blocked_after_heal == 0);
  RC_ASSERT(!checker.after_heal.empty());
  for (const std::uint64_t id : checker.after_heal) {
    RC_ASSERT(checker.delivered_after_heal.contains(id) != checker.lost_after_heal.contains(id));
  }
  if (loss == 0.0) RC_ASSERT(calls_after_heal_ok == kHosts * 5);
}

}  // namespace
}  // namespace faultline::fakes
