// The text timeline a person can read (`faultline run --timeline`): a
// marker line at each step with its narration, one line per network
// message (its send and its delivery folded into one, with the time it
// took), statements with their bound values, and filters by service and by
// kind of event. It is a trace sink: it reads events, it never acts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario.h"
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
};

// The kinds an event may be, in the order `--help` lists them: net, cql,
// log, container, process, migrate, fault, operator, volume, other.
const std::vector<std::string_view>& TimelineKinds();
// The kind of an event named `name` ("net.deliver" is "net",
// "container.log" is "log").
std::string_view TimelineKindOf(std::string_view name);

class ReadableTimeline final : public sim::TraceSink {
 public:
  ReadableTimeline(std::ostream& out, TimelineFilter filter)
      : out_(out), filter_(std::move(filter)) {}

  // A marker before step `index` (from 0) of `scenario` plays; index ==
  // steps.size() marks the liveness phase.
  void MarkStep(const Scenario& scenario, std::size_t index);
  void Write(const sim::TraceEvent& event) override;
  // Says how many messages never arrived, if any; call once at the end.
  void Finish();

 private:
  bool Shows(const sim::TraceEvent& event) const;
  void Line(const sim::TraceEvent& event, std::string_view who, const std::string& text);

  std::ostream& out_;
  TimelineFilter filter_;
  // Messages sent and not yet delivered or dropped: their send time, by id.
  std::map<std::uint64_t, sim::TimePoint> in_flight_;
};

}  // namespace faultline::scenarios
