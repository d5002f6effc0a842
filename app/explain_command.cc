// `faultline explain NAME|FILE`: a scenario's story, steps and lesson, or
// (--toml) the scenario as a file to copy and change.
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "app/command_util.h"
#include "app/commands.h"
#include "scenarios/core/failure_classes.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/steps/steps.h"

namespace faultline::app {
namespace {

// "breaks acknowledged-writes and converges", or empty.
std::string BrokenCheckers(const scenarios::Scenario& scenario) {
  std::vector<std::string> broken;
  for (const auto& [checker, holds] : scenario.checkers) {
    if (!holds) broken.push_back(checker);
  }
  std::string text;
  for (std::size_t i = 0; i < broken.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == broken.size() ? " and " : ", ") + broken[i];
  }
  return text;
}

int RunExplain(const std::string& name, bool toml, const scenarios::InputLimits& limits) {
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* scenario = NamedOrFile(name, from_file, limits);
  if (scenario == nullptr) return kExitBadInput;
  if (toml) {
    if (from_file) {  // A file of the user's own stays theirs, as it is.
      std::cout << scenarios::ToToml(*scenario);
      return kExitOk;
    }
    // A catalogue story copied to change: named as the copy it becomes,
    // so what runs it later names it, not the catalogue's story.
    scenarios::Scenario copy = *scenario;
    copy.name = "my-" + scenario->name;
    std::cout << fmt::format(
        "# A copy of the catalogue story {}, yours to change (`faultline explain {}`\n"
        "# tells the original). Its name is the copy's: rename it as you like.\n",
        scenario->name, scenario->name);
    std::cout << scenarios::ToToml(copy);
    return kExitOk;
  }
  std::cout << scenario->name << ": " << scenario->title << "\n";
  if (const scenarios::FailureClass* failure =
          scenarios::FindFailureClass(scenario->failure_class)) {
    std::cout << fmt::format("\nThe class\n  {}: {}\n", failure->title, failure->mechanism);
  }
  const std::string broken = BrokenCheckers(*scenario);
  std::cout << "\nWhat happened\n  " << scenario->story << "\n";
  // What the story expects of the checkers (explain plays nothing): a
  // repro's recorded failure is what its run is held to.
  std::cout << (broken.empty() ? "\n  It expects every whole-run checker to hold.\n"
                               : "\n  It expects " + broken +
                                     " to fail (that is its story); the other "
                                     "checkers must hold.\n");
  if (scenario->recorded) {
    std::cout << fmt::format(
        "  It was recorded failing so: {} ({}); `faultline run` says whether it still does.\n",
        scenario->recorded->checker, scenario->recorded->violation);
  }
  std::cout << "\nThe steps\n";
  // Numbered as `run` plays them and `shell --at` takes them; a step with
  // no narration is shown by what it does.
  int number = 0;
  for (const scenarios::Step& step : scenario->steps) {
    ++number;
    std::cout << fmt::format("  {:>2}. {}\n", number,
                             step.narration.empty()
                                 ? "(" + scenarios::StepKindOf(step).show(step) + ")"
                                 : step.narration);
  }
  std::cout << "\nThe lesson\n  " << scenario->lesson << "\n";
  return kExitOk;
}

}  // namespace

CommandRun DefineExplain(CLI::App& command) {
  struct ExplainFlags {
    std::string name;
    bool toml = false;
    scenarios::InputLimits limits;
  };
  auto flags = std::make_shared<ExplainFlags>();
  command.add_option("scenario", flags->name, "a catalogue name or a scenario file")
      ->required()
      ->type_name(kScenarioValue);
  command.add_flag("--toml", flags->toml, "print the scenario as a file to copy and change");
  AddLimits(command, flags->limits);
  return [flags] { return RunExplain(flags->name, flags->toml, flags->limits); };
}

}  // namespace faultline::app
