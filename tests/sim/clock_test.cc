// Durations and times in text are as people write them (issue #30): at
// most 3 decimals, cut, the largest units first.
#include "sim/clock.h"

#include <gtest/gtest.h>

#include <chrono>

namespace faultline::sim {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

TEST(FormatDurationTest, AsPeopleWriteThem) {
  EXPECT_EQ(FormatDuration(Duration(0)), "0s");
  EXPECT_EQ(FormatDuration(minutes(8)), "8m");
  EXPECT_EQ(FormatDuration(seconds(10)), "10s");
  EXPECT_EQ(FormatDuration(milliseconds(1500)), "1.5s");
  EXPECT_EQ(FormatDuration(milliseconds(250)), "250ms");
  EXPECT_EQ(FormatDuration(nanoseconds(1250)), "1.25us");
  EXPECT_EQ(FormatDuration(nanoseconds(15)), "15ns");
  EXPECT_EQ(FormatDuration(minutes(2) + seconds(30)), "2m30s");
  EXPECT_EQ(FormatDuration(hours(1)), "1h");
  EXPECT_EQ(FormatDuration(hours(1) + milliseconds(5500)), "1h0m5.5s");
  EXPECT_EQ(FormatDuration(hours(26) + minutes(3)), "26h3m");
  EXPECT_EQ(FormatDuration(-milliseconds(1500)), "-1.5s");
}

TEST(FormatDurationTest, AtMostThreeDecimalsCutNeverRoundedIntoTheNextUnit) {
  EXPECT_EQ(FormatDuration(nanoseconds(30'031'725'469)), "30.031s");
  EXPECT_EQ(FormatDuration(nanoseconds(999'999'999)), "999.999ms");
  EXPECT_EQ(FormatDuration(nanoseconds(59'999'999'999)), "59.999s");
  EXPECT_EQ(FormatDuration(minutes(8) + microseconds(500)), "8m");
  EXPECT_EQ(FormatTime(TimePoint(milliseconds(7))), "7ms");
  EXPECT_EQ(FormatDuration(Duration::min()).front(), '-');
}

}  // namespace
}  // namespace faultline::sim
