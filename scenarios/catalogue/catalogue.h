// The built-in catalogue: the five seed stories (../shared/seeds/), each
// with the seed's own names, versions and error texts, and companions that
// show what prevents them. Its only copy is the TOML files under
// scenarios/catalogue/, embedded into the binary when it is built
// (scenarios/CMakeLists.txt) and read like any scenario file.
#pragma once

#include <string_view>
#include <vector>

#include "scenarios/core/scenario.h"

namespace faultline::scenarios {

// Every scenario of the catalogue, in its order; read once, on first use.
const std::vector<Scenario>& Catalogue();
const Scenario* FindScenario(std::string_view name);

// The embedded files: the name (without .toml) and the file's text.
struct CatalogueFile {
  std::string_view name;
  std::string_view text;
};
const std::vector<CatalogueFile>& CatalogueFiles();

}  // namespace faultline::scenarios
