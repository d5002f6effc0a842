// Migrating from empty (issue #26): what one more migration file costs, and
// how that grows with the folder's length. A one-node cluster whose node
// image holds N golang-migrate files of 3 statements each (a table, a
// column added to it, a row) starts on an empty store and migrates them
// all; the same run with none of them is the baseline. (golang-migrate
// does not serve with an empty folder, so every folder starts with a file
// of one read, which the baseline holds too.) Prints, for each
// N, the CPU of a run and the cost per file, (run - baseline) / N, and the
// largest per-file cost over the smallest (target: at most 1.3x).
//
// Each N is played enough times to spend about the same CPU (at least
// --repeat times), so the small folders are not lost in the noise, each
// run beside a run of the baseline, so both meet the same machine.
//
// Usage: migration_bench [--max-files N] [--repeat N]
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/bench_flags.h"
#include "bench/three_statement_folder.h"
#include "scenarios/core/scenario.h"
#include "scenarios/harness/runner.h"
#include "scenarios/world/world.h"

namespace {

namespace scenarios = faultline::scenarios;
using faultline::models::migrate::MigrationFile;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "migration_bench: %s\n", what.c_str());
  std::exit(1);
}

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

std::vector<MigrationFile> Folder(int files) {
  std::vector<MigrationFile> folder = {
      {"00000_start.up.cql", "SELECT release_version FROM system.local;\n"}};
  for (MigrationFile& file : faultline::bench::ThreeStatementFolder(files, false)) {
    folder.push_back(std::move(file));
  }
  return folder;
}

scenarios::Scenario Migrating(int files) {
  scenarios::Scenario scenario;
  scenario.name = fmt::format("migrate-{}", files);
  scenario.nodes = 1;
  scenario.node_version = "bench";
  scenarios::ImageSpec image;
  image.service = "node";
  image.version = "bench";
  image.files = Folder(files);
  scenario.images.push_back(std::move(image));
  scenario.steps.push_back(scenarios::Step{.kind = scenarios::Step::Kind::kUp});
  // Long enough for a thousand files; the same for every N, so the
  // baseline takes out what a run costs besides its files.
  scenario.steps.push_back(
      scenarios::Step{.kind = scenarios::Step::Kind::kWait, .duration = std::chrono::minutes(2)});
  return scenario;
}

double CpuOfRun(const scenarios::Scenario& scenario, int files) {
  bool serving = false;
  scenarios::RunOptions options{.seed = 1, .checkers = false};
  options.observe = [&](std::size_t step, scenarios::World& world) {
    if (step == scenario.steps.size() - 1) serving = scenarios::IsServing(world, "kuri-1");
  };
  const double start = CpuSeconds();
  const scenarios::ScenarioResult result = scenarios::RunScenario(scenario, options);
  const double spent = CpuSeconds() - start;
  if (!serving) {
    const std::string last = result.steps.empty() ? result.stopped : result.steps.back().outcome;
    Fail(fmt::format("{} files: kuri-1 does not serve after migrating ({})", files, last));
  }
  return spent;
}

struct Cost {
  double run = 0;       // CPU seconds of a run of the folder.
  double baseline = 0;  // Of a run without its files.
};

// Plays the folder of `files` files and the baseline `times` times each,
// one after the other, so both see the same machine.
Cost RunCost(int files, int times) {
  const scenarios::Scenario folder = Migrating(files);
  const scenarios::Scenario baseline = Migrating(0);
  Cost cost;
  for (int run = 0; run < times; ++run) {
    cost.baseline += CpuOfRun(baseline, 0) / times;
    cost.run += CpuOfRun(folder, files) / times;
  }
  return cost;
}

}  // namespace

int main(int argc, char** argv) {
  int max_files = 1000;
  int repeat = 3;
  faultline::bench::ParseFlags("migration_bench", "migration_bench [--max-files N] [--repeat N]",
                               argc, argv, {{"--max-files", &max_files}, {"--repeat", &repeat}});
  std::vector<int> sizes;
  for (int files : {1, 20, 100, 1000}) {
    if (files <= max_files) sizes.push_back(files);
  }
  // Runs of each size: about the CPU of `repeat` runs of the largest.
  const auto times_for = [&](int files) { return std::max(repeat, repeat * max_files / files); };
  std::printf("%8s %8s %12s %12s %14s\n", "files", "runs", "ms_per_run", "baseline_ms",
              "us_per_file");
  std::vector<double> per_file;
  for (const int files : sizes) {
    const int times = times_for(files);
    const Cost cost = RunCost(files, times);
    per_file.push_back((cost.run - cost.baseline) / files);
    std::printf("%8d %8d %12.2f %12.2f %14.1f\n", files, times, cost.run * 1e3, cost.baseline * 1e3,
                per_file.back() * 1e6);
    std::fflush(stdout);
  }
  const auto [low, high] = std::minmax_element(per_file.begin(), per_file.end());
  std::printf("per_file_growth=%.2f (largest over smallest; target at most 1.3)\n", *high / *low);
  return 0;
}
