#include "sim/random.h"

#include <array>
#include <set>
#include <vector>

#include <gtest/gtest.h>

namespace faultline::sim {
namespace {

std::vector<std::uint64_t> Draw(Rng rng, int count) {
  std::vector<std::uint64_t> values;
  for (int i = 0; i < count; ++i) values.push_back(rng.NextU64());
  return values;
}

TEST(RngTest, SameSeedSameSequence) {
  EXPECT_EQ(Draw(Rng(42), 100), Draw(Rng(42), 100));
  EXPECT_NE(Draw(Rng(42), 100), Draw(Rng(43), 100));
}

TEST(RngTest, ForkDependsOnNameNotOnDrawsFromParent) {
  Rng parent(7);
  const Rng before = parent.Fork("network");
  for (int i = 0; i < 1000; ++i) parent.NextU64();
  const Rng after = parent.Fork("network");
  EXPECT_EQ(Draw(before, 50), Draw(after, 50));
}

TEST(RngTest, NamedStreamsAreIndependent) {
  const Rng root(7);
  EXPECT_NE(Draw(root.Fork("network"), 50), Draw(root.Fork("disk"), 50));
  EXPECT_NE(Draw(root.Fork("network"), 50), Draw(root, 50));
  // Drawing from one stream leaves a sibling stream unchanged.
  Rng network = root.Fork("network");
  const std::vector<std::uint64_t> disk_alone = Draw(root.Fork("disk"), 50);
  Draw(network, 500);
  EXPECT_EQ(Draw(root.Fork("disk"), 50), disk_alone);
}

TEST(RngTest, UniformStaysInRangeAndCoversIt) {
  Rng rng(1);
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 10'000; ++i) {
    const std::uint64_t value = rng.Uniform(10);
    ASSERT_LT(value, 10u);
    seen.insert(value);
  }
  EXPECT_EQ(seen.size(), 10u);
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t value = rng.UniformInt(-3, 3);
    ASSERT_GE(value, -3);
    ASSERT_LE(value, 3);
  }
}

TEST(RngTest, BernoulliExtremesAreExact) {
  Rng rng(2);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_FALSE(rng.Bernoulli(0.0));
    EXPECT_TRUE(rng.Bernoulli(1.0));
  }
}

TEST(RngTest, ExponentialHasTheRequestedMean) {
  Rng rng(3);
  double sum = 0.0;
  constexpr int kDraws = 100'000;
  for (int i = 0; i < kDraws; ++i) {
    const double value = rng.Exponential(5.0);
    ASSERT_GE(value, 0.0);
    sum += value;
  }
  EXPECT_NEAR(sum / kDraws, 5.0, 0.1);
  std::int64_t total_ns = 0;
  for (int i = 0; i < kDraws; ++i) {
    const Duration value = rng.Exponential(Duration(1000));
    ASSERT_GE(value.count(), 0);
    total_ns += value.count();
  }
  EXPECT_NEAR(static_cast<double>(total_ns) / kDraws, 1000.0, 20.0);
}

TEST(RngTest, WeightedChoiceFollowsWeightsAndSkipsZeros) {
  Rng rng(4);
  const std::array<double, 3> weights{1.0, 0.0, 3.0};
  std::array<int, 3> counts{};
  for (int i = 0; i < 40'000; ++i) ++counts[rng.WeightedChoice(weights)];
  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(static_cast<double>(counts[2]) / counts[0], 3.0, 0.2);
}

TEST(RngTest, StableHashIsStable) {
  // FNV-1a's published value for "a"; a change here would change every seed.
  EXPECT_EQ(StableHash("a"), 0xAF63DC4C8601EC8CULL);
  EXPECT_NE(Mix64(1), Mix64(2));
}

}  // namespace
}  // namespace faultline::sim
