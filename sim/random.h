// Deterministic randomness. One root seed; named streams split from it with
// Fork("network"), so that adding a component, or more draws in one, never
// shifts another component's draws. Never the operating system's entropy,
// never the C library's generator.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "sim/clock.h"

namespace faultline::sim {

// SplitMix64's finaliser: a bijective 64-bit mixer.
std::uint64_t Mix64(std::uint64_t x);
// FNV-1a over the bytes of `text`; stable across runs, platforms and builds,
// unlike std::hash.
std::uint64_t StableHash(std::string_view text);

// A xoshiro256** generator. Copyable: a copy continues the same sequence.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  // The seed this stream was created from (not its current state).
  std::uint64_t seed() const { return seed_; }

  // An independent stream named `name`. Depends only on this stream's seed and
  // the name, never on how many values were drawn from this stream.
  Rng Fork(std::string_view name) const;

  std::uint64_t NextU64();
  // Uniform in [0, bound). REQUIRES: bound > 0.
  std::uint64_t Uniform(std::uint64_t bound);
  // Uniform in [low, high]. REQUIRES: low <= high.
  std::int64_t UniformInt(std::int64_t low, std::int64_t high);
  // Uniform in [0, 1).
  double UniformDouble();
  // True with probability p. REQUIRES: 0 <= p <= 1.
  bool Bernoulli(double p);
  // Exponentially distributed with the given mean. REQUIRES: mean >= 0.
  double Exponential(double mean);
  Duration Exponential(Duration mean);
  // An index drawn with probability proportional to its weight.
  // REQUIRES: at least one weight > 0, none negative.
  std::size_t WeightedChoice(std::span<const double> weights);

 private:
  std::uint64_t seed_;
  std::uint64_t state_[4];
};

}  // namespace faultline::sim
