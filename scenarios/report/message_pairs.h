// Which request a network response answers, for readers of a trace (the
// timeline, the report). A response's net.send names the request it
// answers (its "re", the request's message id), so the pairs are exact
// however requests overlap; an event without it (a trace of an older
// build) is left unpaired.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "sim/trace.h"

namespace faultline::scenarios {

struct MessageKind {
  std::string request;  // The request it is or answers ("GET /healthz"); empty when unknown.
  bool response = false;
  bool store = false;  // To or from the metadata store.
  bool probe = false;  // A health probe, or its answer.
};

class MessagePairs {
 public:
  explicit MessagePairs(std::set<std::string> stores) : stores_(std::move(stores)) {}

  // For each message sent, in the trace's order: hosts as "kuri-1" or
  // "kuri-1:7001"; `id` is the trace's id of the message, `answers` the id
  // of the request it answers (0 for a request).
  MessageKind Sent(std::uint64_t id, std::uint64_t answers, const std::string& from,
                   const std::string& to, const std::string& what);
  // A request dropped on its way: it will have no answer.
  void Dropped(std::uint64_t id);

 private:
  std::set<std::string> stores_;
  std::map<std::uint64_t, MessageKind> unanswered_;  // Requests, by id.
};

// "kuri-1" of "kuri-1:7001".
std::string HostOf(const std::string& endpoint);
// A network event's message id (0 for an event that has none).
std::uint64_t MessageIdOf(const sim::TraceEvent& event);
// The id of the request a response's net.send answers (0 for a request).
std::uint64_t AnsweredIdOf(const sim::TraceEvent& event);

}  // namespace faultline::scenarios
