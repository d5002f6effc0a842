// A trace sink that writes Chrome Trace Event JSON, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open:
// - one process per service, one named track (thread) per container
//   incarnation, with a slice for the incarnation's life; the short-lived
//   helpers of a run (the operator's ycqlsh and migrate, S3 clients, health
//   probes, checkers) are named "ycqlsh#7" and grouped under "ycqlsh";
// - on an incarnation's track, a slice per migration file (begun, ended or
//   cut short by a crash) and, on the store's, a slice per CQL statement;
// - per message, an async slice for its time in flight under the sender,
//   and a flow arrow from the sender's track to the receiver's when both
//   were alive;
// - instant events for log lines, operator actions, state changes, faults
//   and crashes.
// Slices on one track nest (Perfetto needs that): lives enclose migrations,
// and statements are cut to follow one another.
#pragma once

#include <map>
#include <set>
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
    friend auto operator<=>(const Track&, const Track&) = default;
  };
  struct InFlight {
    Track sender;
    bool sender_alive = false;
    double sent_us = 0;
    std::string what;
  };

  Track TrackOf(const std::string& process, std::uint32_t incarnation);
  bool Alive(const std::string& process, std::uint32_t incarnation) const;
  void Add(std::string record);
  void Instant(const sim::TraceEvent& event, std::string name, bool global = false);
  void EndLife(const sim::TraceEvent& event, const Track& track);
  void Deliver(const sim::TraceEvent& event);
  void Statement(const sim::TraceEvent& event, const Track& track);

  std::map<std::string, int> pids_;  // By group name, in order of first appearance.
  std::set<Track> named_tracks_;
  std::map<std::pair<std::string, std::uint32_t>, double> started_;  // Open lives, by start (us).
  std::map<std::string, std::uint32_t> incarnation_;                 // Latest, per process.
  std::map<Track, int> open_migrations_;       // Begun and not ended, per track.
  std::map<Track, double> last_statement_;     // Where the last statement slice ended.
  std::map<std::string, InFlight> in_flight_;  // Messages sent, by id, until delivered.
  std::vector<std::string> records_;
  double last_us_ = 0;
};

}  // namespace faultline::scenarios
