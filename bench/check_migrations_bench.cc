// check-migrations' cost (issue #13): the whole matrix (every runner, a crash
// at every fault site, the upgrades from each older version, a rollback, 2
// replicas on both stores, down-up) on generated folders of N files, and
// how it grows with N. Target: a 5-file folder within 10 s on 2 cores.
//
// Each file creates one table (every third also adds a column to the table
// before it, a second statement), with a down file: a folder a team might
// ship, with nothing the static rules call an error.
//
// With --golang-migrate (issue #26): files of 3 statements each (a table,
// a column added to it, a row), the golang-migrate runner only, and each
// size played twice in the same invocation: crash cases forked from the
// run they share (the default) and each from an empty world
// (--replay-from-empty), with the CPU per file of each (children's
// included: the forked cases run in them).
//
// Usage: check_migrations_bench [--max-files N] [--repeat N] [--golang-migrate]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/bench_flags.h"
#include "bench/three_statement_folder.h"
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
  double cpu_seconds = 0;  // This process's and its reaped children's.
  int runs = 0;
  std::size_t findings = 0;
};

double CpuSeconds() {
  double total = 0;
  for (const int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    getrusage(who, &usage);
    total += static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
             static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  }
  return total;
}

Measured Measure(int files, bool golang_migrate, bool branch) {
  scenarios::MigrationCheckOptions options;
  options.files =
      golang_migrate ? faultline::bench::ThreeStatementFolder(files, true) : Folder(files);
  options.keyspace = "app";
  options.runners = golang_migrate ? std::vector<std::string>{"golang-migrate"}
                                   : std::vector<std::string>{"golang-migrate", "safe", "db-init"};
  options.replicas = 2;
  options.branch = branch;
  const double cpu_start = CpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  const scenarios::MigrationCheckReport report = scenarios::CheckMigrations(options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {seconds, CpuSeconds() - cpu_start, report.runs, report.dynamic.size()};
}

}  // namespace

int main(int argc, char** argv) {
  int max_files = 200;
  int repeat = 1;
  bool golang_migrate = false;
  faultline::bench::ParseFlags(
      "check_migrations_bench",
      "check_migrations_bench [--max-files N] [--repeat N] [--golang-migrate]", argc, argv,
      {{"--max-files", &max_files}, {"--repeat", &repeat}},
      {{"--golang-migrate", &golang_migrate, true}});
  std::printf("%-6s %6s %8s %9s %9s %11s %10s %9s\n", "cases", "files", "runs", "seconds",
              "cpu/file", "runs/s", "ms/run", "findings");
  for (const int files : {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}) {
    if (files > max_files) break;
    for (const bool branch :
         golang_migrate ? std::vector<bool>{true, false} : std::vector<bool>{true}) {
      std::vector<double> seconds;
      std::vector<double> cpu;
      Measured last;
      for (int r = 0; r < repeat; ++r) {
        last = Measure(files, golang_migrate, branch);
        seconds.push_back(last.seconds);
        cpu.push_back(last.cpu_seconds);
      }
      const double median = faultline::bench::Median(seconds);
      std::printf("%-6s %6d %8d %9.3f %9.4f %11.0f %10.2f %9zu\n", branch ? "forked" : "empty",
                  files, last.runs, median, faultline::bench::Median(cpu) / files,
                  last.runs / median, 1000 * median / last.runs, last.findings);
      std::fflush(stdout);
    }
  }
}
