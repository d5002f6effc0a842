// The built-in catalogue: the five seed stories (../shared/seeds/), each
// with the seed's own names, versions and error texts, and companions that
// show what prevents them.
#pragma once

#include <string_view>
#include <vector>

#include "scenarios/scenario.h"

namespace faultline::scenarios {

const std::vector<Scenario>& Catalogue();
const Scenario* FindScenario(std::string_view name);

}  // namespace faultline::scenarios
