// explore's results file (groups.tsv), which `merge` reads back.
#include "scenarios/explore/shard_file.h"

#include <string>
#include <variant>

#include <gtest/gtest.h>

namespace faultline::scenarios {
namespace {

ShardFile Example() {
  ShardFile file;
  file.scenario = "/stories/mine.toml";
  file.seed = 7;
  file.runs = 40;
  file.runs_done = 14;
  file.shard = {1, 3};
  file.batch = 2;
  file.expectations = true;
  file.bounds = {
      .max_events = 2, .max_crashes = 1, .max_power_losses = 0, .kinds = {"latency", "loss"}};
  file.groups.push_back(
      {{"converges", "stuck\tdirty", {"crash kuri.put", "kill kuri-1"}}, 3, 10, 9});
  file.groups.push_back({{"acknowledged-writes", "lost", {}}, 1, 13, 13});
  return file;
}

std::string ErrorOf(std::string_view text) {
  const auto read = ParseShardText(text, "groups.tsv");
  const auto* error = std::get_if<std::string>(&read);
  return error == nullptr ? "(read)" : *error;
}

TEST(ShardFileTest, WrittenThenReadIsTheSameFile) {
  const std::string text = ShardText(Example());
  const auto read = ParseShardText(text, "groups.tsv");
  ASSERT_TRUE(std::holds_alternative<ShardFile>(read)) << std::get<std::string>(read);
  const ShardFile& file = std::get<ShardFile>(read);
  EXPECT_EQ(ShardText(file), text);
  ASSERT_EQ(file.groups.size(), 2u);
  // A tab inside a field would split it: it is written as a space.
  EXPECT_EQ(file.groups[0].signature.violation, "stuck dirty");
  EXPECT_EQ(file.groups[0].signature.faults.size(), 2u);
  EXPECT_TRUE(file.groups[1].signature.faults.empty());
  // The kinds it drew (--faults): a shard without the line drew every kind.
  EXPECT_EQ(file.bounds.kinds, (std::vector<std::string>{"latency", "loss"}));
  EXPECT_NE(text.find("faults\tlatency,loss\n"), std::string::npos);
  ShardFile every = Example();
  every.bounds.kinds.clear();
  EXPECT_EQ(ShardText(every).find("faults"), std::string::npos);
}

// A file written before runs shared a world: no batch, group lines of six
// fields. Each run played on its own seed, so it still merges and shrinks.
TEST(ShardFileTest, AFileFromBeforeBatchesIsOfBatchesOfOne) {
  const auto read = ParseShardText(
      "scenario\tx\nseed\t7\nruns\t40\nshard\t0/1\ngroup\t12\t2\tconverges\tstuck\t\n",
      "groups.tsv");
  ASSERT_TRUE(std::holds_alternative<ShardFile>(read)) << std::get<std::string>(read);
  const ShardFile& file = std::get<ShardFile>(read);
  EXPECT_EQ(file.batch, 1);
  ASSERT_EQ(file.groups.size(), 1u);
  EXPECT_EQ(file.groups[0].first_seed, 12u);
  EXPECT_EQ(file.groups[0].world_seed, 12u);
}

TEST(ShardFileTest, AMalformedLineSaysWhere) {
  EXPECT_EQ(ErrorOf("scenario\tx\nbatch\t0\n"), "groups.tsv:2: a malformed batch (1 to 1000)");
  EXPECT_EQ(ErrorOf("scenario\tx\ngroup\t1\t1\tc\tv\tf\t2\n"),
            "groups.tsv:2: a malformed group line");  // A world after its run's seed.
  EXPECT_EQ(ErrorOf("scenario\tx\nseed\tminus\n"), "groups.tsv:2: a malformed seed");
  EXPECT_EQ(ErrorOf("scenario\tx\nshard\t3/3\n"), "groups.tsv:2: a malformed shard");
  EXPECT_EQ(ErrorOf("scenario\tx\ngroup\t1\t0\tc\tv\t\n"), "groups.tsv:2: a malformed group line");
  EXPECT_EQ(ErrorOf("scenario\tx\ngroup\t1\t1\tc\tv\tf\textra\n"),
            "groups.tsv:2: a malformed group line");
  EXPECT_EQ(ErrorOf("scenario\tx\nmax_events\t0\n"), "groups.tsv:2: a malformed max_events");
  EXPECT_EQ(ErrorOf("scenario\tx\nfaults\tlatency,lost\n").substr(0, 64),
            "groups.tsv:2: a malformed faults: --faults: 'lost' is no kind of");
  EXPECT_EQ(ErrorOf("colour\tblue\n"), "groups.tsv:1: unknown line 'colour'");
  EXPECT_EQ(ErrorOf("seed\t1\n"), "groups.tsv: names no scenario");
  EXPECT_EQ(ErrorOf(""), "groups.tsv: names no scenario");
}

TEST(ShardFileTest, ShardsAreIndexOfCount) {
  EXPECT_TRUE(ParseShard("0/1").has_value());
  EXPECT_TRUE(ParseShard("2/3").has_value());
  for (const char* bad : {"3/3", "1/0", "-1/3", "1/", "/3", "1/3/4", " 1/3", "1/100000001"}) {
    EXPECT_FALSE(ParseShard(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace faultline::scenarios
