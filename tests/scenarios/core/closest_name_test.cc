// "Did you mean" (closest_name.h): a slip of a letter or two finds the
// name meant; a word far from every choice finds none.
#include "scenarios/core/closest_name.h"

#include <gtest/gtest.h>

namespace faultline::scenarios {
namespace {

const std::vector<std::string_view> kKinds = {"crash", "error",   "delay",    "kill",
                                              "loss",  "latency", "disk-full"};

TEST(ClosestNameTest, ASlipFindsTheNameMeant) {
  EXPECT_EQ(ClosestName("latncy", kKinds), "latency");       // A letter left out.
  EXPECT_EQ(ClosestName("crahs", kKinds), "crash");          // Two swapped.
  EXPECT_EQ(ClosestName("disk_full", kKinds), "disk-full");  // One changed.
  EXPECT_EQ(ClosestName("kills", kKinds), "kill");           // One added.
}

TEST(ClosestNameTest, AWordFarFromEveryChoiceFindsNone) {
  EXPECT_EQ(ClosestName("partition", kKinds), std::nullopt);
  EXPECT_EQ(ClosestName("", kKinds), std::nullopt);
  EXPECT_EQ(ClosestName("xyz", kKinds), std::nullopt);
  EXPECT_EQ(ClosestName(std::string(1000, 'a'), kKinds), std::nullopt);
  EXPECT_EQ(ClosestName("crash", {}), std::nullopt);
}

TEST(ClosestNameTest, TheNearestWinsAndTheFirstOfEquals) {
  EXPECT_EQ(ClosestName("los", kKinds), "loss");
  EXPECT_EQ(ClosestName("ab", {"ax", "ay"}), "ax");
}

}  // namespace
}  // namespace faultline::scenarios
