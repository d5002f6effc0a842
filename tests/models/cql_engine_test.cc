// The engine beyond single statements: persistence across reopen, TTLs on
// virtual time, paging, bound values, scripts, and I/O errors.
#include "models/cql/engine.h"

#include <gtest/gtest.h>

#include "tests/models/cql_store_fixture.h"

namespace faultline::models::cql {
namespace {

std::string Show(const Outcome& outcome) {
  if (const auto* error = std::get_if<CqlError>(&outcome)) return "error: " + error->message;
  const QueryResult& result = std::get<QueryResult>(outcome);
  return result.kind == QueryResult::Kind::kVoid || result.kind == QueryResult::Kind::kSchemaChange
             ? "ok"
             : FormatResult(result);
}

TEST(CqlEngineTest, CatalogAndDataSurviveAReopen) {
  EngineOnVolume store;
  for (const char* statement : {
           "CREATE KEYSPACE ks",
           "CREATE TABLE ks.\"Objects\" (b text, k text, size bigint, tags set<text>, "
           "PRIMARY KEY ((b), k)) WITH CLUSTERING ORDER BY (k DESC) AND comment = 'x'",
           "INSERT INTO ks.\"Objects\" (b, k, size, tags) VALUES ('b', 'k1', 1, {'t'})",
           "INSERT INTO ks.\"Objects\" (b, k, size) VALUES ('b', 'k2', 2)",
           "ALTER TABLE ks.\"Objects\" ADD node_id text",
           "UPDATE ks.\"Objects\" SET node_id = 'n1' WHERE b = 'b' AND k = 'k1'",
       }) {
    ASSERT_EQ(Show(store.Run(statement)), "ok") << statement;
  }
  const std::string rows = Show(store.Run("SELECT * FROM ks.\"Objects\""));
  const std::string table = Show(store.Run("DESCRIBE TABLE ks.\"Objects\""));
  const std::string columns = Show(store.Run("SELECT * FROM system_schema.columns"));
  store.Reopen();
  EXPECT_EQ(Show(store.Run("SELECT * FROM ks.\"Objects\"")), rows);
  EXPECT_EQ(Show(store.Run("DESCRIBE TABLE ks.\"Objects\"")), table);
  EXPECT_EQ(Show(store.Run("SELECT * FROM system_schema.columns")), columns);
  EXPECT_EQ(rows,
            " b |  k | size |  tags | node_id\n"
            "---+----+------+-------+---------\n"
            " b | k2 |    2 |  null |    null\n"
            " b | k1 |    1 | {'t'} |      n1\n"
            "\n(2 rows)\n");
  EXPECT_EQ(table,
            "CREATE TABLE ks.\"Objects\" (\n"
            "    b text,\n"
            "    k text,\n"
            "    size bigint,\n"
            "    tags set<text>,\n"
            "    node_id text,\n"
            "    PRIMARY KEY (b, k)\n"
            ") WITH CLUSTERING ORDER BY (k DESC)\n"
            "    AND default_time_to_live = 0\n"
            "    AND comment = 'x'\n"
            "    AND transactions = {'enabled': 'false'};\n");
}

TEST(CqlEngineTest, RowsWithATtlExpireOnVirtualTime) {
  EngineOnVolume store;
  ASSERT_EQ(Show(store.Run("CREATE KEYSPACE ks")), "ok");
  ASSERT_EQ(Show(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY, a text, b text)")), "ok");
  ASSERT_EQ(Show(store.Run("INSERT INTO ks.t (k, a, b) VALUES (1, 'a', 'b') USING TTL 5")), "ok");
  EXPECT_EQ(Show(store.Run("SELECT count(*) FROM ks.t")), " count\n-------\n     1\n\n(1 rows)\n");
  store.simulation().RunFor(std::chrono::seconds(6));
  EXPECT_EQ(Show(store.Run("SELECT count(*) FROM ks.t")), " count\n-------\n     0\n\n(1 rows)\n");
  // Writing the expired row again must not bring its old cells back.
  ASSERT_EQ(Show(store.Run("UPDATE ks.t SET a = 'new' WHERE k = 1")), "ok");
  EXPECT_EQ(Show(store.Run("SELECT * FROM ks.t")),
            " k |   a |    b\n---+-----+------\n 1 | new | null\n\n(1 rows)\n");
  EXPECT_EQ(Show(store.Run("INSERT INTO ks.t (k) VALUES (2) USING TTL -1")),
            "error: Invalid Arguments. TTL must not be negative");
}

TEST(CqlEngineTest, PagingReturnsEveryRowOnceInKeyOrder) {
  EngineOnVolume store;
  ASSERT_EQ(Show(store.Run("CREATE KEYSPACE ks")), "ok");
  ASSERT_EQ(Show(store.Run("CREATE TABLE ks.t (p int, c int, PRIMARY KEY (p, c))")), "ok");
  for (int c = 9; c >= 0; --c) {
    const Value bound[] = {Value::Int(c)};
    ASSERT_EQ(Show(store.Run("INSERT INTO ks.t (p, c) VALUES (1, ?)", bound)), "ok");
  }
  std::vector<std::int64_t> seen;
  std::vector<std::size_t> page_sizes;
  PageRequest page(4);
  for (int pages = 0; pages < 10; ++pages) {
    Outcome outcome = store.Run("SELECT c FROM ks.t WHERE p = 1", {}, page);
    ASSERT_TRUE(std::holds_alternative<QueryResult>(outcome));
    const QueryResult& result = std::get<QueryResult>(outcome);
    page_sizes.push_back(result.rows.size());
    for (const Row& row : result.rows) seen.push_back(row[0].integer);
    if (result.paging_state.empty()) break;
    page.paging_state = result.paging_state;
  }
  EXPECT_EQ(page_sizes, (std::vector<std::size_t>{4, 4, 2}));
  EXPECT_EQ(seen, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(Show(store.Run("SELECT c FROM ks.t", {}, PageRequest(4, "nonsense"))),
            "error: Invalid Arguments. Invalid paging state");
}

TEST(CqlEngineTest, BindMarkersTakeTheCallersValues) {
  EngineOnVolume store;
  ASSERT_EQ(Show(store.Run("CREATE KEYSPACE ks")), "ok");
  ASSERT_EQ(Show(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY, v text)")), "ok");
  const Value two[] = {Value::Int(7), Value::Text("seven")};
  EXPECT_EQ(Show(store.Run("INSERT INTO ks.t (k, v) VALUES (?, ?)", two)), "ok");
  EXPECT_EQ(Show(store.Run("INSERT INTO ks.t (k, v) VALUES (?, ?)", std::span(two, 1))),
            "error: Invalid Arguments. Expected 2 bound values, got 1");
  const Value wrong[] = {Value::Text("x"), Value::Text("y")};
  EXPECT_EQ(Show(store.Run("INSERT INTO ks.t (k, v) VALUES (?, ?)", wrong)),
            "error: Datatype Mismatch. Cannot convert a string to int");
  const Value key[] = {Value::Int(7)};
  EXPECT_EQ(Show(store.Run("SELECT v FROM ks.t WHERE k = ?", key)),
            "     v\n-------\n seven\n\n(1 rows)\n");
}

TEST(CqlEngineTest, AScriptStopsAtTheFirstError) {
  EngineOnVolume store;
  std::vector<Outcome> outcomes = store.engine().ExecuteScript(
      store.session(),
      "CREATE KEYSPACE ks; USE ks; CREATE TABLE t (k int PRIMARY KEY);"
      "CREATE TABLE t (k int PRIMARY KEY); CREATE TABLE u (k int PRIMARY KEY);");
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_EQ(Show(outcomes[3]), "error: Duplicate Object. Object 'ks.t' already exists");
  EXPECT_EQ(store.engine().catalog().FindTable("ks", "u"), nullptr);
  outcomes = store.engine().ExecuteScript(store.session(), "USE ks; SELECT FROM t;");
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(Show(outcomes[1]),
            "error: Invalid SQL Statement. syntax error, unexpected 't', expecting 'from'");
}

TEST(CqlEngineTest, ErrorsPointAtTheOffendingName) {
  EngineOnVolume store;
  ASSERT_EQ(Show(store.Run("CREATE KEYSPACE ks")), "ok");
  ASSERT_EQ(Show(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY, v text)")), "ok");
  auto caret = [&](std::string_view statement) {
    Outcome outcome = store.Run(statement);
    const auto* error = std::get_if<CqlError>(&outcome);
    if (error == nullptr || !error->offset) return std::string("no offset");
    return error->WireText(statement, *error->offset);
  };
  EXPECT_EQ(caret("SELECT k, node_id FROM ks.t"),
            "Undefined Column. Column doesn't exist\nSELECT k, node_id FROM ks.t\n          ^ "
            "(ql error -203)");
  EXPECT_EQ(caret("SELECT * FROM ks.nope"),
            "Object Not Found\nSELECT * FROM ks.nope\n              ^ (ql error -301)");
  EXPECT_EQ(caret("UPDATE ks.t SET v = 'x' WHERE k = 1 AND v = 'y'"),
            "Invalid CQL Statement. Non primary key cannot be used in where clause for write "
            "requests\nUPDATE ks.t SET v = 'x' WHERE k = 1 AND v = 'y'\n"
            "                                        ^ (ql error -12)");
  EXPECT_EQ(caret("ALTER TABLE ks.t ADD v int"),
            "Duplicate Column. Invalid column name because it conflicts with the existing "
            "column: v\nALTER TABLE ks.t ADD v int\n                     ^ (ql error -204)");
}

// Fails every disk write while `*failing` is set.
class SwitchedWriteFailures final : public sim::FaultPlan {
 public:
  explicit SwitchedWriteFailures(const bool* failing) : failing_(failing) {}
  sim::FaultDecision Decide(std::string_view site, std::uint64_t, sim::Rng&) const override {
    if (*failing_ && site == fakes::SqliteVfs::kSiteWrite) {
      return sim::FaultDecision{sim::FaultAction::kError, {}, sim::StatusCode::kIoError};
    }
    return sim::FaultDecision{};
  }
  std::string Describe() const override { return "switched write failures"; }

 private:
  const bool* failing_;
};

TEST(CqlEngineTest, AFailedDiskWriteChangesNeitherCatalogNorData) {
  bool failing = false;
  EngineOnVolume store(nullptr, {.fault_plan = std::make_shared<SwitchedWriteFailures>(&failing)});
  ASSERT_EQ(Show(store.Run("CREATE KEYSPACE ks")), "ok");
  ASSERT_EQ(Show(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY)")), "ok");
  failing = true;
  EXPECT_TRUE(Show(store.Run("CREATE TABLE ks.u (k int PRIMARY KEY)"))
                  .starts_with("error: Server Error. CREATE TABLE: disk I/O error"));
  EXPECT_TRUE(
      Show(store.Run("INSERT INTO ks.t (k) VALUES (1)")).starts_with("error: Server Error"));
  failing = false;
  EXPECT_EQ(Show(store.Run("SELECT * FROM ks.u")), "error: Object Not Found");
  EXPECT_EQ(Show(store.Run("SELECT count(*) FROM ks.t")), " count\n-------\n     0\n\n(1 rows)\n");
  EXPECT_EQ(Show(store.Run("CREATE TABLE ks.u (k int PRIMARY KEY)")), "ok");
  store.Reopen();
  EXPECT_EQ(Show(store.Run("SELECT count(*) FROM ks.u")), " count\n-------\n     0\n\n(1 rows)\n");
}

}  // namespace
}  // namespace faultline::models::cql
