// The readable timeline (`faultline run --timeline`): step markers, one line
// per message, statements with their bound values, filters by service and
// kind; and a timeline that watches changes nothing it watches.
#include "scenarios/report/timeline.h"

#include <gtest/gtest.h>

#include <sstream>

#include "scenarios/catalogue/catalogue.h"
#include "scenarios/harness/runner.h"
#include "sim/trace.h"

namespace faultline::scenarios {
namespace {

struct Played {
  std::string text;
  std::uint64_t hash = 0;
  std::size_t messages = 0;  // Deliveries and drops in the trace.
  std::size_t sends = 0;
};

Played Timeline(const std::string& name, TimelineFilter filter = {}) {
  const Scenario& scenario = *FindScenario(name);
  std::ostringstream out;
  ReadableTimeline timeline(out, scenario, std::move(filter));
  sim::RecordingSink recorded(1'000'000);
  RunOptions options{.seed = 1, .sinks = {&timeline, &recorded}};
  options.before_step = [&](std::size_t step) { timeline.MarkStep(step); };
  Played played;
  played.hash = RunScenario(scenario, options).trace_hash;
  timeline.Finish();
  played.text = out.str();
  for (const sim::TraceEvent& event : recorded.events()) {
    if (event.name == "net.deliver" || event.name == "net.drop") ++played.messages;
    if (event.name == "net.send") ++played.sends;
  }
  return played;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(TimelineTest, MarksEveryStepInOrderWithItsNarration) {
  const Played played = Timeline("stale-schema");
  const Scenario& scenario = *FindScenario("stale-schema");
  std::size_t at = 0;
  for (std::size_t i = 0; i < scenario.steps.size(); ++i) {
    const std::string marker = "== step " + std::to_string(i + 1) + ": ";
    const std::size_t found = played.text.find(marker, at);
    ASSERT_NE(found, std::string::npos) << marker;
    EXPECT_NE(played.text.find(scenario.steps[i].narration, found), std::string::npos);
    at = found;
  }
  EXPECT_NE(played.text.find("== liveness phase", at), std::string::npos);
}

TEST(TimelineTest, FoldsEachMessageIntoOneLineAndShowsBoundValues) {
  const Played played = Timeline("stale-schema");
  std::size_t message_lines = 0;
  for (const std::string& line : Lines(played.text)) {
    EXPECT_EQ(line.find("net.send"), std::string::npos) << line;
    EXPECT_EQ(line.find("net.deliver"), std::string::npos) << line;
    if (line.find(" -> ") != std::string::npos &&
        line.find("connection refused") == std::string::npos &&
        (line.find("QUERY") != std::string::npos || line.find("response") != std::string::npos ||
         line.find("/") != std::string::npos)) {
      ++message_lines;
    }
  }
  EXPECT_GT(played.messages, 100u);
  // One line per delivered or dropped message, not two per message.
  EXPECT_LE(message_lines, played.messages);
  EXPECT_GE(message_lines, played.messages * 9 / 10);
  EXPECT_NE(played.text.find("with ('photos', 'dog.jpg', "), std::string::npos)
      << "the index insert's bound values";
}

TEST(TimelineTest, FiltersByServiceAndByKind) {
  const Played only = Timeline("stale-schema", {.services = {"kuri-2"}});
  for (const std::string& line : Lines(only.text)) {
    if (line.empty() || line.starts_with("==") || line.starts_with("(")) continue;
    EXPECT_NE(line.find("kuri-2"), std::string::npos) << line;
  }
  const Played logs = Timeline("dirty-migration", {.kinds = {"log", "fault"}});
  EXPECT_NE(logs.text.find("FAULT crash at migrate.filecoingw_kuri1.statement.after"),
            std::string::npos);
  EXPECT_NE(logs.text.find("Dirty database version 1754293669"), std::string::npos);
  EXPECT_EQ(logs.text.find(" -> yugabyte"), std::string::npos) << "no messages";
}

TEST(TimelineTest, WatchingChangesNothing) {
  const Scenario& scenario = *FindScenario("late-index-row");
  const std::uint64_t alone = RunScenario(scenario, {.seed = 3}).trace_hash;
  std::ostringstream out;
  ReadableTimeline timeline(out, scenario, {});
  RunOptions options{.seed = 3, .sinks = {&timeline}};
  options.before_step = [&](std::size_t step) { timeline.MarkStep(step); };
  EXPECT_EQ(RunScenario(scenario, options).trace_hash, alone);
}

TEST(TimelineTest, EveryEventHasAKind) {
  EXPECT_EQ(TimelineKindOf("net.deliver"), "net");
  EXPECT_EQ(TimelineKindOf("container.log"), "log");
  EXPECT_EQ(TimelineKindOf("container.state"), "container");
  EXPECT_EQ(TimelineKindOf("disk.sync"), "other");
}

}  // namespace
}  // namespace faultline::scenarios
