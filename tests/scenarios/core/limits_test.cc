// The limits on what a user feeds in (scenarios/limits.h): each refusal names
// the limit and how to raise it, and a raised limit lets the input through.
#include "scenarios/core/limits.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <variant>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "scenarios/explore/shard_file.h"
#include "scenarios/file/scenario_file.h"

namespace faultline::scenarios {
namespace {

std::string Steps(int count) {
  std::string text = "name = \"many\"\ntitle = \"t\"\n";
  for (int i = 0; i < count; ++i) text += "[[step]]\ndo = \"wait\"\nfor = \"1s\"\n";
  return text;
}

std::string Faults(int count) {
  std::string text = "name = \"many\"\ntitle = \"t\"\n[[step]]\ndo = \"up\"\n";
  for (int i = 0; i < count; ++i) {
    text += "[[fault]]\nsite = \"disk.write\"\naction = \"crash\"\n";
  }
  return text;
}

std::string ErrorOf(const std::variant<Scenario, FileError>& read) {
  const auto* error = std::get_if<FileError>(&read);
  return error == nullptr ? "(read)" : error->message;
}

TEST(LimitsTest, EveryLimitHasANameACountAndRoomToRise) {
  const InputLimits defaults;
  for (const Limit& limit : Limits()) {
    EXPECT_FALSE(limit.name.empty());
    EXPECT_FALSE(limit.counts.empty());
    EXPECT_GT(limit.ceiling, defaults.*limit.value) << limit.name;
    EXPECT_EQ(&LimitOf(limit.value), &limit);
  }
}

TEST(LimitsTest, TheFormatDocumentListsEveryLimitWithItsDefault) {
  std::ifstream in(std::string(FAULTLINE_DOCS_DIR) + "/scenario-format.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(doc.empty());
  const InputLimits defaults;
  for (const Limit& limit : Limits()) {
    const std::string row = fmt::format("| `{}` | {} |", limit.name, defaults.*limit.value);
    EXPECT_NE(doc.find(row), std::string::npos) << "docs/scenario-format.md lacks " << row;
  }
}

TEST(LimitsTest, TooManyStepsNamesTheLimitAndHowToRaiseIt) {
  InputLimits limits;
  limits.steps = 3;
  EXPECT_EQ(ErrorOf(ParseScenario(Steps(4), "story.toml", limits)),
            "story.toml:3:1: 4 [[step]]s: over the limit of 3 [[step]]s in a scenario file "
            "(raise it with --limit steps=6)");
  EXPECT_EQ(ErrorOf(ParseScenario(Steps(3), "story.toml", limits)), "(read)");
  ASSERT_EQ(SetLimit(limits, "steps=4"), "");
  EXPECT_EQ(ErrorOf(ParseScenario(Steps(4), "story.toml", limits)), "(read)");
}

TEST(LimitsTest, TooManyFaultsNamesTheLimit) {
  InputLimits limits;
  limits.faults = 2;
  EXPECT_EQ(ErrorOf(ParseScenario(Faults(3), "story.toml", limits)),
            "story.toml:5:1: 3 [[fault]]s: over the limit of 2 [[fault]]s in a scenario file "
            "(raise it with --limit faults=4)");
  EXPECT_EQ(ErrorOf(ParseScenario(Faults(2), "story.toml", limits)), "(read)");
}

TEST(LimitsTest, AFileOverItsSizeIsRefusedUnreadAndALargerLimitReadsIt) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "faultline-limits-test.toml";
  std::ofstream(path) << Steps(50);
  InputLimits limits;
  limits.scenario_file_bytes = 100;
  const std::string error = ErrorOf(LoadScenarioFile(path, limits));
  EXPECT_NE(error.find("over the limit of 100 bytes of a scenario file (raise it with --limit "
                       "scenario-file-bytes=200)"),
            std::string::npos)
      << error;
  limits.scenario_file_bytes = 1 << 20;
  EXPECT_EQ(ErrorOf(LoadScenarioFile(path, limits)), "(read)");
  std::filesystem::remove(path);
}

TEST(LimitsTest, ALimitAtItsCeilingSaysItCannotRise) {
  InputLimits limits;
  limits.faults = LimitOf(&InputLimits::faults).ceiling;
  EXPECT_NE(OverLimit(limits, &InputLimits::faults).find("the most it can be raised to"),
            std::string::npos);
}

TEST(LimitsTest, BadAssignmentsAreRefusedWithTheNames) {
  InputLimits limits;
  EXPECT_NE(SetLimit(limits, "stepz=5").find("no limit 'stepz' (limits: scenario-file-bytes, "),
            std::string::npos);
  EXPECT_EQ(SetLimit(limits, "steps=0"),
            "--limit steps: give steps=N with N from 1 to 1000000, not 'steps=0'");
  EXPECT_NE(SetLimit(limits, "steps").find("give steps=N"), std::string::npos);
  EXPECT_NE(SetLimit(limits, "steps=-1").find("give steps=N"), std::string::npos);
  EXPECT_NE(SetLimit(limits, "steps=99999999999").find("give steps=N"), std::string::npos);
  EXPECT_EQ(limits.steps, InputLimits{}.steps);
}

TEST(LimitsTest, AMigrationFolderOverItsLimitsSaysWhichAndHow) {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / "faultline-limits-folder";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  // Three statements, and the blank after the last ';' that is none.
  std::ofstream(folder / "1_a.up.cql")
      << "CREATE TABLE a (k int PRIMARY KEY); CREATE TABLE b "
         "(k int PRIMARY KEY); CREATE TABLE c (k int PRIMARY KEY);\n";
  std::ofstream(folder / "README.md") << "not a migration, not counted";
  std::ofstream(folder / "2_b.up.cql") << "CREATE TABLE d (k int PRIMARY KEY);";
  InputLimits limits;
  limits.statements = 2;
  auto read = models::migrate::ReadMigrationFolder(folder, FolderLimitsOf(limits, true));
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find(
                "1_a.up.cql: over the limit of 2 statements in a migration file (raise it with "
                "--limit statements=4)"),
            std::string::npos)
      << read.status().message();
  limits.statements = 3;  // Exactly as many: read.
  EXPECT_TRUE(models::migrate::ReadMigrationFolder(folder, FolderLimitsOf(limits, true)).ok());
  limits.migration_files = 1;
  read = models::migrate::ReadMigrationFolder(folder, FolderLimitsOf(limits, true));
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("--limit migration-files=2"), std::string::npos)
      << read.status().message();
  limits.migration_files = 2;  // Two migration files and a README: read.
  EXPECT_TRUE(models::migrate::ReadMigrationFolder(folder, FolderLimitsOf(limits, true)).ok());
  limits.migration_file_bytes = 50;
  read = models::migrate::ReadMigrationFolder(folder, FolderLimitsOf(limits, true));
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("--limit migration-file-bytes=100"), std::string::npos)
      << read.status().message();
  limits.migration_file_bytes = 1000;
  EXPECT_TRUE(models::migrate::ReadMigrationFolder(folder, FolderLimitsOf(limits, true)).ok());
  std::filesystem::remove_all(folder);
}

TEST(LimitsTest, AResultsFileOverItsLimitIsRefused) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "faultline-limits-groups.tsv";
  ShardFile file;
  file.scenario = "dirty-migration";
  file.runs = 10;
  file.runs_done = 10;
  std::ofstream(path) << ShardText(file);
  InputLimits limits;
  limits.results_file_bytes = 10;
  const auto read = ReadShardFile(path, limits);
  ASSERT_TRUE(std::holds_alternative<std::string>(read));
  EXPECT_NE(std::get<std::string>(read).find("--limit results-file-bytes=20"), std::string::npos);
  limits.results_file_bytes = 1000;
  ASSERT_TRUE(std::holds_alternative<ShardFile>(ReadShardFile(path, limits)));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace faultline::scenarios
