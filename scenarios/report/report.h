// `faultline report`: one self-contained HTML page of a run (no network, no
// external script or font): a message sequence diagram (a lane per service
// and incarnation, an arrow per message, crashes and restarts marked), the
// steps with their narration and verdicts, the checkers, the logs per
// service, and a scrubber that shows the store's schema and rows as they
// were after any step. Everything in it is read from the trace and from
// snapshots of the store's volume: making a report changes nothing of the
// run (the same seed gives the same trace hash with or without it).
#pragma once

#include <cstdint>
#include <string>

#include "scenarios/core/scenario.h"
#include "scenarios/harness/runner.h"

namespace faultline::scenarios {

struct Report {
  ScenarioResult result;
  std::string html;
};

// Plays `scenario` from `seed` and renders its page.
Report RenderReport(const Scenario& scenario, std::uint64_t seed);

}  // namespace faultline::scenarios
