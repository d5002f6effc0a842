// `faultline shell NAME|FILE --at STEP`: a ycqlsh-like prompt on the store as
// it was after a step of a run, so a learner can DESCRIBE or SELECT in the
// past. The run is played up to that step only; the store's database is
// copied from its volume (observed, never asked), and the shell works on the
// copy.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/command_util.h"
#include "app/commands.h"
#include "app/cql_shell.h"
#include "app/shell_store.h"
#include "scenarios/harness/runner.h"
#include "scenarios/world/store_view.h"
#include "sim/assert.h"

namespace faultline::app {
namespace {

// The shell on a snapshot of a run's store: `database` is the bytes of its
// meta.db (empty: the store had written none yet, so it is fresh). What it
// changes stays in memory, so the run's store is never touched.
int RunCqlShellOnSnapshot(const std::string& database, const std::optional<std::string>& execute,
                          const std::string& keyspace) {
  ShellStore store;
  if (sim::Status status = store.LoadDatabase(database); !status.ok()) {
    return BadInput("cannot load the store: " + status.ToString(), "shell");
  }
  if (sim::Status status = store.Open(); !status.ok()) {
    return BadInput("cannot open the store: " + status.ToString(), "shell");
  }
  const ShellInput input{.keyspace = keyspace, .execute = execute, .script = std::nullopt};
  return RunShellSession(store.engine(), input) ? kExitOk : kExitBadInput;
}

struct ShellFlags {
  std::string scenario;
  // As given: its range is the story's steps, known once it is read, so
  // --at -1 and --at 99 get the same answer.
  std::string at;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> execute;
  std::string keyspace;
  scenarios::InputLimits limits;
};

// The store's database file after step `at` (1-based) of `scenario` (empty
// when the store had written none), or nothing when the run stopped (its
// budget) before that step ended, with why in `stopped`.
std::optional<std::string> StoreAfterStep(const scenarios::Scenario& scenario, std::size_t at,
                                          std::uint64_t seed, std::string& stopped) {
  FL_ASSERT(at >= 1 && at <= scenario.steps.size());
  scenarios::Scenario prefix = scenario;
  prefix.steps.resize(at);
  std::optional<std::string> database;
  scenarios::RunOptions options{.seed = seed, .checkers = false};
  options.observe = [&](std::size_t step, scenarios::World& world) {
    if (step + 1 != at) return;  // After step `at`, not after the liveness phase.
    sim::Result<std::string> file = scenarios::StoreDatabaseFile(world);
    database = file.ok() ? *file : std::string();
  };
  stopped = scenarios::RunScenario(prefix, options).stopped;
  FL_ASSERT_MSG(database.has_value() || !stopped.empty(), "step {} of {} was never observed", at,
                scenario.name);
  return database;
}

// Where the learner is: the story, the seed and the step, said on standard
// error so that -e output stays clean.
std::string Banner(const scenarios::Scenario& scenario, std::uint64_t seed, std::size_t at,
                   bool fresh) {
  std::string where =
      at == 0 ? std::string("before its first step") : fmt::format("the store after step {}", at);
  if (at > 0) {
    const std::string& narration = scenario.steps[at - 1].narration;
    where += ": " + scenarios::OneLine(narration.empty() ? "(no narration)" : narration, 100);
  }
  return fmt::format("{} (seed {}), {}{}\n", scenario.name, seed, where,
                     fresh ? " (the store had written nothing yet: a fresh store)" : "");
}

int RunShellCommand(const ShellFlags& flags) {
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* scenario = NamedOrFile(flags.scenario, from_file, flags.limits);
  if (scenario == nullptr) return kExitBadInput;
  const std::size_t steps = scenario->steps.size();
  const std::optional<std::uint64_t> at = ParseSeed(flags.at);
  if (!at || *at > steps) {
    return BadInput(fmt::format("--at {}: {} has {} steps; give one from 0 (before the first) "
                                "to {}",
                                flags.at, scenario->name, steps, steps),
                    "shell");
  }
  const std::uint64_t seed = flags.seed.value_or(scenario->seed);
  std::string stopped;
  const std::optional<std::string> database =
      *at == 0 ? std::string() : StoreAfterStep(*scenario, *at, seed, stopped);
  if (!database) {
    return BadInput(
        fmt::format("--at {}: the run stopped before step {} ended: {}", *at, *at, stopped),
        "shell");
  }
  // Where the learner is, on standard error so that -e output stays clean.
  std::cerr << Banner(*scenario, seed, *at, database->empty());
  return RunCqlShellOnSnapshot(*database, flags.execute, flags.keyspace);
}

}  // namespace

CommandRun DefineShell(CLI::App& command) {
  auto flags = std::make_shared<ShellFlags>();
  command.add_option("scenario", flags->scenario, "a catalogue name or a scenario file")
      ->required()
      ->type_name(kScenarioValue);
  command.add_option("--at", flags->at, "the step after which to look (0 to the number of steps)")
      ->required()
      ->type_name("STEP");
  AddSeed(command, flags->seed, "the seed (default: the scenario's, else 1)");
  command.add_option("-e,--execute", flags->execute,
                     "run these statements (separated by ';') and exit");
  command.add_option("-k,--keyspace", flags->keyspace, "start with USE KEYSPACE");
  AddLimits(command, flags->limits);
  return [flags] { return RunShellCommand(*flags); };
}

}  // namespace faultline::app
