// xoshiro256** (Blackman and Vigna), seeded through SplitMix64.
#include "sim/random.h"

#include <cmath>

#include "sim/assert.h"

namespace faultline::sim {
namespace {

std::uint64_t Rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

std::uint64_t Mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::uint64_t StableHash(std::string_view text) {
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001B3ULL;
  }
  return hash;
}

Rng::Rng(std::uint64_t seed) : seed_(seed) {
  std::uint64_t x = seed;
  for (std::uint64_t& word : state_) {
    x = Mix64(x);
    word = x;
  }
  // xoshiro must not start from all zeros; Mix64 of four consecutive values
  // cannot all be zero, and this assertion says so.
  FL_ASSERT((state_[0] | state_[1] | state_[2] | state_[3]) != 0);
}

Rng Rng::Fork(std::string_view name) const {
  return Rng(Mix64(seed_ ^ Rotl(StableHash(name), 23)));
}

std::uint64_t Rng::NextU64() {
  const std::uint64_t result = Rotl(state_[1] * 5, 7) * 9;
  const std::uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = Rotl(state_[3], 45);
  return result;
}

std::uint64_t Rng::Uniform(std::uint64_t bound) {
  FL_ASSERT(bound > 0);
  // Lemire's nearly divisionless method: unbiased, one multiply per draw.
  __uint128_t product = static_cast<__uint128_t>(NextU64()) * bound;
  auto low = static_cast<std::uint64_t>(product);
  if (low < bound) {
    const std::uint64_t threshold = -bound % bound;
    while (low < threshold) {  // Bounded: each pass succeeds with probability > 1/2.
      product = static_cast<__uint128_t>(NextU64()) * bound;
      low = static_cast<std::uint64_t>(product);
    }
  }
  const auto result = static_cast<std::uint64_t>(product >> 64);
  FL_ASSERT(result < bound);
  return result;
}

std::int64_t Rng::UniformInt(std::int64_t low, std::int64_t high) {
  FL_ASSERT(low <= high);
  const std::uint64_t span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  const std::uint64_t offset = span == UINT64_MAX ? NextU64() : Uniform(span + 1);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + offset);
}

double Rng::UniformDouble() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }

bool Rng::Bernoulli(double p) {
  FL_ASSERT(p >= 0.0 && p <= 1.0);
  return UniformDouble() < p;
}

double Rng::Exponential(double mean) {
  FL_ASSERT(mean >= 0.0);
  return -mean * std::log1p(-UniformDouble());
}

Duration Rng::Exponential(Duration mean) {
  return Duration(static_cast<Duration::rep>(Exponential(static_cast<double>(mean.count()))));
}

std::size_t Rng::WeightedChoice(std::span<const double> weights) {
  double total = 0.0;
  for (double weight : weights) {
    FL_ASSERT(weight >= 0.0);
    total += weight;
  }
  FL_ASSERT(total > 0.0);
  double point = UniformDouble() * total;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (point < weights[i]) return i;
    point -= weights[i];
  }
  // Rounding can leave `point` a hair past the last weight: take the last
  // index that has any weight.
  std::size_t last = weights.size() - 1;
  while (weights[last] == 0.0) --last;
  return last;
}

}  // namespace faultline::sim
