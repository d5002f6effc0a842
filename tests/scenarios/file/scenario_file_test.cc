// Scenario files: the catalogue's files are the built-in scenarios, every
// scenario survives ToToml and back, and broken files say where and what.
#include "scenarios/file/scenario_file.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "scenarios/catalogue/catalogue.h"
#include "scenarios/harness/runner.h"
#include "scenarios/steps/steps.h"
#include "tests/scenarios/failures.h"
#include "tests/scenarios/file/read_error.h"

namespace faultline::scenarios {
namespace {

std::string Error(std::string_view text) {
  std::variant<Scenario, FileError> parsed = ParseScenario(text, "story.toml");
  if (const auto* error = std::get_if<FileError>(&parsed)) return error->message;
  return "parsed";
}

TEST(ScenarioFileTest, EveryCatalogueScenarioRoundTrips) {
  for (const Scenario& scenario : Catalogue()) {
    std::variant<Scenario, FileError> back = ParseScenario(ToToml(scenario), scenario.name);
    ASSERT_TRUE(std::holds_alternative<Scenario>(back)) << std::get<FileError>(back).message;
    EXPECT_EQ(std::get<Scenario>(back), scenario) << scenario.name;
  }
}

// The binary carries the files under scenarios/catalogue/ as they are now:
// every one is in the catalogue, read from disk it is the same scenario, and
// the catalogue has no other.
TEST(ScenarioFileTest, TheCatalogueIsTheFilesUnderScenariosCatalogue) {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FAULTLINE_CATALOGUE_DIR)) {
    if (entry.path().extension() != ".toml") continue;
    ++files;
    std::variant<Scenario, FileError> loaded = LoadScenarioFile(entry.path());
    ASSERT_TRUE(std::holds_alternative<Scenario>(loaded)) << std::get<FileError>(loaded).message;
    const Scenario* built_in = FindScenario(entry.path().stem().string());
    ASSERT_NE(built_in, nullptr) << entry.path() << " is not in the built-in catalogue";
    EXPECT_EQ(std::get<Scenario>(loaded), *built_in) << entry.path() << " was not re-embedded";
  }
  EXPECT_EQ(files, Catalogue().size());
}

TEST(ScenarioFileTest, BrokenFilesSayWhereAndWhat) {
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[step]]\ndo = \"upp\"\n"),
            "story.toml:4:6: step 1: unknown action 'upp' (did you mean 'up'?); the actions:\n"
            "  clean, clog, cql, disk-errors, disk-full, disk-ok, down, down -v, heal, kill, "
            "latency, loss,\n"
            "  migrate, migrate-force, migrate-version, multipart, partition, power-loss, "
            "recreate-keyspace,\n"
            "  restart, s3, set-image, stop, up, wait, wait-for");
  EXPECT_EQ(Error("title = \"t\"\n[[step]]\ndo = \"up\"\n"), "story.toml:1:1: missing 'name'");
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n"),
            "story.toml:1:1: a scenario needs at least one [[step]]");
  EXPECT_EQ(
      Error("name = \"x\"\ntitle = \"t\"\ncolour = 3\n[[step]]\ndo = \"up\"\n"),
      "story.toml:3:1: unknown key 'colour' (expected one of: budget, checkers, class, crash, "
      "fault, image, "
      "lesson, name, recorded, seed, service, step, story, title, topology)");
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[step]]\ndo = \"wait\"\nfor = \"soon\"\n"),
            "story.toml:5:7: step 1: 'soon' is not a duration of at most 8760h (write 500ms, 15s, "
            "8m, 2h, 1.5s or 2m30s)");
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[step]]\ndo = \"s3\"\nmethod = \"GET\"\n"),
            "story.toml:3:1: step 1: missing 'path'");
  EXPECT_EQ(
      Error("name = \"x\"\ntitle = \"t\"\n[[step]]\ndo = \"up\"\nexpect = [ { colour = 1 } ]\n"),
      "story.toml:5:14: step 1: expect: unknown key 'colour' (expected one of: code, contains, "
      "exited, is, lacks, log, not_serving, restarted, row_with, rows, schema_migrations, "
      "serving, state, status, status_in, times)");
  EXPECT_EQ(Error("name = \"x\"\ntitle = 5\n[[step]]\ndo = \"up\"\n"),
            "story.toml:2:9: 'title' must be a string");
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[crash]\nsite = \"s\"\nhit = 0\n"),
            "story.toml:5:7: crash: 'hit' must be a positive integer");  // At the value.
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[crash]\nsite = \"s\"\n"),
            "story.toml:3:1: crash: 'hit' must be a positive integer");   // Missing: the table.
  EXPECT_TRUE(Error("name = \"x\nbroken").starts_with("story.toml:1:"));  // TOML's own error.
  EXPECT_EQ(
      Error("name = \"x\"\ntitle = \"t\"\n[checkers]\nconverges = \"no\"\n[[step]]\ndo = \"up\"\n"),
      "story.toml:4:13: checkers: 'converges' must be true or false");
}

// Names and values that would only fail (or silently pass) at run time are
// refused when the file is read.
TEST(ScenarioFileTest, UnknownNamesAndMixedExpectationsAreRefusedUpFront) {
  const std::string head = "name = \"x\"\ntitle = \"t\"\n";
  EXPECT_EQ(Error(head + "[[step]]\ndo = \"kill\"\nservice = \"kuri-9\"\n"),
            "story.toml:5:11: step 1: no service 'kuri-9' (this cluster's services are "
            "yugabyte, db-init, kuri-1, kuri-2 and s3-proxy)");
  EXPECT_EQ(Error(head + "[[step]]\ndo = \"set-image\"\nservice = \"kuri-1\"\nversion = \"v99\"\n"),
            "story.toml:6:11: step 1: kuri-1 has no image version 'v99' (known: v1, v2, safe, "
            "db-init, reads-framed, writes-framed, no-fsync, swallows-index-error, async-index, "
            "index-first-delete, serves-early, replays-deletes, journal-cleared)");
  EXPECT_EQ(Error(head + "[topology]\nproxy = \"v7\"\n[[step]]\ndo = \"up\"\n"),
            "story.toml:4:9: topology: s3-proxy has no image version 'v7' (known: v1, v2, "
            "v2-versioned, safe, encodes-bodies, no-reprobe)");
  // Found by scenario_file_fuzz: a loss step without its probability read a null node.
  EXPECT_EQ(Error(head + "[[step]]\ndo = \"loss\"\n"),
            "story.toml:3:1: step 1: loss needs 'probability', a number from 0 to 1");
  EXPECT_EQ(Error(head + "[[step]]\ndo = \"s3\"\nmethod = \"YEET\"\npath = \"/b/k\"\n"),
            "story.toml:5:10: step 1: 'method' is GET, PUT, HEAD, DELETE or POST");
  EXPECT_EQ(Error(head + "[[step]]\ndo = \"up\"\nexpect = [ { state = \"kuri-1\", is = "
                         "\"exited\", restarted = \"kuri-2\" } ]\n"),
            "story.toml:5:32: step 1: a 'restarted' expectation: unknown key 'is' (expected "
            "one of: restarted, times)");
  EXPECT_EQ(
      Error(head + "[[step]]\ndo = \"up\"\nexpect = [ { lacks = \"a\", contains = \"b\" } ]\n"),
      "story.toml:5:14: step 1: a 'contains' expectation: unknown key 'lacks' (expected one "
      "of: contains)");
  EXPECT_EQ(
      Error(head + "[[step]]\ndo = \"up\"\nexpect = [ { state = \"kuri-1\", is = \"flying\" } ]\n"),
      "story.toml:5:37: step 1: a 'state' expectation: 'is' is created, running, restarting "
      "or exited");
  EXPECT_EQ(
      Error(head + "[[step]]\ndo = \"up\"\nexpect = [ { log = \"ghost\", contains = \"x\" } ]\n"),
      "story.toml:5:20: step 1: a 'log' expectation: no service 'ghost' (this "
      "cluster's services are yugabyte, db-init, kuri-1, kuri-2 and s3-proxy)");
  EXPECT_EQ(
      Error(head +
            "[[step]]\ndo = \"up\"\nexpect = [ { exited = \"kuri-1\", code = 4294967296 } ]\n"),
      "story.toml:5:40: step 1: a 'exited' expectation: an exit code is 0 to 255");
  EXPECT_EQ(
      Error(head + "[[step]]\ndo = \"up\"\nexpect = [ { log = \"kuri-*\", contains = \"x\" } ]\n"),
      "parsed");  // A pattern that names services.
  EXPECT_EQ(
      Error(head + "[[step]]\ndo = \"up\"\nexpect = [ { log = \"zz-*\", contains = \"x\" } ]\n"),
      "story.toml:5:20: step 1: a 'log' expectation: no service 'zz-*' (this "
      "cluster's services are yugabyte, db-init, kuri-1, kuri-2 and s3-proxy)");
  EXPECT_EQ(Error(head + "[[step]]\ndo = \"migrate-force\"\nkeyspace = \"k\"\nto = -5\n"),
            "story.toml:6:6: step 1: 'to' is a version, or -1 for none");
  EXPECT_EQ(Error(head + "[[step]]\ndo = \"up\"\nservice = \"kuri-1\"\n"),
            "story.toml:5:11: step 1: up takes no 'service'");
  EXPECT_EQ(
      Error(head + "[[image]]\nservice = \"node\"\nversion = \"v2\"\n[[step]]\ndo = \"up\"\n"),
      "story.toml:5:11: image 1: 'v2' is a built-in version; give yours another name");
}

// A [crash] at a hit the run never reaches is said, not silently ignored.
TEST(ScenarioFileTest, ACrashThatNeverHappensIsNoted) {
  std::variant<Scenario, FileError> parsed = ParseScenario(R"(
name = "no-crash"
title = "Two statements, and a crash at the thousandth"
[crash]
site = "migrate.filecoingw_kuri1.statement.after"
hit = 1000
[[step]]
do = "up"
)",
                                                           "no-crash.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const ScenarioResult result = RunScenario(std::get<Scenario>(parsed), {.seed = 1});
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_EQ(result.notes[0],
            "the crash at migrate.filecoingw_kuri1.statement.after (hit 1000) never happened: the "
            "run reached that site 2 times");
}

// A site no runner of the cluster has is refused when the file is read,
// with the sites there are; set-image steps bring their runners' sites.
TEST(ScenarioFileTest, ACrashSiteNoRunnerHasIsRefused) {
  const std::string error = Error(
      "name = \"x\"\ntitle = \"t\"\n[crash]\nsite = \"safe.filecoingw_kuri1.statement.after\"\n"
      "hit = 1\n[[step]]\ndo = \"up\"\n");
  EXPECT_TRUE(error.starts_with(
      "story.toml:4:8: crash: no runner of this cluster has a fault site "
      "'safe.filecoingw_kuri1.statement.after' (did you mean "
      "'migrate.filecoingw_kuri1.statement.after'?); its sites:\n  disk.{delete, "))
      << error;
  EXPECT_NE(error.find("\n  migrate.filecoingw_kuri2.statement.{after, before}\n"),
            std::string::npos)
      << error;
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[crash]\nsite = "
                  "\"safe.filecoingw_kuri1.statement.after\"\nhit = 1\n[[step]]\ndo = "
                  "\"set-image\"\nservice = \"kuri-1\"\nversion = \"safe\"\n"),
            "parsed");
}

// Acting on a service with no container (before up, after down) is a step
// outcome, not a crash.
TEST(ScenarioFileTest, KillStopAndRestartWithoutAContainerSaySo) {
  std::variant<Scenario, FileError> parsed = ParseScenario(R"(
name = "nothing-to-kill"
title = "Kill, stop and restart before up and after down"
[[step]]
do = "kill"
service = "kuri-1"
expect = [ { contains = "no such container" } ]
[[step]]
do = "up"
[[step]]
do = "down"
[[step]]
do = "restart"
service = "s3-proxy"
expect = [ { contains = "cannot restart s3-proxy: no such container" } ]
[[step]]
do = "stop"
service = "yugabyte"
expect = [ { contains = "cannot stop yugabyte" } ]
[checkers]
converges = false  # Nothing runs at the end; an index never written points nowhere wrong.
)",
                                                           "nothing.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const ScenarioResult result = RunScenario(std::get<Scenario>(parsed), {.seed = 1});
  EXPECT_TRUE(result.passed) << Failures(result);
}

TEST(ScenarioFileTest, KillStopStatesAndExitCodesFromAFile) {
  std::variant<Scenario, FileError> parsed = ParseScenario(R"(
name = "kill-and-stop"
title = "A node crashes and comes back; another is stopped"

[[step]]
do = "up"
expect = [ { state = "kuri-1", is = "running" } ]

[[step]]
do = "kill"
service = "kuri-1"
expect = [ { state = "kuri-1", is = "restarting" }, { exited = "kuri-1", code = 137 } ]

[[step]]
do = "wait"
for = "5s"
expect = [ { state = "kuri-1", is = "running" }, { serving = "kuri-1" } ]

[[step]]
do = "stop"
service = "kuri-2"
expect = [ { state = "kuri-2", is = "exited" }, { exited = "kuri-2", code = 0 } ]

[checkers]
converges = false
)",
                                                           "kill.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const Scenario& scenario = std::get<Scenario>(parsed);
  EXPECT_EQ(std::get<Scenario>(ParseScenario(ToToml(scenario), "again")), scenario);
  const ScenarioResult result = RunScenario(scenario, {.seed = 3});
  EXPECT_TRUE(result.passed) << Failures(result);
}

TEST(ScenarioFileTest, AnImageOfYourOwnWithAMigrationFolder) {
  std::variant<Scenario, FileError> loaded =
      LoadScenarioFile(std::string(FAULTLINE_TEST_FILES_DIR) + "/custom-image.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(loaded)) << std::get<FileError>(loaded).message;
  const Scenario& scenario = std::get<Scenario>(loaded);
  ASSERT_EQ(scenario.images.size(), 1u);
  EXPECT_EQ(scenario.images[0].files.size(), 2u);  // The README is not a migration.
  EXPECT_EQ(std::get<Scenario>(ParseScenario(ToToml(scenario), "inline")), scenario);
  const ScenarioResult result = RunScenario(scenario, {.seed = 5});
  EXPECT_TRUE(result.passed) << Failures(result);
}

TEST(ScenarioFileTest, BrokenImagesSayWhere) {
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[image]]\nservice = \"db\"\nversion = \"1\"\n"
                  "[[step]]\ndo = \"up\"\n"),
            "story.toml:4:11: image 1: 'service' is \"node\" or \"proxy\"");
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[image]]\nservice = \"node\"\nversion = \"1\"\n"
                  "migrations = \"nowhere\"\n[[step]]\ndo = \"up\"\n"),
            "story.toml:6:14: image 1: cannot read the migration folder nowhere");
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[image]]\nservice = \"node\"\nversion = \"1\"\n"
                  "[[image.file]]\nname = \"init.up.cql\"\nbody = \"\"\n[[step]]\ndo = \"up\"\n"),
            "story.toml:3:1: image 1: init.up.cql: not a migration file name: expected "
            "{version}_{title}.up.cql or .down.cql");
  // What an image's code reads and writes belongs to its kind of service.
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[image]]\nservice = \"proxy\"\nversion = \"1\"\n"
                  "writes_node_id = false\n[[step]]\ndo = \"up\"\n"),
            "story.toml:6:18: image 1: 'writes_node_id' is for node images");
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[image]]\nservice = \"node\"\nversion = \"1\"\n"
                  "reads_node_id = false\n[[step]]\ndo = \"up\"\n"),
            "story.toml:6:17: image 1: 'reads_node_id' is for proxy images");
}

TEST(ScenarioFileTest, ServiceOverridesAndWaitingForAState) {
  std::variant<Scenario, FileError> parsed = ParseScenario(R"(
name = "gives-up"
title = "Without a restart policy, a node that crashes mid-migration stays down"

[crash]
site = "migrate.filecoingw_kuri1.statement.after"
hit = 1

[[service]]
name = "kuri-1"
restart = "no"
data = "named"
depends_on = [ { service = "db-init", condition = "completed" } ]

[checkers]
converges = false

[[step]]
do = "up"

[[step]]
do = "wait-for"
service = "kuri-1"
until = "exited"
for = "15m"
expect = [ { exited = "kuri-1", code = 137 }, { not_serving = "kuri-1" } ]
)",
                                                           "gives-up.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const Scenario& scenario = std::get<Scenario>(parsed);
  EXPECT_EQ(std::get<Scenario>(ParseScenario(ToToml(scenario), "again")), scenario);
  const ScenarioResult result = RunScenario(scenario, {.seed = 2});
  ASSERT_EQ(result.steps.size(), 2u);
  EXPECT_TRUE(result.passed) << result.steps[1].outcome;
  // It crashed during its first migration, within the first seconds.
  EXPECT_LT(result.steps[1].at, sim::kTimeZero + std::chrono::seconds(10));
  EXPECT_EQ(
      Error("name = \"x\"\ntitle = \"t\"\n[[service]]\nname = \"kuri-9\"\n[[step]]\ndo = \"up\"\n"),
      "story.toml:4:8: service 1: no service 'kuri-9' (this cluster's services are "
      "yugabyte, db-init, kuri-1, kuri-2 and s3-proxy)");
}

TEST(ScenarioFileTest, AMultipartUploadStepAndADefaultSeed) {
  std::variant<Scenario, FileError> parsed = ParseScenario(R"(
name = "multipart"
title = "A multipart upload across both nodes"
seed = 9

[[step]]
do = "up"

[[step]]
do = "multipart"
path = "/b/big"
parts = [ "one;", "two;", "three;" ]
expect = [ { status = 200 } ]

[[step]]
do = "s3"
method = "GET"
path = "/b/big"
expect = [ { status = 200 }, { contains = "one;two;three;" } ]
)",
                                                           "multipart.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const Scenario& scenario = std::get<Scenario>(parsed);
  EXPECT_EQ(scenario.seed, 9u);
  EXPECT_EQ(std::get<Scenario>(ParseScenario(ToToml(scenario), "again")), scenario);
  const ScenarioResult result = RunScenario(scenario, {.seed = scenario.seed});
  EXPECT_TRUE(result.passed) << result.steps[1].outcome << "\n" << result.steps[2].outcome;
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// [topology] nodes and node_keyspace, and [[service]] env: the cluster is
// data, checked when the file is read.
TEST(ScenarioFileTest, TheTopologyIsDataCheckedWhenRead) {
  const std::string head = "name = \"x\"\ntitle = \"t\"\n";
  EXPECT_EQ(Error(head + "[topology]\nnodes = 17\n[[step]]\ndo = \"up\"\n"),
            "story.toml:4:9: topology: 'nodes' is 1 to 16, not 17");
  EXPECT_EQ(Error(head + "[topology]\nnodes = 0\n[[step]]\ndo = \"up\"\n"),
            "story.toml:4:9: topology: 'nodes' is 1 to 16, not 0");
  EXPECT_EQ(Error(head + "[topology]\nnode_keyspace = \"mine\"\n[[step]]\ndo = \"up\"\n"),
            "story.toml:4:17: topology: 'node_keyspace' is \"own\" (one per node, as in the seed) "
            "or \"shared\"");
  // kuri-5 is a service only in a cluster of five or more.
  EXPECT_EQ(Error(head + "[[step]]\ndo = \"kill\"\nservice = \"kuri-5\"\n"),
            "story.toml:5:11: step 1: no service 'kuri-5' (this cluster's services are "
            "yugabyte, db-init, kuri-1, kuri-2 and s3-proxy)");
  EXPECT_EQ(Error(head + "[topology]\nnodes = 5\n[[step]]\ndo = \"kill\"\nservice = \"kuri-5\"\n"),
            "parsed");
  EXPECT_EQ(Error(head + "[[service]]\nname = \"kuri-1\"\nenv = { KEYSPCE = \"k\" }\n"
                         "[[step]]\ndo = \"up\"\n"),
            "story.toml:5:19: service 1: kuri-1 reads no variable 'KEYSPCE' (it reads: "
            "KEYSPACE, NODE_ID, PORT, RETRY_ATTEMPTS, RETRY_CAP_MS, RETRY_DELAY_MS, STORE_HOST)");
  EXPECT_EQ(Error(head + "[[service]]\nname = \"kuri-1\"\nenv = { RETRY_ATTEMPTS = \"many\" }\n"
                         "[[step]]\ndo = \"up\"\n"),
            "story.toml:5:7: service 1: env: RETRY_ATTEMPTS is 1 to 10000; RETRY_DELAY_MS and "
            "RETRY_CAP_MS are milliseconds, 1 to 86400000");
  EXPECT_EQ(Error(head + "[[service]]\nname = \"s3-proxy\"\nenv = { PROBE_INTERVAL_MS = \"0\" }\n"
                         "[[step]]\ndo = \"up\"\n"),
            "story.toml:5:29: service 1: env: PROBE_INTERVAL_MS is milliseconds, 1 to 3600000");
  EXPECT_EQ(Error(head + "[[service]]\nname = \"yugabyte\"\nenv = { X = \"1\" }\n"
                         "[[step]]\ndo = \"up\"\n"),
            "story.toml:5:13: service 1: yugabyte reads no variable 'X' (it reads: none)");
}

TEST(ScenarioFileTest, ATopologyRoundTripsAndShapesTheCluster) {
  std::variant<Scenario, FileError> parsed = ParseScenario(R"(
name = "shaped"
title = "Three nodes, one of them in a keyspace of its choosing, retrying fast"
[topology]
nodes = 3
[[service]]
name = "kuri-3"
env = { KEYSPACE = "filecoingw_extra", RETRY_ATTEMPTS = "2", RETRY_DELAY_MS = "100" }
[[service]]
name = "db-init"
env = { KEYSPACES = "filecoingw_s3,filecoingw_kuri1,filecoingw_kuri2,filecoingw_extra" }
[[step]]
do = "up"
expect = [ { serving = "kuri-3" }, { log = "kuri-3", contains = "keyspace filecoingw_extra" } ]
)",
                                                           "shaped.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const Scenario& scenario = std::get<Scenario>(parsed);
  EXPECT_EQ(scenario.nodes, 3);
  EXPECT_EQ(std::get<Scenario>(ParseScenario(ToToml(scenario), "again")), scenario);
  const ScenarioResult result = RunScenario(scenario, {.seed = 1});
  EXPECT_TRUE(result.passed) << Failures(result);
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// A run has a budget of virtual time and scheduler steps; spent, the run
// stops with a message naming the budget instead of running for hours.
TEST(ScenarioFileTest, ARunStopsWhenItSpendsItsBudget) {
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[budget]\nsteps = 0\n[[step]]\ndo = \"up\"\n"),
            "story.toml:4:9: budget: 'steps' is 1 to 10000000000, not 0");
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[budget]\ntime = \"0s\"\n[[step]]\ndo = \"up\"\n"),
            "story.toml:4:8: budget: '0s' is not a duration of at most 8760h (write 500ms, 15s, "
            "8m, 2h, 1.5s or 2m30s), and more than none");
  std::variant<Scenario, FileError> parsed = ParseScenario(R"(
name = "patient"
title = "A day of waiting on a budget of an hour"
[budget]
time = "1h"
steps = 100000000
[[step]]
do = "up"
[[step]]
do = "wait"
for = "24h"
[[step]]
do = "up"
)",
                                                           "patient.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const Scenario& scenario = std::get<Scenario>(parsed);
  EXPECT_EQ(std::get<Scenario>(ParseScenario(ToToml(scenario), "again")), scenario);
  const ScenarioResult result = RunScenario(scenario, {.seed = 1});
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.stopped,
            "the run spent its budget of 1h of virtual time (raise it with "
            "[budget] time)");
  EXPECT_EQ(result.steps.size(), 2u) << "the step after the budget was spent ran";
  EXPECT_TRUE(result.checkers.empty()) << "a stopped run has no verdicts";
  Scenario few_steps = scenario;
  few_steps.budget = Budget{.steps = 1000};
  EXPECT_EQ(RunScenario(few_steps, {.seed = 1})
                .stopped.rfind("the run spent its budget of 1000 scheduler steps at ", 0),
            0u);
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// Every kind of step is one entry of one table (scenarios/steps/steps.h),
// and every field one entry of another (steps/fields.h): a step of each
// kind, with each field it takes at its example value, reads, shows
// itself, writes back as it was read, and is documented in
// docs/scenario-format.md.
TEST(ScenarioFileTest, EveryStepKindReadsBackAsWrittenAndIsDocumented) {
  std::ifstream doc(std::string(FAULTLINE_DOCS_DIR) + "/scenario-format.md");
  const std::string format((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  std::string text = "name = \"every-kind\"\ntitle = \"one step of each kind\"\n";
  for (const StepKind& kind : StepKinds()) {
    EXPECT_NE(format.find("`" + std::string(kind.name) + "`"), std::string::npos)
        << kind.name << " is not in docs/scenario-format.md";
    text += fmt::format("\n[[step]]\ndo = \"{}\"\n", kind.name);
    for (const StepFieldUse& use : kind.fields) {
      const StepFieldSpec& field = FieldSpecOf(use.field);
      text += fmt::format("{} = {}\n", field.key, field.example);
    }
  }
  const std::variant<Scenario, FileError> read = ParseScenario(text, "every-kind.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(read)) << std::get<FileError>(read).message;
  const Scenario& scenario = std::get<Scenario>(read);
  ASSERT_EQ(scenario.steps.size(), StepKinds().size());
  for (std::size_t i = 0; i < scenario.steps.size(); ++i) {
    const Step& step = scenario.steps[i];
    EXPECT_EQ(&StepKindOf(step), &StepKinds()[i]) << StepKinds()[i].name;
    EXPECT_FALSE(StepKinds()[i].show(step).empty()) << StepKinds()[i].name;
    for (const StepFieldUse& use : StepKinds()[i].fields) {
      EXPECT_TRUE(FieldSpecOf(use.field).has(step))
          << StepKinds()[i].name << " " << FieldSpecOf(use.field).key;
    }
  }
  std::variant<Scenario, FileError> again = ParseScenario(ToToml(scenario), "every-kind.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(again)) << std::get<FileError>(again).message;
  EXPECT_EQ(std::get<Scenario>(again), scenario);
}

// Every step field is documented, with its key as a file writes it.
TEST(ScenarioFileTest, EveryStepFieldIsDocumented) {
  std::ifstream doc(std::string(FAULTLINE_DOCS_DIR) + "/scenario-format.md");
  const std::string format((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  for (const StepFieldSpec& field : StepFields()) {
    EXPECT_NE(format.find("`" + std::string(field.key) + "`"), std::string::npos)
        << field.key << " is not in docs/scenario-format.md";
  }
}

// A field of another kind would do nothing: it is refused, naming what the
// kind takes.
TEST(ScenarioFileTest, AStepTakesOnlyItsKindsFields) {
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[step]]\ndo = \"up\"\npath = \"/b/k\"\n"),
            "story.toml:5:8: step 1: up takes no 'path'");
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[step]]\ndo = \"kill\"\nservice = \"kuri-1\"\n"
                  "for = \"1s\"\n"),
            "story.toml:6:7: step 1: kill takes no 'for' (it takes service)");
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// Found in review: a budget whose last step is also the one that finishes a
// wait must stop the run cleanly, whichever step that is.
TEST(ScenarioFileTest, ABudgetSpentOnAnyStepStopsTheRunCleanly) {
  Scenario scenario;
  scenario.name = "tight";
  scenario.steps.push_back(Step{.kind = Step::Kind::kUp});
  scenario.steps.push_back(Step{.kind = Step::Kind::kWait, .duration = std::chrono::seconds(1)});
  std::uint64_t stopped = 0;
  for (std::uint64_t steps = 1; steps <= 600; ++steps) {
    scenario.budget.steps = steps;
    const ScenarioResult result = RunScenario(scenario, {.seed = 1});
    EXPECT_TRUE(result.passed != !result.stopped.empty()) << steps;
    stopped += result.stopped.empty() ? 0 : 1;
  }
  // Small budgets stop it, large ones let it finish: the boundary was crossed.
  EXPECT_GT(stopped, 0u);
  EXPECT_LT(stopped, 600u);
}

// An operation that never ends (an up whose service waits for another to
// complete, which it never does) does not hold up later steps: each waits
// for its own operations only.
TEST(ScenarioFileTest, AStepWaitsForItsOwnOperationsOnly) {
  std::variant<Scenario, FileError> parsed = ParseScenario(R"(
name = "stuck-up"
title = "kuri-2 waits for kuri-1 to complete, which it never does; a stop is quick"
[[service]]
name = "kuri-2"
depends_on = [ { service = "kuri-1", condition = "completed" } ]
[[step]]
do = "up"
[[step]]
do = "stop"
service = "kuri-1"
expect = [ { contains = "stopped kuri-1" }, { state = "kuri-1", is = "exited" } ]
[checkers]
converges = false
)",
                                                           "stuck.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const ScenarioResult result = RunScenario(std::get<Scenario>(parsed), {.seed = 1});
  EXPECT_TRUE(result.passed) << Failures(result);
  ASSERT_EQ(result.steps.size(), 2u);
  EXPECT_LT(result.steps[1].at - result.steps[0].at, std::chrono::seconds(15));
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[service]]\nname = \"db-init\"\ndepends_on = [ { "
                  "service = \"yugabyte\", condition = \"healthy\" } ]\n[[step]]\ndo = \"up\"\n"),
            "story.toml:5:14: service db-init: yugabyte has no health check, so waiting for it to "
            "be healthy would never end (use started or completed)");
}

// Found in review: a table nobody's migrations define, in a keyspace one
// node owns, is a schema its image does not define.
TEST(ScenarioFileTest, AHandMadeTableInANodesOwnKeyspaceIsCaught) {
  std::variant<Scenario, FileError> parsed = ParseScenario(R"toml(
name = "hand-made-table"
title = "A table made by hand where kuri-1 alone migrates"
[[step]]
do = "up"
[[step]]
do = "cql"
statement = "CREATE TABLE filecoingw_kuri1.notes (k int PRIMARY KEY)"
[checkers]
schema-matches-image = false
)toml",
                                                           "notes.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const ScenarioResult result = RunScenario(std::get<Scenario>(parsed), {.seed = 1});
  EXPECT_TRUE(result.passed) << Failures(result);
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// Found in review: values a step cannot use are refused when read (they
// reached assertions, or were written back as missing).
TEST(ScenarioFileTest, EmptyOrOutOfBoundsStepValuesAreRefused) {
  const std::string head = "name = \"x\"\ntitle = \"t\"\n[[step]]\n";
  EXPECT_EQ(Error(head + "do = \"s3\"\nmethod = \"GET\"\npath = \"\"\n"),
            "story.toml:6:8: step 1: 'path' is empty");
  EXPECT_EQ(Error(head + "do = \"s3\"\nmethod = \"GET\"\npath = \"b/k\"\n"),
            "story.toml:6:8: step 1: 'path' starts with /, like /bucket/key");
  EXPECT_EQ(Error(head + "do = \"cql\"\nstatement = \"\"\n"),
            "story.toml:5:13: step 1: 'statement' is empty");
  EXPECT_EQ(
      Error(head + "do = \"wait-for\"\nservice = \"kuri-1\"\nuntil = \"running\"\nfor = \"0s\"\n"),
      "story.toml:7:7: step 1: wait-for needs a 'for' longer than 0");
  std::string parts = "parts = [";
  for (int i = 0; i < 10'001; ++i) parts += "\"p\",";
  parts += "]\n";
  EXPECT_EQ(Error(head + "do = \"multipart\"\npath = \"/b/k\"\n" + parts),
            "story.toml:6:9: step 1: multipart needs 'parts', a list of 1 to 10000 strings");
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// [[fault]]: crash, error or delay at a validated site, one service's hits
// or anyone's; written back as read; mistakes refused with their place.
TEST(ScenarioFileTest, FaultsAreReadCheckedAndWrittenBack) {
  std::variant<Scenario, FileError> parsed = ParseScenario(R"(
name = "faults"
title = "One of each"
[[fault]]
site = "migrate.filecoingw_kuri1.statement.after"
action = "error"
error = "server"
message = "Server Error. Timed out waiting for the tablet"
service = "kuri-1"
[[fault]]
site = "disk.sync"
hit = 40
action = "crash"
[[fault]]
site = "migrate.filecoingw_s3.before_set_clean"
action = "delay"
for = "3s"
[[step]]
do = "up"
)",
                                                           "faults.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const Scenario& scenario = std::get<Scenario>(parsed);
  ASSERT_EQ(scenario.faults.size(), 3u);
  EXPECT_EQ(scenario.faults[0].service, "kuri-1");
  EXPECT_EQ(scenario.faults[1].hit, 40u);
  EXPECT_EQ(scenario.faults[2].delay, std::chrono::seconds(3));
  EXPECT_EQ(std::get<Scenario>(ParseScenario(ToToml(scenario), "again")), scenario);

  const std::string head = "name = \"x\"\ntitle = \"t\"\n[[step]]\ndo = \"up\"\n[[fault]]\n";
  EXPECT_TRUE(Error(head + "site = \"migrate.nowhere.statement.after\"\naction = \"crash\"\n")
                  .starts_with("story.toml:6:8: fault 1: no runner of this cluster has a fault "
                               "site 'migrate.nowhere.statement.after'"));
  EXPECT_EQ(Error(head + "site = \"disk.sync\"\naction = \"explode\"\n"),
            "story.toml:7:10: fault 1: 'action' is crash, error, delay or power-loss");
  // A power loss drops unsynced writes: only at a disk site, with a model.
  EXPECT_EQ(Error(head + "site = \"migrate.filecoingw_s3.before_set_clean\"\naction = "
                         "\"power-loss\"\n"),
            "story.toml:6:8: fault 1: a power-loss is at a disk I/O site: disk.read, disk.write, "
            "disk.sync or disk.truncate");
  EXPECT_EQ(Error(head + "site = \"disk.sync\"\naction = \"power-loss\"\nsurvives = \"most\"\n"),
            "story.toml:8:12: fault 1: 'survives' is nothing-unsynced, in-order-prefix or "
            "torn-blocks");
  EXPECT_EQ(Error(head + "site = \"disk.sync\"\naction = \"crash\"\nsurvives = \"torn-blocks\"\n"),
            "story.toml:8:12: fault 1: 'survives' is for a power-loss");
  EXPECT_EQ(Error(head + "site = \"disk.sync\"\naction = \"error\"\nerror = \"gone\"\n"),
            "story.toml:8:9: fault 1: 'error' is one of server, timeout, refused, io");
  EXPECT_EQ(Error(head + "site = \"disk.sync\"\naction = \"crash\"\nfor = \"1s\"\n"),
            "story.toml:8:7: fault 1: 'for' is for a delay");
  EXPECT_EQ(Error(head + "site = \"disk.sync\"\naction = \"delay\"\n"),
            "story.toml:5:1: fault 1: missing 'for'");
  EXPECT_EQ(Error(head + "site = \"disk.sync\"\naction = \"crash\"\nhit = 0\n"),
            "story.toml:8:7: fault 1: 'hit' must be a positive integer");
  EXPECT_TRUE(Error(head + "site = \"disk.sync\"\naction = \"crash\"\nservice = \"kuri-9\"\n")
                  .starts_with("story.toml:8:11: fault 1: no service 'kuri-9'"));
}

// A fault of one service counts that service's hits only: kuri-1 never
// passes kuri-2's site, so the fault never happens, and the run says so.
TEST(ScenarioFileTest, AFaultOfOneServiceCountsItsHitsOnly) {
  std::variant<Scenario, FileError> parsed = ParseScenario(R"(
name = "elsewhere"
title = "A crash of kuri-1 at kuri-2's site"
[[fault]]
site = "migrate.filecoingw_kuri2.statement.after"
action = "crash"
service = "kuri-1"
[[step]]
do = "up"
expect = [ { serving = "kuri-2" }, { restarted = "kuri-2", times = 0 } ]
)",
                                                           "elsewhere.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const ScenarioResult result = RunScenario(std::get<Scenario>(parsed), {.seed = 1});
  EXPECT_TRUE(result.passed) << Failures(result);
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_EQ(result.notes[0],
            "the fault at kuri-1@migrate.filecoingw_kuri2.statement.after (hit 1) never "
            "happened: the run reached that site 0 times");
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// The new expectations hold when they should and fail when they should not,
// read back as written, and refuse what they cannot check.
TEST(ScenarioFileTest, ResultAndStateExpectationsCanFail) {
  std::variant<Scenario, FileError> loaded =
      LoadScenarioFile(std::string(FAULTLINE_TEST_FILES_DIR) + "/expectations.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(loaded)) << std::get<FileError>(loaded).message;
  Scenario scenario = std::get<Scenario>(loaded);
  EXPECT_EQ(std::get<Scenario>(ParseScenario(ToToml(scenario), "again")), scenario);
  scenario.steps[0].expect[0].text = "starting node";  // The log has it: "lacks" fails.
  scenario.steps[0].expect[1].text = "1754293669 dirty";
  scenario.steps[1].expect[0].number = 2;
  scenario.steps[1].expect[1].text = "1754293670";
  scenario.steps[2].expect[0].numbers = {200};
  const ScenarioResult result = RunScenario(scenario, {.seed = 1});
  EXPECT_FALSE(result.passed);
  int failed = 0;
  for (const StepResult& step : result.steps) {
    for (const CheckResult& check : step.checks) failed += check.held ? 0 : 1;
  }
  EXPECT_EQ(failed, 5) << Failures(result);

  const std::string head = "name = \"x\"\ntitle = \"t\"\n[[step]]\ndo = \"up\"\nexpect = [ ";
  EXPECT_EQ(Error(head + "{ log = \"kuri-1\", contains = \"a\", lacks = \"b\" } ]\n"),
            "story.toml:5:12: step 1: a 'log' expectation: it needs 'contains' or 'lacks', one of "
            "them");
  EXPECT_EQ(Error(head + "{ status_in = [200, 42] } ]\n"),
            "story.toml:5:32: step 1: a 'status_in' expectation: an HTTP status is 100 to 599");
  EXPECT_EQ(Error(head + "{ rows = -1 } ]\n"),
            "story.toml:5:21: step 1: a 'rows' expectation: 'rows' is a count, 0 or more");
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// Network steps: a one-way cut drops only one direction; an isolated node
// serves no request from the proxy or the client; a clog holds, then lets go.
TEST(ScenarioFileTest, PartitionsAndClogsActOnTheLinksTheyName) {
  std::variant<Scenario, FileError> parsed = ParseScenario(R"(
name = "links"
title = "Cut, isolate, clog, heal"
[[step]]
do = "up"
[[step]]
do = "partition"
service = "s3-proxy"
peer = "kuri-1"
one_way = true
[[step]]
do = "clog"
service = "kuri-2"
peer = "s3-proxy"
for = "1s"
[[step]]
do = "partition"
service = "yugabyte"
[[step]]
do = "heal"
)",
                                                           "links.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const Scenario& scenario = std::get<Scenario>(parsed);
  EXPECT_EQ(std::get<Scenario>(ParseScenario(ToToml(scenario), "again")), scenario);
  const ScenarioResult result = RunScenario(scenario, {.seed = 1});
  EXPECT_TRUE(result.passed) << Failures(result);
  ASSERT_EQ(result.steps.size(), 5u);
  EXPECT_EQ(result.steps[1].outcome, "messages from s3-proxy to kuri-1 are dropped");
  EXPECT_EQ(result.steps[3].outcome, "yugabyte cut off from every other host");
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[step]]\ndo = \"partition\"\nservice = "
                  "\"kuri-1\"\npeer = \"kuri-1\"\n"),
            "story.toml:6:8: step 1: 'peer' is another service");
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[step]]\ndo = \"clog\"\nservice = \"kuri-1\"\n"
                  "for = \"0s\"\n"),
            "story.toml:6:7: step 1: clog needs a 'for' longer than 0");
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// latency and loss change the whole network from the step on: a request
// under 50 ms a hop takes longer; with every message lost it times out;
// back to 0, it works again.
TEST(ScenarioFileTest, LatencyAndLossStepsChangeTheNetwork) {
  std::variant<Scenario, FileError> parsed = ParseScenario(R"(
name = "slow-and-lossy"
title = "A slow network, then a dead one, then a good one"
[[step]]
do = "up"
[[step]]
do = "latency"
base = "50ms"
extra = "1ms"
distribution = "fixed"
[[step]]
do = "s3"
method = "GET"
path = "/b/none"
expect = [ { status = 404 } ]
[[step]]
do = "loss"
probability = 1.0
[[step]]
do = "s3"
method = "GET"
path = "/b/none"
expect = [ { contains = "TimedOut: no response within" } ]
[[step]]
do = "loss"
probability = 0.0
[[step]]
do = "s3"
method = "GET"
path = "/b/none"
expect = [ { status = 404 } ]
)",
                                                           "slow.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const Scenario& scenario = std::get<Scenario>(parsed);
  EXPECT_EQ(std::get<Scenario>(ParseScenario(ToToml(scenario), "again")), scenario);
  const ScenarioResult result = RunScenario(scenario, {.seed = 1});
  EXPECT_TRUE(result.passed) << Failures(result);
  ASSERT_EQ(result.steps.size(), 7u);
  // A GET through the proxy is four hops (client, proxy, node, store, back).
  EXPECT_GE(result.steps[2].at - result.steps[1].at, std::chrono::milliseconds(200));
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[step]]\ndo = \"loss\"\nprobability = 2\n"),
            "story.toml:5:15: step 1: 'probability' is a number from 0 to 1");
  EXPECT_EQ(Error("name = \"x\"\ntitle = \"t\"\n[[step]]\ndo = \"latency\"\nbase = \"2h\"\n"),
            "story.toml:5:8: step 1: 'base' is a duration of at most 1h (write 500ms, 2s)");
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// The steps and settings of faults in files are checked when read, each
// mistake at its place.
TEST(ScenarioFileTest, DiskNetworkMigrateAndImageSettingsAreCheckedWhenRead) {
  const std::string head = "name = \"x\"\ntitle = \"t\"\n";
  const auto step = [&](const std::string& body) { return ReadError(head + "[[step]]\n" + body); };
  EXPECT_EQ(step("do = \"disk-full\"\nservice = \"s3-proxy\"\n"),
            "story.toml:5:11: step 1: s3-proxy mounts no volume: there is no disk to act on");
  EXPECT_EQ(step("do = \"disk-ok\"\nservice = \"yugabyte\"\nvolume = \"other\"\n"),
            "story.toml:6:10: step 1: yugabyte mounts no volume 'other' (it mounts yugabyte-data)");
  EXPECT_EQ(step("do = \"disk-errors\"\nservice = \"yugabyte\"\non = [\"fsync\"]\n"),
            "story.toml:6:7: step 1: 'on' lists the I/O that fails: \"read\", \"write\", \"sync\"");
  EXPECT_EQ(step("do = \"power-loss\"\nservice = \"yugabyte\"\nsurvives = \"all\"\n"),
            "story.toml:6:12: step 1: 'survives' is nothing-unsynced, in-order-prefix or "
            "torn-blocks");
  EXPECT_EQ(step("do = \"migrate\"\nkeyspace = \"filecoingw_kuri1\"\ncommand = \"drop -f\"\n"),
            "story.toml:6:11: step 1: 'command' is a migrate command: up [N], down [N], down "
            "-all, goto V, force V or version");
  EXPECT_EQ(step("do = \"loss\"\nprobability = 0.5\npeer = \"yugabyte\"\n"),
            "story.toml:6:8: step 1: 'peer' needs 'service', the link's other end");
  const auto image = [&](const std::string& body) {
    return ReadError(head + "[[image]]\nservice = \"node\"\nversion = \"mine\"\n" + body +
                     "[[step]]\ndo = \"up\"\n");
  };
  EXPECT_EQ(image("runner = \"safe\"\nmulti_statement = false\n"),
            "story.toml:7:19: image 1: 'multi_statement' is a setting of the golang-migrate "
            "runner, not of safe");
  EXPECT_EQ(image("migrations_table = \"bad name\"\n"),
            "story.toml:6:20: image 1: 'migrations_table' is a table name: a letter, then "
            "letters, digits or _ (at most 48)");
  EXPECT_EQ(image("retry = { attempts = 0 }\n"),
            "story.toml:6:22: image 1: 'attempts' is from 1 to 10000");
  EXPECT_EQ(image("retry = { delay = \"0s\" }\n"),
            "story.toml:6:19: image 1: retry 'delay' is a duration from 1ms to 1h (write 2s, "
            "500ms)");
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// A fault that crashes the operator's migrate CLI (its process passes
// golang-migrate's sites) leaves that command unanswered; the next command
// runs in a new process, as a shell starts one (found by explore).
TEST(ScenarioFileTest, ACrashedOperatorCommandDoesNotStopTheNextOne) {
  std::variant<Scenario, FileError> parsed = ParseScenario(R"(
name = "crashed-cli"
title = "The migrate CLI crashes once"
[[fault]]
site = "migrate.ops.version.before"
hit = 1
action = "crash"
[[step]]
do = "up"
[[step]]
do = "cql"
statement = "CREATE KEYSPACE ops"
[[step]]
do = "migrate"
keyspace = "ops"
command = "version"
expect = [ { contains = "no answer" } ]
[[step]]
do = "migrate"
keyspace = "ops"
command = "version"
expect = [ { contains = "error: no migration" } ]
)",
                                                           "crashed-cli.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const ScenarioResult result = RunScenario(std::get<Scenario>(parsed), {.seed = 1});
  EXPECT_TRUE(result.passed) << Failures(result);
}

}  // namespace
}  // namespace faultline::scenarios
