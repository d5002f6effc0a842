#include "scenarios/harness/child_heap.h"

#include <malloc.h>
#include <sqlite3.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "sim/assert.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define FAULTLINE_KEEP_THE_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FAULTLINE_KEEP_THE_ALLOCATOR 1
#endif

namespace faultline::scenarios {
#ifndef FAULTLINE_KEEP_THE_ALLOCATOR
namespace {

using child_heap::CapacityOf;
using child_heap::ClassOf;

// Virtual space reserved for a child's heap (no memory until touched); a
// child that uses it up ends (Exhausted).
constexpr std::size_t kReserved = std::size_t{8} << 30;
constexpr std::size_t kHeader = 16;  // Keeps every block 16-aligned.
constexpr std::size_t kLargest = kReserved / 2;
constexpr int kClasses = ClassOf(kLargest) + 1;
constexpr std::uint32_t kBlock = 0x6b6c4246;    // A block: its class follows.
constexpr std::uint32_t kAligned = 0x6e67696c;  // An aligned payload inside a block.

struct Header {
  std::uint32_t tag;
  std::uint32_t value;  // kBlock: the class; kAligned: bytes back to the block's payload.
  std::uint64_t unused;
};
static_assert(sizeof(Header) == kHeader);

// A child's child gets a heap of its own too, to this depth; deeper, it
// keeps its parent's (written copy-on-write, as the parent's allocator).
constexpr int kMaxDepth = 4;

// One per process, and only a forked child writes it: the parent's
// allocation goes to malloc, whatever its threads do.
struct Heap {
  char* base = nullptr;  // nullptr: the parent's allocator.
  char* bump = nullptr;
  std::array<void*, kClasses> free_lists{};
  // The heaps of the forked ancestors, whose blocks this one never frees
  // but must know the size of (a realloc's copy).
  std::array<char*, kMaxDepth> ancestors{};
  int depth = 0;
};
Heap heap;

bool Within(const void* pointer, const char* base) {
  const auto* p = static_cast<const char*>(pointer);
  return base != nullptr && p >= base && p < base + kReserved;
}
bool Ours(const void* pointer) { return Within(pointer, heap.base); }
// Ours or an ancestor's: its header tells its size.
bool FromAChildHeap(const void* pointer) {
  if (Ours(pointer)) return true;
  for (int i = 0; i < heap.depth; ++i) {
    if (Within(pointer, heap.ancestors[i])) return true;
  }
  return false;
}

Header* HeaderOf(void* payload) { return reinterpret_cast<Header*>(payload) - 1; }

// The block whose payload holds `payload` (an aligned one points inside).
void* BlockPayload(void* payload) {
  const Header* header = HeaderOf(payload);
  if (header->tag == kAligned) return static_cast<char*>(payload) - header->value;
  return payload;
}

// A child that allocated its whole region is a bug (a future plays one
// run): said, not hidden behind a second allocator whose blocks it could
// not tell from its parent's.
[[noreturn]] void Exhausted() {
  constexpr char kWords[] = "faultline: a forked run allocated its whole heap (8 GiB)\n";
  (void)!write(STDERR_FILENO, kWords, sizeof kWords - 1);
  std::abort();
}

// nullptr: more than a heap holds (the caller's bad_alloc).
void* Allocate(std::size_t bytes) {
  if (bytes > kLargest) return nullptr;
  const int size_class = ClassOf(bytes);
  if (void* reused = heap.free_lists[size_class]; reused != nullptr) {
    std::memcpy(&heap.free_lists[size_class], reused, sizeof(void*));
    return reused;
  }
  const std::size_t span = kHeader + CapacityOf(size_class);
  if (static_cast<std::size_t>(heap.base + kReserved - heap.bump) < span) Exhausted();
  auto* header = reinterpret_cast<Header*>(heap.bump);
  *header = Header{kBlock, static_cast<std::uint32_t>(size_class), 0};
  heap.bump += span;
  return header + 1;
}

// The bytes from `payload` to its block's end.
std::size_t Capacity(void* payload) {
  void* block = BlockPayload(payload);
  return CapacityOf(static_cast<int>(HeaderOf(block)->value)) -
         static_cast<std::size_t>(static_cast<char*>(payload) - static_cast<char*>(block));
}

void Release(void* payload) {
  if (!Ours(payload)) return;  // The parent's: its copy stays as it is.
  void* block = BlockPayload(payload);
  const int size_class = static_cast<int>(HeaderOf(block)->value);
  std::memcpy(block, &heap.free_lists[size_class], sizeof(void*));
  heap.free_lists[size_class] = block;
}

void* AllocateAligned(std::size_t bytes, std::size_t alignment) {
  if (alignment <= kHeader) return Allocate(bytes);
  if (bytes > kLargest || alignment > kLargest) return nullptr;  // The sum below cannot wrap.
  void* payload = Allocate(bytes + alignment);
  if (payload == nullptr) return nullptr;
  const auto at = reinterpret_cast<std::uintptr_t>(payload);
  const std::uintptr_t aligned = (at + alignment - 1) & ~(alignment - 1);
  if (aligned == at) return payload;
  // At least 16 bytes in: room for the note that leads back to the block.
  *HeaderOf(reinterpret_cast<void*>(aligned)) =
      Header{kAligned, static_cast<std::uint32_t>(aligned - at), 0};
  return reinterpret_cast<void*>(aligned);
}

// What a child allocates; nullptr when it asks for more than a heap holds.
void* ChildAllocate(std::size_t bytes, std::size_t alignment) {
  return AllocateAligned(bytes, alignment);
}

std::size_t UsableSize(void* payload) {
  return FromAChildHeap(payload) ? Capacity(payload) : malloc_usable_size(payload);
}

void* ChildReallocate(void* payload, std::size_t bytes) {
  if (payload == nullptr) return ChildAllocate(bytes, kHeader);
  const std::size_t had = UsableSize(payload);
  if (Ours(payload) && bytes <= had) return payload;
  void* moved = ChildAllocate(bytes, kHeader);
  if (moved == nullptr) return nullptr;
  std::memcpy(moved, payload, had < bytes ? had : bytes);
  Release(payload);
  return moved;
}

// SQLite's allocator, installed before its first use (a static
// initializer: nothing opens a database before main).
void* SqliteMalloc(int bytes) {
  const auto size = static_cast<std::size_t>(bytes);
  return heap.base != nullptr ? ChildAllocate(size, kHeader) : std::malloc(size);
}
void SqliteFree(void* payload) {
  if (heap.base != nullptr) {
    Release(payload);
  } else {
    std::free(payload);
  }
}
void* SqliteRealloc(void* payload, int bytes) {
  const auto size = static_cast<std::size_t>(bytes);
  return heap.base != nullptr ? ChildReallocate(payload, size) : std::realloc(payload, size);
}
// SQLite asks at most 0x7fffff00 bytes; a class past INT_MAX says INT_MAX.
int SqliteSize(void* payload) {
  const std::size_t size = UsableSize(payload);
  return size > INT_MAX ? INT_MAX : static_cast<int>(size);
}
int SqliteRoundup(int bytes) { return (bytes + 7) & ~7; }
int SqliteInit(void*) { return SQLITE_OK; }
void SqliteShutdown(void*) {}

const sqlite3_mem_methods kSqliteMethods = {SqliteMalloc,  SqliteFree, SqliteRealloc,  SqliteSize,
                                            SqliteRoundup, SqliteInit, SqliteShutdown, nullptr};
const bool kSqliteAllocatesHere =
    sqlite3_config(SQLITE_CONFIG_MALLOC, &kSqliteMethods) == SQLITE_OK;
}  // namespace
#endif

void EnterChildHeap() {
#ifndef FAULTLINE_KEEP_THE_ALLOCATOR
  FL_ASSERT_MSG(kSqliteAllocatesHere, "SQLite was set up before the child heap's allocator");
  if (heap.depth == kMaxDepth) return;
  void* mapped = mmap(nullptr, kReserved, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapped == MAP_FAILED) return;
  // A heap's first touches fault a page each: a huge page is one fault.
  (void)madvise(mapped, kReserved, MADV_HUGEPAGE);
  // The parent's own heap, if it had one, is now an ancestor's.
  if (heap.base != nullptr) heap.ancestors[heap.depth++] = heap.base;
  heap.base = static_cast<char*>(mapped);
  heap.bump = heap.base;
  heap.free_lists = {};
#endif
}

#ifdef FAULTLINE_KEEP_THE_ALLOCATOR
bool InChildHeap() { return false; }
bool ChildHeapBuiltIn() { return false; }
#else
bool InChildHeap() { return heap.base != nullptr; }
bool ChildHeapBuiltIn() { return true; }
#endif

}  // namespace faultline::scenarios

#ifndef FAULTLINE_KEEP_THE_ALLOCATOR

namespace {

using faultline::scenarios::heap;

void* NewFromTheHeap(std::size_t bytes, std::size_t alignment) {
  void* payload = nullptr;
  if (heap.base != nullptr) {
    payload = faultline::scenarios::ChildAllocate(bytes, alignment);
  } else if (bytes <= SIZE_MAX / 2) {  // Rounding up to the alignment cannot wrap.
    payload = alignment <= 16
                  ? std::malloc(bytes == 0 ? 1 : bytes)
                  : std::aligned_alloc(alignment, (bytes + alignment - 1) & ~(alignment - 1));
  }
  if (payload == nullptr) throw std::bad_alloc();
  return payload;
}

void DeleteFromTheHeap(void* payload) noexcept {
  if (payload == nullptr) return;
  if (heap.base != nullptr) {
    faultline::scenarios::Release(payload);
  } else {
    std::free(payload);
  }
}

}  // namespace

// C++'s replaceable allocation functions ([new.delete]): every form.
void* operator new(std::size_t bytes) { return NewFromTheHeap(bytes, 16); }
void* operator new[](std::size_t bytes) { return NewFromTheHeap(bytes, 16); }
void* operator new(std::size_t bytes, std::align_val_t alignment) {
  return NewFromTheHeap(bytes, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t bytes, std::align_val_t alignment) {
  return NewFromTheHeap(bytes, static_cast<std::size_t>(alignment));
}
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return NewFromTheHeap(bytes, 16);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  return operator new(bytes, std::nothrow);
}
void* operator new(std::size_t bytes, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  try {
    return NewFromTheHeap(bytes, static_cast<std::size_t>(alignment));
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t bytes, std::align_val_t alignment,
                     const std::nothrow_t&) noexcept {
  return operator new(bytes, alignment, std::nothrow);
}
void operator delete(void* payload) noexcept { DeleteFromTheHeap(payload); }
void operator delete[](void* payload) noexcept { DeleteFromTheHeap(payload); }
void operator delete(void* payload, std::size_t) noexcept { DeleteFromTheHeap(payload); }
void operator delete[](void* payload, std::size_t) noexcept { DeleteFromTheHeap(payload); }
void operator delete(void* payload, std::align_val_t) noexcept { DeleteFromTheHeap(payload); }
void operator delete[](void* payload, std::align_val_t) noexcept { DeleteFromTheHeap(payload); }
void operator delete(void* payload, std::size_t, std::align_val_t) noexcept {
  DeleteFromTheHeap(payload);
}
void operator delete[](void* payload, std::size_t, std::align_val_t) noexcept {
  DeleteFromTheHeap(payload);
}
void operator delete(void* payload, const std::nothrow_t&) noexcept { DeleteFromTheHeap(payload); }
void operator delete[](void* payload, const std::nothrow_t&) noexcept {
  DeleteFromTheHeap(payload);
}
void operator delete(void* payload, std::align_val_t, const std::nothrow_t&) noexcept {
  DeleteFromTheHeap(payload);
}
void operator delete[](void* payload, std::align_val_t, const std::nothrow_t&) noexcept {
  DeleteFromTheHeap(payload);
}

#endif
