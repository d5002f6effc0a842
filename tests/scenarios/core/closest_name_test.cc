// "Did you mean" (closest_name.h): a slip of a letter or two finds the
// name meant; a word far from every choice finds none.
#include "scenarios/core/closest_name.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

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

TEST(ClosestNameTest, AnotherNumberIsNoSlip) {
  EXPECT_EQ(ClosestName("kuri-9", {"kuri-1", "kuri-2", "s3-proxy"}), std::nullopt);
  EXPECT_EQ(ClosestName("kuri1", {"kuri-1", "kuri-2"}), "kuri-1");
}

TEST(ClosestNameTest, TheNearestWinsAndTheFirstOfEquals) {
  EXPECT_EQ(ClosestName("los", kKinds), "loss");
  EXPECT_EQ(ClosestName("ab", {"ax", "ay"}), "ax");
}

TEST(DidYouMeanTest, SaysTheNearestOrNothing) {
  EXPECT_EQ(DidYouMean("crahs", kKinds), " (did you mean 'crash'?)");
  EXPECT_EQ(DidYouMean("xyz", kKinds), "");
  EXPECT_EQ(DidYouMean("kuri1", std::vector<std::string>{"kuri-1", "kuri-2"}),
            " (did you mean 'kuri-1'?)");
}

TEST(GroupedNamesTest, OneGroupALineByAllButTheLastPart) {
  EXPECT_EQ(GroupedNames({"disk.open", "disk.sync", "m.k.statement.after", "m.k.statement.before",
                          "m.k.version.before", "plain"}),
            "\n  disk.{open, sync}\n  m.k.statement.{after, before}\n  m.k.version.before"
            "\n  plain");
  EXPECT_EQ(GroupedNames({}), "");
  EXPECT_EQ(GroupedNames({"clean", "up"}), "\n  clean, up");  // No prefix: no braces.
  // A group too long for a line goes on, indented under its first name.
  std::vector<std::string> many;
  for (int i = 0; i < 40; ++i) many.push_back("site.name" + std::to_string(i));
  const std::string grouped = GroupedNames(many);
  std::size_t longest = 0;
  std::size_t start = 0;
  for (std::size_t end = grouped.find('\n', 1); start < grouped.size();
       start = end, end = grouped.find('\n', end + 1)) {
    const std::size_t line_end = end == std::string::npos ? grouped.size() : end;
    longest = std::max(longest, line_end - start);
    EXPECT_NE(grouped[line_end - 1], ' ') << grouped;
    if (end == std::string::npos) break;
  }
  EXPECT_LE(longest, 101u) << grouped;
  EXPECT_NE(grouped.find("name39}"), std::string::npos) << grouped;
}

}  // namespace
}  // namespace faultline::scenarios
