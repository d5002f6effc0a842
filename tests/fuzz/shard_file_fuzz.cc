// libFuzzer target: `faultline merge`'s input, an exploration's groups.tsv,
// on any bytes. A file that reads, written again (ShardText) and read back,
// must give the same text; one that does not must be refused with its place
// ("groups.tsv:LINE: ..." or "groups.tsv: names no scenario"). Nothing may
// crash or hang.
//
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build/fuzz/tests/fuzz/shard_file_fuzz -dict=tests/fuzz/shard_file.dict tests/fuzz/shard_corpus
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "scenarios/explore/shard_file.h"

namespace {

using faultline::scenarios::ParseShardText;
using faultline::scenarios::ShardFile;

void Require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  if (size > 64 * 1024) return 0;  // The reader is linear; big inputs only slow the search.
  const std::string_view data(reinterpret_cast<const char*>(bytes), size);
  const auto read = ParseShardText(data, "groups.tsv");
  if (const auto* error = std::get_if<std::string>(&read)) {
    Require(error->starts_with("groups.tsv:") || error->starts_with("groups.tsv: "));
    return 0;
  }
  const ShardFile& file = std::get<ShardFile>(read);
  Require(!file.scenario.empty());
  const std::string text = faultline::scenarios::ShardText(file);
  const auto again = ParseShardText(text, "again.tsv");
  // A scenario name of spaces and tabs alone is written as spaces: it still
  // names something, so it reads back.
  Require(std::holds_alternative<ShardFile>(again));
  Require(faultline::scenarios::ShardText(std::get<ShardFile>(again)) == text);
  return 0;
}
