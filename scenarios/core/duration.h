// Durations as scenario files and the command line write them: a whole
// number and a unit ("500ms", "15s", "8m", "2h"), bounded.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "sim/clock.h"

namespace faultline::scenarios {

// "8m", "15s", "500ms", "2h": a virtual duration of at most kMaxDuration;
// nullopt if malformed or longer.
inline constexpr sim::Duration kMaxDuration = std::chrono::hours(24 * 365);
std::optional<sim::Duration> ParseDuration(std::string_view text);
// "8m", "15s", "500ms": as a file writes it (the largest whole unit).
std::string DurationText(sim::Duration duration);
// What is wrong with `text` as a duration, for an error message.
std::string DurationError(std::string_view text);

}  // namespace faultline::scenarios
