#include "scenarios/core/duration.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <iterator>
#include <utility>

#include "sim/assert.h"

namespace faultline::scenarios {

namespace {

struct Unit {
  std::string_view name;
  sim::Duration one;
};
// Largest first: a compound duration names them in this order ("1h30m").
constexpr Unit kUnits[] = {{"h", std::chrono::hours(1)},
                           {"m", std::chrono::minutes(1)},
                           {"s", std::chrono::seconds(1)},
                           {"ms", std::chrono::milliseconds(1)}};
// One part, "90s" or "1.5m", from the front of `text` (consumed): its
// duration, or nullopt when malformed, not a whole number of milliseconds,
// longer than kMaxDuration, or of a unit not smaller than `before`'s.
std::optional<sim::Duration> TakePart(std::string_view& text, std::size_t& before) {
  // Digits first: from_chars would take a sign ("-0.5s" read as 0.5 s).
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  std::int64_t whole = 0;
  const char* const end = text.data() + text.size();
  const auto [after_whole, error] = std::from_chars(text.data(), end, whole);
  if (error != std::errc() || whole < 0 || after_whole == text.data()) return std::nullopt;
  const char* at = after_whole;
  std::int64_t fraction = 0;
  std::int64_t scale = 1;  // 10 to the fraction's digits.
  if (at != end && *at == '.') {
    for (++at; at != end && *at >= '0' && *at <= '9'; ++at) {
      if (scale >= 1'000'000'000) return std::nullopt;  // Nine digits at most.
      fraction = fraction * 10 + (*at - '0');
      scale *= 10;
    }
    if (scale == 1) return std::nullopt;  // "1.m": a point without digits.
  }
  for (std::size_t unit = 0; unit < std::size(kUnits); ++unit) {
    const auto& [name, one] = kUnits[unit];
    // "ms" before "m": the longer name when both fit.
    const bool is_ms = std::string_view(at, static_cast<std::size_t>(end - at)).starts_with("ms");
    if (name == "m" && is_ms) continue;
    if (!std::string_view(at, static_cast<std::size_t>(end - at)).starts_with(name)) continue;
    if (unit <= before && before != std::size(kUnits)) return std::nullopt;  // "30s2m", "1s1s".
    // Checked before multiplying: 3000000h would overflow the clock.
    if (whole > kMaxDuration / one) return std::nullopt;
    const auto part_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(one).count();
    const std::int64_t fraction_ns = part_ns / scale * fraction;
    if (part_ns % scale != 0 || fraction_ns % 1'000'000 != 0) return std::nullopt;
    before = unit;
    text.remove_prefix(static_cast<std::size_t>(at - text.data()) + name.size());
    return whole * one + std::chrono::nanoseconds(fraction_ns);
  }
  return std::nullopt;
}

}  // namespace

std::optional<sim::Duration> ParseDuration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  sim::Duration total{};
  std::size_t before = std::size(kUnits);  // No unit yet.
  for (int parts = 0; !text.empty(); ++parts) {
    if (parts == static_cast<int>(std::size(kUnits))) return std::nullopt;  // One of each at most.
    const std::optional<sim::Duration> part = TakePart(text, before);
    if (!part || *part > kMaxDuration - total) return std::nullopt;
    total += *part;
  }
  FL_ASSERT(total >= sim::Duration::zero() && total <= kMaxDuration);
  return total;
}

std::string DurationError(std::string_view text) {
  return fmt::format(
      "'{}' is not a duration of at most {}h (write 500ms, 15s, 8m, 2h, 1.5s or 2m30s)", text,
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
