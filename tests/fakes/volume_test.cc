#include "fakes/volume.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

namespace faultline::fakes {
namespace {

std::string ReadAll(const SimFile& file) { return file.contents(); }

TEST(SimFileTest, ReadsSeeWritesAndSyncMakesThemDurable) {
  SimFile file;
  file.Write(0, "hello");
  file.Write(3, "p!");
  EXPECT_EQ(ReadAll(file), "help!");
  EXPECT_EQ(file.durable_contents(), "");
  file.Sync();
  EXPECT_EQ(file.durable_contents(), "help!");
  EXPECT_FALSE(file.has_pending());
  char buffer[8] = {};
  EXPECT_EQ(file.Read(2, std::span<char>(buffer, 8)), 3u);
  EXPECT_EQ(std::string(buffer, 3), "lp!");
  EXPECT_EQ(file.Read(10, std::span<char>(buffer, 8)), 0u);
}

TEST(SimFileTest, WritesPastTheEndZeroFillTheGap) {
  SimFile file;
  file.Write(4, "x");
  EXPECT_EQ(file.contents(), std::string("\0\0\0\0x", 5));
  file.Truncate(2);
  EXPECT_EQ(file.contents(), std::string("\0\0", 2));
}

// The digest is kept at the cost of what changed (BlockDigest): after any
// mix of writes (inside, across blocks, past the end), cuts, syncs and
// power losses, asked at any time, it is the digest of the bytes worked
// out afresh; and other bytes give another.
TEST(SimFileTest, TheDigestIsTheBytesWhateverTheirHistory) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    sim::Rng random(seed);
    SimFile file;
    for (int op = 0; op < 300; ++op) {
      const std::uint64_t size = file.size();
      switch (random.Uniform(6)) {
        case 0:
        case 1: {  // A write, mostly inside, sometimes past the end.
          const std::uint64_t offset = random.Uniform(size + 3 * BlockDigest::kBlock);
          const std::size_t length = 1 + random.Uniform(2 * BlockDigest::kBlock);
          file.Write(offset, std::string(length, static_cast<char>('a' + random.Uniform(26))));
          break;
        }
        case 2:
          file.Truncate(random.Uniform(size + BlockDigest::kBlock + 1));
          break;
        case 3:
          file.Sync();
          break;
        case 4: {
          CrashModel model;
          model.mode = static_cast<CrashModel::Mode>(random.Uniform(3));
          file.LoseUnsynced(random, model);
          break;
        }
        default:
          break;  // Only asked.
      }
      if (random.Uniform(3) == 0) {
        ASSERT_EQ(file.Digest(), BlockDigest().Of(file.contents()))
            << "seed " << seed << " op " << op << " size " << file.size();
      }
    }
    EXPECT_EQ(file.Digest(), BlockDigest().Of(file.contents())) << "seed " << seed;
    if (file.size() > 0) {
      const std::uint64_t before = file.Digest();
      const char last = file.contents().back();
      file.Write(file.size() - 1, std::string(1, static_cast<char>(last + 1)));
      EXPECT_NE(file.Digest(), before) << "seed " << seed;
      file.Write(file.size() - 1, std::string(1, last));
      EXPECT_EQ(file.Digest(), before) << "seed " << seed;
    }
  }
}

TEST(SimFileTest, PowerLossDropsEveryUnsyncedWrite) {
  SimFile file;
  file.Write(0, "durable");
  file.Sync();
  file.Write(0, "DURABLE and more");
  file.Truncate(3);
  sim::Rng random(1);
  file.LoseUnsynced(random, {CrashModel::Mode::kDropAll});
  EXPECT_EQ(file.contents(), "durable");
  EXPECT_EQ(file.durable_contents(), "durable");
}

TEST(SimFileTest, PowerLossCanKeepAnInOrderPrefix) {
  std::set<std::string> outcomes;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    SimFile file;
    file.Write(0, "a");
    file.Write(1, "b");
    file.Write(2, "c");
    sim::Rng random(seed);
    file.LoseUnsynced(random, {CrashModel::Mode::kKeepPrefix});
    outcomes.insert(file.contents());
  }
  EXPECT_EQ(outcomes, (std::set<std::string>{"", "a", "ab", "abc"}));
}

TEST(SimFileTest, TornWritesKeepSomeBlocksOfAWrite) {
  std::set<std::string> outcomes;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    SimFile file;
    file.Write(0, std::string(8, '.'));
    file.Sync();
    file.Write(0, "AAAABBBB");
    sim::Rng random(seed);
    file.LoseUnsynced(random, {CrashModel::Mode::kTornBlocks, /*block_size=*/4, 0.5});
    outcomes.insert(file.contents());
  }
  EXPECT_EQ(outcomes, (std::set<std::string>{"........", "AAAA....", "....BBBB", "AAAABBBB"}));
}

TEST(VolumeTest, EachPowerLossDrawsAnew) {
  // The same pending writes, lost twice with one random stream, need not
  // lose the same blocks: a power loss is not a replay of the last one.
  sim::Rng random(9);
  std::set<std::string> outcomes;
  for (int loss = 0; loss < 8; ++loss) {
    Volume volume("v", VolumeKind::kNamedVolume);
    SimFile& file = volume.OpenOrCreate("/f");
    for (int block = 0; block < 16; ++block) file.Write(block * 4, "XXXX");
    volume.LoseUnsynced(random, {CrashModel::Mode::kTornBlocks, /*block_size=*/4, 0.5});
    outcomes.insert(volume.Find("/f")->contents());
  }
  EXPECT_GT(outcomes.size(), 4u);
}

TEST(VolumeTest, CapacityGivesDiskFull) {
  Volume volume("yugabyte-data", VolumeKind::kNamedVolume, /*capacity_bytes=*/10);
  SimFile& file = volume.OpenOrCreate("/db");
  EXPECT_TRUE(volume.Write(file, 0, "12345678").ok());
  EXPECT_TRUE(volume.Write(file, 0, "abcdefgh").ok());  // Overwrites do not grow.
  const sim::Status full = volume.Write(file, 8, "xyz");
  EXPECT_FALSE(full.ok());
  EXPECT_NE(full.message().find("disk full"), std::string::npos) << full.ToString();
  EXPECT_EQ(file.contents(), "abcdefgh");
  EXPECT_EQ(volume.used_bytes(), 8u);
}

// used_bytes() is kept as files change (not summed on every write); it must
// equal the sum of the files' sizes after every kind of change.
TEST(VolumeTest, UsedBytesFollowEveryChangeOfSize) {
  Volume volume("kuri-1-data", VolumeKind::kNamedVolume);
  auto sum = [&volume] {
    std::uint64_t total = 0;
    for (const std::string& path : volume.List()) total += volume.Find(path)->size();
    return total;
  };
  SimFile& a = volume.OpenOrCreate("/a");
  ASSERT_TRUE(volume.Write(a, 0, "0123456789").ok());
  volume.OpenOrCreate("/b").Write(4, "xy");  // Straight to the file, with a hole.
  EXPECT_EQ(volume.used_bytes(), 16u);
  a.Truncate(3);
  EXPECT_EQ(volume.used_bytes(), sum());
  sim::Rng random(7);
  volume.LoseUnsynced(random, CrashModel{});  // Nothing was synced: both files empty.
  EXPECT_EQ(volume.used_bytes(), 0u);
  ASSERT_TRUE(volume.Write(a, 0, "abc").ok());
  EXPECT_TRUE(volume.Remove("/b"));
  EXPECT_EQ(volume.used_bytes(), 3u);
  const VolumeSnapshot backup = volume.Snapshot();
  volume.Wipe();
  EXPECT_EQ(volume.used_bytes(), 0u);
  volume.Restore(backup);
  EXPECT_EQ(volume.used_bytes(), 3u);
  EXPECT_EQ(volume.used_bytes(), sum());
}

TEST(VolumeTest, SnapshotAndRestoreBringBackAnOldState) {
  Volume volume("yugabyte-data", VolumeKind::kNamedVolume);
  volume.Write(volume.OpenOrCreate("/schema"), 0, "v1").IgnoreError();
  const VolumeSnapshot backup = volume.Snapshot();
  volume.Write(volume.OpenOrCreate("/schema"), 0, "v2").IgnoreError();
  volume.OpenOrCreate("/new-table");
  volume.Restore(backup);
  EXPECT_EQ(volume.List(), std::vector<std::string>{"/schema"});
  EXPECT_EQ(volume.Find("/schema")->contents(), "v1");
  EXPECT_EQ(volume.Find("/schema")->durable_contents(), "v1");
}

TEST(VolumeTest, WipeRemovesEverything) {
  Volume volume("/data/fgw2/kuri-1", VolumeKind::kHostDirectory);
  volume.OpenOrCreate("/blocks/1");
  volume.OpenOrCreate("/blocks/2");
  EXPECT_EQ(volume.List().size(), 2u);
  volume.Wipe();
  EXPECT_TRUE(volume.List().empty());
  EXPECT_FALSE(volume.Remove("/blocks/1"));
}

TEST(VolumeTest, ExportWritesFilesAPersonCanOpen) {
  Volume volume("yugabyte-data", VolumeKind::kNamedVolume);
  volume.Write(volume.OpenOrCreate("/store/meta.db"), 0, "SQLite format 3").IgnoreError();
  const std::filesystem::path directory =
      std::filesystem::path(::testing::TempDir()) / "faultline-export-test";
  std::filesystem::remove_all(directory);
  ASSERT_TRUE(volume.ExportTo(directory).ok());
  std::ifstream in(directory / "store/meta.db", std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  EXPECT_EQ(contents.str(), "SQLite format 3");
  std::filesystem::remove_all(directory);
}

TEST(VolumeTest, ImportReadsBackWhatExportWrote) {
  Volume volume("yugabyte-data", VolumeKind::kNamedVolume);
  volume.Write(volume.OpenOrCreate("/store/meta.db"), 0, "SQLite format 3").IgnoreError();
  volume.Write(volume.OpenOrCreate("/top"), 0, std::string("a\0b", 3)).IgnoreError();
  const std::filesystem::path directory =
      std::filesystem::path(::testing::TempDir()) / "faultline-import-test";
  std::filesystem::remove_all(directory);
  ASSERT_TRUE(volume.ExportTo(directory).ok());
  Volume imported("copy", VolumeKind::kNamedVolume);
  ASSERT_TRUE(imported.ImportFrom(directory).ok());
  EXPECT_EQ(imported.List(), volume.List());
  EXPECT_EQ(imported.Find("/top")->contents(), std::string("a\0b", 3));
  EXPECT_EQ(imported.Find("/store/meta.db")->contents(), "SQLite format 3");
  std::filesystem::remove_all(directory);
  EXPECT_FALSE(imported.ImportFrom(directory).ok());  // Gone: an error, not an empty volume.
}

}  // namespace
}  // namespace faultline::fakes
