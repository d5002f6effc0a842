// The text timeline a person can read (`faultline run --timeline`): a
// marker line at each step with its narration, one line per network
// message (its send and its delivery folded into one, a response with the
// request it answers, with the time it took), statements with their bound
// values and the host that sent them, and filters by service, by kind of
// event and for health probes. It is a trace sink: it reads events, it
// never acts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/core/scenario.h"
#include "scenarios/report/message_pairs.h"
#include "sim/trace.h"

namespace faultline::scenarios {

// What the timeline shows.
struct TimelineFilter {
  // Services (or hosts: "client", "dockerd") whose events to show: the
  // emitting process, or a message's sender or receiver, or the service an
  // event is about. Empty: every one.
  std::set<std::string> services;
  // Kinds to show (TimelineKinds()); empty: every one.
  std::set<std::string> kinds;
  // Health probes and their answers, hidden unless asked for: they are
  // half of a long run's messages and tell little.
  bool probes = false;
};

// The kinds an event may be, in the order `--help` lists them: net, cql,
// log, container, process, migrate, fault, operator, volume, other.
const std::vector<std::string_view>& TimelineKinds();
// The kind of an event named `name` ("net.deliver" is "net",
// "container.log" is "log").
std::string_view TimelineKindOf(std::string_view name);

class ReadableTimeline final : public sim::TraceSink {
 public:
  // The timeline of a run of `scenario`, which must outlive it.
  ReadableTimeline(std::ostream& out, const Scenario& scenario, TimelineFilter filter);

  // A marker before step `index` (from 0) plays; index == steps.size()
  // marks the liveness phase.
  void MarkStep(std::size_t index);
  // The run is over: what its teardown emits (every process killed) is no
  // part of the story. Call it from RunOptions::observe after the liveness
  // phase.
  void Close() { closed_ = true; }
  void Write(const sim::TraceEvent& event) override;
  // Says how many messages never arrived, if any; call once at the end.
  void Finish();

 private:
  struct InFlight {
    sim::TimePoint sent;
    std::size_t step;  // The step it was sent in, from 1 (0: before the first).
    MessageKind kind;
  };
  bool Shows(const sim::TraceEvent& event) const;
  void Line(const sim::TraceEvent& event, std::string_view who, const std::string& text);
  void Message(const sim::TraceEvent& event, bool arrived);

  std::ostream& out_;
  const Scenario& scenario_;
  TimelineFilter filter_;
  MessagePairs pairs_;
  std::size_t step_ = 0;  // The step playing now, from 1.
  bool closed_ = false;
  std::map<std::uint64_t, InFlight> in_flight_;  // Sent, not yet delivered or dropped, by id.
};

}  // namespace faultline::scenarios
