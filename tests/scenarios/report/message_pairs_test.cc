// MessagePairs: which request a response answers, as the timeline and the
// report read the trace: by the request's id the response names.
#include "scenarios/report/message_pairs.h"

#include <gtest/gtest.h>

#include "scenarios/catalogue/catalogue.h"
#include "scenarios/harness/runner.h"

namespace faultline::scenarios {
namespace {

TEST(MessagePairsTest, AResponseAnswersTheRequestItNames) {
  MessagePairs pairs({"yugabyte"});
  EXPECT_FALSE(pairs.Sent(1, 0, "client", "s3-proxy:8078", "PUT /b/k").response);
  const MessageKind probe = pairs.Sent(2, 0, "s3-proxy", "kuri-1:7001", "GET /healthz");
  EXPECT_TRUE(probe.probe);
  EXPECT_TRUE(pairs.Sent(3, 0, "kuri-1", "yugabyte:9042", "QUERY /cql").store);
  const MessageKind probe_answer = pairs.Sent(4, 2, "kuri-1", "s3-proxy", "response 200");
  EXPECT_TRUE(probe_answer.response);
  EXPECT_TRUE(probe_answer.probe);
  EXPECT_EQ(probe_answer.request, "GET /healthz");
  const MessageKind stored = pairs.Sent(5, 3, "yugabyte", "kuri-1", "response 200");
  EXPECT_TRUE(stored.store);
  const MessageKind put = pairs.Sent(6, 1, "s3-proxy", "client", "RST");
  EXPECT_EQ(put.request, "PUT /b/k");  // An RST answers too.
  // A second answer (a duplicate) or one naming no request is unpaired.
  EXPECT_TRUE(pairs.Sent(7, 1, "s3-proxy", "client", "response 200").request.empty());
  EXPECT_TRUE(pairs.Sent(8, 0, "s3-proxy", "client", "response 200").request.empty());
}

// The case the oldest-unanswered rule got wrong: a probe overtakes a slow
// DELETE between the same two hosts; each answer is still its own request's.
TEST(MessagePairsTest, AnswersThatOvertakeEachOtherStayWithTheirRequests) {
  MessagePairs pairs({});
  pairs.Sent(1, 0, "s3-proxy", "kuri-1:7001", "DELETE /b/k");
  pairs.Sent(2, 0, "s3-proxy", "kuri-1:7001", "GET /healthz");
  const MessageKind probe_answer = pairs.Sent(3, 2, "kuri-1", "s3-proxy", "response 200");
  EXPECT_EQ(probe_answer.request, "GET /healthz");
  EXPECT_TRUE(probe_answer.probe);
  const MessageKind delete_answer = pairs.Sent(4, 1, "kuri-1", "s3-proxy", "response 500");
  EXPECT_EQ(delete_answer.request, "DELETE /b/k");
  EXPECT_FALSE(delete_answer.probe);
  pairs.Sent(5, 0, "s3-proxy", "kuri-1:7001", "GET /b/k");
  pairs.Dropped(5);  // Never arrived: nothing answers it.
  EXPECT_TRUE(pairs.Sent(6, 5, "kuri-1", "s3-proxy", "RST").request.empty());
  EXPECT_EQ(HostOf("kuri-1:7001"), "kuri-1");
}

// Every response of a run names a request that was sent before it, between
// the same two hosts the other way.
TEST(MessagePairsTest, EveryResponseInARunNamesItsRequest) {
  struct Sink : sim::TraceSink {
    std::map<std::uint64_t, std::pair<std::string, std::string>> requests;  // id -> from, to
    int responses = 0;
    void Write(const sim::TraceEvent& event) override {
      if (event.name != "net.send") return;
      const std::string what = event.FieldText("what");
      const std::string from = HostOf(event.FieldText("from"));
      const std::string to = HostOf(event.FieldText("to"));
      if (!what.starts_with("response") && what != "RST") {
        requests[MessageIdOf(event)] = {from, to};
        return;
      }
      ++responses;
      const auto asked = requests.find(AnsweredIdOf(event));
      ASSERT_NE(asked, requests.end()) << "answers nothing sent: " << what;
      EXPECT_EQ(asked->second, std::pair(to, from));
    }
  } sink;
  RunScenario(*FindScenario("delete-during-partition"), {.seed = 3, .sinks = {&sink}});
  EXPECT_GT(sink.responses, 50);
}

}  // namespace
}  // namespace faultline::scenarios
