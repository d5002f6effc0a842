// check-migrations as a CI gate (issue #28): the runner's own risks
// (RunnerRisks) are told apart from the folder's findings, said once, and
// fail the gate only when asked; the folder's findings fail it, per file.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "models/migrate/folder.h"
#include "scenarios/check_migrations/check_migrations.h"
#include "scenarios/check_migrations/ignores.h"
#include "scenarios/check_migrations/report.h"

namespace faultline::scenarios {
namespace {

using models::migrate::MigrationFile;

// One statement a file, each safe to run twice.
std::vector<MigrationFile> IdempotentFolder() {
  return {
      {"1_users.up.cql", "CREATE TABLE IF NOT EXISTS users (id text PRIMARY KEY, name text);\n"},
      {"2_buckets.up.cql",
       "CREATE TABLE IF NOT EXISTS buckets (name text PRIMARY KEY, owner text);\n"},
      {"3_objects.up.cql",
       "CREATE TABLE IF NOT EXISTS objects (bucket text, key text, size bigint, "
       "PRIMARY KEY ((bucket), key));\n"},
  };
}

// The same, and a file of two statements neither of which runs twice.
std::vector<MigrationFile> WithATwoStatementFile() {
  std::vector<MigrationFile> files = IdempotentFolder();
  files.push_back({"4_user_details.up.cql",
                   "ALTER TABLE users ADD email text;\nALTER TABLE users ADD age int;\n"});
  return files;
}

MigrationCheckReport Check(std::vector<MigrationFile> files, bool fail_on_runner_risks = false) {
  MigrationCheckOptions options;
  options.files = std::move(files);
  options.keyspace = "app";
  options.race_seeds = 2;
  options.fail_on_runner_risks = fail_on_runner_risks;
  return CheckMigrations(options);
}

ReportContext ContextOf(const MigrationCheckReport& report) {
  return {.folder = "migrations", .repro_files = ReproFileNames(report)};
}

std::string Text(const MigrationCheckReport& report) {
  return TextReport(report, ContextOf(report));
}

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

TEST(GateTest, AnIdempotentFolderPassesWithGolangMigratesOwnRisksSaidOnce) {
  const MigrationCheckReport report = Check(IdempotentFolder());
  EXPECT_FALSE(report.Unsafe());
  std::set<std::string> risks;
  for (const DynamicFinding& finding : report.dynamic) {
    if (!InfoOf(finding.verdict).unsafe) continue;
    EXPECT_FALSE(finding.runner_risk.empty())
        << finding.check << " " << finding.file << ": " << finding.detail;
    EXPECT_FALSE(report.Fails(finding));
    risks.insert(finding.runner_risk);
  }
  // golang-migrate's design (migrate.go's runMigrations writes the version
  // dirty before a file; database/cassandra's SetVersion deletes, then
  // inserts): every folder meets these with it.
  EXPECT_TRUE(risks.contains("golang-migrate/dirty-until-forced"));
  EXPECT_TRUE(risks.contains("golang-migrate/lost-version"));
  const std::string text = Text(report);
  EXPECT_EQ(Count(text, "golang-migrate's own risks"), 1u) << text;
  EXPECT_EQ(Count(text, "dirty-until-forced"), 1u) << text;
  EXPECT_EQ(Count(text, "  unsafe   "), 0u) << text;
  EXPECT_NE(text.find("SAFE: "), std::string::npos) << text;
  // Each risk has one repro, not one per file.
  std::map<std::string, int> repros;
  for (const DynamicFinding& finding : report.dynamic) {
    if (finding.repro) ++repros[finding.runner_risk];
  }
  for (const std::string& risk : risks) EXPECT_EQ(repros[risk], 1) << risk;
}

// A lost version makes the files up to the lost one run again: one of
// them that writes rows writes them back as they first were, which is the
// folder's concern, not the runner's alone. The files after it run for the
// first time, so a row-writing file at the end leaves the earlier files'
// lost versions the runner's own risk (found trying it as a new user: every
// file was blamed for the last file's INSERT).
TEST(GateTest, ALostVersionThatRewritesRowsIsTheFolders) {
  std::vector<MigrationFile> files = IdempotentFolder();
  files.push_back(
      {"4_default_user.up.cql", "INSERT INTO users (id, name) VALUES ('admin', 'a');\n"});
  const MigrationCheckReport report = Check(files);
  std::set<std::string> the_folders;
  std::set<std::string> the_runners;
  for (const DynamicFinding& finding : report.dynamic) {
    if (finding.verdict != Verdict::kLostVersion) continue;
    if (finding.runner_risk.empty()) {
      the_folders.insert(finding.file);
      EXPECT_NE(finding.detail.find("data statements"), std::string::npos) << finding.detail;
    } else {
      the_runners.insert(finding.file);
      EXPECT_EQ(finding.detail.find("data statements"), std::string::npos) << finding.detail;
    }
  }
  EXPECT_EQ(the_folders, (std::set<std::string>{"4_default_user.up.cql"}));
  EXPECT_FALSE(the_runners.empty());
  EXPECT_FALSE(the_runners.contains("4_default_user.up.cql"));
  EXPECT_TRUE(report.Unsafe());
}

TEST(GateTest, ALostVersionAfterAFileThatWritesRowsIsTheFolders) {
  std::vector<MigrationFile> files = IdempotentFolder();
  files.insert(files.begin() + 1,
               {"2_default_user.up.cql", "INSERT INTO users (id, name) VALUES ('admin', 'a');\n"});
  files[2].name = "3_buckets.up.cql";
  files[3].name = "4_objects.up.cql";
  const MigrationCheckReport report = Check(files);
  std::set<std::string> the_folders;
  for (const DynamicFinding& finding : report.dynamic) {
    if (finding.verdict != Verdict::kLostVersion) continue;
    if (finding.runner_risk.empty()) the_folders.insert(finding.file);
  }
  EXPECT_TRUE(the_folders.contains("3_buckets.up.cql"));
  EXPECT_TRUE(the_folders.contains("4_objects.up.cql"));
  EXPECT_FALSE(the_folders.contains("1_users.up.cql"));
}

// Every progress line names its phase, in a worker that makes repros too
// (found trying --jobs 2 on 150 files: "check-migrations:  (3252 runs so
// far)").
TEST(GateTest, EveryProgressCallNamesItsPhase) {
  MigrationCheckOptions options;
  options.files = WithATwoStatementFile();
  options.keyspace = "app";
  options.race_seeds = 2;
  std::vector<std::string> phases;
  options.on_progress = [&phases](std::string_view check, int) { phases.emplace_back(check); };
  std::vector<PlayedShard> shards;
  for (std::uint64_t index = 0; index < 2; ++index) {
    MigrationCheckOptions mine = options;
    mine.shard = {index, 2};
    shards.push_back(PlayShard(mine));
  }
  EXPECT_FALSE(MakeRepros(options, shards, {0, 2}).empty());
  ASSERT_FALSE(phases.empty());
  EXPECT_TRUE(std::none_of(phases.begin(), phases.end(),
                           [](const std::string& phase) { return phase.empty(); }));
  EXPECT_EQ(phases.back(), "shrinking the unsafe findings");
}

TEST(GateTest, TheRunnersRisksFailTheGateWhenAsked) {
  const MigrationCheckReport report = Check(IdempotentFolder(), true);
  EXPECT_TRUE(report.Unsafe());
  const auto sarif = nlohmann::json::parse(SarifReport(report, ContextOf(report)));
  bool risk_as_error = false;
  for (const auto& result : sarif["runs"][0]["results"]) {
    risk_as_error |=
        result["ruleId"] == "golang-migrate/dirty-until-forced" && result["level"] == "error";
  }
  EXPECT_TRUE(risk_as_error);
}

TEST(GateTest, AFileThatCannotRunTwiceFailsTheGateAndIsNamed) {
  const MigrationCheckReport report = Check(WithATwoStatementFile());
  EXPECT_TRUE(report.Unsafe());
  bool repair = false;
  bool forced_to_itself = false;
  for (const DynamicFinding& finding : report.dynamic) {
    if (!report.Fails(finding)) continue;
    EXPECT_EQ(finding.file, "4_user_details.up.cql") << finding.check << ": " << finding.detail;
    repair |= finding.verdict == Verdict::kNeedsRepair;
    // Forced to its own version: the usual way out (force 3, and the file
    // runs again) fails on its first ALTER. The folder's doing.
    forced_to_itself |= finding.check == "crash" && finding.verdict == Verdict::kNeedsForce &&
                        finding.force_to == "4";
  }
  EXPECT_TRUE(repair);
  EXPECT_TRUE(forced_to_itself);
  const std::string text = Text(report);
  EXPECT_NE(text.find("  unsafe   4_user_details.up.cql: "), std::string::npos) << text;
  EXPECT_EQ(Count(text, "  unsafe   "), 1u) << text;
  EXPECT_EQ(Count(text, "golang-migrate's own risks"), 1u) << text;
  const auto sarif = nlohmann::json::parse(SarifReport(report, ContextOf(report)));
  for (const auto& result : sarif["runs"][0]["results"]) {
    const std::string rule = result["ruleId"];
    if (rule.starts_with("golang-migrate/")) {
      EXPECT_EQ(result["level"], "warning") << rule;
    }
  }
}

// The text with its wrapped lines joined again.
std::string Unwrapped(const std::string& text) {
  std::string joined;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      joined += text[i];
      continue;
    }
    joined += ' ';
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
  }
  return joined;
}

// The seed gateway's node folder, checked as its CLI line does by default:
// the report a pull request shows fits on one screen, every line within
// 100 columns; --verbose keeps every case.
TEST(GateTest, TheSeedNodesFolderReportFitsOnOneScreen) {
  auto files =
      models::migrate::ReadMigrationFolder(std::string(FAULTLINE_CORPUS_DIR) + "/seed-kuri");
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  MigrationCheckOptions options;
  options.files = *files;
  options.keyspace = "filecoingw_kuri1";
  const MigrationCheckReport report = CheckMigrations(options);
  ReportContext context{.folder = "tests/check-migrations/corpus/seed-kuri",
                        .repro_files = ReproFileNames(report)};
  const std::string text = TextReport(report, context);
  std::size_t lines = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line); ++lines) {
    EXPECT_LE(line.size(), 100u) << line;
  }
  EXPECT_LE(lines, 40u) << text;
  // Each distinct log line once, where it was three times.
  EXPECT_EQ(Count(Unwrapped(text), "Dirty database version 1754293669. Fix and force version."), 1u)
      << text;
  EXPECT_EQ(Count(text, "  unsafe   1754293669_init_s3_object_index.up.cql: "), 1u) << text;
  context.verbose = true;
  const std::string verbose = TextReport(report, context);
  EXPECT_GT(Count(verbose, "Dirty database version 1754293669. Fix and force version."), 1u);
  for (const DynamicFinding& finding : report.dynamic) {
    for (const std::string& label : finding.cases) {
      EXPECT_NE(verbose.find(label), std::string::npos) << label;
    }
  }
}

// A shipped file that cannot run twice, then a new idempotent file.
std::vector<MigrationFile> UnsafeHistoryThenASafeFile() {
  return {
      {"1_users.up.cql", "CREATE TABLE IF NOT EXISTS users (id text PRIMARY KEY);\n"},
      {"2_details.up.cql", "ALTER TABLE users ADD email text;\nALTER TABLE users ADD age int;\n"},
      {"3_buckets.up.cql", "CREATE TABLE IF NOT EXISTS buckets (name text PRIMARY KEY);\n"},
  };
}

std::set<std::string> CrashCases(const MigrationCheckReport& report) {
  std::set<std::string> cases;
  for (const DynamicFinding& finding : report.dynamic) {
    if (finding.check == "crash") cases.insert(finding.cases.begin(), finding.cases.end());
  }
  return cases;
}

TEST(GateTest, SinceJudgesOnlyTheNewFilesAndCrashesNothingShipped) {
  const MigrationCheckReport whole = Check(UnsafeHistoryThenASafeFile());
  EXPECT_TRUE(whole.Unsafe());
  MigrationCheckOptions options;
  options.files = UnsafeHistoryThenASafeFile();
  options.keyspace = "app";
  options.race_seeds = 2;
  options.since = 2;
  const MigrationCheckReport report = CheckMigrations(options);
  EXPECT_FALSE(report.Unsafe()) << Text(report);
  EXPECT_EQ(report.history, (std::vector<std::string>{"1_users.up.cql", "2_details.up.cql"}));
  EXPECT_NE(Text(report).find("  history  2 files shipped before (--since)"), std::string::npos)
      << Text(report);
  for (const DynamicFinding& finding : report.dynamic) {
    EXPECT_TRUE(finding.file.empty() || finding.file == "3_buckets.up.cql")
        << finding.check << " " << finding.file;
  }
  for (const auto& finding : report.lint) EXPECT_EQ(finding.file, "3_buckets.up.cql");
  // Every crash case is one the whole folder's check plays too, in the new
  // file: none crashes in the history.
  const std::set<std::string> since = CrashCases(report);
  const std::set<std::string> all = CrashCases(whole);
  EXPECT_FALSE(since.empty());
  EXPECT_LT(since.size(), all.size());
  for (const std::string& label : since) EXPECT_TRUE(all.contains(label)) << label;
  for (const DynamicFinding& finding : report.dynamic) {
    if (finding.check == "crash") {
      EXPECT_EQ(finding.file, "3_buckets.up.cql");
    }
  }
  // Upgrades start from each shipped version.
  bool upgraded = false;
  for (const DynamicFinding& finding : report.dynamic) {
    if (finding.check != "upgrade") continue;
    upgraded = true;
    EXPECT_EQ(finding.cases.size(), 2u);
  }
  EXPECT_TRUE(upgraded);
}

TEST(GateTest, SinceTheNewestVersionJudgesNothingAndRunsNothing) {
  MigrationCheckOptions options;
  options.files = UnsafeHistoryThenASafeFile();
  options.keyspace = "app";
  options.since = 3;
  const MigrationCheckReport report = CheckMigrations(options);
  EXPECT_FALSE(report.Unsafe());
  EXPECT_TRUE(report.dynamic.empty());
  EXPECT_EQ(report.runs, 0);
  EXPECT_TRUE(std::any_of(report.notes.begin(), report.notes.end(), [](const std::string& note) {
    return note.find("nothing new to judge") != std::string::npos;
  }));
}

TEST(GateTest, AnIgnoreWithItsReasonLeavesItsFindingsOutAndIsSaid) {
  std::vector<MigrationFile> files = WithATwoStatementFile();
  files.back().contents =
      "-- faultline:ignore needs-repair the runbook adds the column by hand\n"
      "// faultline:ignore silent-drift never seen\n" +
      files.back().contents;
  const auto ignores = InFileIgnores(files);
  ASSERT_TRUE(ignores.ok()) << ignores.status().ToString();
  ASSERT_EQ(ignores->size(), 2u);
  EXPECT_EQ(ignores->front().where, "4_user_details.up.cql:1");
  EXPECT_EQ(ignores->front().reason, "the runbook adds the column by hand");
  MigrationCheckOptions options;
  options.files = files;
  options.keyspace = "app";
  options.race_seeds = 2;
  options.ignores = *ignores;
  const MigrationCheckReport report = CheckMigrations(options);
  bool other_unsafe = false;
  for (const DynamicFinding& finding : report.dynamic) {
    EXPECT_NE(finding.verdict, Verdict::kNeedsRepair) << finding.file;
    other_unsafe |= report.Fails(finding);
  }
  EXPECT_TRUE(other_unsafe);  // The file's other findings still fail the gate.
  const auto said = [&](const std::string& text) {
    return std::any_of(report.notes.begin(), report.notes.end(), [&](const std::string& note) {
      return note.find(text) != std::string::npos;
    });
  };
  EXPECT_TRUE(
      said("ignored needs-repair in 4_user_details.up.cql (4_user_details.up.cql:1: the "
           "runbook adds the column by hand)"));
  EXPECT_TRUE(said("4_user_details.up.cql:2: faultline:ignore silent-drift matched nothing"));
}

TEST(GateTest, AnIgnoreOfNoRuleOrWithoutAReasonIsRefusedWhereItIs) {
  const auto unknown =
      InFileIgnores({{"2_a.up.cql", "SELECT 1;\n  -- faultline:ignore needs-forse x\n"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(
      unknown.status().message().find("2_a.up.cql:2:6: faultline:ignore needs-forse: no such"),
      std::string::npos)
      << unknown.status().message();
  EXPECT_NE(unknown.status().message().find("(did you mean 'needs-force'?)"), std::string::npos)
      << unknown.status().message();
  const auto bare = InFileIgnores({{"2_a.up.cql", "-- faultline:ignore not-idempotent\n"}});
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.status().message().find("2_a.up.cql:1:4: faultline:ignore not-idempotent says no "
                                         "reason"),
            std::string::npos)
      << bare.status().message();
  // Inside a statement's line it is no ignore: only a comment line is.
  const auto inline_text =
      InFileIgnores({{"2_a.up.cql", "SELECT 1; -- faultline:ignore not-idempotent x\n"}});
  ASSERT_TRUE(inline_text.ok());
  EXPECT_TRUE(inline_text->empty());
}

}  // namespace
}  // namespace faultline::scenarios
