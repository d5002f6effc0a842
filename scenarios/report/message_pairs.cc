#include "scenarios/report/message_pairs.h"

#include "sim/assert.h"

namespace faultline::scenarios {

std::string HostOf(const std::string& endpoint) { return endpoint.substr(0, endpoint.find(':')); }

std::uint64_t MessageIdOf(const sim::TraceEvent& event) {
  const sim::TraceValue* id = event.Find("id");
  return id == nullptr ? 0 : id->AsUint();
}

MessageKind MessagePairs::Sent(std::uint64_t id, const std::string& from_endpoint,
                               const std::string& to_endpoint, const std::string& what) {
  const std::string from = HostOf(from_endpoint);
  const std::string to = HostOf(to_endpoint);
  if (what.starts_with("response") || what == "RST") {
    std::deque<Asked>& asked = unanswered_[{to, from}];
    MessageKind answer;
    while (!asked.empty()) {  // Bounded: each pass removes an entry.
      Asked oldest = std::move(asked.front());
      asked.pop_front();
      queued_.erase(oldest.id);
      if (dropped_.erase(oldest.id) > 0) continue;  // It never arrived: not this one's.
      FL_ASSERT(!oldest.kind.response);             // Only requests wait for an answer.
      answer = std::move(oldest.kind);
      break;
    }
    answer.response = true;
    return answer;
  }
  const MessageKind request{what, false, stores_.contains(from) || stores_.contains(to),
                            what.find("/healthz") != std::string::npos};
  constexpr std::size_t kMaxUnanswered = 10'000;  // Per pair of hosts: far past any run's.
  std::deque<Asked>& asked = unanswered_[{from, to}];
  // Full: make room by the requests dropped on the way, oldest first.
  while (asked.size() >= kMaxUnanswered && dropped_.contains(asked.front().id)) {
    dropped_.erase(asked.front().id);
    queued_.erase(asked.front().id);
    asked.pop_front();
  }
  if (asked.size() < kMaxUnanswered) {
    asked.push_back(Asked{id, request});
    queued_.insert(id);
  }
  FL_ASSERT(dropped_.size() <= queued_.size());  // Only a queued request is dropped.
  return request;
}

void MessagePairs::Dropped(std::uint64_t id) {
  if (queued_.contains(id)) dropped_.insert(id);
}

void MessagePairs::Ended(const std::string& host) {
  for (auto& [pair, asked] : unanswered_) {
    if (pair.second != host) continue;
    for (const Asked& request : asked) {
      queued_.erase(request.id);
      dropped_.erase(request.id);
    }
    asked.clear();
  }
  FL_ASSERT(dropped_.size() <= queued_.size());
}

}  // namespace faultline::scenarios
