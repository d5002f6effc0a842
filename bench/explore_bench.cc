// Exploration throughput (issues #12, #26): full runs per second on one
// core, each a fault schedule drawn from its seed and played with every
// whole-run checker, on two workloads of the catalogue:
// 1. dirty-migration-fixed as it is (up, a 2 min wait, a PUT; safe runners);
// 2. the start-up workload the tests explore: up, a 1 min wait, a PUT and a
//    GET on dirty-migration's golang-migrate cluster, no written fault.
// Each twice, in the same invocation: runs forked from their batch's
// workload run where they part from it (--fork-runs; by default explore
// plays each batch whichever way has cost less so far), and each run
// played from an empty world (--replay-from-empty): the same results, and
// the ratio of the two. The forked children run one at a time, so the wall
// time is one core's. Also the curve over the number of runs (a run's cost
// must not grow with the runs before it). See docs/BENCHMARKS.md.
//
// Usage: explore_bench [--runs N] [--repeat N]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_flags.h"
#include "scenarios/catalogue/catalogue.h"
#include "scenarios/explore/explore.h"

namespace {

namespace scenarios = faultline::scenarios;
using Clock = std::chrono::steady_clock;

scenarios::Scenario StartUpWorkload() {
  scenarios::Scenario workload = *scenarios::FindScenario("dirty-migration");
  workload.crash_site.clear();
  workload.faults.clear();
  workload.checkers.clear();
  scenarios::Step up;
  up.kind = scenarios::Step::Kind::kUp;
  scenarios::Step wait;
  wait.kind = scenarios::Step::Kind::kWait;
  wait.duration = std::chrono::minutes(1);
  scenarios::Step put;
  put.kind = scenarios::Step::Kind::kS3;
  put.method = "PUT";
  put.path = "/b/k";
  put.body = "bytes";
  scenarios::Step get = put;
  get.method = "GET";
  get.body.clear();
  workload.steps = {up, wait, put, get};
  return workload;
}

// Runs per second for `runs` runs from seed 1.
double RunsPerSecond(const scenarios::Scenario& workload, int runs, bool from_empty) {
  const auto started = Clock::now();
  int done = 0;
  (void)scenarios::ExploreRuns(
      workload,
      {.seed = 1,
       .runs = runs,
       .play = from_empty ? scenarios::BatchPlay::kFromEmpty : scenarios::BatchPlay::kForked},
      &done);
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (done != runs) {
    std::fprintf(stderr, "explore_bench: %d of %d runs\n", done, runs);
    std::exit(1);
  }
  return runs / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 2000;
  int repeat = 3;
  faultline::bench::ParseFlags("explore_bench", "explore_bench [--runs N] [--repeat N]", argc, argv,
                               {{"--runs", &runs}, {"--repeat", &repeat}});
  const scenarios::Scenario* fixed = scenarios::FindScenario("dirty-migration-fixed");
  if (fixed == nullptr) return 1;
  const scenarios::Scenario start_up = StartUpWorkload();
  std::printf("%-24s %8s %14s %14s %8s\n", "workload", "runs", "forked_per_s", "empty_per_s",
              "ratio");
  for (const auto& [name, workload] :
       {std::pair{"dirty-migration-fixed", fixed}, std::pair{"start-up", &start_up}}) {
    for (int n = runs / 4; n <= runs; n *= 2) {
      std::vector<double> forked;
      std::vector<double> from_empty;
      std::vector<double> ratios;
      for (int r = 0; r < repeat; ++r) {
        forked.push_back(RunsPerSecond(*workload, n, false));
        from_empty.push_back(RunsPerSecond(*workload, n, true));
        ratios.push_back(forked.back() / from_empty.back());
      }
      std::printf("%-24s %8d %14.1f %14.1f %8.2f\n", name, n, faultline::bench::Median(forked),
                  faultline::bench::Median(from_empty), faultline::bench::Median(ratios));
    }
  }
  return 0;
}
