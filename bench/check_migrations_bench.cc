// check-migrations' cost (issue #13): the whole matrix (every runner, a crash
// at every fault site, the upgrades from each older version, a rollback, 2
// replicas on both stores, down-up) on generated folders of N files, and
// how it grows with N. Target: a 5-file folder within 10 s on 2 cores.
//
// Each file creates one table (every third also adds a column to the table
// before it, a second statement), with a down file: a folder a team might
// ship, with nothing the static rules call an error.
//
// Usage: check_migrations_bench [--max-files N] [--repeat N]
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/bench_flags.h"
#include "scenarios/check_migrations/check_migrations.h"

namespace {

namespace scenarios = faultline::scenarios;
using faultline::models::migrate::MigrationFile;

std::vector<MigrationFile> Folder(int files) {
  std::vector<MigrationFile> folder;
  for (int i = 1; i <= files; ++i) {
    std::string up =
        fmt::format("CREATE TABLE IF NOT EXISTS t{} (id text PRIMARY KEY, v int);\n", i);
    std::string down = fmt::format("DROP TABLE IF EXISTS t{};\n", i);
    if (i % 3 == 0) {
      up += fmt::format("ALTER TABLE t{} ADD extra{} text;\n", i - 1, i);
      down = fmt::format("ALTER TABLE t{} DROP extra{};\n", i - 1, i) + down;
    }
    folder.emplace_back(fmt::format("{:04}_table_{}.up.cql", i, i), up);
    folder.emplace_back(fmt::format("{:04}_table_{}.down.cql", i, i), down);
  }
  return folder;
}

struct Measured {
  double seconds = 0;
  int runs = 0;
  std::size_t findings = 0;
};

Measured Measure(int files) {
  scenarios::MigrationCheckOptions options;
  options.files = Folder(files);
  options.keyspace = "app";
  options.runners = {"golang-migrate", "safe", "db-init"};
  options.replicas = 2;
  const auto start = std::chrono::steady_clock::now();
  const scenarios::MigrationCheckReport report = scenarios::CheckMigrations(options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {seconds, report.runs, report.dynamic.size()};
}

}  // namespace

int main(int argc, char** argv) {
  int max_files = 200;
  int repeat = 1;
  faultline::bench::ParseFlags("check_migrations_bench",
                               "check_migrations_bench [--max-files N] [--repeat N]", argc, argv,
                               {{"--max-files", &max_files}, {"--repeat", &repeat}});
  std::printf("%6s %8s %9s %11s %10s %9s\n", "files", "runs", "seconds", "runs/s", "ms/run",
              "findings");
  for (const int files : {1, 2, 5, 10, 20, 50, 100, 200}) {
    if (files > max_files) break;
    std::vector<double> seconds;
    Measured last;
    for (int r = 0; r < repeat; ++r) {
      last = Measure(files);
      seconds.push_back(last.seconds);
    }
    const double median = faultline::bench::Median(seconds);
    std::printf("%6d %8d %9.3f %11.0f %10.2f %9zu\n", files, last.runs, median, last.runs / median,
                1000 * median / last.runs, last.findings);
    std::fflush(stdout);
  }
}
