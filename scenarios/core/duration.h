// Durations as scenario files and the command line write them: a number
// and a unit ("500ms", "15s", "8m", "2h", "1.5s"), or several, largest
// first ("2m30s", "1h30m", as faultline prints them), bounded.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "sim/clock.h"

namespace faultline::scenarios {

// "8m", "15s", "500ms", "2h", "1.5s", "2m30s": a virtual duration of at
// most kMaxDuration, a whole number of milliseconds; nullopt if malformed,
// finer or longer.
inline constexpr sim::Duration kMaxDuration = std::chrono::hours(24 * 365);
std::optional<sim::Duration> ParseDuration(std::string_view text);
// "8m", "15s", "500ms": as a file writes it (the largest whole unit).
std::string DurationText(sim::Duration duration);
// What is wrong with `text` as a duration, for an error message.
std::string DurationError(std::string_view text);

}  // namespace faultline::scenarios
