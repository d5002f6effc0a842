// explore's choice of how to play a batch (batch_play.h): the way that has
// cost less per run, timed on the batches as they are played, and the
// other now and then.
#include "scenarios/explore/batch_play.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace faultline::scenarios {
namespace {

using std::chrono::milliseconds;

// The ways the next `batches` batches of 16 runs are played (true: forked),
// each timed at `forked` or `from_empty` per run.
std::vector<bool> Choices(BatchPlayChooser& chooser, int batches, milliseconds forked,
                          milliseconds from_empty) {
  std::vector<bool> ways;
  for (int i = 0; i < batches; ++i) {
    const bool forks = chooser.Forks(16);
    chooser.Played(forks, 16, 16 * (forks ? forked : from_empty));
    ways.push_back(forks);
  }
  return ways;
}

TEST(BatchPlayTest, AskedWaysAreKeptWhateverTheyCost) {
  BatchPlayChooser forked(BatchPlay::kForked);
  BatchPlayChooser from_empty(BatchPlay::kFromEmpty);
  EXPECT_EQ(Choices(forked, 40, milliseconds(9), milliseconds(1)), std::vector<bool>(40, true));
  EXPECT_EQ(Choices(from_empty, 40, milliseconds(1), milliseconds(9)),
            std::vector<bool>(40, false));
}

TEST(BatchPlayTest, ABatchOfOneRunIsPlayedFromEmpty) {
  BatchPlayChooser forked(BatchPlay::kForked);
  BatchPlayChooser automatic(BatchPlay::kAuto);
  EXPECT_FALSE(forked.Forks(1));
  EXPECT_FALSE(automatic.Forks(1));
  EXPECT_FALSE(automatic.Forks(2));  // The first batch of more warms up, from empty,
  automatic.Played(false, 2, std::chrono::seconds(1));
  EXPECT_TRUE(automatic.Forks(2));  // then forking is timed.
}

// Measured on the project's VM: a forked run cost 13 ms, one from empty 8.
TEST(BatchPlayTest, WhereForkingCostsMoreTheBatchesArePlayedFromEmptyButEverySixteenth) {
  BatchPlayChooser chooser(BatchPlay::kAuto);
  const std::vector<bool> ways = Choices(chooser, 48, milliseconds(13), milliseconds(8));
  EXPECT_FALSE(ways[0]);  // A warm-up, untimed;
  EXPECT_TRUE(ways[1]);   // timed forked,
  EXPECT_FALSE(ways[2]);  // then from empty.
  for (std::size_t i = 3; i < ways.size(); ++i) {
    EXPECT_EQ(ways[i], i % BatchPlayChooser::kRetimeEvery == BatchPlayChooser::kRetimeEvery - 1)
        << "batch " << i;
  }
}

TEST(BatchPlayTest, WhereForkingCostsLessTheBatchesAreForked) {
  BatchPlayChooser chooser(BatchPlay::kAuto);
  const std::vector<bool> ways = Choices(chooser, 48, milliseconds(4), milliseconds(8));
  for (std::size_t i = 3; i < ways.size(); ++i) {
    EXPECT_EQ(ways[i], i % BatchPlayChooser::kRetimeEvery != BatchPlayChooser::kRetimeEvery - 1)
        << "batch " << i;
  }
}

// The first batch pays the process's first page faults: slow as it is,
// it does not count against the way it was played.
TEST(BatchPlayTest, TheFirstBatchWarmsUpUntimed) {
  BatchPlayChooser chooser(BatchPlay::kAuto);
  EXPECT_FALSE(chooser.Forks(16));
  chooser.Played(false, 16, std::chrono::seconds(100));
  EXPECT_TRUE(chooser.Forks(16));
  chooser.Played(true, 16, 16 * milliseconds(9));
  EXPECT_FALSE(chooser.Forks(16));
  chooser.Played(false, 16, 16 * milliseconds(8));
  EXPECT_FALSE(chooser.Forks(16));  // From empty, timed at 8 ms, not 100 s.
}

// A machine whose forks get dearer (another host, a busy core): the
// batches played the other way now and then see it, and the choice follows.
TEST(BatchPlayTest, TheChoiceFollowsCostsThatChange) {
  BatchPlayChooser chooser(BatchPlay::kAuto);
  (void)Choices(chooser, 32, milliseconds(4), milliseconds(8));
  const std::vector<bool> later = Choices(chooser, 64, milliseconds(20), milliseconds(8));
  EXPECT_TRUE(later.front());
  // By the end, from empty but for the batch that times forking again.
  const std::vector<bool> last(later.end() - BatchPlayChooser::kRetimeEvery, later.end());
  EXPECT_EQ(std::count(last.begin(), last.end(), true), 1);
  // One slow batch does not decide alone.
  BatchPlayChooser steady(BatchPlay::kAuto);
  (void)Choices(steady, 17, milliseconds(4), milliseconds(8));
  EXPECT_TRUE(steady.Forks(16));
  steady.Played(true, 16, 16 * milliseconds(12));
  EXPECT_TRUE(steady.Forks(16));
}

}  // namespace
}  // namespace faultline::scenarios
