// How many seeds the many-seed sweeps play: 1 to 101, or to
// FAULTLINE_SWEEP_SEEDS (the asan preset sweeps fewer, as the default suite,
// which CI runs first, has swept them all).
#pragma once

#include <cstdint>
#include <cstdlib>

namespace faultline::scenarios {

inline std::uint64_t SweepSeeds() {
  const char* text = std::getenv("FAULTLINE_SWEEP_SEEDS");
  const std::uint64_t seeds = text == nullptr ? 101 : std::strtoull(text, nullptr, 10);
  return seeds == 0 ? 101 : seeds;
}

}  // namespace faultline::scenarios
