#include "scenarios/report/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "scenarios/core/failure_classes.h"
#include "scenarios/core/topology.h"
#include "scenarios/report/diagram_sink.h"
#include "scenarios/report/page.h"
#include "scenarios/world/store_view.h"
#include "sim/assert.h"
#include "sim/clock.h"

namespace faultline::scenarios {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kMaxRowsPerTable = 50;

Json StoreJson(const StoreView& view) {
  Json tables = Json::array();
  for (const TableView& table : view.tables) {
    FL_ASSERT(table.rows.size() <= kMaxRowsPerTable);  // ViewStore cut it.
    tables.push_back({{"name", table.name},
                      {"columns", table.columns},
                      {"rows", table.rows},
                      {"total", table.total_rows}});
  }
  return {{"schema", view.schema}, {"tables", std::move(tables)}, {"unreadable", view.unreadable}};
}

Json CheckJson(const CheckResult& check) {
  Json json = {{"what", check.what}, {"held", check.held}, {"actual", check.actual}};
  if (!check.checker.empty()) {
    json["checker"] = check.checker;
    json["expected_to_hold"] = check.expected_to_hold;
  }
  return json;
}

Json ScenarioJson(const Scenario& scenario) {
  const FailureClass* failure = FindFailureClass(scenario.failure_class);
  return {{"name", scenario.name},
          {"title", scenario.title},
          {"class", failure == nullptr ? "" : std::string(failure->title)},
          {"mechanism", failure == nullptr ? "" : std::string(failure->mechanism)},
          {"story", scenario.story},
          {"lesson", scenario.lesson}};
}

Json StepsJson(const ScenarioResult& result) {
  Json steps = Json::array();
  for (std::size_t i = 0; i < result.steps.size(); ++i) {
    const StepResult& step = result.steps[i];
    FL_ASSERT(i == 0 || result.steps[i - 1].at <= step.at);  // Steps end in order.
    Json checks = Json::array();
    for (const CheckResult& check : step.checks) checks.push_back(CheckJson(check));
    steps.push_back({{"n", i + 1},
                     {"at", sim::FormatTime(step.at)},
                     {"action", step.action},
                     {"narration", step.narration},
                     {"outcome", step.outcome},
                     {"checks", std::move(checks)}});
  }
  return steps;
}

// The data as a JSON text safe inside a <script> element: bytes that are
// not UTF-8 are replaced (the page is always valid), and no '<', '>' or '&'
// is left for the HTML parser to read ("</script>", "<!--" would end or
// hide the element): outside strings JSON has none, inside them each is
// written as its \u escape, which JSON.parse reads back.
std::string ScriptSafe(const Json& data) {
  const std::string text = data.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string safe;
  safe.reserve(text.size());
  for (const char c : text) {
    if (c == '<') {
      safe += "\\u003c";
    } else if (c == '>') {
      safe += "\\u003e";
    } else if (c == '&') {
      safe += "\\u0026";
    } else {
      safe += c;
    }
  }
  FL_ASSERT(safe.find_first_of("<>&") == std::string::npos);
  return safe;
}

}  // namespace

Report RenderReport(const Scenario& scenario, std::uint64_t seed) {
  const std::vector<ServiceImage> services = ServicesOf(scenario);
  FL_ASSERT(!services.empty());  // The lanes follow them.
  DiagramSink diagram(services);
  Json stores = Json::array();
  stores.push_back({{"schema", ""},
                    {"tables", Json::array()},
                    {"unreadable", "before the first step: nothing has run yet"}});
  RunOptions options{.seed = seed, .sinks = {&diagram}};
  options.before_step = [&](std::size_t step) { diagram.MarkStep(step); };
  options.observe = [&](std::size_t step, World& world) {
    if (step < scenario.steps.size()) {
      stores.push_back(StoreJson(ViewStore(world, kMaxRowsPerTable)));
    } else {
      diagram.Close();  // The run is over: what its teardown emits is no part of it.
    }
  };
  Report report;
  report.result = RunScenario(scenario, options);
  // A run its budget stopped was not observed after its last step.
  FL_ASSERT_MSG(stores.size() <= report.result.steps.size() + 1,
                "{} store views for {} steps of {}", stores.size(), report.result.steps.size(),
                scenario.name);
  while (stores.size() < report.result.steps.size() + 1) {
    stores.push_back({{"schema", ""},
                      {"tables", Json::array()},
                      {"unreadable", "the run stopped here: " + report.result.stopped}});
  }
  Json checkers = Json::array();
  for (const CheckResult& check : report.result.checkers) checkers.push_back(CheckJson(check));
  const ScenarioResult& result = report.result;
  const Json data = {
      {"scenario", ScenarioJson(scenario)},
      {"seed", seed},
      {"verdict", result.passed            ? "pass"
                  : result.stopped.empty() ? "fail"
                                           : "stopped"},
      {"stopped", result.stopped},
      {"trace_hash", fmt::format("{:016x}", result.trace_hash)},
      {"virtual_time", sim::FormatTime(result.virtual_time)},
      {"notes", result.notes},
      {"steps", StepsJson(result)},
      {"checkers", std::move(checkers)},
      {"lanes", diagram.Lanes()},
      {"items", diagram.TakeItems()},
      {"truncated", diagram.truncated()},
      {"logs", diagram.Logs()},
      {"stores", std::move(stores)},
  };
  report.html = ReportPage(ScriptSafe(data));
  return report;
}

}  // namespace faultline::scenarios
