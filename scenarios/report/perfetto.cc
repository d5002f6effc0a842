#include "scenarios/report/perfetto.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

constexpr std::size_t kMaxRecords = 2'000'000;   // A bound: a huge run keeps its start.
constexpr std::size_t kMaxInFlight = 1'000'000;  // Lost messages never arrive: a bound.
constexpr double kStatementUs = 50.0;            // The store's statement time.

std::string Escaped(std::string_view text) {
  const std::string quoted = sim::JsonQuoted(text);
  return quoted.substr(1, quoted.size() - 2);
}

double Micros(const sim::TraceEvent& event) {
  return static_cast<double>(event.time.time_since_epoch().count()) / 1000.0;
}

// "ycqlsh#7": a helper of the run, grouped under "ycqlsh" as track 7.
// Anything else is a service, one track per incarnation.
struct Placement {
  std::string group;
  int tid = 0;
  std::string track_name;
};

Placement Place(const std::string& process, std::uint32_t incarnation) {
  const std::size_t hash = process.rfind('#');
  int number = 0;
  if (hash != std::string::npos && hash > 0) {
    const char* begin = process.data() + hash + 1;
    const char* end = process.data() + process.size();
    const auto [at, error] = std::from_chars(begin, end, number);
    if (error == std::errc() && at == end && number > 0) {
      return Placement{process.substr(0, hash), number, process};
    }
  }
  FL_ASSERT(incarnation < static_cast<std::uint32_t>(std::numeric_limits<int>::max()));  // A tid.
  return Placement{process, static_cast<int>(incarnation) + 1,
                   fmt::format("incarnation {}", incarnation)};
}

}  // namespace

void PerfettoSink::Add(std::string record) {
  if (records_.size() < kMaxRecords) records_.push_back(std::move(record));
}

PerfettoSink::Track PerfettoSink::TrackOf(const std::string& process, std::uint32_t incarnation) {
  const Placement place = Place(process, incarnation);
  auto [entry, inserted] = pids_.emplace(place.group, static_cast<int>(pids_.size()) + 1);
  if (inserted) {
    Add(fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"{}"}}}})",
                    entry->second, Escaped(place.group)));
  }
  const Track track{entry->second, place.tid};
  FL_ASSERT(track.pid >= 1 && static_cast<std::size_t>(track.pid) <= pids_.size() &&
            track.tid >= 1);
  if (named_tracks_.insert(track).second) {
    Add(fmt::format(R"({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"{}"}}}})",
                    track.pid, track.tid, Escaped(place.track_name)));
  }
  return track;
}

bool PerfettoSink::Alive(const std::string& process, std::uint32_t incarnation) const {
  return started_.contains({process, incarnation});
}

void PerfettoSink::Instant(const sim::TraceEvent& event, std::string name, bool global) {
  const Track track = TrackOf(event.process, event.incarnation);
  Add(fmt::format(
      R"({{"name":"{}","ph":"i","s":"{}","pid":{},"tid":{},"ts":{:.3f},"args":{{"event":"{}"}}}})",
      Escaped(name), global ? "g" : "t", track.pid, track.tid, Micros(event), Escaped(event.name)));
}

// An incarnation ends: migrations it left open end with it (cut short by a
// crash), then its life's slice, then the exit or crash itself.
void PerfettoSink::EndLife(const sim::TraceEvent& event, const Track& track) {
  FL_ASSERT(event.name == "process.exit" || event.name == "process.kill");
  if (auto open = open_migrations_.find(track); open != open_migrations_.end()) {
    for (int i = 0; i < open->second; ++i) {
      Add(fmt::format(R"({{"ph":"E","pid":{},"tid":{},"ts":{:.3f},"args":{{"outcome":"{}"}}}})",
                      track.pid, track.tid, last_us_,
                      event.name == "process.kill" ? "cut short by a crash" : "cut short"));
    }
    open_migrations_.erase(open);
  }
  auto life = started_.find({event.process, event.incarnation});
  if (life != started_.end()) {
    FL_ASSERT(life->second <= last_us_);  // A life ends after it starts.
    Add(fmt::format(
        R"({{"name":"{} incarnation {}","ph":"X","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f}}})",
        Escaped(event.process), event.incarnation, track.pid, track.tid, life->second,
        last_us_ - life->second));
    started_.erase(life);
  }
  Instant(event, event.name == "process.kill" ? "crash" : "exit " + event.FieldText("code"),
          event.name == "process.kill");
}

// A message arrives: its time in flight as an async slice under the sender,
// and an arrow from the sender's track to the receiver's when both lived.
void PerfettoSink::Deliver(const sim::TraceEvent& event) {
  const std::string id = event.FieldText("id");
  auto sent = in_flight_.find(id);
  if (sent == in_flight_.end()) return;
  const InFlight& message = sent->second;
  FL_ASSERT(message.sent_us <= last_us_);  // Its slice ends after it begins.
  const std::string what = Escaped(message.what);
  Add(fmt::format(
      R"({{"name":"{}","cat":"message","ph":"b","id":"m{}","pid":{},"tid":{},"ts":{:.3f}}})", what,
      id, message.sender.pid, message.sender.tid, message.sent_us));
  Add(fmt::format(
      R"({{"name":"{}","cat":"message","ph":"e","id":"m{}","pid":{},"tid":{},"ts":{:.3f}}})", what,
      id, message.sender.pid, message.sender.tid, last_us_));
  const std::string to = event.FieldText("to");
  auto latest = incarnation_.find(to);
  if (message.sender_alive && latest != incarnation_.end() && Alive(to, latest->second)) {
    const Track receiver = TrackOf(to, latest->second);
    Add(fmt::format(R"({{"name":"{}","cat":"net","ph":"s","id":{},"pid":{},"tid":{},"ts":{:.3f}}})",
                    what, id, message.sender.pid, message.sender.tid, message.sent_us));
    Add(fmt::format(
        R"({{"name":"{}","cat":"net","ph":"f","bp":"e","id":{},"pid":{},"tid":{},"ts":{:.3f}}})",
        what, id, receiver.pid, receiver.tid, last_us_));
  }
  in_flight_.erase(sent);
}

// The store runs statements one at a time, each after its statement time:
// a slice each, cut so that they follow one another on the store's track.
void PerfettoSink::Statement(const sim::TraceEvent& event, const Track& track) {
  double& previous_end = last_statement_[track];
  const double start = std::max(last_us_ - kStatementUs, previous_end);
  FL_ASSERT(start <= last_us_);  // Slices follow one another: the last ended no later than now.
  previous_end = last_us_;
  Add(fmt::format(
      R"({{"name":"{}","cat":"cql","ph":"X","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{"keyspace":"{}","outcome":"{}"}}}})",
      Escaped(event.FieldText("statement")), track.pid, track.tid, start, last_us_ - start,
      Escaped(event.FieldText("keyspace")), Escaped(event.FieldText("outcome"))));
}

void PerfettoSink::Write(const sim::TraceEvent& event) {
  FL_ASSERT(Micros(event) >= last_us_);  // Virtual time never goes back.
  last_us_ = Micros(event);
  const Track track = TrackOf(event.process, event.incarnation);
  if (event.name == "process.start") {
    started_[{event.process, event.incarnation}] = last_us_;
    incarnation_[event.process] = event.incarnation;
  } else if (event.name == "process.exit" || event.name == "process.kill") {
    EndLife(event, track);
  } else if (event.name == "net.send") {
    if (in_flight_.size() < kMaxInFlight) {
      in_flight_[event.FieldText("id")] = InFlight{track, Alive(event.process, event.incarnation),
                                                   last_us_, event.FieldText("what")};
    }
  } else if (event.name == "net.deliver") {
    Deliver(event);
  } else if (event.name == "net.drop") {
    in_flight_.erase(event.FieldText("id"));  // It will never arrive.
  } else if (event.name == "cql.statement") {
    Statement(event, track);
  } else if (event.name == "migrate.begin") {
    if (records_.size() >= kMaxRecords) return;  // No B stored, so no E either.
    ++open_migrations_[track];
    Add(fmt::format(
        R"({{"name":"migrate {} {}","cat":"migration","ph":"B","pid":{},"tid":{},"ts":{:.3f},"args":{{"runner":"{}","keyspace":"{}","version":{}}}}})",
        Escaped(event.FieldText("keyspace")), Escaped(event.FieldText("file")), track.pid,
        track.tid, last_us_, Escaped(event.FieldText("runner")),
        Escaped(event.FieldText("keyspace")), event.FieldText("version")));
  } else if (event.name == "migrate.end") {
    auto open = open_migrations_.find(track);
    if (open == open_migrations_.end()) return;
    FL_ASSERT(open->second > 0);  // A track with none open has no entry.
    Add(fmt::format(R"({{"ph":"E","pid":{},"tid":{},"ts":{:.3f},"args":{{"outcome":"{}"}}}})",
                    track.pid, track.tid, last_us_, Escaped(event.FieldText("outcome"))));
    if (--open->second == 0) open_migrations_.erase(open);
  } else if (event.name == "container.log") {
    Instant(event, event.FieldText("line"));
  } else if (event.name == "operator.action") {
    Instant(event, event.FieldText("action") + " " + event.FieldText("detail") + " -> " +
                       event.FieldText("outcome"));
  } else if (event.name == "fault.fire") {
    Instant(event, "fault " + event.FieldText("site"), true);
  } else if (event.name == "container.state") {
    Instant(event, event.FieldText("service") + " " + event.FieldText("state"));
  }
}

std::string PerfettoSink::Json() const {
  std::string out = "{\"traceEvents\":[\n";
  for (std::size_t i = 0; i < records_.size(); ++i) {
    out += records_[i];
    out += i + 1 < records_.size() ? ",\n" : "\n";
  }
  // What is still open at the end runs to the last event: migrations, then
  // the lives that enclose them.
  std::string tail;
  for (const auto& [track, count] : open_migrations_) {
    FL_ASSERT(count > 0);
    for (int i = 0; i < count; ++i) {
      tail += fmt::format(R"(,{{"ph":"E","pid":{},"tid":{},"ts":{:.3f}}})", track.pid, track.tid,
                          last_us_);
      tail += "\n";
    }
  }
  for (const auto& [key, start] : started_) {
    const Placement place = Place(key.first, key.second);
    const auto pid = pids_.find(place.group);
    if (pid == pids_.end()) continue;
    FL_ASSERT(start <= last_us_);
    tail += fmt::format(
        R"(,{{"name":"{} incarnation {}","ph":"X","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f}}})",
        Escaped(key.first), key.second, pid->second, place.tid, start, last_us_ - start);
    tail += "\n";
  }
  if (records_.empty() && !tail.empty()) tail.erase(0, 1);
  return out + tail + "],\"displayTimeUnit\":\"ms\"}\n";
}

}  // namespace faultline::scenarios
