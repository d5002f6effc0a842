// Cluster benchmark (issue #5), two workloads:
// 1. Full runs: a fresh seed cluster (store, db-init, two nodes, the proxy,
//    all migrations) starts, then a client makes 100 PUTs and 100 GETs
//    through the proxy. Prints runs per second on one core (target 200).
// 2. A crash-looping start-up: kuri-1's keyspace is dirty, so the node
//    retries its migration 30 times (2 s doubling to 15 s), exits 1, is
//    restarted, and so on, for `--loop-minutes` of virtual time. Prints
//    virtual seconds per wall second (target 10,000).
//
// Usage: cluster_bench [--runs N] [--loop-minutes N] [--repeat N]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_flags.h"
#include "fakes/environment.h"
#include "models/cql/client.h"
#include "models/s3/seed_images.h"

namespace {

namespace s3 = faultline::models::s3;
namespace fakes = faultline::fakes;
namespace sim = faultline::sim;
using Clock = std::chrono::steady_clock;

struct Options {
  int runs = 200;
  int loop_minutes = 600;
  int repeat = 3;
};

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "cluster_bench: %s\n", what.c_str());
  std::exit(1);
}

// A seed cluster in its own simulation.
struct Cluster : fakes::Environment {
  explicit Cluster(std::uint64_t seed)
      : fakes::Environment({.seed = seed}, fakes::NetworkOptions{.trace_messages = false}) {
    s3::RegisterSeedImages(runtime);
    if (!runtime.Up(s3::SeedComposeSpec()).ok()) Fail("compose up failed");
  }
};

// One full run; returns the number of requests that succeeded (200 expected).
int FullRun(std::uint64_t seed) {
  Cluster cluster(seed);
  cluster.simulation.RunFor(std::chrono::seconds(3));  // Start-up, migrations, first probes.
  int succeeded = 0;
  bool done = false;
  sim::Process& client = cluster.simulation.AddProcess("client");
  client.Start([&]() -> sim::Awaitable<int> {
    for (int i = 0; i < 100; ++i) {
      fakes::Request put("PUT", "/bench/object-" + std::to_string(i), std::string(1024, 'x'));
      sim::Result<fakes::Response> response = co_await cluster.network.Call(
          fakes::Endpoint("s3-proxy", s3::kProxyPort), std::move(put), std::chrono::seconds(10));
      if (response.ok() && response->status == 200) ++succeeded;
    }
    for (int i = 0; i < 100; ++i) {
      fakes::Request get("GET", "/bench/object-" + std::to_string(i));
      sim::Result<fakes::Response> response = co_await cluster.network.Call(
          fakes::Endpoint("s3-proxy", s3::kProxyPort), std::move(get), std::chrono::seconds(10));
      if (response.ok() && response->status == 200) ++succeeded;
    }
    done = true;
    co_return 0;
  });
  // The run ends when the client is done (or the step budget runs out).
  cluster.simulation.RunUntil([&] { return done; });
  return succeeded;
}

// The crash loop; returns the virtual seconds simulated and kuri-1's restarts.
std::pair<double, int> CrashLoop(int minutes) {
  Cluster cluster(7);
  cluster.simulation.RunFor(std::chrono::seconds(3));
  bool marked = false;
  sim::Process& operator_process = cluster.simulation.AddProcess("operator");
  operator_process.Start([&]() -> sim::Awaitable<int> {
    faultline::models::cql::CqlSession session(cluster.network);
    faultline::models::cql::ClientResult result = co_await session.Query(
        "UPDATE filecoingw_kuri1.schema_migrations SET dirty = true WHERE version = 1754293669");
    marked = result.ok();
    co_return 0;
  });
  cluster.simulation.RunFor(std::chrono::seconds(1));
  if (!marked) Fail("could not mark the keyspace dirty");
  cluster.runtime.Restart("kuri-1");
  const sim::TimePoint start = cluster.simulation.Now();
  cluster.simulation.RunFor(std::chrono::minutes(minutes));
  const double simulated = std::chrono::duration<double>(cluster.simulation.Now() - start).count();
  return {simulated, cluster.runtime.restart_count("kuri-1")};
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  faultline::bench::ParseFlags(
      "cluster_bench", "cluster_bench [--runs N] [--loop-minutes N] [--repeat N]", argc, argv,
      {{"--runs", &options.runs},
       {"--loop-minutes", &options.loop_minutes},
       {"--repeat", &options.repeat}});
  std::vector<double> runs_per_second;
  std::vector<double> virtual_per_wall;
  int restarts = 0;
  for (int r = 0; r < options.repeat; ++r) {
    const auto start = Clock::now();
    for (int run = 0; run < options.runs; ++run) {
      const int succeeded = FullRun(static_cast<std::uint64_t>(run + 1));
      if (succeeded != 200)
        Fail("run " + std::to_string(run + 1) + ": " + std::to_string(succeeded) +
             "/200 requests succeeded");
    }
    runs_per_second.push_back(options.runs /
                              std::chrono::duration<double>(Clock::now() - start).count());
    const auto loop_start = Clock::now();
    const auto [simulated, loop_restarts] = CrashLoop(options.loop_minutes);
    virtual_per_wall.push_back(simulated /
                               std::chrono::duration<double>(Clock::now() - loop_start).count());
    restarts = loop_restarts;
  }
  std::printf("full runs: %d runs of start-up + 100 PUT + 100 GET, medians of %d\n", options.runs,
              options.repeat);
  std::printf("crash loop: %d virtual minutes, kuri-1 restarted %d times\n", options.loop_minutes,
              restarts);
  std::printf("runs_per_second=%.0f\n", faultline::bench::Median(runs_per_second));
  std::printf("virtual_seconds_per_wall_second=%.0f\n", faultline::bench::Median(virtual_per_wall));
  return 0;
}
