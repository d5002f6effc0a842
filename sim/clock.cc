#include "sim/clock.h"

#include <cstdlib>

#include <fmt/format.h>

namespace faultline::sim {

namespace {

// `value` in `unit`s with at most 3 decimals, cut (not rounded, so a
// value never reads as the next unit), trailing zeros dropped: "1.5", "30".
std::string InUnits(std::uint64_t value, std::uint64_t unit) {
  const std::uint64_t thousandths = value % unit / (unit / 1000);
  std::string text = fmt::format("{}", value / unit);
  if (thousandths != 0) {
    std::string decimals = fmt::format("{:03}", thousandths);
    while (decimals.back() == '0') decimals.pop_back();
    text += "." + decimals;
  }
  return text;
}

}  // namespace

std::string FormatDuration(Duration d) {
  const std::int64_t ns = d.count();
  const char* sign = ns < 0 ? "-" : "";
  const std::uint64_t magnitude =
      ns < 0 ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
  constexpr std::uint64_t kMicro = 1'000;
  constexpr std::uint64_t kMilli = 1'000'000;
  constexpr std::uint64_t kSecond = 1'000'000'000;
  constexpr std::uint64_t kMinute = 60 * kSecond;
  constexpr std::uint64_t kHour = 60 * kMinute;
  if (magnitude == 0) return "0s";
  if (magnitude < kMicro) return fmt::format("{}{}ns", sign, magnitude);
  if (magnitude < kMilli) return fmt::format("{}{}us", sign, InUnits(magnitude, kMicro));
  if (magnitude < kSecond) return fmt::format("{}{}ms", sign, InUnits(magnitude, kMilli));
  if (magnitude < kMinute) return fmt::format("{}{}s", sign, InUnits(magnitude, kSecond));
  // "1h", "8m", "2m30s", "1h0m5.5s": as Go's time.Duration says them, the
  // parts that are zero at the end left out.
  std::string text = sign;
  const std::uint64_t hours = magnitude / kHour;
  const std::uint64_t minutes = magnitude % kHour / kMinute;
  const std::uint64_t rest = magnitude % kMinute;
  if (hours > 0) text += fmt::format("{}h", hours);
  if (minutes > 0 || (hours > 0 && rest >= kMilli)) text += fmt::format("{}m", minutes);
  if (rest >= kMilli) text += InUnits(rest, kSecond) + "s";
  return text;
}

std::string FormatTime(TimePoint t) { return FormatDuration(t.time_since_epoch()); }

}  // namespace faultline::sim
