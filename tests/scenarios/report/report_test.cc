// faultline report's data: what the page draws is read from the run, and
// making it changes nothing of the run.
#include "scenarios/report/report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "scenarios/catalogue/catalogue.h"
#include "scenarios/harness/runner.h"

namespace faultline::scenarios {
namespace {

nlohmann::json DataOf(const std::string& html) {
  const std::string open = R"(<script type="application/json" id="run-data">)";
  const std::size_t start = html.find(open);
  EXPECT_NE(start, std::string::npos);
  const std::size_t end = html.find("</script>", start);
  return nlohmann::json::parse(html.substr(start + open.size(), end - start - open.size()));
}

TEST(ReportTest, MakingTheReportChangesNothingOfTheRun) {
  for (const char* name : {"stale-schema", "dirty-migration", "late-index-row"}) {
    const Scenario& scenario = *FindScenario(name);
    for (std::uint64_t seed : {1u, 9u}) {
      EXPECT_EQ(RenderReport(scenario, seed).result.trace_hash,
                RunScenario(scenario, {.seed = seed}).trace_hash)
          << name << " --seed " << seed;
    }
  }
}

TEST(ReportTest, TheScrubberHasTheStoreAfterEveryStep) {
  const Report report = RenderReport(*FindScenario("stale-schema"), 1);
  const nlohmann::json data = DataOf(report.html);
  ASSERT_EQ(data["stores"].size(), data["steps"].size() + 1);
  // The old S3Objects before the DROP (after step 11), the new one after
  // its CREATE (step 13).
  const auto columns = [&](std::size_t after) {
    for (const auto& table : data["stores"][after]["tables"]) {
      if (table["name"] == "filecoingw_s3.s3objects") return table["columns"].dump();
    }
    return std::string("(no table)");
  };
  EXPECT_EQ(columns(11).find("node_id"), std::string::npos) << columns(11);
  EXPECT_NE(columns(11).find("cid"), std::string::npos) << columns(11);
  EXPECT_EQ(columns(12), "(no table)");
  EXPECT_NE(columns(13).find("node_id"), std::string::npos) << columns(13);
  EXPECT_FALSE(data["stores"][0]["unreadable"].get<std::string>().empty());
}

TEST(ReportTest, TheDiagramHasALanePerHostAndMarksEachRestartOnIt) {
  const Report report = RenderReport(*FindScenario("dirty-migration"), 1);
  const nlohmann::json data = DataOf(report.html);
  std::set<std::string> hosts;
  int kuri1 = -1;
  for (std::size_t id = 0; id < data["lanes"].size(); ++id) {
    const std::string name = data["lanes"][id]["name"];
    EXPECT_TRUE(hosts.insert(name).second) << name << " has two lanes";
    if (name == "kuri-1") kuri1 = static_cast<int>(id);
  }
  ASSERT_GE(kuri1, 0);
  // kuri-1 restarts: its incarnations are marks on its one lane.
  std::set<int> incarnations;
  int crashes = 0;
  int faults = 0;
  int messages = 0;
  for (const auto& item : data["items"]) {
    if (item["k"] == "start" && item["l"] == kuri1) incarnations.insert(item["i"].get<int>());
    crashes += item["k"] == "crash" ? 1 : 0;
    faults += item["k"] == "fault" ? 1 : 0;
    messages += item["k"] == "m" ? 1 : 0;
  }
  EXPECT_GE(incarnations.size(), 2u);
  EXPECT_TRUE(incarnations.contains(2));
  EXPECT_GE(faults, 1);
  EXPECT_GE(crashes, 1);
  EXPECT_GT(messages, 100);
  EXPECT_EQ(data["verdict"], "pass");
  EXPECT_FALSE(data["logs"]["kuri-1"].empty());
}

TEST(ReportTest, LanesRunAsARequestTravels) {
  const nlohmann::json data = DataOf(RenderReport(*FindScenario("proxy-misses-restart"), 1).html);
  std::vector<std::pair<int, std::string>> lanes;
  for (const auto& lane : data["lanes"]) lanes.emplace_back(lane["order"], lane["name"]);
  std::ranges::sort(lanes);
  std::vector<std::string> names;
  for (const auto& [order, name] : lanes) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"client", "s3-proxy", "kuri-1", "kuri-2", "yugabyte",
                                             "db-init"}));
}

TEST(ReportTest, ArrowsSayWhatTheyCarry) {
  const nlohmann::json data = DataOf(RenderReport(*FindScenario("proxy-misses-restart"), 1).html);
  std::set<std::string> labels;
  int statements = 0;
  for (const auto& item : data["items"]) {
    if (item["k"] != "m") continue;
    const std::string label = item["lbl"];
    labels.insert(label);
    // The store never crashes in this story: each statement's arrow is labelled by it.
    EXPECT_NE(label, "QUERY") << item.dump();
    EXPECT_NE(label, "EXECUTE") << item.dump();
    if (label.starts_with("SELECT ") || label.starts_with("INSERT ") || label.starts_with("USE ")) {
      ++statements;
      EXPECT_NE(item["w"].get<std::string>().find(label.substr(0, label.find(' '))),
                std::string::npos)
          << "the tooltip has the statement: " << item.dump();
    }
  }
  EXPECT_GT(statements, 10);
  for (const char* expected : {"PUT /b/k", "GET /healthz", "200", "503", "INSERT s3objects",
                               "SELECT schema_migrations", "OPTIONS", "ok"}) {
    EXPECT_TRUE(labels.contains(expected)) << expected;
  }
}

TEST(ReportTest, ThePageIsOneFileWhateverTheRunHolds) {
  // A step whose text holds what could end the data's <script> early, and
  // bytes that are not UTF-8.
  Scenario scenario = *FindScenario("stale-schema");
  scenario.steps[1].narration = "</script><script>alert(1)</script> <!--<script> \xe9t\xe9";
  const Report report = RenderReport(scenario, 1);
  std::size_t scripts = 0;
  for (std::size_t at = report.html.find("</script>"); at != std::string::npos;
       at = report.html.find("</script>", at + 1)) {
    ++scripts;
  }
  EXPECT_EQ(scripts, 2u) << "the data's and the page's own";
  // No '<' at all in the data, so nothing in it ("<!--<script>" puts the
  // HTML parser in a state where "</script>" no longer ends the element).
  const std::size_t data_start = report.html.find(R"(id="run-data">)");
  const std::size_t data_end = report.html.find("</script>", data_start);
  EXPECT_EQ(report.html.substr(data_start + 14, data_end - data_start - 14).find('<'),
            std::string::npos);
  const nlohmann::json data = DataOf(report.html);  // Parses: valid JSON, valid UTF-8.
  EXPECT_NE(data["steps"][1]["narration"].get<std::string>().find("</script>"), std::string::npos);
  EXPECT_EQ(report.html.find("http://", report.html.find("<body")),
            report.html.find("http://www.w3.org/2000/svg"));
}

}  // namespace
}  // namespace faultline::scenarios
