// The whole-run checkers observe and never act: with or without them a run
// has the same trace; a long scenario leaves nothing behind per step; and
// every scenario file under tests/scenarios/files passes from 101 seeds.
#include "scenarios/checkers/checkers.h"
#include "scenarios/checkers/expectations.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "scenarios/catalogue/catalogue.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/steps/steps.h"
#include "tests/scenarios/failures.h"
#include "tests/scenarios/sweep.h"

namespace faultline::scenarios {
namespace {

std::vector<Scenario> EveryScenario() {
  std::vector<Scenario> scenarios(Catalogue().begin(), Catalogue().end());
  for (const auto& entry : std::filesystem::directory_iterator(FAULTLINE_TEST_FILES_DIR)) {
    if (entry.path().extension() != ".toml") continue;
    std::variant<Scenario, FileError> loaded = LoadScenarioFile(entry.path().string());
    EXPECT_TRUE(std::holds_alternative<Scenario>(loaded)) << entry.path();
    if (auto* scenario = std::get_if<Scenario>(&loaded)) scenarios.push_back(std::move(*scenario));
  }
  return scenarios;
}

TEST(CheckersTest, ObservingLeavesTheTraceAsItIs) {
  for (const Scenario& scenario : EveryScenario()) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const ScenarioResult watched = RunScenario(scenario, {.seed = seed});
      const ScenarioResult unwatched = RunScenario(scenario, {.seed = seed, .checkers = false});
      EXPECT_EQ(watched.trace_hash, unwatched.trace_hash) << scenario.name << " --seed " << seed;
      EXPECT_FALSE(watched.checkers.empty());
      EXPECT_TRUE(unwatched.checkers.empty());
    }
  }
}

TEST(CheckersTest, EveryTestFilePassesFrom101SeedsAndReplays) {
  for (const auto& entry : std::filesystem::directory_iterator(FAULTLINE_TEST_FILES_DIR)) {
    if (entry.path().extension() != ".toml") continue;
    std::variant<Scenario, FileError> loaded = LoadScenarioFile(entry.path().string());
    ASSERT_TRUE(std::holds_alternative<Scenario>(loaded)) << entry.path();
    const Scenario& scenario = std::get<Scenario>(loaded);
    std::set<std::uint64_t> hashes;
    for (std::uint64_t seed = 1; seed <= SweepSeeds(); ++seed) {
      const ScenarioResult result = RunScenario(scenario, {.seed = seed});
      ASSERT_TRUE(result.passed) << entry.path() << " --seed " << seed << "\n" << Failures(result);
      hashes.insert(result.trace_hash);
    }
    EXPECT_EQ(RunScenario(scenario, {.seed = 7}).trace_hash,
              RunScenario(scenario, {.seed = 7}).trace_hash)
        << entry.path();
    EXPECT_GT(hashes.size(), 50u) << entry.path() << ": the seeds should explore";
  }
}

// 20,000 steps aborted on the process limit while checkers probed after each
// step; now a step makes no process, and the run ends.
TEST(CheckersTest, ALongScenarioMakesNoProcessPerStep) {
  Scenario scenario;
  scenario.name = "many-steps";
  scenario.steps.push_back(Step{.kind = Step::Kind::kUp});
  for (int i = 0; i < 20'000; ++i) {
    Step get{.kind = Step::Kind::kS3};
    get.method = "GET";
    get.path = "/b/missing-" + std::to_string(i);
    get.expect.push_back(Expectation{.kind = Expectation::Kind::kStatus, .number = 404});
    scenario.steps.push_back(std::move(get));
  }
  const ScenarioResult result = RunScenario(scenario, {.seed = 1});
  EXPECT_TRUE(result.passed) << Failures(result).substr(0, 2000);
  EXPECT_EQ(result.steps.size(), scenario.steps.size());
}

// A run that never stored an object has nothing wrong in its index, even
// when the store never started.
TEST(CheckersTest, AnIndexNeverWrittenPointsNowhereWrong) {
  Scenario scenario;
  scenario.name = "nothing";
  scenario.steps.push_back(Step{.kind = Step::Kind::kWait, .duration = std::chrono::seconds(1)});
  scenario.checkers = {{"converges", false}};
  const ScenarioResult result = RunScenario(scenario, {.seed = 1});
  EXPECT_TRUE(result.passed) << Failures(result);
}

// A node image that adds a table serves exactly its image's schema; one whose
// CREATE TABLE IF NOT EXISTS hid a new column is caught.
TEST(CheckersTest, SchemaMatchesTheImageEachServiceRuns) {
  const auto run = [](const std::string& file) {
    std::variant<Scenario, FileError> loaded =
        LoadScenarioFile(std::string(FAULTLINE_TEST_FILES_DIR) + "/" + file);
    EXPECT_TRUE(std::holds_alternative<Scenario>(loaded)) << file;
    return RunScenario(std::get<Scenario>(loaded), {.seed = 1});
  };
  auto verdict = [](const ScenarioResult& result) {
    for (const CheckResult& check : result.checkers) {
      if (check.checker == "schema-matches-image") return check;
    }
    return CheckResult{};
  };
  const ScenarioResult adds = run("image-adds-a-table.toml");
  EXPECT_TRUE(adds.passed) << Failures(adds);
  EXPECT_TRUE(verdict(adds).expected_to_hold);
  const ScenarioResult hides = run("if-not-exists-hides-a-column.toml");
  EXPECT_TRUE(hides.passed) << Failures(hides);
  EXPECT_FALSE(verdict(hides).expected_to_hold);
  EXPECT_NE(verdict(hides).actual.find("table multihashtogroup: column size (bigint) is missing"),
            std::string::npos)
      << verdict(hides).actual;
  // No restart, no new image: only the statement tells the checker to look.
  const ScenarioResult by_hand = run("hand-added-column.toml");
  EXPECT_TRUE(by_hand.passed) << Failures(by_hand);
  EXPECT_NE(verdict(by_hand).actual.find("table cidgroups: column note (text) is not in the "
                                         "migrations"),
            std::string::npos)
      << verdict(by_hand).actual;
}

}  // namespace
}  // namespace faultline::scenarios

namespace faultline::scenarios {
namespace {

// Which keys a step field writes.
struct KeysWritten final : FieldSink {
  std::set<std::string> keys;
  void Text(std::string_view key, std::string_view) override { keys.emplace(key); }
  void Integer(std::string_view key, std::int64_t) override { keys.emplace(key); }
  void Number(std::string_view key, double) override { keys.emplace(key); }
  void Flag(std::string_view key, bool) override { keys.emplace(key); }
  void Texts(std::string_view key, const std::vector<std::string>&) override { keys.emplace(key); }
  void Integers(std::string_view key, const std::vector<std::int64_t>&) override {
    keys.emplace(key);
  }
};

// docs/scenario-format.md promises that every step, step field, fault,
// expectation and checker is used by a file: the test files and the
// catalogue, together (a checker by a story that breaks it).
TEST(CheckersTest, EveryStepFaultAndExpectationIsUsedByAFile) {
  std::set<std::string_view> steps;
  std::set<std::string_view> actions;
  std::set<std::string> errors;
  std::set<Expectation::Kind> expectations;
  std::set<std::string> broken;  // Checkers a file expects to fail.
  std::set<StepField> fields;
  for (const Scenario& scenario : EveryScenario()) {
    for (const auto& [name, holds] : scenario.checkers) {
      if (!holds) broken.insert(name);
    }
    if (!scenario.crash_site.empty()) actions.insert("crash");
    for (const FaultSpec& fault : scenario.faults) {
      actions.insert(sim::FaultActionName(fault.action));
      if (fault.action == sim::FaultAction::kError) errors.insert(fault.error);
    }
    for (const Step& step : scenario.steps) {
      steps.insert(StepKindOf(step).name);
      for (const StepFieldUse& use : StepKindOf(step).fields) {
        KeysWritten written;  // Fields at their defaults write nothing.
        FieldSpecOf(use.field).write(step, written);
        if (!written.keys.empty()) fields.insert(use.field);
      }
      for (const Expectation& e : step.expect) expectations.insert(e.kind);
    }
  }
  for (const StepKind& kind : StepKinds()) {
    EXPECT_TRUE(steps.contains(kind.name)) << "no file has a step '" << kind.name << "'";
  }
  for (const sim::Named<sim::FaultAction>& action : sim::kFaultActions) {
    if (action.value == sim::FaultAction::kNone) continue;  // No file can say it.
    EXPECT_TRUE(actions.contains(std::string(action.name)))
        << "no file has a fault '" << action.name << "'";
  }
  for (const StepFieldSpec& field : StepFields()) {
    EXPECT_TRUE(fields.contains(field.field)) << "no file has a step with '" << field.key << "'";
  }
  for (const CheckerSpec& checker : WholeRunCheckers()) {
    EXPECT_TRUE(broken.contains(std::string(checker.name)))
        << "no file has a story that breaks " << checker.name;
  }
  for (const FaultError& error : FaultErrors()) {
    EXPECT_TRUE(errors.contains(std::string(error.name)))
        << "no file has an error fault '" << error.name << "'";
  }
  for (const ExpectationForm& form : ExpectationForms()) {
    for (const Expectation::Kind kind : form.kinds) {
      EXPECT_TRUE(expectations.contains(kind))
          << "no file has a '" << form.key << "' expectation of kind " << static_cast<int>(kind);
    }
  }
}

}  // namespace
}  // namespace faultline::scenarios
