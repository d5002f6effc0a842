#include "scenarios/report/diagram_sink.h"

#include <fmt/format.h>

#include <algorithm>

#include "models/cql/server.h"
#include "models/s3/kuri_node.h"
#include "models/s3/s3_proxy.h"
#include "scenarios/report/message_labels.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

// Bounds on what one page carries; past them the page says what it left out.
constexpr std::size_t kMaxDiagramItems = 60'000;
// Steps, faults and a process's starts, crashes and exits are kept past
// that, up to this many more: the diagram's story stays whole.
constexpr std::size_t kMaxMarksPastTheBound = 20'000;
constexpr std::size_t kMaxLogLines = 20'000;
constexpr std::size_t kMaxDrawnInFlight = 1'000'000;
constexpr std::size_t kMaxAskedPerPair = 10'000;

std::int64_t Nanos(sim::TimePoint t) { return t.time_since_epoch().count(); }

// The lanes left to right as a request travels: whoever asks, the proxy,
// the nodes behind it, the store under them, then the jobs and the
// operator's tools, which come and go.
struct Role {
  std::string_view name;
  int rank;
};
Role RoleOf(const std::string& host, const std::map<std::string, std::string>& images) {
  if (host == kClientHost) return {"client", 0};
  const auto image = images.find(host);
  if (image == images.end()) return {"job", 4};  // ycqlsh, migrate.
  if (image->second == models::s3::kProxyImage) return {"proxy", 1};
  if (image->second == models::s3::kNodeImage) return {"node", 2};
  if (image->second == models::cql::kStoreImage) return {"store", 3};
  return {"job", 4};  // db-init.
}

// "statement.after" of "migrate.filecoingw_kuri1.statement.after": the
// runner and keyspace are the lane's, the rest says where it fired.
std::string SiteTail(const std::string& site) {
  const std::size_t first = site.find('.');
  const std::size_t second = first == std::string::npos ? first : site.find('.', first + 1);
  return second == std::string::npos ? site : site.substr(second + 1);
}

bool RunsAStatement(std::string_view what) {
  return what.starts_with("QUERY ") || what.starts_with("EXECUTE ");
}

std::set<std::string> StoresOf(const std::vector<ServiceImage>& services) {
  std::set<std::string> stores;
  for (const ServiceImage& service : services) {
    if (service.image == models::cql::kStoreImage) stores.insert(service.name);
  }
  return stores;
}

}  // namespace

DiagramSink::DiagramSink(const std::vector<ServiceImage>& services) : pairs_(StoresOf(services)) {
  for (const ServiceImage& service : services) {
    images_.emplace(service.name, service.image);
    compose_order_.emplace(service.name, static_cast<int>(compose_order_.size()));
  }
  FL_ASSERT(images_.size() == services.size());  // Each service named once.
}

void DiagramSink::MarkStep(std::size_t step) {
  Add({{"k", "step"}, {"n", step}, {"s", seq_++}, {"t", last_time_}});
}

void DiagramSink::Write(const sim::TraceEvent& event) {
  if (closed_) return;
  last_time_ = Nanos(event.time);
  const std::string_view name = event.name;
  if (name == "net.send") return Send(event);
  if (name == "net.deliver" || name == "net.drop") return Arrive(event, name == "net.drop");
  if (name == "process.kill" || name == "process.exit") Ended(event.process);
  if (name == "container.log") {
    const std::string service = event.FieldText("service");
    if (log_lines_ < kMaxLogLines) {
      ++log_lines_;
      logs_[service].push_back(Json::array({Nanos(event.time), event.FieldText("line")}));
    }
    return Mark(event, "log", event.FieldText("line"));
  }
  if (name == "process.start") return Mark(event, "start", "starts");
  if (name == "process.kill") return Mark(event, "crash", "exit " + event.FieldText("code"));
  if (name == "process.exit") return Mark(event, "exit", "exit " + event.FieldText("code"));
  if (name == "fault.fire") {
    const std::string action = event.FieldText("action");
    const std::string site = event.FieldText("site");
    return Mark(event, "fault",
                fmt::format("{} at {} (pass {})", action, site, event.FieldText("hit")),
                action + " " + SiteTail(site));
  }
  if (name == "cql.statement") return Statement(event);
}

void DiagramSink::Send(const sim::TraceEvent& event) {
  if (in_flight_.size() >= kMaxDrawnInFlight) return;
  const std::string from = HostOf(event.FieldText("from"));
  const std::string to = HostOf(event.FieldText("to"));
  const std::string what = event.FieldText("what");
  Sent sent{seq_++, Nanos(event.time), LaneOf(from),
            pairs_.Sent(MessageIdOf(event), AnsweredIdOf(event), from, to, what),
            MessageLabel(what)};
  // A store's answer to a statement it was asked: the statement's outcome.
  if (auto asked = asked_.find({to, from});
      sent.kind.response && RunsAStatement(sent.kind.request) && asked != asked_.end()) {
    const auto answered = std::ranges::find(asked->second, AnsweredIdOf(event), &Asked::id);
    if (answered != asked->second.end()) {
      // Answered without running a statement: refused (a syntax error, an
      // unprepared statement).
      sent.label = answered->ran ? OutcomeLabel(answered->outcome) : "refused";
      asked->second.erase(answered);
    }
  }
  in_flight_[MessageIdOf(event)] = std::move(sent);
}

void DiagramSink::Arrive(const sim::TraceEvent& event, bool dropped) {
  if (dropped) pairs_.Dropped(MessageIdOf(event));
  const auto sent = in_flight_.find(MessageIdOf(event));
  if (sent == in_flight_.end()) return;
  // It arrives (or is dropped) after it was sent, and is drawn so.
  FL_ASSERT(sent->second.seq < seq_ && sent->second.time <= Nanos(event.time));
  const std::string to = HostOf(event.FieldText("to"));
  const std::string what = event.FieldText("what");
  Json message = {{"k", "m"},
                  {"s", sent->second.seq},
                  {"e", seq_++},
                  {"t0", sent->second.time},
                  {"t1", Nanos(event.time)},
                  {"a", sent->second.lane},
                  {"b", LaneOf(to)},
                  {"w", what},
                  {"lbl", sent->second.label}};
  if (dropped) message["drop"] = event.FieldText("reason");
  const MessageKind& kind = sent->second.kind;
  if (kind.store) message["tag"] = "store";
  if (kind.probe) message["tag"] = "probe";
  if (kind.response && !kind.request.empty()) message["re"] = kind.request;
  const bool response = kind.response;  // `kind` goes with the entry, erased below.
  const std::size_t item = items_.size();
  const std::string from = lanes_[sent->second.lane].host;
  in_flight_.erase(sent);
  if (!Add(std::move(message)) || dropped || response || !RunsAStatement(what)) return;
  std::deque<Asked>& asked = asked_[{from, to}];
  if (asked.size() < kMaxAskedPerPair) asked.push_back(Asked{MessageIdOf(event), item});
}

// The store runs what it was asked in the order it arrived from each client
// (each request waits the same statement time, and one refused is answered
// at once, leaving the queue): the oldest delivered request from that
// client without a statement is this one's.
void DiagramSink::Statement(const sim::TraceEvent& event) {
  std::string text = event.FieldText("statement");
  const std::string outcome = event.FieldText("outcome");
  if (auto asked = asked_.find({HostOf(event.FieldText("from")), event.process});
      asked != asked_.end()) {
    const auto waiting = std::ranges::find_if(asked->second, [](const Asked& a) { return !a.ran; });
    if (waiting != asked->second.end()) {
      FL_ASSERT(waiting->item < items_.size());
      Json& message = items_[waiting->item];
      message["lbl"] = StatementLabel(text);
      message["w"] = text;
      waiting->ran = true;
      waiting->outcome = outcome;
    }
  }
  if (const std::string values = event.FieldText("values"); !values.empty()) {
    text += "  with (" + values + ")";
  }
  Mark(event, "cql", text + " -> " + outcome);
}

// A store that ends runs nothing more of what it was asked (a client that
// ends leaves what it asked running).
void DiagramSink::Ended(const std::string& host) {
  for (auto& [pair, asked] : asked_) {
    if (pair.second == host) asked.clear();
  }
}

int DiagramSink::LaneOf(const std::string& host) {
  if (const auto found = lane_ids_.find(host); found != lane_ids_.end()) return found->second;
  const Role role = RoleOf(host, images_);
  const auto compose = compose_order_.find(host);
  // Services in the compose file's order; helpers after them, as they appear.
  const int within = compose != compose_order_.end()
                         ? compose->second
                         : static_cast<int>(compose_order_.size() + lanes_.size());
  const int id = static_cast<int>(lanes_.size());
  lanes_.push_back(Lane{host, std::string(role.name), role.rank * 100'000 + within});
  lane_ids_.emplace(host, id);
  FL_ASSERT(lane_ids_.size() == lanes_.size());  // A lane per host.
  return id;
}

void DiagramSink::Mark(const sim::TraceEvent& event, std::string_view kind, const std::string& text,
                       const std::string& label) {
  if (event.process == "sim" || event.process == "dockerd") return;
  Json mark = {{"k", kind},
               {"s", seq_++},
               {"t", Nanos(event.time)},
               {"l", LaneOf(event.process)},
               {"i", event.incarnation},
               {"w", text}};
  if (!label.empty()) mark["lbl"] = label;
  Add(std::move(mark));
}

bool DiagramSink::Add(Json item) {
  const std::string& kind = item["k"].get_ref<const std::string&>();
  const bool story = kind != "m" && kind != "log" && kind != "cql";
  if (items_.size() >= kMaxDiagramItems + (story ? kMaxMarksPastTheBound : 0)) {
    truncated_ = true;
    return false;
  }
  items_.push_back(std::move(item));
  return true;
}

DiagramSink::Json DiagramSink::Lanes() const {
  Json lanes = Json::array();
  for (const Lane& lane : lanes_) {
    lanes.push_back({{"name", lane.host}, {"role", lane.role}, {"order", lane.order}});
  }
  return lanes;
}

}  // namespace faultline::scenarios
