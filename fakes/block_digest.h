// A hash of a file's bytes that is kept up to date at the cost of what
// changed since it was last asked, not of the file's size: the sum of one
// term per 4 KiB block, each block's term worked out again only once it
// was written. check-migrations asks for the store's database at each
// clean version of every case, and the database grows with the folder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace faultline::fakes {

class BlockDigest {
 public:
  static constexpr std::size_t kBlock = 4096;
  // The most blocks noted as changed before all are counted as changed
  // (a file nobody asks about keeps no list that grows with its writes).
  static constexpr std::size_t kMaxNoted = 4096;

  // Block `index`'s part of the sum, for `bytes` (at most kBlock of them).
  static std::uint64_t Term(std::size_t index, std::string_view bytes);

  // Bytes [offset, offset + length) changed (written, zero-filled, cut).
  void Changed(std::uint64_t offset, std::uint64_t length);
  // Everything changed (a file replaced whole).
  void Reset();
  // The sum for `contents`, the file as it is now (every change since the
  // last call noted).
  std::uint64_t Of(std::string_view contents);

 private:
  std::vector<std::uint64_t> terms_;  // Each block's, as of the last Of.
  std::vector<std::size_t> noted_;    // Blocks changed since (repeats allowed).
  std::uint64_t sum_ = 0;
  bool all_changed_ = true;  // Never worked out, or too much to note.
};

}  // namespace faultline::fakes
