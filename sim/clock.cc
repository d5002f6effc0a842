#include "sim/clock.h"

#include <cstdlib>

#include <fmt/format.h>

namespace faultline::sim {

std::string FormatDuration(Duration d) {
  const std::int64_t ns = d.count();
  const char* sign = ns < 0 ? "-" : "";
  const std::uint64_t magnitude =
      ns < 0 ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
  return fmt::format("{}{}.{:09}s", sign, magnitude / 1'000'000'000, magnitude % 1'000'000'000);
}

std::string FormatTime(TimePoint t) { return FormatDuration(t.time_since_epoch()); }

}  // namespace faultline::sim
