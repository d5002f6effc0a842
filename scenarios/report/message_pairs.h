// Which request a network response answers, for readers of a trace (the
// timeline, the report). A message's trace event names its sender, its
// receiver and what it is (a request's "PUT /b/k", or "response 200" or
// "RST"), not the request a response answers; the oldest request the other
// way still unanswered is taken for it, which is right for the calls between
// two hosts that follow one another and close enough for a reader when they
// overlap.
#pragma once

#include <cstdint>
#include <deque>
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
  // "kuri-1:7001"; `id` is the trace's id of the message.
  MessageKind Sent(std::uint64_t id, const std::string& from, const std::string& to,
                   const std::string& what);
  // A message dropped on its way: a request that will have no answer.
  void Dropped(std::uint64_t id);
  // `host`'s process ended: what it was asked and had not answered, it never will.
  void Ended(const std::string& host);

 private:
  struct Asked {
    std::uint64_t id;
    MessageKind kind;
  };
  std::set<std::string> stores_;
  std::map<std::pair<std::string, std::string>, std::deque<Asked>> unanswered_;
  // Requests in those queues, and those of them dropped on the way: skipped
  // when a response would take them, so a drop costs no scan of the queues.
  std::set<std::uint64_t> queued_;
  std::set<std::uint64_t> dropped_;
};

// "kuri-1" of "kuri-1:7001".
std::string HostOf(const std::string& endpoint);
// A network event's message id (0 for an event that has none).
std::uint64_t MessageIdOf(const sim::TraceEvent& event);

}  // namespace faultline::scenarios
