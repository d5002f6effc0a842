// check-migrations' parts: the rules and verdicts as tables the docs follow,
// the corpus's copies of the seed folders, the sum file, and the verdicts
// the seed stories show (the CLI tests run the whole corpus; forked_test.cc
// the forked cases against those played from empty).
#include "scenarios/check_migrations/check_migrations.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "models/migrate/folder.h"
#include "models/migrate/lint.h"
#include "models/migrate/schema_check.h"
#include "models/s3/seed_images.h"
#include "scenarios/catalogue/catalogue.h"
#include "scenarios/check_migrations/observe.h"
#include "scenarios/check_migrations/report.h"
#include "scenarios/check_migrations/statements.h"
#include "scenarios/harness/runner.h"
#include "scenarios/world/world.h"

namespace faultline::scenarios {
namespace {

using models::migrate::MigrationFile;

std::vector<MigrationFile> Corpus(const std::string& name) {
  auto files = models::migrate::ReadMigrationFolder(std::string(FAULTLINE_CORPUS_DIR) + "/" + name);
  EXPECT_TRUE(files.ok()) << files.status().ToString();
  return files.ok() ? *files : std::vector<MigrationFile>{};
}

std::vector<MigrationFile> FilesOf(const models::migrate::MigrationSource& source) {
  std::vector<MigrationFile> files;
  for (const auto& [version, migration] : source.migrations()) {
    if (migration.up) files.emplace_back(migration.up_name, *migration.up);
  }
  return files;
}

bool SameFiles(const std::vector<MigrationFile>& a, const std::vector<MigrationFile>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].contents != b[i].contents) return false;
  }
  return true;
}

TEST(CheckMigrationsTest, TheCorpusHoldsTheSeedImagesFoldersAsBuilt) {
  EXPECT_TRUE(SameFiles(Corpus("seed-kuri"), FilesOf(models::s3::NodeKeyspaceMigrations())));
  EXPECT_TRUE(SameFiles(Corpus("seed-s3"), FilesOf(models::s3::S3KeyspaceMigrations())));
  EXPECT_TRUE(SameFiles(Corpus("seed-s3-old"), FilesOf(models::s3::OldS3KeyspaceMigrations())));
  EXPECT_TRUE(SameFiles(Corpus("seed-s3-versioned"),
                        FilesOf(models::s3::VersionedProxyImage().migrations)));
}

TEST(CheckMigrationsTest, EveryRuleAndVerdictIsDocumented) {
  std::ifstream in(std::string(FAULTLINE_DOCS_DIR) + "/check-migrations.md");
  std::stringstream text;
  text << in.rdbuf();
  for (const models::migrate::LintRule& rule : models::migrate::LintRules()) {
    EXPECT_NE(text.str().find("### `" + std::string(rule.id) + "`"), std::string::npos) << rule.id;
  }
  for (const VerdictInfo& verdict : Verdicts()) {
    EXPECT_NE(text.str().find("### `" + std::string(verdict.name) + "`"), std::string::npos)
        << verdict.name;
  }
  for (const RunnerRisk& risk : RunnerRisks()) {
    EXPECT_NE(text.str().find("### `" + std::string(risk.id) + "`"), std::string::npos) << risk.id;
  }
}

TEST(CheckMigrationsTest, ASumFileReadsBackAndSaysWhatIsWrongWhere) {
  const std::vector<MigrationFile> files = {{"1_a.up.cql", "CREATE TABLE a (id int PRIMARY KEY);"},
                                            {"2_b.up.cql", "x"}};
  const std::string text = models::migrate::WriteSumFile(files);
  auto sum = models::migrate::ParseSumFile(text, "a.sum");
  ASSERT_TRUE(sum.ok());
  ASSERT_EQ(sum->entries.size(), 2u);
  EXPECT_EQ(sum->entries[1].file, "2_b.up.cql");
  EXPECT_EQ(sum->entries[1].checksum, models::migrate::FileChecksum("x"));
  EXPECT_EQ(models::migrate::ParseSumFile("faultline-sum 1\n1_a.up.cql fnv1a64:12\n", "a.sum")
                .status()
                .message(),
            "a.sum:2:20: expected 16 hex digits");
  EXPECT_FALSE(models::migrate::ParseSumFile(text + text.substr(16), "a.sum").ok());  // Twice.
}

TEST(CheckMigrationsTest, SplittingOnASemicolonInAStringIsFoundAtTheSemicolon) {
  models::migrate::LintInput input;
  input.files = {{"1_a.up.cql", "INSERT INTO t (k) VALUES ('a;b'); -- one; two\n"}};
  input.keyspace = "app";
  std::vector<models::migrate::LintFinding> semicolons;
  for (const auto& finding : models::migrate::LintFolder(input)) {
    if (finding.rule == "semicolon-in-literal") semicolons.push_back(finding);
  }
  ASSERT_EQ(semicolons.size(), 2u);
  EXPECT_EQ(semicolons[0].column, 29);  // Inside 'a;b'.
  EXPECT_EQ(semicolons[1].column, 41);  // Inside the comment.
  input.multi_statement = false;        // Sent as one query, nothing is cut.
  for (const auto& finding : models::migrate::LintFolder(input)) {
    EXPECT_NE(finding.rule, "semicolon-in-literal");
  }
}

// The seed stories' verdicts: seed 004 (dirty after a crash mid-file),
// 000/001 (drift hidden by IF NOT EXISTS on a kept volume), and the fix.
MigrationCheckReport Check(const std::string& folder, std::vector<std::string> runners,
                           const std::string& from = "") {
  MigrationCheckOptions options;
  options.files = Corpus(folder);
  options.keyspace = "filecoingw_kuri1";
  options.runners = std::move(runners);
  options.race_seeds = 1;
  if (!from.empty()) options.older = Corpus(from);
  return CheckMigrations(options);
}

std::set<std::pair<std::string, std::string>> Verdicts(const MigrationCheckReport& report,
                                                       const std::string& runner) {
  std::set<std::pair<std::string, std::string>> verdicts;
  for (const DynamicFinding& finding : report.dynamic) {
    if (finding.runner == runner) verdicts.emplace(finding.check, InfoOf(finding.verdict).name);
  }
  return verdicts;
}

TEST(CheckMigrationsTest, ACrashMidFileNeedsRepairWithGolangMigrateAndRecoversWithTheSafeRunner) {
  const MigrationCheckReport report = Check("seed-kuri", {"golang-migrate", "safe"});
  const auto golang = Verdicts(report, "golang-migrate");
  EXPECT_TRUE(golang.contains({"crash", "needs-repair"}));
  EXPECT_TRUE(golang.contains({"crash", "needs-force"}));
  EXPECT_TRUE(golang.contains({"crash", "lost-version"}));
  for (const auto& [check, verdict] : Verdicts(report, "safe")) {
    EXPECT_TRUE(verdict == "safe" || verdict == "recovers") << check << " " << verdict;
  }
  for (const DynamicFinding& finding : report.dynamic) {
    // Seed 003's lesson: the version lives in the node's own keyspace, and
    // the finding says which one to force in.
    if (finding.verdict == Verdict::kNeedsForce) {
      EXPECT_NE(finding.detail.find("on keyspace filecoingw_kuri1"), std::string::npos)
          << finding.detail;
    }
    if (finding.verdict != Verdict::kNeedsRepair) continue;
    // Exactly which statements ran, and what to do.
    EXPECT_NE(finding.detail.find("statements 1-1 of 2"), std::string::npos) << finding.detail;
    EXPECT_NE(finding.error.find("Dirty database version 1754293669. Fix and force version."),
              std::string::npos);
    ASSERT_TRUE(finding.repro.has_value());
  }
  EXPECT_TRUE(report.Unsafe());
}

TEST(CheckMigrationsTest, AnEditedCreateIfNotExistsOnAKeptVolumeIsSilentDrift) {
  const MigrationCheckReport report = Check("seed-s3", {"golang-migrate"}, "seed-s3-old");
  EXPECT_TRUE(Verdicts(report, "golang-migrate").contains({"upgrade", "silent-drift"}));
  bool hidden = false;
  for (const auto& finding : report.lint) hidden |= finding.rule == "if-not-exists-hides-drift";
  EXPECT_TRUE(hidden);
  // The fix, a versioned ALTER, upgrades the same kept volume cleanly.
  const MigrationCheckReport fixed = Check("seed-s3-versioned", {"golang-migrate"}, "seed-s3-old");
  EXPECT_TRUE(Verdicts(fixed, "golang-migrate").contains({"upgrade", "safe"}));
  EXPECT_FALSE(Verdicts(fixed, "golang-migrate").contains({"upgrade", "silent-drift"}));
}

// Observing is reading: a run whose observer reads the store, the logs and
// the fault coverage after every step has the same trace as one without.
TEST(CheckMigrationsTest, AnObserverLeavesTheTraceAsItWas) {
  const Scenario* story = FindScenario("dirty-migration");
  ASSERT_NE(story, nullptr);
  const ScenarioResult plain = RunScenario(*story, {.seed = 3});
  int looked = 0;
  RunOptions observed{.seed = 3};
  observed.observe = [&](std::size_t, World& world) {
    looked += RecordedVersions(world, "filecoingw_kuri1").empty() ? 0 : 1;
    auto store = ObserveStore(world);
    if (store.ok()) (void)models::migrate::SnapshotSchema(**store, "filecoingw_kuri1");
    (void)world.simulation.faults().Coverage();
  };
  const ScenarioResult seen = RunScenario(*story, observed);
  EXPECT_EQ(looked, static_cast<int>(story->steps.size()) + 1);
  EXPECT_EQ(plain.trace_hash, seen.trace_hash);
}

// The seed's folders as they should have been (the node's, and the proxy's
// with node_id by ALTER): every verdict golang-migrate makes unsafe, the
// safe runner makes safe or recovers, upgrades and the rollback included.
// On the folder whose shipped CREATE was edited, it refuses to start,
// naming the file, where golang-migrate serves a drifted schema.
TEST(CheckMigrationsTest, TheSafeRunnerTurnsEveryUnsafeVerdictIntoSafeOrRecovers) {
  for (const auto& [folder, from] : {std::pair<std::string, std::string>{"seed-kuri", ""},
                                     {"seed-s3-versioned", "seed-s3-old"}}) {
    const MigrationCheckReport report = Check(folder, {"golang-migrate", "safe"}, from);
    bool golang_unsafe = false;
    for (const DynamicFinding& finding : report.dynamic) {
      const bool unsafe = InfoOf(finding.verdict).unsafe;
      if (finding.runner == "golang-migrate") golang_unsafe |= unsafe;
      if (finding.runner == "safe") {
        EXPECT_FALSE(unsafe) << folder << ": " << finding.check << " " << finding.detail;
      }
    }
    EXPECT_TRUE(golang_unsafe) << folder;
  }
  const MigrationCheckReport edited = Check("seed-s3", {"safe"}, "seed-s3-old");
  for (const DynamicFinding& finding : edited.dynamic) {
    if (finding.check != "upgrade") continue;
    EXPECT_EQ(finding.verdict, Verdict::kNeedsRepair);
    EXPECT_NE(finding.error.find("1754293669_init_s3_object_index.up.cql) changed after it was "
                                 "applied"),
              std::string::npos)
        << finding.error;
  }
}

TEST(CheckMigrationsTest, TheSameSeedGivesTheSameReport) {
  const MigrationCheckReport a = Check("seed-kuri", {"golang-migrate"});
  const MigrationCheckReport b = Check("seed-kuri", {"golang-migrate"});
  ASSERT_EQ(a.dynamic.size(), b.dynamic.size());
  for (std::size_t i = 0; i < a.dynamic.size(); ++i) {
    EXPECT_EQ(a.dynamic[i].cases, b.dynamic[i].cases);
    EXPECT_EQ(a.dynamic[i].detail, b.dynamic[i].detail);
    EXPECT_EQ(a.dynamic[i].repro, b.dynamic[i].repro);
  }
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// RanAtCrash against the simulation itself: a crash at every pass of every
// golang-migrate site, and the tables of the file in flight that exist
// afterwards (each statement makes one) are the statements it says ran.
TEST(CheckMigrationsTest, StatementsCountedFromASiteAreTheOnesThatRan) {
  const std::vector<MigrationFile> files = {
      {"1_a.up.cql", "CREATE TABLE a1 (k int PRIMARY KEY);\nCREATE TABLE a2 (k int PRIMARY KEY);"},
      {"2_b.down.cql", "DROP TABLE IF EXISTS nothing;"},  // A version with no up file.
      {"3_c.up.cql", "CREATE TABLE c1 (k int PRIMARY KEY);"},
  };
  const auto source = models::migrate::MigrationSource::FromFiles(files);
  ASSERT_TRUE(source.ok());
  Scenario scenario;
  scenario.name = "ran";
  scenario.title = "ran";
  scenario.node_version = "mine";
  scenario.nodes = 1;
  ImageSpec image;
  image.service = "node";
  image.version = "mine";
  image.files = files;
  scenario.images.push_back(image);
  ServiceOverride node;
  node.name = "kuri-1";
  node.restart = fakes::RestartPolicy::kNo;
  scenario.services.push_back(node);
  Step up;
  up.kind = Step::Kind::kUp;
  Step wait;
  wait.kind = Step::Kind::kWait;
  wait.duration = std::chrono::minutes(1);
  scenario.steps = {up, wait};
  const std::string keyspace = "filecoingw_kuri1";
  std::map<std::string, std::uint64_t> hits;
  RunOptions clean{.seed = 1};
  clean.observe = [&](std::size_t step, World& world) {
    if (step != 1) return;
    for (const sim::SiteCoverage& site : world.simulation.faults().Coverage()) {
      hits[site.site] = site.hits;
    }
  };
  RunScenario(scenario, clean);
  int checked = 0;
  for (const std::string& site : models::migrate::GolangMigrateRunner().FaultSites(keyspace)) {
    for (std::uint64_t hit = 1; hit <= hits[site]; ++hit) {
      const auto said = check::RanAtCrash(*source, keyspace, site, hit);
      Scenario crashed = scenario;
      crashed.faults.push_back({.site = site, .hit = hit, .service = "kuri-1"});
      std::set<std::string> tables;
      check::InFlight in_flight(keyspace);
      RunOptions run{.seed = 1, .sinks = {&in_flight}};
      run.observe = [&](std::size_t step, World& world) {
        if (step != 1) return;
        auto store = ObserveStore(world);
        ASSERT_TRUE(store.ok());
        const auto schema = models::migrate::SnapshotSchema(**store, keyspace);
        ASSERT_TRUE(schema.ok());
        for (const auto& [table, columns] : *schema) tables.insert(table);
      };
      RunScenario(crashed, run);
      if (!said) {
        // Before any file (the version read), or a version with no up file.
        EXPECT_TRUE(site.ends_with("version.before") || tables.size() == 2 || tables.empty())
            << site << " hit " << hit;
        continue;
      }
      const std::string prefix = said->first == "1_a.up.cql" ? "a" : "c";
      const auto ran = static_cast<std::size_t>(
          std::count_if(tables.begin(), tables.end(),
                        [&](const std::string& t) { return t.starts_with(prefix); }));
      EXPECT_EQ(said->second, ran) << site << " hit " << hit << " in " << said->first;
      // The file is the one in flight (a file all of whose statements ran
      // is not the next one with none yet).
      EXPECT_EQ(said->first, in_flight.file()) << site << " hit " << hit;
      ++checked;
    }
  }
  EXPECT_GE(checked, 15);
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// The verdict of one case (by its label) in `report`, or "" when no finding
// holds it.
std::string VerdictOfCase(const MigrationCheckReport& report, const std::string& runner,
                          const std::string& label) {
  for (const DynamicFinding& finding : report.dynamic) {
    if (finding.runner != runner) continue;
    for (const std::string& name : finding.cases) {
      if (name == label) return std::string(InfoOf(finding.verdict).name);
    }
  }
  return "";
}

// Issue #25: swapping safe and recovers for crash cases survived the suite.
// With the safe runner, a crash before the file's first statement leaves
// nothing to do (safe); one after its first of two statements leaves it
// half-way, and the restart finishes it (recovers).
TEST(CheckMigrationsTest, ACrashBeforeTheFileIsSafeAndOneHalfWayRecovers) {
  const MigrationCheckReport report = Check("seed-kuri", {"safe"});
  EXPECT_EQ(VerdictOfCase(report, "safe", "crash at safe.filecoingw_kuri1.lock.after, hit 1"),
            "safe");
  EXPECT_EQ(VerdictOfCase(report, "safe", "crash at safe.filecoingw_kuri1.statement.after, hit 1"),
            "recovers");
}

// Issue #25: the version-out-of-order rule's condition flipped survived the
// suite. A new file older than the newest shipped one is an error; a new
// file after it is not.
TEST(CheckMigrationsTest, ANewFileOlderThanTheNewestShippedOneIsOutOfOrder) {
  models::migrate::LintInput input;
  input.keyspace = "app";
  input.files = {{"1000_a.up.cql", "CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);\n"},
                 {"2000_b.up.cql", "CREATE TABLE IF NOT EXISTS b (k int PRIMARY KEY);\n"},
                 {"3000_c.up.cql", "CREATE TABLE IF NOT EXISTS c (k int PRIMARY KEY);\n"},
                 {"4000_d.up.cql", "CREATE TABLE IF NOT EXISTS d (k int PRIMARY KEY);\n"}};
  auto sum = models::migrate::ParseSumFile(
      models::migrate::WriteSumFile({input.files[0], input.files[2]}), "shipped.sum");
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  input.sum = &*sum;
  input.sum_name = "shipped.sum";
  std::vector<std::string> out_of_order;
  for (const auto& finding : models::migrate::LintFolder(input)) {
    if (finding.rule == "version-out-of-order") out_of_order.push_back(finding.file);
  }
  EXPECT_EQ(out_of_order, std::vector<std::string>{"2000_b.up.cql"});
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

std::vector<std::string> RetypedFiles(std::vector<models::migrate::MigrationFile> files) {
  models::migrate::LintInput input;
  input.keyspace = "app";
  input.files = std::move(files);
  std::vector<std::string> retyped;
  for (const auto& finding : models::migrate::LintFolder(input)) {
    if (finding.rule == "column-retyped") retyped.push_back(finding.file);
  }
  return retyped;
}

// Issue #27: column-retyped fired on a table dropped and made again, whose
// old columns went with it (Cassandra keeps dropped columns per table, in
// the table's own metadata: AlterTableStatement's "Cannot re-add previously
// dropped column" reads table.droppedColumns). A column dropped and added
// again on the same table is still one.
TEST(CheckMigrationsTest, ATableDroppedAndMadeAgainHasNoRetypedColumns) {
  EXPECT_EQ(RetypedFiles({{"1_t.up.cql", "CREATE TABLE t (k int PRIMARY KEY, v text);\n"},
                          {"2_t.up.cql", "DROP TABLE t;\n"},
                          {"3_t.up.cql", "CREATE TABLE t (k int PRIMARY KEY, v bigint);\n"}}),
            std::vector<std::string>{});
  EXPECT_EQ(RetypedFiles({{"1_t.up.cql", "CREATE TABLE t (k int PRIMARY KEY, v text);\n"},
                          {"2_t.up.cql", "ALTER TABLE t DROP v;\n"},
                          {"3_t.up.cql", "ALTER TABLE t ADD v bigint;\n"}}),
            std::vector<std::string>{"3_t.up.cql"});
  // A drop of the table after the column's drop forgets it too.
  EXPECT_EQ(RetypedFiles({{"1_t.up.cql", "CREATE TABLE t (k int PRIMARY KEY, v text);\n"},
                          {"2_t.up.cql", "ALTER TABLE t DROP v;\n"},
                          {"3_t.up.cql", "DROP TABLE t;\n"},
                          {"4_t.up.cql", "CREATE TABLE t (k int PRIMARY KEY, v bigint);\n"}}),
            std::vector<std::string>{});
}

// Issue #27: `ALTER TABLE ... WITH gc_grace_seconds = ...` (3 of 15 real
// folders tune options so) and `ALTER TABLE ... RENAME` were parse errors.
// Setting options to the same values again is no failure, so it is not
// reported as a statement that cannot run twice; a rename is.
TEST(CheckMigrationsTest, AlterTableWithOptionsAndRenameParse) {
  models::migrate::LintInput input;
  input.keyspace = "app";
  input.files = {
      {"1_events.up.cql", "CREATE TABLE IF NOT EXISTS events (k text PRIMARY KEY, v text);\n"},
      {"1_events.down.cql", "DROP TABLE IF EXISTS events;\n"},
      {"2_tune.up.cql",
       "ALTER TABLE events WITH gc_grace_seconds = 3600 AND default_time_to_live = 86400;\n"},
      {"2_tune.down.cql",
       "ALTER TABLE events WITH gc_grace_seconds = 864000 AND default_time_to_live = 0;\n"},
      {"3_more.up.cql", "ALTER TABLE events ADD w text;\n"},
      {"3_more.down.cql", "ALTER TABLE events DROP w;\n"},
      {"4_name.up.cql", "ALTER TABLE events RENAME w TO x;\n"},
      {"4_name.down.cql", "ALTER TABLE events RENAME x TO w;\n"}};
  std::vector<std::string> tuning;
  std::vector<std::string> renaming;
  for (const auto& finding : models::migrate::LintFolder(input)) {
    if (finding.file.starts_with("2_")) tuning.push_back(finding.rule + " " + finding.message);
    if (finding.file.starts_with("4_")) renaming.push_back(finding.rule + " " + finding.file);
    EXPECT_NE(finding.rule, "parse-error") << finding.file << ": " << finding.message;
  }
  EXPECT_EQ(tuning, std::vector<std::string>{});
  // A rename cannot run twice (its old name is gone), in either direction;
  // the down's rename finds the column its up made, so the down is whole.
  EXPECT_EQ(renaming, (std::vector<std::string>{"not-idempotent 4_name.up.cql",
                                                "not-idempotent 4_name.down.cql"}));
  // A down that leaves an option its up set does not undo it.
  input.files[3].contents = "ALTER TABLE events WITH gc_grace_seconds = 864000;\n";
  std::vector<std::string> partial;
  for (const auto& finding : models::migrate::LintFolder(input)) {
    if (finding.file.starts_with("2_")) partial.push_back(finding.rule);
  }
  EXPECT_EQ(partial, std::vector<std::string>{"asymmetric-down"});
}

// What only the checked store's grammar refuses is a parse-error at its
// column, not a store-refuses at 1:1 found by running it (found trying it
// as a new user): `ADD IF NOT EXISTS` is Cassandra's (Parser.g's
// alterTableStatement), a syntax error in YCQL's parser.
TEST(CheckMigrationsTest, WhatTheCheckedStoresGrammarAloneRefusesIsAParseError) {
  models::migrate::LintInput input;
  input.keyspace = "app";
  input.files = {{"1_events.up.cql", "CREATE TABLE IF NOT EXISTS events (id text PRIMARY KEY);\n"},
                 {"2_source.up.cql", "ALTER TABLE events ADD IF NOT EXISTS source text;\n"}};
  const auto parse_errors = [&](std::optional<models::cql::Dialect> dialect) {
    input.dialect = dialect;
    std::vector<std::string> found;
    for (const auto& finding : models::migrate::LintFolder(input)) {
      if (finding.rule != "parse-error") continue;
      found.push_back(
          fmt::format("{}:{}:{} {}", finding.file, finding.line, finding.column, finding.message));
    }
    return found;
  };
  const std::vector<std::string> ycql = parse_errors(models::cql::Dialect::kYcql);
  ASSERT_EQ(ycql.size(), 1u);
  EXPECT_TRUE(ycql[0].starts_with("2_source.up.cql:1:24 ")) << ycql[0];
  EXPECT_NE(ycql[0].find("unexpected IF"), std::string::npos) << ycql[0];
  EXPECT_NE(ycql[0].find("YCQL"), std::string::npos) << ycql[0];
  EXPECT_EQ(parse_errors(models::cql::Dialect::kCassandra), std::vector<std::string>{});
  EXPECT_EQ(parse_errors(std::nullopt), std::vector<std::string>{});
  // check-migrations checks on the first store: YCQL's by default.
  MigrationCheckOptions options;
  options.files = input.files;
  options.keyspace = "app";
  const MigrationCheckReport report = CheckMigrations(options);
  EXPECT_TRUE(std::any_of(report.lint.begin(), report.lint.end(), [](const auto& finding) {
    return finding.rule == "parse-error" && finding.file == "2_source.up.cql";
  }));
  EXPECT_EQ(report.runs, 0);
}

// An ALTER TABLE ADD or DROP cannot be written to run twice in YCQL: its
// warning says what to do instead, in the words of the form it is.
TEST(CheckMigrationsTest, AnAlterYcqlCannotMakeIdempotentSaysTheWayOut) {
  models::migrate::LintInput input;
  input.keyspace = "app";
  input.files = {
      {"1_events.up.cql", "CREATE TABLE IF NOT EXISTS events (id text PRIMARY KEY, x int);\n"},
      {"2_source.up.cql", "ALTER TABLE events ADD source text;\n"},
      {"3_x.up.cql", "ALTER TABLE events DROP x;\n"}};
  std::map<std::string, std::string> said;
  for (const auto& finding : models::migrate::LintFolder(input)) {
    if (finding.rule == "not-idempotent") said[finding.file] = finding.message;
  }
  ASSERT_EQ(said.size(), 2u);
  EXPECT_NE(said["2_source.up.cql"].find("takes ADD IF NOT EXISTS"), std::string::npos);
  EXPECT_NE(said["2_source.up.cql"].find("the column is there"), std::string::npos);
  EXPECT_NE(said["3_x.up.cql"].find("takes DROP IF EXISTS"), std::string::npos);
  EXPECT_NE(said["3_x.up.cql"].find("the column is gone"), std::string::npos);
  for (const auto& [file, message] : said) {
    EXPECT_NE(message.find("faultline:ignore needs-force"), std::string::npos) << message;
    EXPECT_NE(message.find("--runner safe"), std::string::npos) << message;
  }
}

// Issue #27: user-defined types (5 of 15 real folders; one has 120 ALTER
// TYPE statements) were parse errors. Each form that cannot run twice is
// said; the IF [NOT] EXISTS forms Cassandra's Parser.g takes are not.
TEST(CheckMigrationsTest, TypeStatementsParseAndTheirRerunsAreFound) {
  models::migrate::LintInput input;
  input.keyspace = "app";
  input.files = {
      {"1_address.up.cql", "CREATE TYPE address (street text, zip int,);\n"},
      {"1_address.down.cql", "DROP TYPE address;\n"},
      {"2_city.up.cql", "ALTER TYPE address ADD city text;\n"},
      {"3_country.up.cql", "ALTER TYPE address ADD IF NOT EXISTS country text;\n"},
      {"4_rename.up.cql", "ALTER TYPE address RENAME zip TO postcode AND street TO line1;\n"},
      {"5_rename.up.cql", "ALTER TYPE address RENAME IF EXISTS city TO town;\n"},
      {"6_events.up.cql",
       "CREATE TABLE IF NOT EXISTS events (id int PRIMARY KEY, at frozen<address>, end "
       "timestamp);\n"},
      {"7_event.up.cql", "INSERT INTO events (id, at) VALUES (1, {line1: 'x', town: 'y'});\n"},
      {"8_money.up.cql", "CREATE TYPE IF NOT EXISTS money (cents bigint);\n"},
      {"9_money.up.cql", "CREATE TYPE IF NOT EXISTS money (cents bigint, currency text);\n"}};
  std::vector<std::string> found;
  for (const auto& finding : models::migrate::LintFolder(input)) {
    EXPECT_NE(finding.rule, "parse-error") << finding.file << ": " << finding.message;
    if (finding.rule == "not-idempotent") found.push_back(finding.file);
    if (finding.rule == "if-not-exists-hides-drift") found.push_back("drift " + finding.file);
  }
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found,
            (std::vector<std::string>{"1_address.down.cql", "1_address.up.cql", "2_city.up.cql",
                                      "4_rename.up.cql", "drift 9_money.up.cql"}));
}

// Issue #27: index DDL (7 of 15 real folders) was a parse error. A CREATE
// INDEX without IF NOT EXISTS and a DROP INDEX without IF EXISTS cannot run
// twice (YCQL: Duplicate Object, Object Not Found; Cassandra: "already
// exists", "is a duplicate of existing index", "doesn't exist"); IF NOT
// EXISTS over an index an earlier file defined otherwise is drift.
TEST(CheckMigrationsTest, IndexStatementsParseAndTheirRerunsAndDriftAreFound) {
  models::migrate::LintInput input;
  input.keyspace = "app";
  input.files = {
      {"1_users.up.cql",
       "CREATE TABLE IF NOT EXISTS users (id int PRIMARY KEY, email text, name text) WITH "
       "transactions = {'enabled': 'true'};\n"},
      {"1_users.down.cql", "DROP TABLE IF EXISTS users;\n"},
      {"2_by_email.up.cql", "CREATE INDEX users_by_email ON users (email);\n"},
      {"2_by_email.down.cql", "DROP INDEX users_by_email;\n"},
      {"3_by_name.up.cql", "CREATE INDEX IF NOT EXISTS users_by_name ON users (name);\n"},
      {"3_by_name.down.cql", "DROP INDEX IF EXISTS users_by_name;\n"},
      {"4_again.up.cql", "CREATE INDEX IF NOT EXISTS users_by_name ON users (email);\n"},
      {"4_again.down.cql", "DROP INDEX IF EXISTS users_by_name;\n"}};
  std::vector<std::string> found;
  for (const auto& finding : models::migrate::LintFolder(input)) {
    EXPECT_NE(finding.rule, "parse-error") << finding.file << ": " << finding.message;
    if (finding.rule == "not-idempotent" || finding.rule == "if-not-exists-hides-drift") {
      found.push_back(finding.rule + " " + finding.file);
    }
  }
  EXPECT_EQ(found, (std::vector<std::string>{"not-idempotent 2_by_email.up.cql",
                                             "not-idempotent 2_by_email.down.cql",
                                             "if-not-exists-hides-drift 4_again.up.cql"}));
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

MigrationCheckReport CheckFiles(std::vector<MigrationFile> files) {
  MigrationCheckOptions options;
  options.files = std::move(files);
  options.keyspace = "app";
  options.runners = {"golang-migrate"};
  options.race_seeds = 1;
  return CheckMigrations(options);
}

// Issue #27: a store-refuses message was cut at 400 characters, before the
// store's reason (golang-migrate puts it last, after the statement).
TEST(CheckMigrationsTest, AStoreRefusesFindingKeepsTheStoresReason) {
  std::string columns;
  for (int i = 0; i < 30; ++i) columns += fmt::format("column_number_{} text, ", i);
  const MigrationCheckReport report =
      CheckFiles({{"1_t.up.cql",
                   "CREATE TABLE t (k int PRIMARY KEY, " + columns + "v int, nope undefined);\n"}});
  const auto refused = std::find_if(report.lint.begin(), report.lint.end(),
                                    [](const auto& f) { return f.rule == "store-refuses"; });
  ASSERT_NE(refused, report.lint.end());
  // An unknown type name is a user-defined type YCQL cannot find
  // (PTUserDefinedType::Analyze).
  EXPECT_NE(refused->message.find(
                "(details: Type Not Found. Could not find user defined type (ql error -311)"),
            std::string::npos)
      << refused->message;
  EXPECT_LT(refused->message.size(), 700u);
}

// Issue #27: a parse error in a down file did not stop the run, contrary to
// docs/check-migrations.md.
TEST(CheckMigrationsTest, AParseErrorInADownFileStopsTheRun) {
  const MigrationCheckReport report =
      CheckFiles({{"1_t.up.cql", "CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY);\n"},
                  {"1_t.down.cql", "DROP TABEL t;\n"}});
  EXPECT_TRUE(report.dynamic.empty());
  EXPECT_TRUE(std::any_of(report.notes.begin(), report.notes.end(), [](const std::string& note) {
    return note.find("parse-error") != std::string::npos;
  }));
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// Issue #27: a folder that makes its own keyspace is checked in it, and one
// that reads the store's own tables (system.peers) is not refused for it.
TEST(CheckMigrationsTest, TheKeyspaceIsTheOneTheFolderMakesAndSystemIsNeverIt) {
  using models::migrate::NamedKeyspace;
  EXPECT_EQ(
      NamedKeyspace({{"1_ks.up.cql",
                      "CREATE KEYSPACE IF NOT EXISTS shop WITH replication = {'class': "
                      "'SimpleStrategy', 'replication_factor': 1};\n"},
                     {"2_t.up.cql", "CREATE TABLE IF NOT EXISTS items (id int PRIMARY KEY);\n"}}),
      "shop");
  EXPECT_EQ(NamedKeyspace({{"1_t.up.cql",
                            "CREATE TABLE IF NOT EXISTS shop.items (id int PRIMARY "
                            "KEY);\nSELECT peer FROM system.peers;\n"}}),
            "shop");
  EXPECT_EQ(NamedKeyspace({{"1_t.up.cql", "SELECT peer FROM system.peers;\n"}}), std::nullopt);
}

}  // namespace
}  // namespace faultline::scenarios
