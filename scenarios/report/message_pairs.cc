#include "scenarios/report/message_pairs.h"

#include "sim/assert.h"

namespace faultline::scenarios {

std::string HostOf(const std::string& endpoint) { return endpoint.substr(0, endpoint.find(':')); }

std::uint64_t MessageIdOf(const sim::TraceEvent& event) {
  const sim::TraceValue* id = event.Find("id");
  return id == nullptr ? 0 : id->AsUint();
}

std::uint64_t AnsweredIdOf(const sim::TraceEvent& event) {
  const sim::TraceValue* re = event.Find("re");
  return re == nullptr ? 0 : re->AsUint();
}

MessageKind MessagePairs::Sent(std::uint64_t id, std::uint64_t answers,
                               const std::string& from_endpoint, const std::string& to_endpoint,
                               const std::string& what) {
  const std::string from = HostOf(from_endpoint);
  const std::string to = HostOf(to_endpoint);
  const bool store = stores_.contains(from) || stores_.contains(to);
  if (what.starts_with("response") || what == "RST") {
    MessageKind answer{.response = true, .store = store};
    // A duplicate's second answer, or one to a request past the bound, is unpaired.
    if (const auto asked = unanswered_.find(answers); asked != unanswered_.end()) {
      FL_ASSERT(!asked->second.response);  // Only requests wait for an answer.
      answer = std::move(asked->second);
      answer.response = true;
      unanswered_.erase(asked);
    }
    return answer;
  }
  const MessageKind request{what, false, store, what.find("/healthz") != std::string::npos};
  // A request a crash abandoned is never answered: past the bound, the
  // oldest waiting (ids grow) is taken for one and forgotten.
  constexpr std::size_t kMaxUnanswered = 100'000;
  if (unanswered_.size() >= kMaxUnanswered) unanswered_.erase(unanswered_.begin());
  unanswered_.emplace(id, request);
  FL_ASSERT(unanswered_.size() <= kMaxUnanswered);
  return request;
}

void MessagePairs::Dropped(std::uint64_t id) { unanswered_.erase(id); }

}  // namespace faultline::scenarios
