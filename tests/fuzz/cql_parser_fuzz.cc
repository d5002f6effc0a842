// libFuzzer target for the CQL lexer and parser: any input parses or fails
// with an error inside the input, and formatting that error never crashes.
// Build: cmake --preset fuzz && cmake --build --preset fuzz
// Run:   build/fuzz/tests/fuzz/cql_parser_fuzz -max_total_time=60 -max_len=512 \
//            tests/fuzz/cql_corpus   (copy the corpus first to keep new inputs out of git)
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "models/cql/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const faultline::models::cql::ParseResult result = faultline::models::cql::Parse(text);
  if (result.error) {
    if (result.error->position.offset > size) __builtin_trap();
    (void)faultline::models::cql::FormatError(text, *result.error);
  }
  return 0;
}
