// What the report's message diagram needs of a run's trace, read as it is
// emitted: a lane per host (each service, each of the runner's helper
// hosts), messages from one lane to another with a short label, and marks
// on a lane (a process's starts, crashes and exits: its incarnations;
// faults, log lines, statements), each at a sequence number that orders it
// among the others. It only reads the trace.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "scenarios/core/topology.h"
#include "scenarios/report/message_pairs.h"
#include "sim/trace.h"

namespace faultline::scenarios {

class DiagramSink final : public sim::TraceSink {
 public:
  using Json = nlohmann::ordered_json;

  // `services` in the compose file's order, which orders the lanes of each
  // role (clients, the proxy, the nodes, the store, the jobs).
  explicit DiagramSink(const std::vector<ServiceImage>& services);

  void MarkStep(std::size_t step);
  // The run is over: what its teardown emits is no part of it.
  void Close() { closed_ = true; }

  void Write(const sim::TraceEvent& event) override;

  Json TakeItems() { return std::move(items_); }
  Json Lanes() const;
  Json Logs() const { return Json(logs_); }
  bool truncated() const { return truncated_; }

 private:
  struct Sent {
    std::uint64_t seq;
    std::int64_t time;
    int lane;
    MessageKind kind;   // What it is: the page can hide the store's traffic and probes.
    std::string label;  // Written on its arrow.
  };
  struct Lane {
    std::string host;
    std::string role;
    int order;  // Where the page puts it, left to right.
  };
  // A QUERY or EXECUTE delivered to a store, waiting for the statement it
  // runs (which labels its arrow) and for its answer (labelled with the
  // statement's outcome, or as refused when it ran none).
  struct Asked {
    std::uint64_t id;  // Its message id, which the answer names.
    std::size_t item;  // Its index in items_.
    bool ran = false;
    std::string outcome;
  };
  using HostPair = std::pair<std::string, std::string>;  // Client, store.

  void Send(const sim::TraceEvent& event);
  void Arrive(const sim::TraceEvent& event, bool dropped);
  void Statement(const sim::TraceEvent& event);
  void Ended(const std::string& host);
  int LaneOf(const std::string& host);
  // `label`, when given, is written beside the mark (else only its tooltip).
  void Mark(const sim::TraceEvent& event, std::string_view kind, const std::string& text,
            const std::string& label = "");
  bool Add(Json item);  // False when the page's bound is reached.

  std::map<std::string, std::string> images_;  // Service -> image.
  std::map<std::string, int> compose_order_;
  MessagePairs pairs_;
  std::map<std::string, int> lane_ids_;
  std::vector<Lane> lanes_;
  std::map<std::uint64_t, Sent> in_flight_;
  std::map<HostPair, std::deque<Asked>> asked_;
  std::map<std::string, std::vector<Json>> logs_;
  std::size_t log_lines_ = 0;
  Json items_ = Json::array();
  std::uint64_t seq_ = 0;
  std::int64_t last_time_ = 0;  // Of the last event: where a step's line goes.
  bool truncated_ = false;
  bool closed_ = false;
};

}  // namespace faultline::scenarios
