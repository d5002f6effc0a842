// The storage node and the S3 proxy: each status code in its documented
// case (../shared/reference/seed-cluster.md), start-up through db-init and
// migrations, and the node's start-up failure.
#include <gtest/gtest.h>

#include "tests/models/gateway_fixture.h"

namespace faultline::models::s3 {
namespace {

using std::chrono::seconds;

TEST(GatewayTest, PutGetHeadDeleteThroughTheProxy) {
  Gateway gateway;
  gateway.Up();
  ASSERT_EQ(gateway.S3("GET", "/healthz").status, 200);
  EXPECT_EQ(gateway.S3("PUT", "/photos/cat.jpg", "meow").status, 200);
  const fakes::Response got = gateway.S3("GET", "/photos/cat.jpg");
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body, "meow");
  EXPECT_EQ(gateway.S3("HEAD", "/photos/cat.jpg").headers.at("Content-Length"), "4");
  EXPECT_EQ(gateway.S3("DELETE", "/photos/cat.jpg").status, 204);
  const fakes::Response missing = gateway.S3("GET", "/photos/cat.jpg");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("<Code>NoSuchKey</Code>"), std::string::npos);
}

TEST(GatewayTest, WritesGoRoundRobinAndEachNodeRecordsItself) {
  Gateway gateway;
  gateway.Up();
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(gateway.S3("PUT", "/b/k" + std::to_string(i), "x").status, 200);
  }
  EXPECT_EQ(gateway.Cql("SELECT key, node_id FROM filecoingw_s3.s3objects WHERE bucket = 'b'"),
            " key | node_id\n-----+---------\n  k0 |  kuri-1\n  k1 |  kuri-2\n  k2 |  kuri-1\n"
            "  k3 |  kuri-2\n\n(4 rows)\n");
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(gateway.S3("GET", "/b/k" + std::to_string(i)).status, 200);
  }
}

TEST(GatewayTest, AFailedLookupIs500AnUnknownOrUnhealthyNodeIs503) {
  Gateway gateway;
  gateway.Up();
  ASSERT_EQ(gateway.S3("PUT", "/b/k", "x").status, 200);
  // node_id names no backend.
  gateway.Cql(
      "UPDATE filecoingw_s3.s3objects SET node_id = 'kuri-9' WHERE bucket = 'b' AND key = 'k'");
  EXPECT_EQ(gateway.S3("GET", "/b/k").status, 503);
  // The backend is known but down (the proxy's probe saw it go).
  gateway.Cql(
      "UPDATE filecoingw_s3.s3objects SET node_id = 'kuri-1' WHERE bucket = 'b' AND key = 'k'");
  gateway.cluster.runtime.Stop("kuri-1");
  gateway.cluster.simulation.RunFor(seconds(12));
  EXPECT_EQ(gateway.S3("GET", "/b/k").status, 503);
  // The lookup itself fails: the stale table without node_id.
  gateway.Cql("DROP TABLE filecoingw_s3.s3objects");
  gateway.Cql(
      "CREATE TABLE filecoingw_s3.s3objects (bucket text, key text, cid text, size bigint, "
      "updated timestamp, PRIMARY KEY (bucket, key))");
  const fakes::Response failed = gateway.S3("GET", "/b/k");
  EXPECT_EQ(failed.status, 500);
  EXPECT_NE(failed.body.find("Undefined Column. Column doesn't exist"), std::string::npos);
}

TEST(GatewayTest, AForwardThatFailsIs502) {
  Gateway gateway;
  gateway.Up();
  ASSERT_EQ(gateway.S3("PUT", "/b/k", "x").status, 200);  // Stored on kuri-1.
  // Killed, and not probed since: the proxy still believes it healthy, and
  // the forwarded request is refused.
  gateway.cluster.runtime.Kill("kuri-1");
  const fakes::Response refused = gateway.S3("GET", "/b/k");
  EXPECT_EQ(refused.status, 502);
  EXPECT_NE(refused.body.find("<Code>BadGateway</Code>"), std::string::npos);
}

TEST(GatewayTest, NoHealthyBackendMeans503ForWritesAndHealth) {
  Gateway gateway;
  gateway.Up();
  gateway.cluster.runtime.Stop("kuri-1");
  gateway.cluster.runtime.Stop("kuri-2");
  gateway.cluster.simulation.RunFor(seconds(12));
  EXPECT_EQ(gateway.S3("GET", "/healthz").status, 503);
  EXPECT_EQ(gateway.S3("PUT", "/b/k", "x").status, 503);
}

TEST(GatewayTest, AnOldNodeImageWritesNoNodeIdAndANewOneFailsOnTheOldTable) {
  Gateway gateway;
  // The buggy db-init creates the old S3Objects first; the proxy's
  // migration then sees the table and does nothing (IF NOT EXISTS).
  gateway.Up(gateway.Spec("v2", "buggy"));
  const fakes::Response put = gateway.S3("PUT", "/b/k", "x");
  EXPECT_EQ(put.status, 500);
  EXPECT_NE(put.body.find("Undefined Column"), std::string::npos) << put.body;
}

TEST(GatewayTest, ADirtyNodeKeyspaceCrashLoopsTheNodeWithTheSeedsLogLine) {
  Gateway gateway;
  gateway.Up();
  gateway.Cql(
      "UPDATE filecoingw_kuri1.schema_migrations SET dirty = true WHERE version = 1754293669");
  gateway.cluster.runtime.Restart("kuri-1");
  gateway.cluster.simulation.RunFor(std::chrono::minutes(10));
  EXPECT_GE(gateway.cluster.runtime.restart_count("kuri-1"), 1);  // Exit 1, restarted.
  const std::vector<std::string> logs = gateway.cluster.runtime.Logs("kuri-1");
  const std::string failure =
      StartupFailureLine("Dirty database version 1754293669. Fix and force version.");
  EXPECT_NE(std::find(logs.begin(), logs.end(), "kuri-1  | " + failure), logs.end());
  // 30 attempts, 2 s doubling to 15 s: 29 sleeps between them.
  std::size_t retries = 0;
  for (const std::string& line : logs) {
    if (line.find("database migration failed (attempt") != std::string::npos) ++retries;
  }
  EXPECT_GE(retries, 29u);
}

}  // namespace
}  // namespace faultline::models::s3
