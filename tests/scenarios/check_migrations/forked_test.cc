// check-migrations' cases forked from the runs they share (crash cases,
// their force search and repros, upgrades): each report equals the one
// every case played from an empty world gives (options.branch off).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "scenarios/check_migrations/check_migrations.h"
#include "scenarios/check_migrations/report.h"

namespace faultline::scenarios {
namespace {

using models::migrate::MigrationFile;

// Files 1_t1.up.cql to N_tN.up.cql, each `body` with {0} its number.
std::vector<MigrationFile> NumberedFolder(int count, const std::string& body) {
  std::vector<MigrationFile> files;
  for (int i = 1; i <= count; ++i) {
    files.emplace_back(fmt::format("{}_t{}.up.cql", i, i), fmt::format(fmt::runtime(body), i));
  }
  return files;
}

// Two files of three statements each: a crash after the ALTER leaves a
// version only `migrate force` brings up (needs-force).
std::vector<MigrationFile> AlterAndInsertFolder() {
  return NumberedFolder(2,
                        "CREATE TABLE IF NOT EXISTS t{0} (id text PRIMARY KEY, v int);\n"
                        "ALTER TABLE t{0} ADD extra text;\n"
                        "INSERT INTO t{0} (id, v) VALUES ('a', {0});\n");
}

// Crash cases forked from one run (scenarios/harness/branches.h), with
// the force search played on from each case's held end, give the report
// each played from an empty world gives: the same findings, cases, words,
// repros and runs, in the same order.
TEST(CheckMigrationsTest, BranchedCrashCasesAndTheirReprosGiveTheReportOfRunsFromEmpty) {
  struct Folder {
    std::string name;
    std::vector<MigrationFile> files;
    std::string runner;
  };
  // (seed-kuri's crash cases need no force; TheSameSeedGivesTheSameReport
  // plays them forked. Each check here costs seconds under ASan.)
  const std::vector<Folder> folders = {
      {"alter-and-insert", AlterAndInsertFolder(), "golang-migrate"}};
  bool forced_from_a_held_end = false;
  for (const Folder& folder : folders) {
    MigrationCheckOptions options;
    options.files = folder.files;
    options.keyspace = "filecoingw_kuri1";
    options.runners = {folder.runner};
    options.replicas = 1;
    options.branch = true;
    const MigrationCheckReport branched = CheckMigrations(options);
    options.branch = false;
    const MigrationCheckReport from_empty = CheckMigrations(options);
    const std::string what = folder.name + " with " + folder.runner;
    const ReportContext context{.folder = folder.name, .repro_files = ReproFileNames(from_empty)};
    // The same report but for the runs: a crash repro played nothing here
    // (its case's run said how it ends), and each of its tries there.
    EXPECT_LT(branched.runs, from_empty.runs) << what;
    MigrationCheckReport same_runs = branched;
    same_runs.runs = from_empty.runs;
    EXPECT_EQ(JsonReport(same_runs, context), JsonReport(from_empty, context)) << what;
    ASSERT_EQ(branched.dynamic.size(), from_empty.dynamic.size()) << what;
    EXPECT_FALSE(branched.dynamic.empty()) << what;
    for (std::size_t i = 0; i < branched.dynamic.size(); ++i) {
      EXPECT_EQ(branched.dynamic[i].cases, from_empty.dynamic[i].cases) << what;
      EXPECT_EQ(branched.dynamic[i].repro, from_empty.dynamic[i].repro) << what;
      forced_from_a_held_end |= branched.dynamic[i].check == "crash" &&
                                branched.dynamic[i].verdict == Verdict::kNeedsForce;
    }
  }
  // The force search from a held end was played: golang-migrate needs a
  // force after a crash between an ALTER and its INSERT.
  EXPECT_TRUE(forced_from_a_held_end);
}

// `files` in keyspace app, with golang-migrate on one node.
MigrationCheckOptions OneNodeGolangMigrate(std::vector<MigrationFile> files) {
  MigrationCheckOptions options;
  options.files = std::move(files);
  options.keyspace = "app";
  options.runners = {"golang-migrate"};
  options.replicas = 1;
  return options;
}

// `files` checked with golang-migrate on one replica (and `change`'s
// options), forked and from empty: the same JSON report but for the runs.
// Returns the forked one.
MigrationCheckReport ForkedAsFromEmpty(std::vector<MigrationFile> files,
                                       const std::function<void(MigrationCheckOptions&)>& change) {
  MigrationCheckOptions options = OneNodeGolangMigrate(std::move(files));
  if (change) change(options);
  options.branch = true;
  const MigrationCheckReport branched = CheckMigrations(options);
  options.branch = false;
  const MigrationCheckReport from_empty = CheckMigrations(options);
  const ReportContext context{.folder = "folder", .repro_files = ReproFileNames(from_empty)};
  MigrationCheckReport same_runs = branched;
  same_runs.runs = from_empty.runs;
  EXPECT_EQ(JsonReport(same_runs, context), JsonReport(from_empty, context));
  return branched;
}

// Upgrades from each older version, each a future forked where the trunk's
// kuri-1 has recorded that version clean (UpgradesBranched), give the
// report of each upgrade played from empty: the release at that version
// migrating an empty keyspace, down, the new image, up. (A future paused
// at another pass than its version's panics: the file in flight is said.)
TEST(CheckMigrationsTest, UpgradesForkedFromOneRunGiveTheReportOfUpgradesFromEmpty) {
  std::vector<MigrationFile> files = AlterAndInsertFolder();
  files.emplace_back("3_t3.up.cql", "CREATE TABLE IF NOT EXISTS t3 (id text PRIMARY KEY);\n");
  files.emplace_back("4_t1_more.up.cql", "ALTER TABLE t1 ADD more int;\n");
  const MigrationCheckReport branched = ForkedAsFromEmpty(files, {});
  std::vector<std::string> upgrades;
  for (const DynamicFinding& finding : branched.dynamic) {
    if (finding.check != "upgrade") continue;
    EXPECT_EQ(finding.verdict, Verdict::kSafe) << finding.detail;
    upgrades.insert(upgrades.end(), finding.cases.begin(), finding.cases.end());
  }
  EXPECT_EQ(upgrades, (std::vector<std::string>{"upgrade from version 1", "upgrade from version 2",
                                                "upgrade from version 3"}));
}

// On the Cassandra store each schema change is answered after 500 ms, so
// the release at a late version of a 135-DDL folder is still migrating
// when the upgrade from empty reads whether it serves: that upgrade is a
// note ("does not start itself"), and its future, which would not see it,
// gives way to the play from empty (UpgradeFutures). (--since the file
// before the last: upgrades from every version, crashes in one file.)
TEST(CheckMigrationsTest, AnUpgradeFromAReleaseSlowToServeIsTheNoteItIsFromEmpty) {
  const std::vector<MigrationFile> files =
      NumberedFolder(45,
                     "CREATE TABLE IF NOT EXISTS t{0} (id text PRIMARY KEY);\n"
                     "CREATE TABLE IF NOT EXISTS t{0}_log (id text PRIMARY KEY);\n"
                     "CREATE TABLE IF NOT EXISTS t{0}_tag (id text PRIMARY KEY);\n");
  const MigrationCheckReport branched =
      ForkedAsFromEmpty(files, [](MigrationCheckOptions& options) {
        options.stores = {"cassandra"};
        options.since = 44;
      });
  const auto slow =
      std::count_if(branched.notes.begin(), branched.notes.end(), [](const std::string& note) {
        return note.find("does not start itself") != std::string::npos;
      });
  EXPECT_GT(slow, 0);
}

// A crash just after a version was recorded clean leaves a state the
// folder defines: safe, at every version, past the schemas the checker
// keeps (every 32nd version's: the others are worked out from them).
TEST(CheckMigrationsTest, ACrashAfterACleanVersionIsSafeAtEveryVersionOfALongFolder) {
  const std::vector<MigrationFile> files =
      NumberedFolder(40, "CREATE TABLE IF NOT EXISTS t{0} (id text PRIMARY KEY);\n");
  MigrationCheckOptions options = OneNodeGolangMigrate(files);
  const MigrationCheckReport report = CheckMigrations(options);
  int after_clean = 0;
  for (const DynamicFinding& finding : report.dynamic) {
    if (finding.check != "crash") continue;
    for (const std::string& label : finding.cases) {
      if (label.find("after_set_clean") == std::string::npos) continue;
      ++after_clean;
      EXPECT_EQ(finding.verdict, Verdict::kSafe) << label << ": " << finding.detail;
    }
  }
  EXPECT_EQ(after_clean, 40);
}

// A check keeps a scenario for each group of findings, every one naming
// the folder (a 1,000-file folder's 3,000 groups held 2.9 GB): kept, its
// images that run the folder (the checked one, and an upgrade's release,
// the files up to its version) have no files, and the repros have them
// back, also when a worker's answer came as text.
TEST(CheckMigrationsTest, KeptCasesLeaveTheFolderOutAndTheirReprosHaveItBack) {
  std::vector<MigrationFile> files = AlterAndInsertFolder();
  files.emplace_back("3_t3.up.cql", "CREATE TABLE IF NOT EXISTS t3 (id text PRIMARY KEY);\n");
  MigrationCheckOptions options = OneNodeGolangMigrate(files);
  const PlayedShard shard = PlayShard(options);
  int kept = 0;
  bool release_left_out = false;
  for (const JudgedCase& c : shard.cases) {
    if (c.scenario.steps.empty()) continue;
    ++kept;
    EXPECT_FALSE(c.folder_images.empty()) << c.label;
    for (const ImageSpec& image : c.scenario.images) EXPECT_TRUE(image.files.empty()) << c.label;
    for (const auto& [image, version] : c.folder_images) release_left_out |= version.has_value();
  }
  EXPECT_GT(kept, 3);
  EXPECT_TRUE(release_left_out);  // An upgrade's release: the files up to its version.
  const std::optional<PlayedShard> as_text = ShardFromJson(ShardToJson(shard));
  ASSERT_TRUE(as_text.has_value());
  ASSERT_EQ(as_text->cases.size(), shard.cases.size());
  for (std::size_t i = 0; i < shard.cases.size(); ++i) {
    EXPECT_EQ(as_text->cases[i].folder_images, shard.cases[i].folder_images);
  }
  const MigrationCheckReport report = ReportOf(options, {*as_text});
  const MigrationCheckReport whole = CheckMigrations(options);
  const ReportContext context{.folder = "folder", .repro_files = ReproFileNames(whole)};
  EXPECT_EQ(JsonReport(report, context), JsonReport(whole, context));
  // Two workers' answers, as text: a crash case judged from the run of
  // another shard's case (awaits_share) is its own scenario's, whose files
  // were never left out.
  for (const std::uint64_t count : {2, 3}) {
    std::vector<PlayedShard> shards;
    for (std::uint64_t index = 0; index < count; ++index) {
      MigrationCheckOptions part = options;
      part.shard = {.index = index, .count = count};
      std::optional<PlayedShard> answer = ShardFromJson(ShardToJson(PlayShard(part)));
      ASSERT_TRUE(answer.has_value());
      shards.push_back(*std::move(answer));
    }
    MigrationCheckReport sharded = ReportOf(options, shards);
    sharded.runs = whole.runs;
    EXPECT_EQ(JsonReport(sharded, context), JsonReport(whole, context)) << count << " shards";
  }
  int repros = 0;
  for (const DynamicFinding& finding : report.dynamic) {
    if (!finding.repro) continue;
    ++repros;
    const auto checked =
        std::find_if(finding.repro->images.begin(), finding.repro->images.end(),
                     [](const ImageSpec& image) { return image.version == "checked"; });
    ASSERT_NE(checked, finding.repro->images.end());
    ASSERT_EQ(checked->files.size(), files.size());
    for (std::size_t i = 0; i < files.size(); ++i) EXPECT_EQ(checked->files[i].name, files[i].name);
  }
  EXPECT_GT(repros, 0);
}

}  // namespace
}  // namespace faultline::scenarios
