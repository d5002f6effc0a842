#include "models/migrate/source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace faultline::models::migrate {
namespace {

TEST(MigrationSourceTest, ReadsGolangMigrateNamesInVersionOrder) {
  std::vector<MigrationFile> files;
  files.emplace_back("1756300000_multipart_uploads.up.cql", "CREATE TABLE m (k int PRIMARY KEY);");
  files.emplace_back("1754293669_init_s3_object_index.up.cql",
                     "CREATE TABLE s (k int PRIMARY KEY);");
  files.emplace_back("1754293669_init_s3_object_index.down.cql", "DROP TABLE s;");
  sim::Result<MigrationSource> source = MigrationSource::FromFiles(files);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ(source->First(), 1754293669u);
  EXPECT_EQ(source->Next(1754293669), 1756300000u);
  EXPECT_EQ(source->Next(1756300000), std::nullopt);
  EXPECT_EQ(source->Prev(1756300000), 1754293669u);
  EXPECT_EQ(source->Prev(1754293669), std::nullopt);
  const Migration* first = source->Find(1754293669);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->title, "init_s3_object_index");
  EXPECT_EQ(first->down, "DROP TABLE s;");
  EXPECT_FALSE(source->Find(1756300000)->down.has_value());
}

TEST(MigrationSourceTest, MalformedFoldersAreErrorsNamingTheFile) {
  auto error = [](std::vector<MigrationFile> files) {
    sim::Result<MigrationSource> source = MigrationSource::FromFiles(files);
    return source.ok() ? std::string("ok") : source.status().message();
  };
  EXPECT_EQ(error({{"1_a.up.cql", "x"}, {"1_a.up.cql", "y"}}),
            "1_a.up.cql: duplicate migration file: 1_a.up.cql has the same version and "
            "direction");
  EXPECT_EQ(error({{"1_a.up.cql", "x"}, {"1_b.up.cql", "y"}}),
            "1_b.up.cql: duplicate migration file: 1_a.up.cql has the same version and "
            "direction");
  // As in golang-migrate, only the version and the direction key a file.
  EXPECT_EQ(error({{"1_a.up.cql", "x"}, {"1_b.down.cql", "y"}}), "ok");
  EXPECT_EQ(error({{"init.up.cql", "x"}}),
            "init.up.cql: not a migration file name: expected {version}_{title}.up.cql or "
            ".down.cql");
  EXPECT_EQ(error({{"1_a.sideways.cql", "x"}}),
            "1_a.sideways.cql: not a migration file name: expected {version}_{title}.up.cql or "
            ".down.cql");
}

// golang-migrate's pattern ^([0-9]+)_(.*)\.(down|up)\.(.*)$ has a greedy
// title: the last direction in the name wins.
TEST(MigrationSourceTest, TheLastDirectionInTheNameWins) {
  std::vector<MigrationFile> files;
  files.emplace_back("1_x.up.y.down.cql", "DROP TABLE t;");
  files.emplace_back("1_x.down.y.up.cql", "CREATE TABLE t (k int PRIMARY KEY);");
  sim::Result<MigrationSource> source = MigrationSource::FromFiles(files);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ(source->Find(1)->down_name, "1_x.up.y.down.cql");
  EXPECT_EQ(source->Find(1)->up_name, "1_x.down.y.up.cql");
  EXPECT_EQ(source->Find(1)->title, "x.up.y");
}

TEST(MigrationSourceTest, ReadsAFolderAndSkipsFilesThatAreNotMigrations) {
  const std::filesystem::path folder =
      std::filesystem::path(::testing::TempDir()) / "faultline-migrations";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "1_init.up.cql") << "CREATE TABLE t (k int PRIMARY KEY);";
  std::ofstream(folder / "README.md") << "not a migration";
  sim::Result<MigrationSource> source = MigrationSource::FromDirectory(folder);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ(source->migrations().size(), 1u);
  std::ofstream(folder / "2_oops.cql") << "x";
  source = MigrationSource::FromDirectory(folder);
  ASSERT_FALSE(source.ok());
  EXPECT_EQ(source.status().message(),
            folder.string() +
                "/2_oops.cql: not a migration file name: expected {version}_{title}.up.cql or "
                ".down.cql");
  std::filesystem::remove_all(folder);
  EXPECT_FALSE(MigrationSource::FromDirectory(folder).ok());
}

}  // namespace
}  // namespace faultline::models::migrate
