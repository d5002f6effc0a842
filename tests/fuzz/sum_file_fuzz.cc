// libFuzzer target: check-migrations' --sum input on any bytes. A sum file
// that reads must say the same entries when written again and read back;
// one that does not must be refused with a place inside the input
// ("fuzz.sum:LINE:COLUMN: ..."). Nothing may crash or hang.
//
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build/fuzz/tests/fuzz/sum_file_fuzz -dict=tests/fuzz/sum_file.dict tests/fuzz/sum_corpus
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "models/migrate/lint.h"

namespace {

using faultline::models::migrate::ParseSumFile;
using faultline::models::migrate::SumFile;

void Require(bool condition) {
  if (!condition) std::abort();
}

std::size_t Lines(std::string_view text) {
  std::size_t lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  return lines;
}

// The entries as a sum file, in the format WriteSumFile writes.
std::string Text(const SumFile& sum) {
  std::string text = "faultline-sum 1\n";
  for (const auto& entry : sum.entries) {
    text += fmt::format("{} fnv1a64:{:016x}\n", entry.file, entry.checksum);
  }
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  if (size > 64 * 1024) return 0;  // The reader is linear; big inputs only slow the search.
  const std::string_view data(reinterpret_cast<const char*>(bytes), size);
  const auto sum = ParseSumFile(data, "fuzz.sum");
  if (!sum.ok()) {
    const std::string& message = sum.status().message();
    Require(message.starts_with("fuzz.sum:"));
    const std::size_t line = std::strtoull(message.c_str() + 9, nullptr, 10);
    Require(line >= 1 && line <= Lines(data));
    return 0;
  }
  for (const auto& entry : sum->entries) {
    Require(entry.line >= 1 && static_cast<std::size_t>(entry.line) <= Lines(data));
    Require(!entry.file.empty());
  }
  const auto again = ParseSumFile(Text(*sum), "again.sum");
  Require(again.ok());
  Require(again->entries.size() == sum->entries.size());
  for (std::size_t i = 0; i < sum->entries.size(); ++i) {
    Require(again->entries[i].file == sum->entries[i].file);
    Require(again->entries[i].checksum == sum->entries[i].checksum);
  }
  return 0;
}
