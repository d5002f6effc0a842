// FNV-1a, 64 bits: a stable content hash (the same on every host and run),
// for ids and checksums the models derive from text. Not for security.
#pragma once

#include <cstdint>
#include <string_view>

namespace faultline::sim {

constexpr std::uint64_t Fnv1a64(std::string_view bytes) {
  std::uint64_t hash = 14695981039346656037ull;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

}  // namespace faultline::sim
