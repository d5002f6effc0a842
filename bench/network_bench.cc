// Network benchmark: client tasks make request/response calls to an echo
// server through the simulated network (default latency model, per-message
// tracing off); reports messages delivered per second of wall time.
//
// Usage: network_bench [--clients N] [--calls N] [--repeat N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_flags.h"
#include "fakes/network.h"

namespace {

using faultline::fakes::Endpoint;
using faultline::fakes::Network;
using faultline::fakes::Request;
using faultline::fakes::Response;
using faultline::sim::Awaitable;

struct Options {
  int clients = 100;
  int calls = 2000;
  int repeat = 3;
};

struct Figures {
  double seconds = 0;
  std::uint64_t delivered = 0;
};

Figures RunOnce(const Options& options) {
  faultline::sim::Simulation simulation({.seed = 1});
  Network network(simulation, {.trace_messages = false});
  faultline::sim::Process& server = simulation.AddProcess("kuri-1");
  server.Start([&]() -> Awaitable<int> {
    network.Listen(server, 7001, [](Request request) -> Awaitable<Response> {
      co_return Response(200, std::move(request.body));
    });
    co_await faultline::sim::SleepFor(std::chrono::hours(24 * 365));
    co_return 0;
  });
  int failures = 0;
  faultline::sim::Process& proxy = simulation.AddProcess("s3-proxy");
  proxy.Start([&]() -> Awaitable<int> {
    for (int c = 0; c < options.clients; ++c) {
      proxy.Spawn("client", [&]() -> Awaitable<void> {
        for (int i = 0; i < options.calls; ++i) {
          const auto result = co_await network.Call(
              Endpoint("kuri-1", 7001), Request("GET", "/object"), std::chrono::seconds(1));
          if (!result.ok()) ++failures;
        }
      });
    }
    co_await faultline::sim::SleepFor(std::chrono::hours(24 * 364));
    co_return 0;
  });
  const auto start = std::chrono::steady_clock::now();
  simulation.RunUntil([&] {
    return network.counters().delivered >=
           2u * static_cast<std::uint64_t>(options.clients) * options.calls;
  });
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  if (failures != 0) {
    std::fprintf(stderr, "network_bench: %d calls failed\n", failures);
    std::exit(1);
  }
  return {wall.count(), network.counters().delivered};
}

Options ParseOptions(int argc, char** argv) {
  Options options;
  faultline::bench::ParseFlags("network_bench",
                               "network_bench [--clients N] [--calls N] [--repeat N]", argc, argv,
                               {{"--clients", &options.clients},
                                {"--calls", &options.calls},
                                {"--repeat", &options.repeat}});
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseOptions(argc, argv);
  std::printf("workload: %d clients x %d calls (request + response) to one echo server\n",
              options.clients, options.calls);
  std::vector<double> rates;
  for (int r = 0; r < options.repeat; ++r) {
    const Figures figures = RunOnce(options);
    rates.push_back(static_cast<double>(figures.delivered) / figures.seconds);
  }
  const double median = faultline::bench::Median(rates);
  std::printf("messages_per_second=%.0f (median of %d; %.2f M/s)\n", median, options.repeat,
              median / 1e6);
  return 0;
}
