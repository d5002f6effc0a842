#include "scenarios/message_pairs.h"

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
    if (!asked.empty()) {
      answer = std::move(asked.front().kind);
      asked.pop_front();
    }
    answer.response = true;
    return answer;
  }
  const MessageKind request{what, false, stores_.contains(from) || stores_.contains(to),
                            what.find("/healthz") != std::string::npos};
  constexpr std::size_t kMaxUnanswered = 10'000;  // Per pair of hosts: far past any run's.
  std::deque<Asked>& asked = unanswered_[{from, to}];
  if (asked.size() < kMaxUnanswered) asked.push_back(Asked{id, request});
  return request;
}

void MessagePairs::Dropped(std::uint64_t id) {
  for (auto& [pair, asked] : unanswered_) {
    for (auto it = asked.begin(); it != asked.end(); ++it) {
      if (it->id == id) {
        asked.erase(it);
        return;
      }
    }
  }
}

void MessagePairs::Ended(const std::string& host) {
  for (auto& [pair, asked] : unanswered_) {
    if (pair.second == host) asked.clear();
  }
}

}  // namespace faultline::scenarios
