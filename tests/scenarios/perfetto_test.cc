#include "scenarios/perfetto.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "scenarios/catalogue.h"
#include "scenarios/runner.h"

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

}  // namespace
}  // namespace faultline::scenarios
