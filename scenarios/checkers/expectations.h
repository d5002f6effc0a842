// A step's expectations (Expectation in scenario.h), judged against its
// outcome and the world as it is after the step. Judging observes: it reads
// the runtime, the logs and the store's volume, and never acts.
#pragma once

#include <string>

#include "scenarios/core/results.h"
#include "scenarios/core/scenario.h"

namespace faultline::scenarios {

struct World;

// Whether `expectation` holds for a step whose outcome was `output` (and
// S3 status `status`, 0 for none), and what was there instead.
CheckResult CheckExpectation(World& world, const Expectation& expectation,
                             const std::string& output, int status);

}  // namespace faultline::scenarios
