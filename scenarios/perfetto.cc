#include "scenarios/perfetto.h"

#include <fmt/format.h>

namespace faultline::scenarios {
namespace {

constexpr std::size_t kMaxRecords = 2'000'000;  // A bound: a huge run keeps its start.

std::string Escaped(std::string_view text) {
  const std::string quoted = sim::JsonQuoted(text);
  return quoted.substr(1, quoted.size() - 2);
}

double Micros(const sim::TraceEvent& event) {
  return static_cast<double>(event.time.time_since_epoch().count()) / 1000.0;
}

std::string Field(const sim::TraceEvent& event, std::string_view key) {
  const sim::TraceValue* value = event.Find(key);
  return value == nullptr ? std::string() : value->ToString();
}

}  // namespace

PerfettoSink::Track PerfettoSink::TrackOf(const std::string& process, std::uint32_t incarnation) {
  auto [entry, inserted] = pids_.emplace(process, static_cast<int>(pids_.size()) + 1);
  if (inserted && records_.size() < kMaxRecords) {
    records_.push_back(
        fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"{}"}}}})",
                    entry->second, Escaped(process)));
  }
  return Track{entry->second, static_cast<int>(incarnation) + 1};
}

void PerfettoSink::Instant(const sim::TraceEvent& event, std::string name, bool global) {
  const Track track = TrackOf(event.process, event.incarnation);
  if (records_.size() >= kMaxRecords) return;
  records_.push_back(fmt::format(
      R"({{"name":"{}","ph":"i","s":"{}","pid":{},"tid":{},"ts":{:.3f},"args":{{"event":"{}"}}}})",
      Escaped(name), global ? "g" : "t", track.pid, track.tid, Micros(event), Escaped(event.name)));
}

void PerfettoSink::Write(const sim::TraceEvent& event) {
  last_us_ = Micros(event);
  const Track track = TrackOf(event.process, event.incarnation);
  if (event.name == "process.start") {
    started_[{event.process, event.incarnation}] = last_us_;
    incarnation_[event.process] = event.incarnation;
    return;
  }
  if (event.name == "process.exit" || event.name == "process.kill") {
    auto open = started_.find({event.process, event.incarnation});
    if (open != started_.end() && records_.size() < kMaxRecords) {
      records_.push_back(fmt::format(
          R"({{"name":"incarnation {}","ph":"X","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f}}})",
          event.incarnation, track.pid, track.tid, open->second, last_us_ - open->second));
      started_.erase(open);
    }
    Instant(event, event.name == "process.kill" ? "crash" : "exit " + Field(event, "code"),
            event.name == "process.kill");
    return;
  }
  if (event.name == "net.send" && records_.size() < kMaxRecords) {
    constexpr std::size_t kMaxInFlight = 1'000'000;  // Lost messages never arrive: a bound.
    if (in_flight_.size() < kMaxInFlight) {
      in_flight_[Field(event, "id")] = InFlight{track, last_us_, Field(event, "what")};
    }
    records_.push_back(fmt::format(
        R"({{"name":"{}","cat":"net","ph":"s","id":{},"pid":{},"tid":{},"ts":{:.3f}}})",
        Escaped(Field(event, "what")), Field(event, "id"), track.pid, track.tid, last_us_));
    return;
  }
  if (event.name == "net.deliver" && records_.size() < kMaxRecords) {
    if (auto sent = in_flight_.find(Field(event, "id")); sent != in_flight_.end()) {
      records_.push_back(fmt::format(
          R"({{"name":"{}","cat":"message","ph":"X","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f}}})",
          Escaped(sent->second.what), sent->second.track.pid, sent->second.track.tid,
          sent->second.sent_us, last_us_ - sent->second.sent_us));
      in_flight_.erase(sent);
    }
    const std::string to = Field(event, "to");
    const Track receiver = TrackOf(to, incarnation_.contains(to) ? incarnation_[to] : 0);
    records_.push_back(fmt::format(
        R"({{"name":"{}","cat":"net","ph":"f","bp":"e","id":{},"pid":{},"tid":{},"ts":{:.3f}}})",
        Escaped(Field(event, "what")), Field(event, "id"), receiver.pid, receiver.tid, last_us_));
    return;
  }
  if (event.name == "cql.statement" && records_.size() < kMaxRecords) {
    // A slice: the store spends its statement time (50 us) on each, then
    // records it; migrations show as runs of these on the store's track.
    constexpr double kStatementUs = 50.0;
    records_.push_back(fmt::format(
        R"({{"name":"{}","cat":"cql","ph":"X","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{"keyspace":"{}","outcome":"{}"}}}})",
        Escaped(Field(event, "statement")), track.pid, track.tid, last_us_ - kStatementUs,
        kStatementUs, Escaped(Field(event, "keyspace")), Escaped(Field(event, "outcome"))));
  } else if (event.name == "container.log") {
    Instant(event, Field(event, "line"));
  } else if (event.name == "operator.action") {
    Instant(event, Field(event, "action") + " " + Field(event, "detail") + " -> " +
                       Field(event, "outcome"));
  } else if (event.name == "fault.fire") {
    Instant(event, "fault " + Field(event, "site"), true);
  } else if (event.name == "container.state") {
    Instant(event, Field(event, "service") + " " + Field(event, "state"));
  }
}

std::string PerfettoSink::Json() const {
  std::string out = "{\"traceEvents\":[\n";
  for (std::size_t i = 0; i < records_.size(); ++i) {
    out += records_[i];
    out += i + 1 < records_.size() ? ",\n" : "\n";
  }
  // Lives still open at the end run to the last event.
  std::string tail;
  for (const auto& [key, start] : started_) {
    const auto pid = pids_.find(key.first);
    if (pid == pids_.end()) continue;
    tail += fmt::format(
        R"(,{{"name":"incarnation {}","ph":"X","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f}}})",
        key.second, pid->second, key.second + 1, start, last_us_ - start);
    tail += "\n";
  }
  if (records_.empty() && !tail.empty()) tail.erase(0, 1);
  return out + tail + "],\"displayTimeUnit\":\"ms\"}\n";
}

}  // namespace faultline::scenarios
