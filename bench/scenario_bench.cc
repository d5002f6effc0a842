// Scenario cost curve (issue #10): how the cost of a PUT grows with the work
// done before it. Two workloads on the seed cluster, each at 1k, 10k and 100k
// PUTs of 1 KiB to distinct keys:
// 1. a client loop: one client process makes N PUTs through the proxy;
// 2. a scenario: a generated scenario file's `up` then N `s3 PUT` steps,
//    played by the scenario runner with every whole-run checker on.
// Prints microseconds per PUT for each N, the growth from the smallest N to
// the largest (target: at most 1.5x), and the scenario's cost per step over
// the client loop's per request at the same N (target: at most 1.5x).
// --no-checkers plays the scenario without its checkers (their cost is the
// difference; the trace is the same either way).
//
// Usage: scenario_bench [--max N] [--repeat N] [--no-checkers]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_flags.h"
#include "fakes/environment.h"
#include "models/s3/seed_images.h"
#include "scenarios/core/scenario.h"
#include "scenarios/harness/runner.h"

namespace {

namespace s3 = faultline::models::s3;
namespace fakes = faultline::fakes;
namespace sim = faultline::sim;
namespace scenarios = faultline::scenarios;
using Clock = std::chrono::steady_clock;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "scenario_bench: %s\n", what.c_str());
  std::exit(1);
}

double MicrosecondsSince(Clock::time_point start, int operations) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / operations;
}

// N PUTs from one client process, after the cluster has started; the start
// is not timed.
double ClientLoop(int puts) {
  fakes::Environment environment({.seed = 1});
  sim::Simulation& simulation = environment.simulation;
  fakes::Network& network = environment.network;
  fakes::Runtime& runtime = environment.runtime;
  s3::RegisterSeedImages(runtime);
  if (!runtime.Up(s3::SeedComposeSpec()).ok()) Fail("compose up failed");
  simulation.RunFor(std::chrono::seconds(5));
  int succeeded = 0;
  bool done = false;
  sim::Process& client = simulation.AddProcess("client");
  const auto start = Clock::now();
  client.Start([&]() -> sim::Awaitable<int> {
    for (int i = 0; i < puts; ++i) {
      fakes::Request put("PUT", "/bench/object-" + std::to_string(i), std::string(1024, 'x'));
      sim::Result<fakes::Response> response = co_await network.Call(
          fakes::Endpoint("s3-proxy", s3::kProxyPort), std::move(put), std::chrono::seconds(30));
      if (response.ok() && response->status == 200) ++succeeded;
    }
    done = true;
    co_return 0;
  });
  simulation.Run(sim::RunBudget{std::uint64_t{1} << 40, std::nullopt, [&] { return done; }});
  const double per_put = MicrosecondsSince(start, puts);
  if (succeeded != puts) Fail(std::to_string(succeeded) + "/" + std::to_string(puts) + " PUTs");
  return per_put;
}

scenarios::Scenario PutScenario(int puts) {
  scenarios::Scenario scenario;
  scenario.name = "puts-" + std::to_string(puts);
  scenario.steps.push_back(scenarios::Step{.kind = scenarios::Step::Kind::kUp});
  // The start is part of the run; a wait makes it the same as the loop's.
  scenario.steps.push_back(
      scenarios::Step{.kind = scenarios::Step::Kind::kWait, .duration = std::chrono::seconds(5)});
  for (int i = 0; i < puts; ++i) {
    scenarios::Step put{.kind = scenarios::Step::Kind::kS3};
    put.method = "PUT";
    put.path = "/bench/object-" + std::to_string(i);
    put.body = std::string(1024, 'x');
    put.expect.push_back(
        scenarios::Expectation{.kind = scenarios::Expectation::Kind::kStatus, .number = 200});
    scenario.steps.push_back(std::move(put));
  }
  return scenario;
}

double ScenarioSteps(int puts, bool checkers) {
  const scenarios::Scenario scenario = PutScenario(puts);
  const auto start = Clock::now();
  const scenarios::ScenarioResult result =
      scenarios::RunScenario(scenario, {.seed = 1, .checkers = checkers});
  const double per_step = MicrosecondsSince(start, puts);
  if (!result.passed) Fail(scenario.name + " did not pass");
  return per_step;
}

}  // namespace

int main(int argc, char** argv) {
  int max = 100'000;
  int repeat = 1;
  bool checkers = true;
  faultline::bench::ParseFlags(
      "scenario_bench", "scenario_bench [--max N] [--repeat N] [--no-checkers]", argc, argv,
      {{"--max", &max}, {"--repeat", &repeat}}, {{"--no-checkers", &checkers, false}});
  std::vector<int> sizes;
  for (int n = 1'000; n <= max; n *= 10) sizes.push_back(n);
  if (sizes.empty()) Fail("--max must be at least 1000");
  std::vector<double> loop;
  std::vector<double> steps;
  std::printf("%8s %14s %14s %8s\n", "puts", "loop_us_per_put", "step_us_per_put", "ratio");
  for (const int n : sizes) {
    std::vector<double> loop_runs;
    std::vector<double> step_runs;
    for (int r = 0; r < repeat; ++r) {
      loop_runs.push_back(ClientLoop(n));
      step_runs.push_back(ScenarioSteps(n, checkers));
    }
    loop.push_back(faultline::bench::Median(loop_runs));
    steps.push_back(faultline::bench::Median(step_runs));
    std::printf("%8d %14.1f %14.1f %8.2f\n", n, loop.back(), steps.back(),
                steps.back() / loop.back());
    std::fflush(stdout);
  }
  std::printf("loop_growth=%.2f\n", loop.back() / loop.front());
  std::printf("step_growth=%.2f\n", steps.back() / steps.front());
  std::printf("step_over_loop=%.2f\n", steps.back() / loop.back());
  return 0;
}
