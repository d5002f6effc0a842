// MessagePairs: which request a response answers, as the timeline and the
// report read the trace.
#include "scenarios/report/message_pairs.h"

#include <gtest/gtest.h>

namespace faultline::scenarios {
namespace {

TEST(MessagePairsTest, AResponseAnswersTheOldestRequestTheOtherWay) {
  MessagePairs pairs({"yugabyte"});
  EXPECT_FALSE(pairs.Sent(1, "client", "s3-proxy:8078", "PUT /b/k").response);
  const MessageKind probe = pairs.Sent(2, "s3-proxy", "kuri-1:7001", "GET /healthz");
  EXPECT_TRUE(probe.probe);
  EXPECT_TRUE(pairs.Sent(3, "kuri-1", "yugabyte:9042", "QUERY /cql").store);
  const MessageKind probe_answer = pairs.Sent(4, "kuri-1", "s3-proxy", "response 200");
  EXPECT_TRUE(probe_answer.response);
  EXPECT_TRUE(probe_answer.probe);
  EXPECT_EQ(probe_answer.request, "GET /healthz");
  const MessageKind stored = pairs.Sent(5, "yugabyte", "kuri-1", "response 200");
  EXPECT_TRUE(stored.store);
  const MessageKind put = pairs.Sent(6, "s3-proxy", "client", "RST");
  EXPECT_EQ(put.request, "PUT /b/k");  // An RST answers too.
  EXPECT_TRUE(pairs.Sent(7, "s3-proxy", "client", "response 200").request.empty());
}

TEST(MessagePairsTest, ADroppedRequestOrAnEndedServerShiftsNoLaterPair) {
  MessagePairs pairs({});
  pairs.Sent(1, "s3-proxy", "kuri-1:7001", "GET /healthz");
  pairs.Sent(2, "s3-proxy", "kuri-1:7001", "GET /b/k");
  pairs.Dropped(1);  // The probe never arrived: the answer is the GET's.
  EXPECT_EQ(pairs.Sent(3, "kuri-1", "s3-proxy", "response 200").request, "GET /b/k");
  pairs.Sent(4, "s3-proxy", "kuri-1:7001", "PUT /b/k");
  pairs.Ended("kuri-1");  // It crashed: the PUT is never answered.
  pairs.Sent(5, "s3-proxy", "kuri-1:7001", "GET /healthz");
  EXPECT_EQ(pairs.Sent(6, "kuri-1", "s3-proxy", "response 200").request, "GET /healthz");
  pairs.Dropped(3);  // A response dropped: nothing to take back.
  EXPECT_EQ(HostOf("kuri-1:7001"), "kuri-1");
}

}  // namespace
}  // namespace faultline::scenarios
