// The storage node and the S3 proxy: each status code in its documented
// case (../shared/reference/seed-cluster.md), start-up through db-init and
// migrations, and the node's start-up failure.
#include <gtest/gtest.h>

#include "models/s3/multipart.h"
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
  EXPECT_TRUE(std::any_of(logs.begin(), logs.end(), [](const std::string& line) {
    return line.starts_with("kuri-1  | ERROR core core/builder.go:158 constructing the node:") &&
           line.ends_with(
               "failed to build iface.S3ObjectIndex: could not build arguments for "
               "function \"ribsplugin/s3\".NewS3ObjectIndex: failed to build "
               "*db.Migrated: initialize yugabyte cql after 30 attempts: run cql "
               "migrations: Dirty database version 1754293669. Fix and force version.");
  }));
  // retryCQLStartup (filecoin-gateway db/cql) writes no line per attempt:
  // the 30 attempts, 2 s doubling to 15 s, are silent.
  EXPECT_FALSE(std::any_of(logs.begin(), logs.end(), [](const std::string& line) {
    return line.find("attempt ") != std::string::npos &&
           line.find("after 30 attempts") == std::string::npos;
  }));
}

// With the store gone, the chain ends at the session instead.
TEST(GatewayTest, AnUnreachableStoreIsNamedAsTheBrokenLink) {
  Gateway gateway;
  gateway.Up();
  gateway.cluster.runtime.Stop("yugabyte");
  gateway.cluster.simulation.RunFor(seconds(12));
  gateway.cluster.runtime.Restart("kuri-1");
  gateway.cluster.simulation.RunFor(std::chrono::minutes(10));
  const std::vector<std::string> logs = gateway.cluster.runtime.Logs("kuri-1");
  EXPECT_TRUE(std::any_of(logs.begin(), logs.end(), [](const std::string& line) {
    return line.find("NewS3ObjectIndex: failed to build *gocql.Session: ") != std::string::npos;
  }));
  // As the gateway wraps gocql's CreateSession error (session.go: "unable to
  // create session", "unable to discover protocol version").
  EXPECT_TRUE(std::any_of(logs.begin(), logs.end(), [](const std::string& line) {
    return line.ends_with(
        "initialize yugabyte cql after 30 attempts: create cql migrate session: gocql: unable to "
        "create session: unable to discover protocol version: dial tcp yugabyte:9042: connect: "
        "connection refused");
  }));
}

std::string Between(const std::string& text, const std::string& open, const std::string& close) {
  const std::size_t start = text.find(open);
  if (start == std::string::npos) return "";
  const std::size_t end = text.find(close, start + open.size());
  return text.substr(start + open.size(), end - start - open.size());
}

TEST(GatewayTest, ListingsAndLocationsGoToAnyHealthyNode) {
  Gateway gateway;
  gateway.Up();
  ASSERT_EQ(gateway.S3("PUT", "/b/one", "1").status, 200);
  ASSERT_EQ(gateway.S3("PUT", "/b/two", "22").status, 200);
  EXPECT_EQ(
      gateway.S3("GET", "/b", "", "list-type=2").body,
      "<ListBucketResult><Name>b</Name><KeyCount>2</KeyCount><Contents><Key>one</Key><Size>1"
      "</Size></Contents><Contents><Key>two</Key><Size>2</Size></Contents></ListBucketResult>");
  EXPECT_EQ(gateway.S3("GET", "/b", "", "location").status, 200);
  gateway.cluster.runtime.Stop("kuri-1");
  gateway.cluster.runtime.Stop("kuri-2");
  gateway.cluster.simulation.RunFor(seconds(12));
  EXPECT_EQ(gateway.S3("GET", "/b", "", "list-type=2").status, 503);
}

TEST(GatewayTest, AMultipartUploadAcrossBothNodes) {
  Gateway gateway;
  gateway.Up();
  const fakes::Response initiated = gateway.S3("POST", "/b/big", "", "uploads");
  ASSERT_EQ(initiated.status, 200);
  const std::string upload = Between(initiated.body, "<UploadId>", "</UploadId>");
  ASSERT_FALSE(upload.empty());
  std::vector<std::pair<int, std::string>> parts;
  for (int n = 1; n <= 3; ++n) {
    const fakes::Response part =
        gateway.S3("PUT", "/b/big", "part" + std::to_string(n) + ";",
                   "partNumber=" + std::to_string(n) + "&uploadId=" + upload);
    ASSERT_EQ(part.status, 200);
    std::string etag = part.headers.at("ETag");
    parts.emplace_back(n, etag.substr(1, etag.size() - 2));
  }
  // Round-robin: the parts are on both nodes.
  EXPECT_NE(parts[0].second.substr(0, 6), parts[1].second.substr(0, 6));
  EXPECT_EQ(gateway.S3("POST", "/b/big", CompleteBody(parts), "uploadId=" + upload).status, 200);
  EXPECT_EQ(gateway.S3("GET", "/b/big").body, "part1;part2;part3;");
  EXPECT_EQ(gateway.Cql("SELECT status FROM filecoingw_s3.multipartuploads WHERE upload_id = '" +
                        upload + "'"),
            "   status\n----------\n complete\n\n(1 rows)\n");
}

TEST(GatewayTest, CompleteAndAbortGoToTheCoordinatorWithTheSameStatusCodes) {
  Gateway gateway;
  gateway.Up();
  EXPECT_EQ(gateway.S3("POST", "/b/k", "", "uploadId=nope").status, 404);
  const std::string upload =
      Between(gateway.S3("POST", "/b/k", "", "uploads").body, "<UploadId>", "</UploadId>");
  EXPECT_EQ(gateway.S3("DELETE", "/b/k", "", "uploadId=" + upload).status, 204);
  const std::string other =
      Between(gateway.S3("POST", "/b/k", "", "uploads").body, "<UploadId>", "</UploadId>");
  const std::string row = gateway.Cql(
      "SELECT node_id FROM filecoingw_s3.multipartuploads WHERE upload_id = '" + other + "'");
  const std::string coordinator = row.find("kuri-1") != std::string::npos ? "kuri-1" : "kuri-2";
  gateway.cluster.runtime.Stop(coordinator);
  gateway.cluster.simulation.RunFor(seconds(12));
  EXPECT_EQ(gateway.S3("DELETE", "/b/k", "", "uploadId=" + other).status, 503);
}

TEST(GatewayTest, AnAbortedUploadCannotBeCompletedAndPartsAreChecked) {
  Gateway gateway;
  gateway.Up();
  const std::string upload =
      Between(gateway.S3("POST", "/b/k", "", "uploads").body, "<UploadId>", "</UploadId>");
  const fakes::Response part =
      gateway.S3("PUT", "/b/k", "bytes", "partNumber=1&uploadId=" + upload);
  std::string etag = part.headers.at("ETag");
  etag = etag.substr(1, etag.size() - 2);
  // A forged ETag (the right node, another hash) is refused.
  const std::string forged = etag.substr(0, etag.find('/') + 1) + "bafk0000000000000000";
  EXPECT_EQ(gateway.S3("POST", "/b/k", CompleteBody({{1, forged}}), "uploadId=" + upload).status,
            400);
  EXPECT_EQ(gateway.S3("DELETE", "/b/k", "", "uploadId=" + upload).status, 204);
  EXPECT_EQ(gateway.S3("POST", "/b/k", CompleteBody({{1, etag}}), "uploadId=" + upload).status,
            404);  // Aborted: NoSuchUpload, as S3 says.
  EXPECT_EQ(gateway.S3("PUT", "/b/k", "late", "partNumber=2&uploadId=" + upload).status, 404);
}

// The status only moves from open, atomically: an abort after a complete
// is refused and the upload stays complete.
TEST(GatewayTest, ACompletedUploadCannotBeAborted) {
  Gateway gateway;
  gateway.Up();
  const std::string upload =
      Between(gateway.S3("POST", "/b/k", "", "uploads").body, "<UploadId>", "</UploadId>");
  std::string etag =
      gateway.S3("PUT", "/b/k", "bytes", "partNumber=1&uploadId=" + upload).headers.at("ETag");
  etag = etag.substr(1, etag.size() - 2);
  ASSERT_EQ(gateway.S3("POST", "/b/k", CompleteBody({{1, etag}}), "uploadId=" + upload).status,
            200);
  // Completing again is answered as before (a client's retry).
  EXPECT_EQ(gateway.S3("POST", "/b/k", CompleteBody({{1, etag}}), "uploadId=" + upload).status,
            200);
  const fakes::Response abort = gateway.S3("DELETE", "/b/k", "", "uploadId=" + upload);
  EXPECT_EQ(abort.status, 404);
  EXPECT_NE(abort.body.find("<Code>NoSuchUpload</Code>"), std::string::npos) << abort.body;
  EXPECT_EQ(gateway.Cql("SELECT status FROM filecoingw_s3.multipartuploads WHERE upload_id = '" +
                        upload + "'"),
            "   status\n----------\n complete\n\n(1 rows)\n");
  EXPECT_EQ(gateway.S3("GET", "/b/k").body, "bytes");
}

// The old node image does not know node_id: its index rows have none, and
// the proxy cannot route a GET for them.
TEST(GatewayTest, AnOldNodeImageWritesRowsWithoutANodeId) {
  Gateway gateway;
  gateway.Up(gateway.Spec("v1", "v1"));
  ASSERT_EQ(gateway.S3("PUT", "/b/k", "x").status, 200);
  EXPECT_EQ(gateway.Cql("SELECT node_id FROM filecoingw_s3.s3objects WHERE bucket = 'b' AND key "
                        "= 'k'"),
            " node_id\n---------\n    null\n\n(1 rows)\n");
  EXPECT_EQ(gateway.S3("GET", "/b/k").status, 503);
}

}  // namespace
}  // namespace faultline::models::s3
