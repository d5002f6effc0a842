#include "scenarios/harness/child_heap.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace faultline::scenarios {
namespace {

using child_heap::CapacityOf;
using child_heap::ClassOf;

TEST(ChildHeapTest, EachSizeGetsTheSmallestClassThatHoldsIt) {
  for (std::size_t bytes = 0; bytes <= (std::size_t{1} << 22); bytes += bytes < 70'000 ? 1 : 977) {
    const int size_class = ClassOf(bytes);
    ASSERT_GE(CapacityOf(size_class), bytes) << bytes;
    ASSERT_TRUE(size_class == 1 || CapacityOf(size_class - 1) < bytes) << bytes;
    // At most a quarter more than asked (past the 16-byte steps).
    ASSERT_LE(CapacityOf(size_class), bytes <= 128 ? bytes + 16 : bytes + bytes / 4) << bytes;
  }
  for (int size_class = 1; size_class < 130; ++size_class) {
    ASSERT_EQ(ClassOf(CapacityOf(size_class)), size_class);
    ASSERT_EQ(CapacityOf(size_class) % 16, 0u) << size_class;  // Blocks stay 16-aligned.
  }
}

// Runs `body` in a forked child that enters its heap; what it returns is
// the child's exit status (0: every check held; it says which did not).
int InAChild(const std::function<int()>& body) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    EnterChildHeap();
    if (!InChildHeap()) _exit(100);
    _exit(body());
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

#define CHILD_CHECK(condition, code)                                \
  do {                                                              \
    if (!(condition)) {                                             \
      std::fprintf(stderr, "child check failed: %s\n", #condition); \
      return code;                                                  \
    }                                                               \
  } while (0)

// The point of the heap: glibc's malloc hands a freed block straight back
// (its thread cache), and writing it copies the parent's page.
TEST(ChildHeapTest, AChildNeverReusesABlockItsParentFreed) {
  if (!ChildHeapBuiltIn()) GTEST_SKIP() << "the sanitizers keep their own allocator";
  ASSERT_FALSE(InChildHeap());
  std::vector<std::unique_ptr<char[]>> blocks;
  std::set<std::uintptr_t> freed;
  for (int i = 0; i < 200; ++i) blocks.push_back(std::make_unique<char[]>(48));
  for (int i = 0; i < 200; i += 2) {
    freed.insert(reinterpret_cast<std::uintptr_t>(blocks[i].get()));
    blocks[i].reset();
  }
  EXPECT_EQ(InAChild([&] {
              // Freed in the child: the parent's copy of it stays as it was.
              freed.insert(reinterpret_cast<std::uintptr_t>(blocks[1].get()));
              blocks[1].reset();
              for (int i = 0; i < 1000; ++i) {
                auto* mine = new char[48];
                CHILD_CHECK(!freed.contains(reinterpret_cast<std::uintptr_t>(mine)), 1);
                std::memset(mine, 'c', 48);
              }
              return 0;
            }),
            0);
}

TEST(ChildHeapTest, WhatTheChildAllocatesAndFreesKeepsItsBytes) {
  if (!ChildHeapBuiltIn()) GTEST_SKIP() << "the sanitizers keep their own allocator";
  const std::string parents(5000, 'p');
  EXPECT_EQ(InAChild([&] {
              std::vector<std::string> strings;
              for (int i = 0; i < 3000; ++i)
                strings.push_back(std::string(i % 700 + 1, 'a' + i % 26));
              for (std::size_t i = 0; i < strings.size(); i += 3) strings[i].clear();
              for (std::size_t i = 0; i < strings.size(); i += 3)
                strings[i].assign(i % 900 + 20, 'z');
              for (std::size_t i = 0; i < strings.size(); ++i) {
                const std::string expected =
                    i % 3 == 0 ? std::string(i % 900 + 20, 'z')
                               : std::string(i % 700 + 1, static_cast<char>('a' + i % 26));
                CHILD_CHECK(strings[i] == expected, 1);
              }
              // Over-aligned objects (operator new with an alignment).
              struct alignas(256) Wide {
                char bytes[300];
              };
              for (int i = 0; i < 50; ++i) {
                auto wide = std::make_unique<Wide>();
                CHILD_CHECK(reinterpret_cast<std::uintptr_t>(wide.get()) % 256 == 0, 2);
              }
              std::string copy = parents;  // The parent's string, read and copied.
              copy += "!";
              CHILD_CHECK(copy.size() == 5001 && copy[4999] == 'p', 3);
              return 0;
            }),
            0);
  EXPECT_EQ(parents, std::string(5000, 'p'));
  EXPECT_FALSE(InChildHeap());
}

// A request no heap holds is bad_alloc, in the parent and in a child,
// aligned or not (an aligned size near SIZE_MAX must not wrap to a small one).
bool RefusesTheHuge() {
  for (const std::size_t bytes : {SIZE_MAX, SIZE_MAX - 8, std::size_t{1} << 62}) {
    for (const std::size_t alignment : {std::size_t{0}, std::size_t{64}, std::size_t{4096}}) {
      try {
        void* got = alignment == 0 ? ::operator new(bytes)
                                   : ::operator new (bytes, std::align_val_t{alignment});
        ::operator delete(got);
        return false;
      } catch (const std::bad_alloc&) {
      }
    }
  }
  return true;
}

TEST(ChildHeapTest, ARequestNoHeapHoldsIsBadAlloc) {
  if (!ChildHeapBuiltIn()) GTEST_SKIP() << "the sanitizers keep their own allocator";
  EXPECT_TRUE(RefusesTheHuge());
  EXPECT_EQ(InAChild([] { return RefusesTheHuge() ? 0 : 1; }), 0);
}

// SQLite allocates through the heap too: a block of the parent's (or of a
// forked ancestor's) grown by sqlite3_realloc keeps its bytes.
TEST(ChildHeapTest, SqliteRunsOnTheChildsHeapAndItsGrandchilds) {
  if (!ChildHeapBuiltIn()) GTEST_SKIP() << "the sanitizers keep their own allocator";
  char* parents = static_cast<char*>(sqlite3_malloc(100));
  ASSERT_NE(parents, nullptr);
  std::memset(parents, 'p', 100);
  EXPECT_EQ(InAChild([&] {
              parents = static_cast<char*>(sqlite3_realloc(parents, 5000));
              CHILD_CHECK(parents != nullptr && parents[0] == 'p' && parents[99] == 'p', 1);
              char* childs = static_cast<char*>(sqlite3_malloc(64));
              std::memset(childs, 'c', 64);
              CHILD_CHECK(InAChild([&] {
                            childs = static_cast<char*>(sqlite3_realloc(childs, 10'000));
                            CHILD_CHECK(childs != nullptr && childs[63] == 'c', 1);
                            sqlite3_free(parents);
                            return 0;
                          }) == 0,
                          2);
              sqlite3* db = nullptr;
              CHILD_CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK, 3);
              CHILD_CHECK(sqlite3_exec(db,
                                       "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT);"
                                       "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
                                       "FROM n WHERE i < 2000) INSERT INTO t SELECT i, "
                                       "printf('%0500d', i) FROM n;",
                                       nullptr, nullptr, nullptr) == SQLITE_OK,
                          4);
              sqlite3_stmt* count = nullptr;
              CHILD_CHECK(sqlite3_prepare_v2(db, "SELECT count(*), sum(length(v)) FROM t", -1,
                                             &count, nullptr) == SQLITE_OK,
                          5);
              CHILD_CHECK(sqlite3_step(count) == SQLITE_ROW, 6);
              CHILD_CHECK(sqlite3_column_int(count, 0) == 2000, 7);
              CHILD_CHECK(sqlite3_column_int(count, 1) == 2000 * 500, 8);
              sqlite3_finalize(count);
              sqlite3_close(db);
              return 0;
            }),
            0);
  EXPECT_EQ(parents[0], 'p');
  sqlite3_free(parents);
}

}  // namespace
}  // namespace faultline::scenarios
