#include "sim/unique_function.h"

#include <array>
#include <memory>

#include <gtest/gtest.h>

namespace faultline::sim {
namespace {

TEST(UniqueFunctionTest, CallsSmallAndLargeCallables) {
  UniqueFunction<int(int)> small = [](int x) { return x + 1; };
  std::array<int, 64> big{};
  big[63] = 41;
  UniqueFunction<int(int)> large = [big](int x) { return big[63] + x; };
  EXPECT_EQ(small(1), 2);
  EXPECT_EQ(large(1), 42);
}

TEST(UniqueFunctionTest, HoldsMoveOnlyCallablesAndMovesThem) {
  auto value = std::make_unique<int>(7);
  UniqueFunction<int()> f = [value = std::move(value)] { return *value; };
  UniqueFunction<int()> g = std::move(f);
  EXPECT_FALSE(f);  // NOLINT: checking the moved-from state on purpose.
  ASSERT_TRUE(g);
  EXPECT_EQ(g(), 7);
}

TEST(UniqueFunctionTest, DestroysTheCallableExactlyOnce) {
  auto counter = std::make_shared<int>(0);
  {
    UniqueFunction<void()> f = [counter] {};
    EXPECT_EQ(counter.use_count(), 2);
    UniqueFunction<void()> g = std::move(f);
    EXPECT_EQ(counter.use_count(), 2);
    g.Reset();
    EXPECT_EQ(counter.use_count(), 1);
    EXPECT_FALSE(g);
  }
  EXPECT_EQ(counter.use_count(), 1);
}

}  // namespace
}  // namespace faultline::sim
