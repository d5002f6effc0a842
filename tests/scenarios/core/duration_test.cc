// Durations as scenario files and flags write them (scenarios/core/duration.h).
#include "scenarios/core/duration.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>

namespace faultline::scenarios {
namespace {

TEST(DurationTest, DurationsHaveUnits) {
  EXPECT_EQ(ParseDuration("8m"), std::chrono::minutes(8));
  EXPECT_EQ(ParseDuration("500ms"), std::chrono::milliseconds(500));
  EXPECT_EQ(ParseDuration("2h"), std::chrono::hours(2));
  EXPECT_EQ(ParseDuration("15"), std::nullopt);
  EXPECT_EQ(ParseDuration("-1s"), std::nullopt);
  EXPECT_EQ(ParseDuration("-0.5s"), std::nullopt);  // (A sign before a fraction.)
  EXPECT_EQ(ParseDuration("1m-0.5s"), std::nullopt);
  EXPECT_EQ(ParseDuration("+1s"), std::nullopt);
  EXPECT_EQ(ParseDuration(""), std::nullopt);
  // As faultline prints them (sim::FormatDuration), and as Go writes them.
  EXPECT_EQ(ParseDuration("2m30s"), std::chrono::seconds(150));
  EXPECT_EQ(ParseDuration("1.5s"), std::chrono::milliseconds(1500));
  EXPECT_EQ(ParseDuration("1.5m"), std::chrono::seconds(90));
  EXPECT_EQ(ParseDuration("1h2m3s4ms"), std::chrono::milliseconds(3'723'004));
  EXPECT_EQ(ParseDuration("0.25ms"), std::nullopt);  // Finer than a millisecond.
  EXPECT_EQ(ParseDuration("30s2m"), std::nullopt);   // Largest first.
  EXPECT_EQ(ParseDuration("1s1s"), std::nullopt);
  EXPECT_EQ(ParseDuration("1.s"), std::nullopt);
  EXPECT_EQ(ParseDuration("2m30"), std::nullopt);
  EXPECT_EQ(ParseDuration("8760h1ms"), std::nullopt);  // Past kMaxDuration.
  EXPECT_EQ(ParseDuration("8760h"), kMaxDuration);
}

}  // namespace
}  // namespace faultline::scenarios
