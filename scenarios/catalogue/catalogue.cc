#include "scenarios/catalogue/catalogue.h"

#include <variant>

#include "scenarios/core/failure_classes.h"
#include "scenarios/file/scenario_file.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

std::vector<Scenario> ReadCatalogue() {
  std::vector<Scenario> scenarios;
  for (const CatalogueFile& file : CatalogueFiles()) {
    std::variant<Scenario, FileError> parsed =
        ParseScenario(file.text, "scenarios/catalogue/" + std::string(file.name) + ".toml");
    // The files are read by the tests on every build: a broken one is a bug.
    FL_ASSERT_MSG(std::holds_alternative<Scenario>(parsed), "the catalogue is broken: {}",
                  std::get<FileError>(parsed).message);
    Scenario& scenario = std::get<Scenario>(parsed);
    FL_ASSERT_MSG(scenario.name == file.name, "catalogue file {}.toml names itself '{}'", file.name,
                  scenario.name);
    // `faultline list` groups the catalogue by class: every story has one.
    FL_ASSERT_MSG(FindFailureClass(scenario.failure_class) != nullptr,
                  "catalogue file {}.toml names no failure class", file.name);
    scenarios.push_back(std::move(scenario));
  }
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      FL_ASSERT_MSG(scenarios[i].name != scenarios[j].name, "catalogue names {} twice",
                    scenarios[i].name);
    }
  }
  return scenarios;
}

}  // namespace

const std::vector<Scenario>& Catalogue() {
  // Immutable once read: no simulation can change what another sees.
  static const std::vector<Scenario> kCatalogue = ReadCatalogue();
  return kCatalogue;
}

const Scenario* FindScenario(std::string_view name) {
  for (const Scenario& scenario : Catalogue()) {
    if (scenario.name == name) return &scenario;
  }
  return nullptr;
}

}  // namespace faultline::scenarios
