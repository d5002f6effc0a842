#include "app/kernel_demo.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "fakes/volume.h"

namespace faultline::app {
namespace {

using sim::Awaitable;
using std::chrono::milliseconds;

constexpr int kVersion = 1754293669;
constexpr int kMaxRestarts = 3;

// The migration record (golang-migrate's schema_migrations row), kept as one
// synced file on a named volume: it survives the crash because the volume
// does.
constexpr const char* kRecordFile = "/schema_migrations";

struct MigrationRecord {
  int version = -1;
  bool dirty = false;
};

MigrationRecord ReadRecord(fakes::Volume& volume) {
  MigrationRecord record;
  const fakes::SimFile* file = volume.Find(kRecordFile);
  if (file == nullptr) return record;
  int dirty = 0;
  if (std::sscanf(file->contents().c_str(), "%d %d", &record.version, &dirty) != 2) return {};
  record.dirty = dirty != 0;
  return record;
}

// SetVersion: written and synced, so durable before the caller goes on.
void WriteRecord(fakes::Volume& volume, const MigrationRecord& record) {
  fakes::SimFile& file = volume.OpenOrCreate(kRecordFile);
  file.Truncate(0);
  file.Write(0, fmt::format("{} {}", record.version, record.dirty ? 1 : 0));
  file.Sync();
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

Awaitable<int> MigratingNode(sim::Simulation& sim, fakes::Volume& volume) {
  const MigrationRecord record = ReadRecord(volume);
  if (record.dirty) {
    sim.Emit("migrate.error",
             {{"text",
               fmt::format("Dirty database version {}. Fix and force version.", record.version)}});
    co_return 1;
  }
  WriteRecord(volume, {kVersion, /*dirty=*/true});
  sim.Emit("migrate.set_version", {{"version", kVersion}, {"dirty", true}});
  (void)co_await sim::FaultPoint("migrate.after_set_dirty");
  co_await sim::SleepFor(milliseconds(30));  // The migration's statements.
  WriteRecord(volume, {kVersion, /*dirty=*/false});
  sim.Emit("migrate.set_version", {{"version", kVersion}, {"dirty", false}});
  co_return 0;
}

// A restart policy like compose's `restart: on-failure`, with Docker's
// back-off starting at 100 ms and doubling.
Awaitable<void> RestartOnFailure(sim::Simulation& sim, sim::Process& node) {
  sim::Duration backoff = milliseconds(100);
  for (int restarts = 0; restarts < kMaxRestarts; ++restarts) {
    const sim::ExitStatus exit = co_await node.WaitForExit();
    if (!exit.killed && exit.code == 0) co_return;
    co_await sim::SleepFor(backoff);
    backoff *= 2;
    sim.Emit("compose.restart", {{"service", node.name()}, {"attempt", restarts + 1}});
    node.Restart();
  }
}

}  // namespace

DemoResult RunDirtyRestartDemo(const DemoOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto plan = std::make_shared<sim::ExplicitFaultPlan>();
  plan->CrashAt("migrate.after_set_dirty", 1);
  sim::Simulation sim({.seed = options.seed, .fault_plan = plan, .sinks = options.sinks});
  fakes::Volume volume("yugabyte-data", fakes::VolumeKind::kNamedVolume);
  sim::Process& node = sim.AddProcess("kuri-1");
  node.Start([&sim, &volume] { return MigratingNode(sim, volume); });
  sim.Spawn("compose", [&sim, &node] { return RestartOnFailure(sim, node); });
  sim.RunUntilIdle();

  const auto& exits = node.exits();
  const bool crashed_first = !exits.empty() && exits.front().killed;
  const bool stuck_dirty = exits.size() == kMaxRestarts + 1 && !exits.back().killed &&
                           exits.back().code == 1 && ReadRecord(volume).dirty;
  DemoResult result;
  result.name = "kernel-dirty-restart";
  result.passed = crashed_first && stuck_dirty;
  result.virtual_time = sim.Now();
  result.trace_hash = sim.trace().hash();
  result.summary = fmt::format(
      "crashed right after SetVersion(dirty=true); {} restarts each exit 1: Dirty database "
      "version {}",
      exits.size() - 1, ReadRecord(volume).version);
  result.wall_ms = MillisecondsSince(start);
  return result;
}

DemoResult RunDeterminismDemo(const DemoOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  sim::SwarmOptions swarm;
  swarm.fire_probability = 0.2;
  auto body = [](sim::Simulation& sim) {
    for (int n = 0; n < 3; ++n) {
      sim::Process& node = sim.AddProcess(fmt::format("kuri-{}", n + 1));
      node.Start([&sim, n]() -> Awaitable<int> {
        sim::Rng random = sim.Random(fmt::format("node-{}", n));
        for (int step = 0; step < 10; ++step) {
          const sim::Status status = co_await sim::FaultPoint("node.step");
          sim.Emit("node.step", {{"step", step}, {"ok", status.ok()}});
          co_await sim::SleepFor(milliseconds(random.UniformInt(1, 5)));
        }
        co_return 0;
      });
    }
    sim.RunUntilIdle();
  };
  std::set<std::uint64_t> hashes;
  int deterministic = 0;
  std::string first_failure;
  for (int i = 0; i < options.determinism_seeds; ++i) {
    const sim::SimulationOptions run{.seed = options.seed + static_cast<std::uint64_t>(i),
                                     .fault_plan = std::make_shared<sim::SwarmFaultPlan>(swarm)};
    const sim::DeterminismReport report = sim::CheckDeterminism(run, body);
    if (report.deterministic) {
      ++deterministic;
    } else if (first_failure.empty()) {
      first_failure = report.Describe();
    }
    hashes.insert(report.first_hash);
  }
  DemoResult result;
  result.name = "kernel-determinism";
  result.passed = deterministic == options.determinism_seeds &&
                  static_cast<int>(hashes.size()) == options.determinism_seeds;
  result.summary = fmt::format("{}/{} seeds replayed to the same hash; {} distinct runs",
                               deterministic, options.determinism_seeds, hashes.size());
  if (!first_failure.empty()) result.summary += "; " + first_failure;
  result.wall_ms = MillisecondsSince(start);
  return result;
}

}  // namespace faultline::app
