// Kernel benchmark: 1,000 tasks each doing 1,000 virtual sleeps of 1 ms, and
// the timer wake-ups per second of wall time that gives; then the same
// workload on SimGrid in the same run, when it was built in. The last line is
// `ratio_vs_simgrid=<ours divided by SimGrid's>`.
//
// Usage: kernel_bench [--tasks N] [--sleeps N] [--repeat N] [--no-simgrid]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_flags.h"
#include "sim/sim.h"
#ifdef FAULTLINE_HAVE_SIMGRID
#include <sys/wait.h>
#include <unistd.h>

#include "bench/simgrid_sleep_workload.h"
#endif

namespace {

using faultline::sim::Awaitable;
using faultline::sim::SchedulingMode;
using faultline::sim::Simulation;

struct Options {
  int tasks = 1000;
  int sleeps = 1000;
  int repeat = 3;
  bool simgrid = true;
};

constexpr auto kSleep = std::chrono::milliseconds(1);

// Wall seconds for one run of the workload on our kernel.
double RunFaultline(const Options& options, SchedulingMode mode) {
  Simulation sim({.seed = 1, .scheduling = mode});
  for (int i = 0; i < options.tasks; ++i) {
    sim.Spawn("sleeper", [sleeps = options.sleeps]() -> Awaitable<void> {
      for (int s = 0; s < sleeps; ++s) co_await faultline::sim::SleepFor(kSleep);
    });
  }
  const auto start = std::chrono::steady_clock::now();
  sim.RunUntilIdle();
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  // The work really happened: virtual time covers every sleep.
  FL_ASSERT(sim.Now() == faultline::sim::kTimeZero + options.sleeps * kSleep);
  return wall.count();
}

#ifdef FAULTLINE_HAVE_SIMGRID
// SimGrid's engine can run once per process, so each repetition runs in a
// child process that reports its figures through a pipe.
SimGridFigures RunSimGridInChild(const Options& options, const char* program_name) {
  int pipe_ends[2];
  FL_ASSERT(pipe(pipe_ends) == 0);
  std::fflush(stdout);  // Or the child would print the parent's buffered lines again.
  const pid_t child = fork();
  FL_ASSERT(child >= 0);
  if (child == 0) {
    close(pipe_ends[0]);
    const SimGridFigures figures =
        RunSimGridSleepWorkload(options.tasks, options.sleeps, program_name);
    const bool written = write(pipe_ends[1], &figures, sizeof figures) == sizeof figures;
    _exit(written ? 0 : 1);
  }
  close(pipe_ends[1]);
  SimGridFigures figures;
  const bool read_all = read(pipe_ends[0], &figures, sizeof figures) == sizeof figures;
  close(pipe_ends[0]);
  int status = 0;
  waitpid(child, &status, 0);
  FL_ASSERT_MSG(read_all && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "the SimGrid run failed (status {})", status);
  return figures;
}
#endif

Options ParseOptions(int argc, char** argv) {
  Options options;
  faultline::bench::ParseFlags(
      "kernel_bench", "kernel_bench [--tasks N] [--sleeps N] [--repeat N] [--no-simgrid]", argc,
      argv,
      {{"--tasks", &options.tasks}, {"--sleeps", &options.sleeps}, {"--repeat", &options.repeat}},
      {{"--no-simgrid", &options.simgrid, false}});
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseOptions(argc, argv);
  const double wakeups = static_cast<double>(options.tasks) * options.sleeps;
  std::printf("workload: %d tasks x %d sleeps of 1 ms = %.0f timer wake-ups\n", options.tasks,
              options.sleeps, wakeups);
  double ours = 0.0;
  for (const SchedulingMode mode : {SchedulingMode::kRandom, SchedulingMode::kFifo}) {
    std::vector<double> seconds;
    for (int r = 0; r < options.repeat; ++r) seconds.push_back(RunFaultline(options, mode));
    const double rate = wakeups / faultline::bench::Median(seconds);
    const bool random = mode == SchedulingMode::kRandom;
    std::printf("faultline (%s scheduling): median %.3f s of %d -> %.2f M wake-ups/s\n",
                random ? "random" : "fifo", faultline::bench::Median(seconds), options.repeat,
                rate / 1e6);
    if (random) ours = rate;  // The default mode is the one compared.
  }
#ifdef FAULTLINE_HAVE_SIMGRID
  if (!options.simgrid) return 0;
  std::vector<double> simgrid_seconds;
  for (int r = 0; r < options.repeat; ++r) {
    const SimGridFigures figures = RunSimGridInChild(options, argv[0]);
    FL_ASSERT(figures.simulated_seconds > 0.999 * options.sleeps * 1e-3);
    simgrid_seconds.push_back(figures.wall_seconds);
  }
  const double theirs = wakeups / faultline::bench::Median(simgrid_seconds);
  std::printf("simgrid %s (raw contexts): median %.3f s of %d -> %.2f M wake-ups/s\n",
              SimGridVersion().c_str(), faultline::bench::Median(simgrid_seconds), options.repeat,
              theirs / 1e6);
  std::printf("ratio_vs_simgrid=%.2f\n", ours / theirs);
#else
  (void)ours;  // Compared only against SimGrid.
  std::printf("simgrid: not built (install libsimgrid-dev and reconfigure)\n");
#endif
  return 0;
}
