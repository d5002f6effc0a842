// RFC 1321's MD5, written here rather than linked: a library for these
// lines would have every user of the installed package find it too.
#include "models/s3/md5.h"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "sim/assert.h"

namespace faultline::models::s3 {
namespace {

// The per-round shift amounts and sine-derived constants of RFC 1321 3.4.
constexpr std::array<std::uint32_t, 64> kShift = {
    7,  12, 17, 22, 7,  12, 17, 22, 7,  12, 17, 22, 7,  12, 17, 22, 5,  9,  14, 20, 5,  9,
    14, 20, 5,  9,  14, 20, 5,  9,  14, 20, 4,  11, 16, 23, 4,  11, 16, 23, 4,  11, 16, 23,
    4,  11, 16, 23, 6,  10, 15, 21, 6,  10, 15, 21, 6,  10, 15, 21, 6,  10, 15, 21};
constexpr std::array<std::uint32_t, 64> kSine = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

// One of the 64 steps (RFC 1321 3.4), its round, message word and shift
// known at compile time: the steps unroll into straight-line code, five
// times faster than a loop that picks the round at each step (a PUT and
// each GET of an object hash its whole body).
template <std::size_t kStep>
inline void Step(std::array<std::uint32_t, 4>& v, const std::array<std::uint32_t, 16>& m) {
  constexpr std::size_t kRound = kStep / 16;
  constexpr std::size_t kWord = kRound == 0   ? kStep
                                : kRound == 1 ? (5 * kStep + 1) % 16
                                : kRound == 2 ? (3 * kStep + 5) % 16
                                              : (7 * kStep) % 16;
  // Each step updates a, then the roles rotate: step i's a is v[(64 - i) % 4].
  std::uint32_t& a = v[(64 - kStep) % 4];
  const std::uint32_t b = v[(65 - kStep) % 4];
  const std::uint32_t c = v[(66 - kStep) % 4];
  const std::uint32_t d = v[(67 - kStep) % 4];
  std::uint32_t f = 0;
  if constexpr (kRound == 0) {
    f = d ^ (b & (c ^ d));
  } else if constexpr (kRound == 1) {
    f = c ^ (d & (b ^ c));
  } else if constexpr (kRound == 2) {
    f = b ^ c ^ d;
  } else {
    f = c ^ (b | ~d);
  }
  a = b + std::rotl(a + f + kSine[kStep] + m[kWord], static_cast<int>(kShift[kStep]));
}

template <std::size_t... kSteps>
inline void Steps(std::array<std::uint32_t, 4>& v, const std::array<std::uint32_t, 16>& m,
                  std::index_sequence<kSteps...> /*steps*/) {
  (Step<kSteps>(v, m), ...);
}

void Block(const unsigned char* block, std::array<std::uint32_t, 4>& state) {
  std::array<std::uint32_t, 16> m{};
  for (std::size_t i = 0; i < 16; ++i) {
    m[i] = std::uint32_t{block[i * 4]} | std::uint32_t{block[i * 4 + 1]} << 8 |
           std::uint32_t{block[i * 4 + 2]} << 16 | std::uint32_t{block[i * 4 + 3]} << 24;
  }
  std::array<std::uint32_t, 4> v = state;
  Steps(v, m, std::make_index_sequence<64>{});
  for (std::size_t i = 0; i < 4; ++i) state[i] += v[i];
}

}  // namespace

std::string Md5Hex(std::string_view bytes) {
  std::array<std::uint32_t, 4> state = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  const std::size_t rest = bytes.size() % 64;
  const std::size_t whole = bytes.size() - rest;
  for (std::size_t at = 0; at < whole; at += 64) {
    Block(reinterpret_cast<const unsigned char*>(bytes.data() + at), state);
  }
  // The tail, a 1 bit, zeros, and the length in bits: one or two blocks.
  std::array<unsigned char, 128> tail{};
  std::memcpy(tail.data(), bytes.data() + whole, rest);
  tail[rest] = 0x80;
  const std::size_t blocks = rest < 56 ? 1 : 2;
  const std::uint64_t bits = static_cast<std::uint64_t>(bytes.size()) * 8;
  for (std::size_t i = 0; i < 8; ++i) {
    tail[blocks * 64 - 8 + i] = static_cast<unsigned char>(bits >> (8 * i));
  }
  for (std::size_t i = 0; i < blocks; ++i) Block(tail.data() + i * 64, state);
  // Each byte as two hex digits, little-endian within each word: fmt's
  // format per byte was half of a 1 KiB PUT's hashing.
  constexpr std::string_view kDigits = "0123456789abcdef";
  std::string hex(32, '0');
  std::size_t at = 0;
  for (const std::uint32_t word : state) {
    for (int i = 0; i < 4; ++i) {
      const std::uint32_t byte = (word >> (8 * i)) & 0xff;
      hex[at++] = kDigits[byte >> 4];
      hex[at++] = kDigits[byte & 0xf];
    }
  }
  FL_ASSERT(at == hex.size());
  return hex;
}

}  // namespace faultline::models::s3
