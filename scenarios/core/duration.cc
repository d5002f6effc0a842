#include "scenarios/core/duration.h"

#include <fmt/format.h>

#include <charconv>
#include <utility>

#include "sim/assert.h"

namespace faultline::scenarios {

std::optional<sim::Duration> ParseDuration(std::string_view text) {
  std::int64_t amount = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), amount);
  if (error != std::errc() || amount < 0) return std::nullopt;
  const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  const std::pair<std::string_view, sim::Duration> kUnits[] = {{"ms", std::chrono::milliseconds(1)},
                                                               {"s", std::chrono::seconds(1)},
                                                               {"m", std::chrono::minutes(1)},
                                                               {"h", std::chrono::hours(1)}};
  for (const auto& [name, one] : kUnits) {
    if (unit != name) continue;
    // Checked before multiplying: 3000000h would overflow the clock.
    if (amount > kMaxDuration / one) return std::nullopt;
    FL_ASSERT(amount * one <= kMaxDuration);
    return amount * one;
  }
  return std::nullopt;
}

std::string DurationError(std::string_view text) {
  return fmt::format("'{}' is not a duration of at most {}h (write 500ms, 15s, 8m, 2h)", text,
                     std::chrono::duration_cast<std::chrono::hours>(kMaxDuration).count());
}

std::string DurationText(sim::Duration duration) {
  using namespace std::chrono;
  if (duration % hours(1) == nanoseconds(0)) return fmt::format("{}h", duration / hours(1));
  if (duration % minutes(1) == nanoseconds(0)) return fmt::format("{}m", duration / minutes(1));
  if (duration % seconds(1) == nanoseconds(0)) return fmt::format("{}s", duration / seconds(1));
  return fmt::format("{}ms", duration_cast<milliseconds>(duration).count());
}

}  // namespace faultline::scenarios
