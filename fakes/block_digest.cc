#include "fakes/block_digest.h"

#include <algorithm>
#include <functional>

#include "sim/assert.h"
#include "sim/random.h"

namespace faultline::fakes {

std::uint64_t BlockDigest::Term(std::size_t index, std::string_view bytes) {
  FL_ASSERT(bytes.size() <= kBlock);
  return sim::Mix64(std::hash<std::string_view>{}(bytes) ^ sim::Mix64(index + 1));
}

void BlockDigest::Changed(std::uint64_t offset, std::uint64_t length) {
  if (all_changed_ || length == 0) return;
  const std::uint64_t first = offset / kBlock;
  const std::uint64_t last = (offset + length - 1) / kBlock;
  if (noted_.size() + (last - first + 1) > kMaxNoted) {
    Reset();
    return;
  }
  for (std::uint64_t block = first; block <= last; ++block) {
    noted_.push_back(static_cast<std::size_t>(block));
  }
}

void BlockDigest::Reset() {
  all_changed_ = true;
  noted_.clear();
}

std::uint64_t BlockDigest::Of(std::string_view contents) {
  const std::size_t blocks = (contents.size() + kBlock - 1) / kBlock;
  const auto block_of = [&](std::size_t index) { return contents.substr(index * kBlock, kBlock); };
  if (all_changed_) {
    terms_.assign(blocks, 0);
    sum_ = 0;
    for (std::size_t i = 0; i < blocks; ++i) sum_ += terms_[i] = Term(i, block_of(i));
    all_changed_ = false;
    noted_.clear();
    return sum_;
  }
  // Blocks past the end went with a cut; new ones came with a write (noted).
  while (terms_.size() > blocks) {
    sum_ -= terms_.back();
    terms_.pop_back();
  }
  terms_.resize(blocks, 0);
  for (const std::size_t i : noted_) {
    if (i >= blocks) continue;
    sum_ -= terms_[i];
    terms_[i] = Term(i, block_of(i));
    sum_ += terms_[i];
  }
  noted_.clear();
  return sum_;
}

}  // namespace faultline::fakes
