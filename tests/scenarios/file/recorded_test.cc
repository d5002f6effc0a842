// A repro's recorded failure (`recorded = { checker, violation }`, issue
// #29): read, written back, and refused with file:line:col when malformed.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "scenarios/file/scenario_file.h"

namespace faultline::scenarios {
namespace {

constexpr std::string_view kReproHead = "name = \"r\"\ntitle = \"t\"\n";
constexpr std::string_view kReproStep = "[[step]]\ndo = \"up\"\n";

std::string RecordedError(const std::string& recorded) {
  const std::string text = std::string(kReproHead) + recorded + "\n" + std::string(kReproStep);
  std::variant<Scenario, FileError> parsed = ParseScenario(text, "repro.toml");
  if (const auto* error = std::get_if<FileError>(&parsed)) return error->message;
  return "parsed";
}

TEST(RecordedTest, ARecordedFailureReadsAndWritesBack) {
  const std::string text =
      std::string(kReproHead) +
      "recorded = { checker = \"converges\", violation = \"* is not serving\" }\n" +
      std::string(kReproStep);
  std::variant<Scenario, FileError> parsed = ParseScenario(text, "repro.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const Scenario& scenario = std::get<Scenario>(parsed);
  ASSERT_TRUE(scenario.recorded.has_value());
  EXPECT_EQ(scenario.recorded->checker, "converges");
  EXPECT_EQ(scenario.recorded->violation, "* is not serving");
  EXPECT_EQ(std::get<Scenario>(ParseScenario(ToToml(scenario), "again")), scenario);
  // The build that recorded it, when said, travels too.
  Scenario built = scenario;
  built.recorded->build = "2efc156a";
  const std::string written = ToToml(built);
  EXPECT_NE(written.find("build = \"2efc156a\""), std::string::npos) << written;
  EXPECT_EQ(std::get<Scenario>(ParseScenario(written, "again")), built);
  // A file without one has none, and writes none.
  const Scenario plain = std::get<Scenario>(
      ParseScenario(std::string(kReproHead) + std::string(kReproStep), "plain.toml"));
  EXPECT_FALSE(plain.recorded.has_value());
  EXPECT_EQ(ToToml(plain).find("recorded"), std::string::npos);
}

TEST(RecordedTest, AMalformedRecordedFailureSaysWhere) {
  EXPECT_EQ(RecordedError("recorded = { checker = \"convergs\", violation = \"v\" }"),
            "repro.toml:3:24: recorded: no checker 'convergs' (a whole-run checker, or "
            "expectation)");
  EXPECT_EQ(RecordedError("recorded = { checker = \"converges\" }"),
            "repro.toml:3:12: recorded: missing 'violation'");
  EXPECT_EQ(
      RecordedError("recorded = { checker = \"converges\", violation = \"\" }").find("is empty") !=
          std::string::npos,
      true);
  EXPECT_NE(RecordedError("recorded = \"converges\"").find("'recorded' must be a table"),
            std::string::npos);
  EXPECT_NE(RecordedError("recorded = { checker = \"converges\", violation = \"v\", why = 1 }")
                .find("why"),
            std::string::npos);
  EXPECT_EQ(RecordedError("recorded = { checker = \"expectation\", violation = \"v\" }"), "parsed");
  EXPECT_NE(RecordedError("recorded = { checker = \"converges\", violation = \"v\", build = 1 }")
                .find("build"),
            std::string::npos);
}

}  // namespace
}  // namespace faultline::scenarios
