#include "scenarios/report/perfetto.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "scenarios/catalogue/catalogue.h"
#include "scenarios/harness/runner.h"

namespace faultline::scenarios {
namespace {

// Brackets and braces balance outside strings: well-formed enough to load.
bool Balanced(const std::string& json) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') ++i;
      if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (depth < 0) return false;
  }
  return depth == 0 && !in_string;
}

TEST(PerfettoTest, TheDirtyMigrationTraceHasTracksFlowsAndTheCrash) {
  PerfettoSink sink;
  const ScenarioResult result =
      RunScenario(*FindScenario("dirty-migration"), {.seed = 1, .sinks = {&sink}});
  ASSERT_TRUE(result.passed);
  const std::string json = sink.Json();
  EXPECT_TRUE(json.starts_with("{\"traceEvents\":["));
  EXPECT_TRUE(Balanced(json));
  EXPECT_NE(json.find(R"("name":"process_name","ph":"M")"), std::string::npos);
  EXPECT_NE(json.find(R"("args":{"name":"kuri-1"})"), std::string::npos);
  EXPECT_NE(json.find(R"("name":"crash")"), std::string::npos);
  EXPECT_NE(json.find("fault migrate.filecoingw_kuri1.statement.after"), std::string::npos);
  EXPECT_NE(json.find("Dirty database version 1754293669"), std::string::npos);
  // Every flow that starts also ends: the same ids on "s" and "f" events.
  std::set<std::string> starts, ends;
  const std::regex flow(R"re("ph":"([sf])"(?:,"bp":"e")?,"id":(\d+))re");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), flow); it != std::sregex_iterator();
       ++it) {
    ((*it)[1] == "s" ? starts : ends).insert((*it)[2]);
  }
  EXPECT_FALSE(starts.empty());
  for (const std::string& id : ends) EXPECT_TRUE(starts.contains(id)) << id;
}

// One trace record: the fields the structure checks need.
struct Record {
  std::string ph, id, name, line;
  int pid = 0, tid = 0;
  double ts = 0, dur = 0;
};

std::vector<Record> Records(const std::string& json) {
  const std::regex field(R"re("(ph|id|pid|tid|ts|dur|name)":("[^"]*"|[0-9.]+))re");
  std::vector<Record> records;
  std::istringstream lines(json);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("\"ph\"") == std::string::npos) continue;
    Record record;
    record.line = line;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), field);
         it != std::sregex_iterator(); ++it) {
      const std::string key = (*it)[1];
      std::string value = (*it)[2];
      if (value.front() == '"') value = value.substr(1, value.size() - 2);
      if (key == "ph") record.ph = value;
      if (key == "id") record.id = value;
      if (key == "name" && record.name.empty()) record.name = value;
      if (key == "pid") record.pid = std::stoi(value);
      if (key == "tid") record.tid = std::stoi(value);
      if (key == "ts") record.ts = std::stod(value);
      if (key == "dur") record.dur = std::stod(value);
    }
    records.push_back(record);
  }
  return records;
}

// What Perfetto needs of the structure, over every catalogue scenario:
// slices on one track nest, every B has its E, every arrow has both ends
// and lands inside a life on a named track, and helpers are grouped.
TEST(PerfettoTest, EveryCatalogueTraceIsWellNested) {
  for (const Scenario& scenario : Catalogue()) {
    PerfettoSink sink;
    ASSERT_TRUE(RunScenario(scenario, {.seed = 1, .sinks = {&sink}}).passed) << scenario.name;
    const std::string json = sink.Json();
    ASSERT_TRUE(Balanced(json)) << scenario.name;
    const std::vector<Record> records = Records(json);
    std::set<std::pair<int, int>> named;
    std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
    std::map<std::pair<int, int>, std::vector<double>> open;  // B stacks.
    std::map<std::string, int> flows;
    std::vector<const Record*> arrivals;
    int migrations = 0;
    for (const Record& record : records) {
      const std::pair<int, int> track{record.pid, record.tid};
      if (record.ph == "M" && record.name == "thread_name") named.insert(track);
      if (record.ph == "M" && record.name == "process_name") {
        EXPECT_EQ(record.line.find('#'), std::string::npos)
            << "an ungrouped helper: " << record.line;
      }
      if (record.ph == "X") slices[track].emplace_back(record.ts, record.ts + record.dur);
      if (record.ph == "B") {
        open[track].push_back(record.ts);
        ++migrations;
      }
      if (record.ph == "E") {
        ASSERT_FALSE(open[track].empty()) << scenario.name << ": an E without its B";
        slices[track].emplace_back(open[track].back(), record.ts);
        open[track].pop_back();
      }
      if (record.ph == "s") ++flows[record.id];
      if (record.ph == "f") {
        --flows[record.id];
        arrivals.push_back(&record);
      }
      if (record.ph != "M") {
        EXPECT_TRUE(named.contains(track)) << scenario.name << " " << record.name;
      }
    }
    for (const auto& [track, stack] : open) EXPECT_TRUE(stack.empty()) << scenario.name;
    for (const auto& [id, balance] : flows)
      EXPECT_EQ(balance, 0) << scenario.name << " flow " << id;
    for (auto& [track, list] : slices) {
      std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : a.second > b.second;
      });
      std::vector<double> ends;  // The enclosing slices' ends.
      for (const auto& [start, end] : list) {
        while (!ends.empty() && ends.back() <= start) ends.pop_back();
        EXPECT_TRUE(ends.empty() || end <= ends.back() + 1e-6)
            << scenario.name << ": slices overlap on track " << track.first << "/" << track.second
            << " at " << start;
        ends.push_back(end);
      }
    }
    for (const Record* arrival : arrivals) {
      const auto& list = slices[{arrival->pid, arrival->tid}];
      EXPECT_TRUE(std::any_of(list.begin(), list.end(),
                              [&](const auto& slice) {
                                return slice.first <= arrival->ts &&
                                       arrival->ts <= slice.second + 1e-6;
                              }))
          << scenario.name << ": an arrow lands outside any slice at " << arrival->ts;
    }
    EXPECT_GT(migrations, 0) << scenario.name << ": no migration step slices";
  }
}

}  // namespace
}  // namespace faultline::scenarios
