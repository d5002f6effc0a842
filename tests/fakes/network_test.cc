#include "fakes/network.h"

#include <gtest/gtest.h>

namespace faultline::fakes {
namespace {

using sim::Awaitable;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::uint16_t kPort = 7001;

// A cluster of named processes on one network; `kuri-1` echoes requests.
struct Cluster {
  explicit Cluster(NetworkOptions options = {}, std::uint64_t seed = 1)
      : simulation({.seed = seed}), network(simulation, options) {}

  sim::Process& StartEcho(const std::string& host) {
    sim::Process& process = simulation.AddProcess(host);
    StartServing(process);
    return process;
  }
  void StartServing(sim::Process& process) {
    process.Start([this, &process]() -> Awaitable<int> {
      network.Listen(process, kPort, [this](Request request) -> Awaitable<Response> {
        ++served;
        co_return Response(200, "echo " + request.body);
      });
      co_await sim::SleepFor(std::chrono::hours(24));
      co_return 0;
    });
  }
  // Calls `to` from a new process named `from`; stores the outcome.
  void CallFrom(const std::string& from, Endpoint to, sim::Duration timeout,
                sim::TimePoint at = sim::kTimeZero) {
    sim::Process& client = simulation.AddProcess(from);
    client.Start([this, to, timeout, at]() -> Awaitable<int> {
      co_await sim::SleepUntil(at);
      const sim::TimePoint start = simulation.Now();
      result = co_await network.Call(to, Request("GET", "/healthz", "ping"), timeout);
      elapsed = simulation.Now() - start;
      co_return 0;
    });
  }

  sim::Simulation simulation;
  Network network;
  int served = 0;
  std::optional<sim::Result<Response>> result;
  sim::Duration elapsed{};
};

TEST(NetworkTest, ACallReachesTheListenerAndComesBack) {
  Cluster cluster;
  cluster.StartEcho("kuri-1");
  cluster.CallFrom("s3-proxy", {"kuri-1", kPort}, seconds(1));
  cluster.simulation.RunFor(seconds(2));
  ASSERT_TRUE(cluster.result.has_value());
  ASSERT_TRUE(cluster.result->ok()) << cluster.result->status().ToString();
  EXPECT_EQ((*cluster.result)->body, "echo ping");
  EXPECT_GE(cluster.elapsed, 2 * NetworkOptions{}.latency_base);  // There and back.
  EXPECT_EQ(cluster.network.counters().delivered, 2u);
}

TEST(NetworkTest, NobodyListeningRefusesTheConnectionFast) {
  Cluster cluster;
  cluster.CallFrom("s3-proxy", {"kuri-1", kPort}, seconds(30));
  cluster.simulation.RunFor(seconds(31));
  ASSERT_TRUE(cluster.result.has_value());
  EXPECT_EQ(cluster.result->status().code(), sim::StatusCode::kUnavailable);
  EXPECT_EQ(cluster.result->status().message(), "connection refused by kuri-1:7001");
  EXPECT_LT(cluster.elapsed, milliseconds(100));
  EXPECT_EQ(cluster.network.counters().refused, 1u);
}

TEST(NetworkTest, AListenerEndsWithItsIncarnation) {
  Cluster cluster;
  sim::Process& kuri = cluster.StartEcho("kuri-1");
  cluster.simulation.RunFor(milliseconds(1));
  kuri.Kill();
  cluster.CallFrom("s3-proxy", {"kuri-1", kPort}, seconds(1), sim::kTimeZero + milliseconds(2));
  cluster.simulation.RunFor(seconds(2));
  EXPECT_EQ(cluster.result->status().code(), sim::StatusCode::kUnavailable);
  // A new incarnation serves again once it listens again.
  cluster.StartServing(kuri);
  cluster.CallFrom("s3-proxy-2", {"kuri-1", kPort}, seconds(1),
                   cluster.simulation.Now() + milliseconds(1));
  cluster.simulation.RunFor(seconds(2));
  EXPECT_TRUE(cluster.result->ok());
}

TEST(NetworkTest, ARequestAbandonedByACrashTimesOut) {
  Cluster cluster;
  sim::Process& kuri = cluster.simulation.AddProcess("kuri-1");
  kuri.Start([&]() -> Awaitable<int> {
    cluster.network.Listen(kuri, kPort, [](Request) -> Awaitable<Response> {
      co_await sim::SleepFor(seconds(10));  // Slow: the crash comes first.
      co_return Response(200);
    });
    co_await sim::SleepFor(std::chrono::hours(1));
    co_return 0;
  });
  cluster.CallFrom("s3-proxy", {"kuri-1", kPort}, seconds(5));
  cluster.simulation.RunFor(seconds(1));
  kuri.Kill();
  cluster.simulation.RunFor(seconds(10));
  EXPECT_TRUE(cluster.result->status().IsTimedOut());
  EXPECT_EQ(cluster.elapsed, seconds(5));
}

TEST(NetworkTest, APartitionDropsBothWaysUntilHealed) {
  Cluster cluster;
  cluster.StartEcho("kuri-1");
  cluster.network.Partition({"s3-proxy"}, {"kuri-1"});
  cluster.CallFrom("s3-proxy", {"kuri-1", kPort}, seconds(1));
  cluster.simulation.RunFor(seconds(2));
  EXPECT_TRUE(cluster.result->status().IsTimedOut());
  EXPECT_EQ(cluster.served, 0);
  EXPECT_EQ(cluster.network.counters().partitioned, 1u);
  cluster.network.Heal();
  cluster.CallFrom("s3-proxy-2", {"kuri-1", kPort}, seconds(1), cluster.simulation.Now());
  cluster.simulation.RunFor(seconds(2));
  EXPECT_TRUE(cluster.result->ok());
}

TEST(NetworkTest, AOneWayPartitionLetsTheRequestInButNotTheResponseOut) {
  Cluster cluster;
  cluster.StartEcho("kuri-1");
  cluster.network.BlockLink("kuri-1", "s3-proxy");
  cluster.CallFrom("s3-proxy", {"kuri-1", kPort}, seconds(1));
  cluster.simulation.RunFor(seconds(2));
  EXPECT_EQ(cluster.served, 1);                        // The node did the work...
  EXPECT_TRUE(cluster.result->status().IsTimedOut());  // ...and the proxy never heard.
}

TEST(NetworkTest, LossDropsAndTheTraceSaysSo) {
  sim::RingSink sink(64);
  sim::Simulation simulation({.seed = 3, .sinks = {&sink}});
  Network network(simulation, {.loss_probability = 1.0});
  sim::Process& kuri = simulation.AddProcess("kuri-1");
  kuri.Start([&]() -> Awaitable<int> {
    network.Listen(kuri, kPort, [](Request) -> Awaitable<Response> { co_return Response(200); });
    co_await sim::SleepFor(seconds(10));
    co_return 0;
  });
  std::optional<sim::Result<Response>> result;
  simulation.Spawn("client", [&]() -> Awaitable<void> {
    result = co_await network.Call({"kuri-1", kPort}, Request("GET", "/"), seconds(1));
  });
  simulation.RunFor(seconds(2));
  EXPECT_TRUE(result->status().IsTimedOut());
  int drops = 0;
  for (const sim::TraceEvent& event : sink.Events()) {
    if (event.name == "net.drop" && event.Find("reason")->AsString() == "loss") ++drops;
  }
  EXPECT_EQ(drops, 1);
}

TEST(NetworkTest, DuplicatesAreServedTwiceAndAnsweredOnce) {
  Cluster cluster({.duplicate_probability = 1.0});
  cluster.StartEcho("kuri-1");
  cluster.CallFrom("s3-proxy", {"kuri-1", kPort}, seconds(1));
  cluster.simulation.RunFor(seconds(2));
  EXPECT_EQ(cluster.served, 2);
  ASSERT_TRUE(cluster.result->ok());
  EXPECT_EQ((*cluster.result)->body, "echo ping");
}

TEST(NetworkTest, AClogHoldsMessagesUntilItClears) {
  Cluster cluster({.latency_base = milliseconds(1), .latency_extra_mean = sim::Duration::zero()});
  cluster.StartEcho("kuri-1");
  cluster.network.Clog("s3-proxy", "kuri-1", sim::kTimeZero + milliseconds(300));
  cluster.CallFrom("s3-proxy", {"kuri-1", kPort}, seconds(1));
  cluster.simulation.RunFor(seconds(2));
  ASSERT_TRUE(cluster.result->ok());
  EXPECT_EQ(cluster.elapsed, milliseconds(301));  // Held until 300 ms, then 1 ms back.
}

TEST(NetworkTest, LatencyFollowsTheConfiguredDistribution) {
  using Latency = NetworkOptions::Latency;
  for (const Latency distribution : {Latency::kFixed, Latency::kUniform, Latency::kExponential}) {
    sim::Duration shortest = sim::Duration::max();
    sim::Duration longest = sim::Duration::zero();
    sim::Duration total{};
    constexpr int kCalls = 400;
    for (int i = 0; i < kCalls; ++i) {
      Cluster cluster({.latency_distribution = distribution,
                       .latency_base = milliseconds(1),
                       .latency_extra_mean = milliseconds(2)},
                      /*seed=*/static_cast<std::uint64_t>(i + 1));
      cluster.StartEcho("kuri-1");
      cluster.CallFrom("s3-proxy", {"kuri-1", kPort}, seconds(10));
      cluster.simulation.RunFor(seconds(11));
      ASSERT_TRUE(cluster.result->ok());
      shortest = std::min(shortest, cluster.elapsed);
      longest = std::max(longest, cluster.elapsed);
      total += cluster.elapsed;
    }
    // A call is two one-way trips: 2 ms of base and, on average, 4 ms extra.
    const double mean_ms = std::chrono::duration<double, std::milli>(total).count() / kCalls;
    if (distribution == Latency::kFixed) {
      EXPECT_EQ(shortest, milliseconds(2));
      EXPECT_EQ(longest, milliseconds(2));
    } else {
      EXPECT_NEAR(mean_ms, 6.0, 0.6) << static_cast<int>(distribution);
      EXPECT_GE(shortest, milliseconds(2));
    }
    if (distribution == Latency::kUniform) {
      EXPECT_LE(longest, milliseconds(10));
    }
    if (distribution == Latency::kExponential) {
      EXPECT_GT(longest, milliseconds(14));  // Its long tail.
    }
  }
}

TEST(NetworkTest, LatencyJitterReordersMessages) {
  std::set<std::vector<int>> orders;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Cluster cluster({}, seed);
    std::vector<int> arrivals;
    sim::Process& kuri = cluster.simulation.AddProcess("kuri-1");
    kuri.Start([&]() -> Awaitable<int> {
      cluster.network.Listen(kuri, kPort, [&](Request request) -> Awaitable<Response> {
        arrivals.push_back(std::stoi(request.body));
        co_return Response(200);
      });
      co_await sim::SleepFor(seconds(10));
      co_return 0;
    });
    sim::Process& proxy = cluster.simulation.AddProcess("s3-proxy");
    proxy.Start([&]() -> Awaitable<int> {
      for (int i = 0; i < 3; ++i) {
        proxy.Spawn("send", [&, i]() -> Awaitable<void> {
          (void)co_await cluster.network.Call({"kuri-1", kPort},
                                              Request("PUT", "/", std::to_string(i)), seconds(1));
        });
      }
      co_await sim::SleepFor(seconds(5));
      co_return 0;
    });
    cluster.simulation.RunFor(seconds(6));
    ASSERT_EQ(arrivals.size(), 3u);
    orders.insert(arrivals);
  }
  EXPECT_GT(orders.size(), 2u);
}

}  // namespace
}  // namespace faultline::fakes
