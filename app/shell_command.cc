// `faultline shell NAME|FILE --at STEP`: a ycqlsh-like prompt on the store as
// it was after a step of a run, so a learner can DESCRIBE or SELECT in the
// past. The run is played up to that step only; the store's database is
// copied from its volume (observed, never asked), and the shell works on the
// copy.
#include <iostream>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "app/command_util.h"
#include "app/cql_shell.h"
#include "app/scenario_commands.h"
#include "scenarios/runner.h"
#include "scenarios/store_view.h"
#include "sim/assert.h"

namespace faultline::app {
namespace {

constexpr std::string_view kShellUsage =
    R"(usage: faultline shell NAME|FILE --at STEP [--seed N] [-e STATEMENTS] [-k KEYSPACE]

Plays a scenario (a catalogue name or a scenario file) up to and including
step STEP, numbered as `faultline run` prints them (0: before the first),
and opens a ycqlsh-like prompt on the metadata store as it was then: its
schema and its rows, read from the store's volume. What you change there
stays in the shell; the run is not touched.

  --at STEP       the step after which to look (0 to the number of steps)
  --seed N        the seed (default: the scenario's, else 1)
  -e STATEMENTS   run these statements (separated by ';') and exit
  -k KEYSPACE     start with USE KEYSPACE

At the prompt: any CQL statement ending in ';', DESCRIBE ..., HELP, EXIT or
QUIT. Exit status 0, or 2 for bad input (a flag, a file, a CQL error).
)";

struct ShellFlags {
  std::string scenario;
  std::optional<std::size_t> at;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> execute;
  std::string keyspace;
};

// The flags, or the exit status of a refusal already said.
std::variant<ShellFlags, int> ParseShellFlags(const std::vector<std::string>& args) {
  ShellFlags flags;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool takes_value = arg == "--at" || arg == "--seed" || arg == "-e" || arg == "-k";
    if (takes_value && i + 1 >= args.size()) return BadInput(arg + " needs a value", "shell");
    if (arg == "--at") {
      const std::optional<std::uint64_t> at = ParseSeed(args[++i]);
      if (!at) return BadInput("--at wants a step number, got '" + args[i] + "'", "shell");
      flags.at = static_cast<std::size_t>(*at);
    } else if (arg == "--seed") {
      flags.seed = ParseSeed(args[++i]);
      if (!flags.seed) {
        return BadInput("--seed wants a non-negative integer, got '" + args[i] + "'", "shell");
      }
    } else if (arg == "-e") {
      flags.execute = args[++i];
    } else if (arg == "-k") {
      flags.keyspace = args[++i];
    } else if (!arg.empty() && arg[0] == '-') {
      return BadInput("shell: unknown option '" + arg + "'", "shell");
    } else if (!flags.scenario.empty()) {
      return BadInput("shell takes one scenario name", "shell");
    } else {
      flags.scenario = arg;
    }
  }
  if (flags.scenario.empty() || !flags.at) {
    return BadInput("usage: faultline shell NAME|FILE --at STEP", "shell");
  }
  return flags;
}

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

}  // namespace

int RunShellCommand(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << kShellUsage;
      return kExitOk;
    }
  }
  std::variant<ShellFlags, int> parsed = ParseShellFlags(args);
  if (const int* status = std::get_if<int>(&parsed)) return *status;
  const ShellFlags& flags = std::get<ShellFlags>(parsed);
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* scenario = NamedOrFile(flags.scenario, from_file);
  if (scenario == nullptr) return kExitBadInput;
  const std::size_t steps = scenario->steps.size();
  if (*flags.at > steps) {
    return BadInput(
        fmt::format("--at {}: {} has {} steps (0 to {})", *flags.at, scenario->name, steps, steps),
        "shell");
  }
  const std::uint64_t seed = flags.seed.value_or(scenario->seed);
  std::string stopped;
  const std::optional<std::string> database =
      *flags.at == 0 ? std::string() : StoreAfterStep(*scenario, *flags.at, seed, stopped);
  if (!database) {
    return BadInput(fmt::format("--at {}: the run stopped before step {} ended: {}", *flags.at,
                                *flags.at, stopped),
                    "shell");
  }
  // Where the learner is, on standard error so that -e output stays clean.
  std::cerr << Banner(*scenario, seed, *flags.at, database->empty());
  return RunCqlShellOnSnapshot(*database, flags.execute, flags.keyspace);
}

}  // namespace faultline::app
