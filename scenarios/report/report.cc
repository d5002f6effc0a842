#include "scenarios/report/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "models/cql/server.h"
#include "scenarios/core/failure_classes.h"
#include "scenarios/core/topology.h"
#include "scenarios/report/message_pairs.h"
#include "scenarios/report/page.h"
#include "scenarios/world/store_view.h"
#include "sim/assert.h"
#include "sim/clock.h"

namespace faultline::scenarios {
namespace {

using Json = nlohmann::ordered_json;

// Bounds on what one page carries; past them the page says what it left out.
constexpr std::size_t kMaxDiagramItems = 60'000;
constexpr std::size_t kMaxLogLines = 20'000;
constexpr std::size_t kMaxRowsPerTable = 50;

std::int64_t Nanos(sim::TimePoint t) { return t.time_since_epoch().count(); }

// What the diagram and the logs need of the trace: lanes (a service's
// incarnation, or one helper host), messages from sender to receiver, and
// marks (starts, crashes, exits, faults, log lines, statements), each at a
// sequence number that orders it among the others.
class DiagramSink final : public sim::TraceSink {
 public:
  // `services` in the compose file's order, which the lanes follow.
  DiagramSink(const std::vector<std::string>& services, std::set<std::string> stores)
      : services_(services.begin(), services.end()), pairs_(std::move(stores)) {
    for (const std::string& service : services) ranks_.emplace(service, ranks_.size());
  }

  void MarkStep(std::size_t step) { Add({{"k", "step"}, {"n", step}, {"s", seq_++}}); }

  void Close() { closed_ = true; }

  void Write(const sim::TraceEvent& event) override {
    if (closed_) return;
    if (services_.contains(event.process)) incarnation_[event.process] = event.incarnation;
    const std::string_view name = event.name;
    if (name == "net.send") {
      constexpr std::size_t kMaxInFlight = 1'000'000;
      if (in_flight_.size() < kMaxInFlight) {
        in_flight_[MessageIdOf(event)] =
            Sent{seq_++, Nanos(event.time), LaneOf(event.FieldText("from")),
                 pairs_.Sent(MessageIdOf(event), event.FieldText("from"), event.FieldText("to"),
                             event.FieldText("what"))};
      }
      return;
    }
    if (name == "net.drop") pairs_.Dropped(MessageIdOf(event));
    if (name == "process.kill" || name == "process.exit") pairs_.Ended(event.process);
    if (name == "net.deliver" || name == "net.drop") {
      const sim::TraceValue* id = event.Find("id");
      const auto sent = id == nullptr ? in_flight_.end() : in_flight_.find(id->AsUint());
      if (sent == in_flight_.end()) return;
      // It arrives (or is dropped) after it was sent, and is drawn so.
      FL_ASSERT(sent->second.seq < seq_ && sent->second.time <= Nanos(event.time));
      Json message = {{"k", "m"},
                      {"s", sent->second.seq},
                      {"e", seq_++},
                      {"t0", sent->second.time},
                      {"t1", Nanos(event.time)},
                      {"a", sent->second.lane},
                      {"b", LaneOf(HostOf(event.FieldText("to")))},
                      {"w", event.FieldText("what")}};
      if (name == "net.drop") message["drop"] = event.FieldText("reason");
      const MessageKind& kind = sent->second.kind;
      if (kind.store) message["tag"] = "store";
      if (kind.probe) message["tag"] = "probe";
      if (kind.response && !kind.request.empty()) message["re"] = kind.request;
      in_flight_.erase(sent);
      Add(std::move(message));
      return;
    }
    if (name == "container.log") {
      const std::string service = event.FieldText("service");
      if (log_lines_ < kMaxLogLines) {
        ++log_lines_;
        logs_[service].push_back(Json::array({Nanos(event.time), event.FieldText("line")}));
      }
      Mark(event, "log", event.FieldText("line"));
      return;
    }
    if (name == "process.start") return Mark(event, "start", "starts");
    if (name == "process.kill")
      return Mark(event, "crash", "crash (exit " + event.FieldText("code") + ")");
    if (name == "process.exit")
      return Mark(event, "exit", "exits with code " + event.FieldText("code"));
    if (name == "fault.fire") {
      return Mark(event, "fault",
                  fmt::format("{} at {} (pass {})", event.FieldText("action"),
                              event.FieldText("site"), event.FieldText("hit")));
    }
    if (name == "cql.statement") {
      std::string text = event.FieldText("statement");
      if (const std::string values = event.FieldText("values"); !values.empty()) {
        text += "  with (" + values + ")";
      }
      return Mark(event, "cql", text + " -> " + event.FieldText("outcome"));
    }
  }

  Json TakeItems() { return std::move(items_); }
  Json Lanes() const {
    Json lanes = Json::array();
    for (const Lane& lane : lanes_) {
      lanes.push_back({{"name", lane.host}, {"inc", lane.incarnation}, {"rank", lane.rank}});
    }
    return lanes;
  }
  Json Logs() const { return Json(logs_); }
  bool truncated() const { return truncated_; }

 private:
  struct Sent {
    std::uint64_t seq;
    std::int64_t time;
    int lane;
    MessageKind kind;  // What it is: the page can hide the store's traffic and probes.
  };

  struct Lane {
    std::string host;
    std::uint32_t incarnation;
    int rank;  // Its host's order of first appearance.
  };

  // A service's current incarnation has a lane of its own; a helper host
  // (the client, ycqlsh, migrate) one lane for all its uses.
  int LaneOf(const std::string& host) {
    const bool service = services_.contains(host);
    const std::uint32_t incarnation = service ? std::max<std::uint32_t>(1, incarnation_[host]) : 0;
    const auto key = std::pair(host, incarnation);
    if (const auto found = lane_ids_.find(key); found != lane_ids_.end()) {
      FL_ASSERT(static_cast<std::size_t>(found->second) < lanes_.size());
      return found->second;
    }
    const int rank = static_cast<int>(ranks_.emplace(host, ranks_.size()).first->second);
    const int id = static_cast<int>(lanes_.size());
    lanes_.push_back(Lane{host, incarnation, rank});
    lane_ids_.emplace(key, id);
    FL_ASSERT(lane_ids_.size() == lanes_.size());  // A lane per key.
    return id;
  }

  void Mark(const sim::TraceEvent& event, std::string_view kind, const std::string& text) {
    if (event.process == "sim" || event.process == "dockerd") return;
    Add({{"k", kind},
         {"s", seq_++},
         {"t", Nanos(event.time)},
         {"l", LaneOf(event.process)},
         {"w", text}});
  }

  void Add(Json item) {
    if (items_.size() >= kMaxDiagramItems) {
      truncated_ = true;
      return;
    }
    items_.push_back(std::move(item));
  }

  std::set<std::string> services_;
  MessagePairs pairs_;
  std::map<std::string, std::uint32_t> incarnation_;
  std::map<std::pair<std::string, std::uint32_t>, int> lane_ids_;
  std::map<std::string, std::size_t> ranks_;  // The compose file's order, helpers after.
  std::vector<Lane> lanes_;
  std::map<std::uint64_t, Sent> in_flight_;
  std::map<std::string, std::vector<Json>> logs_;
  std::size_t log_lines_ = 0;
  Json items_ = Json::array();
  std::uint64_t seq_ = 0;
  bool truncated_ = false;
  bool closed_ = false;
};

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
  std::vector<std::string> services;
  std::set<std::string> store_services;
  for (const ServiceImage& service : ServicesOf(scenario)) {
    services.push_back(service.name);
    if (service.image == models::cql::kStoreImage) store_services.insert(service.name);
  }
  FL_ASSERT(!services.empty());  // The lanes follow them.
  DiagramSink diagram(services, std::move(store_services));
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
