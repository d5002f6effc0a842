// The labels the report's diagram writes on its arrows.
#include "scenarios/report/message_labels.h"

#include <gtest/gtest.h>

namespace faultline::scenarios {
namespace {

TEST(MessageLabelTest, RequestsKeepMethodAndPathResponsesTheirStatus) {
  EXPECT_EQ(MessageLabel("PUT /b/k"), "PUT /b/k");
  EXPECT_EQ(MessageLabel("GET /healthz"), "GET /healthz");
  EXPECT_EQ(MessageLabel("response 503"), "503");
  EXPECT_EQ(MessageLabel("RST"), "RST");
  EXPECT_EQ(MessageLabel("OPTIONS /cql"), "OPTIONS");
  const std::string long_path = "GET /" + std::string(100, 'x');
  EXPECT_EQ(MessageLabel(long_path).size(), kMaxLabelChars);
  EXPECT_TRUE(MessageLabel(long_path).ends_with("..."));
}

TEST(StatementLabelTest, VerbAndTableWithoutKeyspaceOrQuotes) {
  EXPECT_EQ(StatementLabel("SELECT node_id FROM filecoingw_s3.s3objects WHERE k = ?"),
            "SELECT s3objects");
  EXPECT_EQ(StatementLabel("insert into \"schema_migrations\" (version, dirty) values (?, ?)"),
            "INSERT schema_migrations");
  EXPECT_EQ(StatementLabel("UPDATE ks.t SET a = 1"), "UPDATE t");
  EXPECT_EQ(StatementLabel("DELETE FROM s3objects WHERE k = 'a'"), "DELETE s3objects");
  EXPECT_EQ(StatementLabel("USE \"filecoingw_kuri1\""), "USE filecoingw_kuri1");
  EXPECT_EQ(StatementLabel("CREATE TABLE IF NOT EXISTS schema_migrations (version bigint)"),
            "CREATE TABLE schema_migrations");
  EXPECT_EQ(StatementLabel("CREATE KEYSPACE IF NOT EXISTS \"filecoingw_s3\""),
            "CREATE KEYSPACE filecoingw_s3");
  EXPECT_EQ(StatementLabel("CREATE INDEX IF NOT EXISTS by_node ON s3objects (node_id)"),
            "CREATE INDEX by_node");
  EXPECT_EQ(StatementLabel("CREATE CUSTOM INDEX idx ON t (c) USING 'x'"), "CREATE INDEX idx");
  EXPECT_EQ(StatementLabel("ALTER TABLE t ADD c int"), "ALTER TABLE t");
  EXPECT_EQ(StatementLabel("DROP TABLE IF EXISTS ks.old"), "DROP TABLE old");
  EXPECT_EQ(StatementLabel("BEGIN BATCH INSERT INTO t (a) VALUES (1); APPLY BATCH"), "BATCH");
  EXPECT_EQ(StatementLabel("SELECT count(*) FROM ks.t WHERE a IN (1, 2)"), "SELECT t");
  EXPECT_EQ(StatementLabel("   "), "(empty)");
  EXPECT_LE(StatementLabel("SELECT * FROM " + std::string(200, 'y')).size(), kMaxLabelChars);
}

TEST(OutcomeLabelTest, AnErrorByItsWords) {
  EXPECT_EQ(OutcomeLabel("ok"), "ok");
  EXPECT_EQ(OutcomeLabel("3 rows"), "3 rows");
  EXPECT_EQ(OutcomeLabel("error -301 Object Not Found"), "Object Not Found");
  EXPECT_EQ(OutcomeLabel("error -2 Server Error. Column family mismatch"), "Server Error");
  EXPECT_EQ(OutcomeLabel("error -11"), "error -11");
}

}  // namespace
}  // namespace faultline::scenarios
