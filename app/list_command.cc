// `faultline list`: the scenario catalogue by failure class, one line each.
#include <iostream>

#include <fmt/format.h>

#include "app/command_util.h"
#include "app/commands.h"
#include "scenarios/catalogue/catalogue.h"
#include "scenarios/core/failure_classes.h"

namespace faultline::app {
namespace {

int RunList() {
  // By failure class, in the classes' order; each story with its fix.
  bool first = true;
  for (const scenarios::FailureClass& failure : scenarios::FailureClasses()) {
    bool header = false;
    for (const scenarios::Scenario& scenario : scenarios::Catalogue()) {
      if (scenario.failure_class != failure.id) continue;
      if (!header) {
        std::cout << fmt::format("{}{} ({}): {}\n", first ? "" : "\n", failure.title, failure.id,
                                 failure.mechanism);
        header = true;
        first = false;
      }
      std::cout << fmt::format("  {:<34} {}\n", scenario.name, scenario.title);
    }
  }
  return kExitOk;
}

}  // namespace

CommandRun DefineList(CLI::App&) {
  return [] { return RunList(); };
}

}  // namespace faultline::app
