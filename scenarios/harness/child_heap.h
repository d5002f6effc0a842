// A forked future's own heap. A child of fork shares every page of its
// parent's heap until it writes one; then the kernel copies the page
// (copy-on-write), and under nested paging each such fault is dear (about
// 10 us on the project's VM, with a TLB flush). The parent's allocator
// keeps its free lists in the free chunks themselves, scattered over the
// whole heap, so a child that allocates writes to hundreds of the parent's
// pages for nothing but bookkeeping (42% of a check-migrations child's
// page faults were in malloc, measured with `perf record -e page-faults`).
//
// EnterChildHeap, called in a child just forked, gives it a heap of its
// own: C++'s operator new and SQLite's allocator (the two that allocate
// nearly everything here) take memory from a fresh mapping, in size
// classes with a free list each; freeing memory the parent allocated does
// nothing (the child is short-lived, and the parent's copy is untouched).
// A child that forks again (a held run's answers) gives its own child a
// fresh heap the same way. In the parent nothing changes: operator new is
// malloc, as before.
//
// Nothing here reaches a trace: addresses never do (branches_test.cc holds
// a future's trace hash to the same run from empty). Under the sanitizers
// the replacement is left out (they keep their own allocator).
#pragma once

#include <bit>
#include <cstddef>

namespace faultline::scenarios {

// In a child just forked (one thread): from now on this process allocates
// from a heap of its own. Without a mapping to give (the kernel refused
// one), it keeps its parent's allocator.
void EnterChildHeap();

// Whether this process allocates from a heap of its own.
bool InChildHeap();
// Whether this build has the child heap (not under the sanitizers).
bool ChildHeapBuiltIn();

namespace child_heap {

// The size classes (here for their test and the heap's compile-time
// bounds): the class of an allocation of `bytes`, 16-byte steps to 128
// bytes, then four classes per doubling; and the bytes a block of
// `size_class` holds (at least `bytes`).
constexpr int ClassOf(std::size_t bytes) {
  if (bytes <= 128) return bytes == 0 ? 1 : static_cast<int>((bytes + 15) / 16);
  const int power = static_cast<int>(std::bit_width(bytes - 1));  // 2^power >= bytes.
  const std::size_t half = std::size_t{1} << (power - 1);
  return 9 + (power - 8) * 4 + static_cast<int>((bytes - 1 - half) / (half / 4));
}

constexpr std::size_t CapacityOf(int size_class) {
  if (size_class <= 8) return static_cast<std::size_t>(size_class) * 16;
  const int power = 8 + (size_class - 9) / 4;
  const std::size_t half = std::size_t{1} << (power - 1);
  return half + static_cast<std::size_t>((size_class - 9) % 4 + 1) * (half / 4);
}

}  // namespace child_heap
}  // namespace faultline::scenarios
