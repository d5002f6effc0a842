// A trace sink that writes Chrome Trace Event JSON, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open: one process per simulated
// service and one track per incarnation, a slice for each incarnation's
// life, a slice for each CQL statement the store runs (migration steps
// among them), a slice on the sender's track for each message in flight
// (requests and responses), flow arrows from its send to its delivery, and
// instant events for log lines, operator actions, faults and crashes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/trace.h"

namespace faultline::scenarios {

class PerfettoSink final : public sim::TraceSink {
 public:
  void Write(const sim::TraceEvent& event) override;
  // The whole trace as one JSON document.
  std::string Json() const;

 private:
  struct Track {
    int pid = 0;
    int tid = 0;
  };
  Track TrackOf(const std::string& process, std::uint32_t incarnation);
  void Instant(const sim::TraceEvent& event, std::string name, bool global = false);

  std::map<std::string, int> pids_;  // In order of first appearance: deterministic.
  std::map<std::pair<std::string, std::uint32_t>, double> started_;  // Open lives, by start (us).
  std::map<std::string, std::uint32_t> incarnation_;                 // Latest, per process.
  struct InFlight {
    Track track;
    double sent_us = 0;
    std::string what;
  };
  std::map<std::string, InFlight> in_flight_;  // Messages sent, by id, until delivered.
  std::vector<std::string> records_;
  double last_us_ = 0;
};

}  // namespace faultline::scenarios
