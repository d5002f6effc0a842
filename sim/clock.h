// Virtual time. A std::chrono-style clock with nanosecond resolution that only
// moves when the scheduler jumps to the next due timer, or when a run bounded
// by a time stops at that time (sim/scheduler.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace faultline::sim {

// Deliberately has no static now(): every Simulation owns its clock, so the
// current time is read with Simulation::Now() or Scheduler::Now(). A global
// now() would invite code that reads time without a simulation in hand.
struct VirtualClock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::duration<rep, period>;
  using time_point = std::chrono::time_point<VirtualClock>;
  static constexpr bool is_steady = true;
};

using Duration = VirtualClock::duration;
using TimePoint = VirtualClock::time_point;

inline constexpr TimePoint kTimeZero{};

inline std::int64_t ToNanoseconds(TimePoint t) { return t.time_since_epoch().count(); }

// As people write durations, at most 3 decimals, cut: "8m", "2m30s",
// "10s", "1.5s", "250ms", "1.25us", "15ns" (text for people; JSON and
// traces keep nanoseconds). A time is its duration since the start.
std::string FormatTime(TimePoint t);
std::string FormatDuration(Duration d);

}  // namespace faultline::sim
