// The engine beyond single statements: persistence across reopen, TTLs on
// virtual time, paging, bound values, scripts, and I/O errors.
#include "models/cql/engine.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/models/cql_store_fixture.h"

namespace faultline::models::cql {
namespace {

// The first two (integer) columns of every row `query` gives, a page of
// one row at a time: "1/2", "3/null".
std::vector<std::string> PagedKeys(EngineOnVolume& store, const char* query) {
  std::vector<std::string> seen;
  PageRequest page(1);
  for (int pages = 0; pages < 100; ++pages) {
    Outcome outcome = store.Run(query, {}, page);
    if (!std::holds_alternative<QueryResult>(outcome)) return {Shown(outcome)};
    const QueryResult& result = std::get<QueryResult>(outcome);
    for (const Row& row : result.rows) {
      seen.push_back(std::to_string(row[0].integer) + "/" +
                     (row[1].is_null() ? "null" : std::to_string(row[1].integer)));
    }
    if (result.paging_state.empty()) break;
    page.paging_state = result.paging_state;
  }
  return seen;
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
    ASSERT_EQ(Shown(store.Run(statement)), "ok") << statement;
  }
  const std::string rows = Shown(store.Run("SELECT * FROM ks.\"Objects\""));
  const std::string table = Shown(store.Run("DESCRIBE TABLE ks.\"Objects\""));
  const std::string columns = Shown(store.Run("SELECT * FROM system_schema.columns"));
  store.Reopen();
  EXPECT_EQ(Shown(store.Run("SELECT * FROM ks.\"Objects\"")), rows);
  EXPECT_EQ(Shown(store.Run("DESCRIBE TABLE ks.\"Objects\"")), table);
  EXPECT_EQ(Shown(store.Run("SELECT * FROM system_schema.columns")), columns);
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

// Indexes and types are kept as their CREATE text and read back on open: a
// comment inside an index's WHERE does not swallow what follows when the
// text is stored on one line, option names keep their case, and a type given
// a field of a type made after it (Cassandra's ALTER TYPE) still loads.
TEST(CqlEngineTest, IndexesAndTypesReadBackAfterAReopen) {
  EngineOnVolume store;
  store.UseDialect(Dialect::kCassandra);
  for (const char* statement : {
           "CREATE KEYSPACE ks",
           "CREATE TYPE ks.a (x int)",
           "CREATE TYPE ks.b (y frozen<a>)",
           "CREATE TYPE ks.c (z int)",
           "ALTER TYPE ks.a ADD w frozen<c>",
           "CREATE TABLE ks.t (k int PRIMARY KEY, v frozen<b>, m map<text, text>)",
           "INSERT INTO ks.t (k, v) VALUES (1, {y: {x: 1, w: {z: 2}}})",
           "CREATE CUSTOM INDEX i ON ks.t (keys(m)) USING 'org.example.I'\n"
           "  WITH OPTIONS = {'mode': 'x'} -- a comment\n",
       }) {
    ASSERT_EQ(Shown(store.Run(statement)), "ok") << statement;
  }
  const std::string schema = Shown(store.Run("DESCRIBE KEYSPACE ks"));
  EXPECT_NE(schema.find("WITH options = {'mode': 'x'};"), std::string::npos) << schema;
  // Each type after the ones it names, so that the description runs again.
  EXPECT_LT(schema.find("CREATE TYPE ks.c"), schema.find("CREATE TYPE ks.a")) << schema;
  EXPECT_LT(schema.find("CREATE TYPE ks.a"), schema.find("CREATE TYPE ks.b")) << schema;
  const std::string rows = Shown(store.Run("SELECT v FROM ks.t"));
  store.Reopen();
  EXPECT_EQ(Shown(store.Run("DESCRIBE KEYSPACE ks")), schema);
  EXPECT_EQ(Shown(store.Run("SELECT v FROM ks.t")), rows);
  // A loop through another type is refused, not committed.
  EXPECT_EQ(Shown(store.Run("ALTER TYPE ks.c ADD back frozen<b>")),
            "error: Invalid Request. Cannot add new field back of type frozen<b> to user type "
            "ks.c as it would create a circular reference");
}

// YCQL: an index is a table, so its name is taken (catalog_manager.cc);
// the catalog keeps which table holds each index, and after a reopen too.
TEST(CqlEngineTest, AnIndexNameStaysTakenAfterAReopenAndIsFreedWithItsIndex) {
  EngineOnVolume store;
  for (const char* statement : {
           "CREATE KEYSPACE ks",
           "CREATE TABLE ks.t (k int PRIMARY KEY, v int) WITH transactions = {'enabled': true}",
           "CREATE INDEX by_v ON ks.t (v)",
       }) {
    ASSERT_EQ(Shown(store.Run(statement)), "ok") << statement;
  }
  store.Reopen();
  EXPECT_NE(Shown(store.Run("CREATE TABLE ks.by_v (k int PRIMARY KEY)")).find("Duplicate Object"),
            std::string::npos);
  EXPECT_EQ(Shown(store.Run("CREATE TABLE IF NOT EXISTS ks.by_v (k int PRIMARY KEY)")), "ok");
  EXPECT_EQ(Shown(store.Run("DROP INDEX ks.by_v")), "ok");
  EXPECT_EQ(Shown(store.Run("CREATE TABLE ks.by_v (k int PRIMARY KEY)")), "ok");
}

// Static columns live in a table of their own (catalog.h): they read back
// after a reopen, expire with their own TTL, page with the rows, and leave
// with their column and their table.
TEST(CqlEngineTest, StaticColumnsReopenExpireAndPage) {
  EngineOnVolume store;
  store.UseDialect(Dialect::kCassandra);
  for (const char* statement : {
           "CREATE KEYSPACE ks",
           "CREATE TABLE ks.t (p int, c int, v text, s text static, PRIMARY KEY (p, c))",
           "INSERT INTO ks.t (p, c, v, s) VALUES (1, 1, 'a', 'one')",
           "INSERT INTO ks.t (p, s) VALUES (2, 'two') USING TTL 5",
           "INSERT INTO ks.t (p, c, v) VALUES (3, 1, 'c')",
           "INSERT INTO ks.t (p, c, v) VALUES (3, 2, 'd')",
           "ALTER TABLE ks.t ADD n int static",
           "UPDATE ks.t SET n = 7 WHERE p = 3",
       }) {
    ASSERT_EQ(Shown(store.Run(statement)), "ok") << statement;
  }
  const std::string rows = Shown(store.Run("SELECT * FROM ks.t"));
  EXPECT_EQ(rows,
            " p |    c |    v |    s |    n\n"
            "---+------+------+------+------\n"
            " 1 |    1 |    a |  one | null\n"
            " 2 | null | null |  two | null\n"
            " 3 |    1 |    c | null |    7\n"
            " 3 |    2 |    d | null |    7\n\n(4 rows)\n");
  store.Reopen();
  EXPECT_EQ(Shown(store.Run("SELECT * FROM ks.t")), rows);
  // Pages of one row each cross the static-only partition once.
  EXPECT_EQ(PagedKeys(store, "SELECT p, c FROM ks.t"),
            (std::vector<std::string>{"1/1", "2/null", "3/1", "3/2"}));
  store.simulation().RunFor(std::chrono::seconds(6));
  EXPECT_EQ(Shown(store.Run("SELECT count(*) FROM ks.t WHERE p = 2")),
            " count\n-------\n     0\n\n(1 rows)\n");
  // Dropping the last static column drops the static table; a new one
  // starts empty.
  ASSERT_EQ(Shown(store.Run("ALTER TABLE ks.t DROP (s, n)")), "ok");
  ASSERT_EQ(Shown(store.Run("ALTER TABLE ks.t ADD s text static")), "ok");
  EXPECT_EQ(Shown(store.Run("SELECT s FROM ks.t WHERE p = 1")),
            "    s\n------\n null\n\n(1 rows)\n");
  store.Reopen();
  ASSERT_EQ(Shown(store.Run("DROP TABLE ks.t")), "ok");
}

// What a review found in the static row's writes: an INSERT refused half
// way leaves nothing; an UPDATE of static columns alone leaves the row's
// TTL; an INSERT's null static makes no static row; an INSERT replaces the
// static row's TTL; a dropped static column takes the rows it alone kept;
// pages sorted by clustering pass a static-only partition.
TEST(CqlEngineTest, StaticWritesAreWholeAndLeaveTheRowAlone) {
  EngineOnVolume store;
  for (const char* statement : {
           "CREATE KEYSPACE ks",
           "CREATE TABLE ks.t (k int, c int, v int, s int STATIC, s2 int STATIC, PRIMARY KEY (k, "
           "c)) WITH transactions = {'enabled': true}",
           "CREATE UNIQUE INDEX by_v ON ks.t (v)",
           "INSERT INTO ks.t (k, c, v, s) VALUES (1, 1, 10, 100)",
       }) {
    ASSERT_EQ(Shown(store.Run(statement)), "ok") << statement;
  }
  EXPECT_EQ(Shown(store.Run("INSERT INTO ks.t (k, c, v, s) VALUES (2, 1, 10, 200)")),
            "error: Execution Error. Duplicate value disallowed by unique index by_v");
  EXPECT_EQ(Shown(store.Run("SELECT count(*) FROM ks.t WHERE k = 2")),
            " count\n-------\n     0\n\n(1 rows)\n");
  ASSERT_EQ(Shown(store.Run("UPDATE ks.t USING TTL 5 SET s = 9 WHERE k = 1 AND c = 1")), "ok");
  ASSERT_EQ(Shown(store.Run("INSERT INTO ks.t (k, c, v, s) VALUES (3, 1, 30, null)")), "ok");
  ASSERT_EQ(Shown(store.Run("DELETE FROM ks.t WHERE k = 3 AND c = 1")), "ok");
  ASSERT_EQ(Shown(store.Run("INSERT INTO ks.t (k, s) VALUES (4, 4) USING TTL 5")), "ok");
  ASSERT_EQ(Shown(store.Run("INSERT INTO ks.t (k, s) VALUES (4, 5)")), "ok");
  ASSERT_EQ(Shown(store.Run("INSERT INTO ks.t (k, s2) VALUES (5, 5)")), "ok");
  store.simulation().RunFor(std::chrono::seconds(6));
  EXPECT_EQ(Shown(store.Run("SELECT k, c, v, s FROM ks.t")),
            " k |    c |    v |    s\n"
            "---+------+------+------\n"
            " 1 |    1 |   10 | null\n"
            " 4 | null | null |    5\n"
            " 5 | null | null | null\n\n(3 rows)\n");
  ASSERT_EQ(Shown(store.Run("ALTER TABLE ks.t DROP s2")), "ok");
  EXPECT_EQ(PagedKeys(store, "SELECT k, c FROM ks.t WHERE k IN (1, 4, 5) ORDER BY c DESC"),
            (std::vector<std::string>{"1/1", "4/null"}));
}

TEST(CqlEngineTest, RowsWithATtlExpireOnVirtualTime) {
  EngineOnVolume store;
  ASSERT_EQ(Shown(store.Run("CREATE KEYSPACE ks")), "ok");
  ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY, a text, b text)")), "ok");
  ASSERT_EQ(Shown(store.Run("INSERT INTO ks.t (k, a, b) VALUES (1, 'a', 'b') USING TTL 5")), "ok");
  EXPECT_EQ(Shown(store.Run("SELECT count(*) FROM ks.t")), " count\n-------\n     1\n\n(1 rows)\n");
  store.simulation().RunFor(std::chrono::seconds(6));
  EXPECT_EQ(Shown(store.Run("SELECT count(*) FROM ks.t")), " count\n-------\n     0\n\n(1 rows)\n");
  // Writing the expired row again must not bring its old cells back.
  ASSERT_EQ(Shown(store.Run("UPDATE ks.t SET a = 'new' WHERE k = 1")), "ok");
  EXPECT_EQ(Shown(store.Run("SELECT * FROM ks.t")),
            " k |   a |    b\n---+-----+------\n 1 | new | null\n\n(1 rows)\n");
  EXPECT_EQ(Shown(store.Run("INSERT INTO ks.t (k) VALUES (2) USING TTL -1")),
            "error: Invalid Arguments. TTL must not be negative");
}

// A row past its TTL is gone for CQL, though SQLite still holds it: its
// value no longer counts for a UNIQUE index.
TEST(CqlEngineTest, AnExpiredRowsValueIsFreeForAUniqueIndex) {
  EngineOnVolume store;
  for (const char* statement : {
           "CREATE KEYSPACE ks",
           "CREATE TABLE ks.t (k int PRIMARY KEY, email text) WITH transactions = {'enabled': "
           "'true'}",
           "CREATE UNIQUE INDEX by_email ON ks.t (email)",
           "INSERT INTO ks.t (k, email) VALUES (1, 'a@x') USING TTL 5",
       }) {
    ASSERT_EQ(Shown(store.Run(statement)), "ok") << statement;
  }
  EXPECT_EQ(Shown(store.Run("INSERT INTO ks.t (k, email) VALUES (2, 'a@x')")),
            "error: Execution Error. Duplicate value disallowed by unique index by_email");
  store.simulation().RunFor(std::chrono::seconds(6));
  EXPECT_EQ(Shown(store.Run("INSERT INTO ks.t (k, email) VALUES (2, 'a@x')")), "ok");
  EXPECT_EQ(Shown(store.Run("SELECT k FROM ks.t WHERE email = 'a@x'")),
            " k\n---\n 2\n\n(1 rows)\n");
}

TEST(CqlEngineTest, PagingReturnsEveryRowOnceInKeyOrder) {
  EngineOnVolume store;
  ASSERT_EQ(Shown(store.Run("CREATE KEYSPACE ks")), "ok");
  ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.t (p int, c int, PRIMARY KEY (p, c))")), "ok");
  for (int c = 9; c >= 0; --c) {
    const Value bound[] = {Value::Int(c)};
    ASSERT_EQ(Shown(store.Run("INSERT INTO ks.t (p, c) VALUES (1, ?)", bound)), "ok");
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
  EXPECT_EQ(Shown(store.Run("SELECT c FROM ks.t", {}, PageRequest(4, "nonsense"))),
            "error: Invalid Arguments. Invalid paging state");
}

// Pages resume after the last key returned: writes and deletes behind the
// cursor between pages neither repeat a row nor skip one, in descending
// clustering order too; LIMIT counts across pages; a state is its table's.
TEST(CqlEngineTest, PagingResumesAfterTheLastKeyWhateverChangedBehindIt) {
  EngineOnVolume store;
  ASSERT_EQ(Shown(store.Run("CREATE KEYSPACE ks")), "ok");
  ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.t (p int, c int, PRIMARY KEY (p, c)) WITH "
                            "CLUSTERING ORDER BY (c DESC)")),
            "ok");
  ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.other (k int PRIMARY KEY)")), "ok");
  for (int c = 0; c < 10; ++c) {
    const Value bound[] = {Value::Int(c)};
    ASSERT_EQ(Shown(store.Run("INSERT INTO ks.t (p, c) VALUES (1, ?)", bound)), "ok");
  }
  auto next = [&](const std::string& select, const std::string& state,
                  std::vector<std::int64_t>& seen) {
    Outcome outcome = store.Run(select, {}, PageRequest(3, state));
    EXPECT_TRUE(std::holds_alternative<QueryResult>(outcome)) << Shown(outcome);
    if (!std::holds_alternative<QueryResult>(outcome)) return std::string();
    for (const Row& row : std::get<QueryResult>(outcome).rows) seen.push_back(row[0].integer);
    return std::get<QueryResult>(outcome).paging_state;
  };
  std::vector<std::int64_t> seen;
  const std::string select = "SELECT c FROM ks.t WHERE p = 1";
  std::string state = next(select, "", seen);                                    // 9, 8, 7
  ASSERT_EQ(Shown(store.Run("INSERT INTO ks.t (p, c) VALUES (1, 100)")), "ok");  // Behind.
  ASSERT_EQ(Shown(store.Run("INSERT INTO ks.t (p, c) VALUES (1, 101)")), "ok");  // Behind.
  ASSERT_EQ(Shown(store.Run("DELETE FROM ks.t WHERE p = 1 AND c = 8")), "ok");   // Behind.
  ASSERT_EQ(Shown(store.Run("DELETE FROM ks.t WHERE p = 1 AND c = 5")), "ok");   // Ahead.
  for (int pages = 0; pages < 10 && !state.empty(); ++pages) state = next(select, state, seen);
  EXPECT_EQ(seen, (std::vector<std::int64_t>{9, 8, 7, 6, 4, 3, 2, 1, 0}));

  std::vector<std::int64_t> limited;
  state = next(select + " LIMIT 5", "", limited);
  for (int pages = 0; pages < 10 && !state.empty(); ++pages) {
    state = next(select + " LIMIT 5", state, limited);
  }
  EXPECT_EQ(limited, (std::vector<std::int64_t>{101, 100, 9, 7, 6}));

  // A reversed ORDER BY pages in its own direction.
  std::vector<std::int64_t> ascending;
  const std::string reversed = select + " ORDER BY c ASC";
  state = next(reversed, "", ascending);
  for (int pages = 0; pages < 10 && !state.empty(); ++pages)
    state = next(reversed, state, ascending);
  EXPECT_EQ(ascending, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 6, 7, 9, 100, 101}));

  // A view with an order of its own pages the same way.
  const std::string columns = "SELECT column_name FROM system_schema.columns";
  std::vector<std::string> all, paged;
  const Outcome unpaged = store.Run(columns);
  ASSERT_TRUE(std::holds_alternative<QueryResult>(unpaged)) << Shown(unpaged);
  for (const Row& row : std::get<QueryResult>(unpaged).rows) all.push_back(row[0].bytes);
  PageRequest view_page(2);
  for (int pages = 0; pages < 1'000; ++pages) {
    Outcome outcome = store.Run(columns, {}, view_page);
    ASSERT_TRUE(std::holds_alternative<QueryResult>(outcome)) << Shown(outcome);
    for (const Row& row : std::get<QueryResult>(outcome).rows) paged.push_back(row[0].bytes);
    view_page.paging_state = std::get<QueryResult>(outcome).paging_state;
    if (view_page.paging_state.empty()) break;
  }
  EXPECT_GT(all.size(), 2u);
  EXPECT_EQ(paged, all);

  std::vector<std::int64_t> ignored;
  const std::string from_t = next(select, "", ignored);
  EXPECT_EQ(Shown(store.Run("SELECT k FROM ks.other", {}, PageRequest(3, from_t))),
            "error: Invalid Arguments. Invalid paging state");
}

TEST(CqlEngineTest, DescribeSchemaShowsEveryUserKeyspaceWithItsTables) {
  EngineOnVolume store;
  for (const char* statement :
       {"CREATE KEYSPACE a", "CREATE KEYSPACE b", "CREATE TABLE a.t (k int PRIMARY KEY)",
        "CREATE TABLE b.u (k int PRIMARY KEY)"}) {
    ASSERT_EQ(Shown(store.Run(statement)), "ok") << statement;
  }
  for (const char* describe : {"DESCRIBE SCHEMA", "DESCRIBE FULL SCHEMA"}) {
    Outcome outcome = store.Run(describe);
    ASSERT_TRUE(std::holds_alternative<QueryResult>(outcome)) << Shown(outcome);
    const std::string& text = std::get<QueryResult>(outcome).text;
    EXPECT_TRUE(text.starts_with("CREATE KEYSPACE a WITH")) << text;
    for (const char* part :
         {"CREATE TABLE a.t (", "CREATE KEYSPACE b WITH", "CREATE TABLE b.u ("}) {
      EXPECT_NE(text.find(part), std::string::npos) << describe << ": " << part;
    }
    EXPECT_EQ(text.find("system_schema"), std::string::npos) << text;
  }
}

TEST(CqlEngineTest, BindMarkersTakeTheCallersValues) {
  EngineOnVolume store;
  ASSERT_EQ(Shown(store.Run("CREATE KEYSPACE ks")), "ok");
  ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY, v text)")), "ok");
  const Value two[] = {Value::Int(7), Value::Text("seven")};
  EXPECT_EQ(Shown(store.Run("INSERT INTO ks.t (k, v) VALUES (?, ?)", two)), "ok");
  EXPECT_EQ(Shown(store.Run("INSERT INTO ks.t (k, v) VALUES (?, ?)", std::span(two, 1))),
            "error: Invalid Arguments. Expected 2 bound values, got 1");
  // A bound decimal is checked as a literal is: its text must be a number.
  ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.d (d decimal PRIMARY KEY)")), "ok");
  for (const char* bad : {"abc", "", "1.2.3", "1e99999999999999999999", "--1"}) {
    const Value value[] = {Value::Text(bad)};
    EXPECT_EQ(Shown(store.Run("INSERT INTO ks.d (d) VALUES (?)", value)),
              fmt::format("error: Invalid Arguments. Invalid decimal '{}'", bad));
  }
  const Value good[] = {Value::Text("-1.5e3")};
  EXPECT_EQ(Shown(store.Run("INSERT INTO ks.d (d) VALUES (?)", good)), "ok");
  const Value three[] = {Value::Int(8), Value::Text("eight"), Value::Text("extra")};
  EXPECT_EQ(Shown(store.Run("INSERT INTO ks.t (k, v) VALUES (?, ?)", three)),
            "error: Invalid Arguments. Expected 2 bound values, got 3");
  const Value wrong[] = {Value::Text("x"), Value::Text("y")};
  EXPECT_EQ(Shown(store.Run("INSERT INTO ks.t (k, v) VALUES (?, ?)", wrong)),
            "error: Datatype Mismatch. Cannot convert a string to int");
  const Value key[] = {Value::Int(7)};
  EXPECT_EQ(Shown(store.Run("SELECT v FROM ks.t WHERE k = ?", key)),
            "     v\n-------\n seven\n\n(1 rows)\n");
}

TEST(CqlEngineTest, AScriptStopsAtTheFirstError) {
  EngineOnVolume store;
  std::vector<Outcome> outcomes = store.engine().ExecuteScript(
      store.session(),
      "CREATE KEYSPACE ks; USE ks; CREATE TABLE t (k int PRIMARY KEY);"
      "CREATE TABLE t (k int PRIMARY KEY); CREATE TABLE u (k int PRIMARY KEY);");
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_EQ(Shown(outcomes[3]), "error: Duplicate Object. Object 'ks.t' already exists");
  EXPECT_EQ(store.engine().catalog().FindTable("ks", "u"), nullptr);
  outcomes = store.engine().ExecuteScript(store.session(), "USE ks; SELECT FROM t;");
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(Shown(outcomes[1]), "error: Invalid SQL Statement. syntax error, unexpected FROM");
}

TEST(CqlEngineTest, ErrorsPointAtTheOffendingName) {
  EngineOnVolume store;
  ASSERT_EQ(Shown(store.Run("CREATE KEYSPACE ks")), "ok");
  ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY, v text)")), "ok");
  auto caret = [&](std::string_view statement) {
    Outcome outcome = store.Run(statement);
    const auto* error = std::get_if<CqlError>(&outcome);
    if (error == nullptr || !error->offset) return std::string("no offset");
    return error->WireText(statement, *error->offset);
  };
  EXPECT_EQ(
      caret("SELECT k, node_id FROM ks.t"),
      "Undefined Column. Column doesn't exist\nSELECT k, node_id FROM ks.t\n          ^^^^^^^\n "
      "(ql error -203)");
  EXPECT_EQ(caret("SELECT * FROM ks.nope"),
            "Object Not Found\nSELECT * FROM ks.nope\n              ^^^^^^^\n (ql error -301)");
  EXPECT_EQ(caret("UPDATE ks.t SET v = 'x' WHERE k = 1 AND v = 'y'"),
            "Invalid CQL Statement. Non primary key cannot be used in where clause for write "
            "requests\nUPDATE ks.t SET v = 'x' WHERE k = 1 AND v = 'y'\n"
            "                                        ^\n (ql error -12)");
  EXPECT_EQ(caret("ALTER TABLE ks.t ADD v int"),
            "Duplicate Column. Invalid column name because it conflicts with the existing "
            "column: v\nALTER TABLE ks.t ADD v int\n                     ^\n (ql error -204)");
  // Values too: the literal, or the element of a collection, that is wrong.
  EXPECT_EQ(caret("INSERT INTO ks.t (k, v) VALUES (2147483648, 'x')"),
            "Invalid Arguments. Value 2147483648 is out of range for int\n"
            "INSERT INTO ks.t (k, v) VALUES (2147483648, 'x')\n"
            "                                ^^^^^^^^^^\n (ql error -304)");
  EXPECT_EQ(caret("UPDATE ks.t SET v = 5 WHERE k = 1"),
            "Datatype Mismatch. Cannot convert an integer to text\n"
            "UPDATE ks.t SET v = 5 WHERE k = 1\n"
            "                    ^\n (ql error -201)");
}

TEST(CqlEngineTest, DeepNestingIsASyntaxErrorNotACrash) {
  EngineOnVolume store;
  const std::string deep_list = "SELECT * FROM t WHERE k = " + std::string(100'000, '[');
  EXPECT_TRUE(
      Shown(store.Run(deep_list)).starts_with("error: Invalid SQL Statement. syntax error"));
  std::string deep_type = "CREATE TABLE t (k int PRIMARY KEY, v ";
  for (int i = 0; i < 10'000; ++i) deep_type += "list<";
  EXPECT_TRUE(
      Shown(store.Run(deep_type)).starts_with("error: Invalid SQL Statement. syntax error"));
  ASSERT_EQ(Shown(store.Run("CREATE KEYSPACE ks")), "ok");
  EXPECT_EQ(Shown(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY, v list<list<int>>)")),
            "error: Invalid Arguments. Non-frozen collections are not allowed inside collections");
  std::string nine = "CREATE TABLE ks.t (k int PRIMARY KEY, v ";
  for (int i = 0; i < 9; ++i) nine += "frozen<list<";
  nine += "int" + std::string(18, '>') + ")";
  EXPECT_EQ(Shown(store.Run(nine)), "error: Invalid Arguments. collections nest at most 8 deep");
}

TEST(CqlEngineTest, DefaultTimeToLiveApplies) {
  EngineOnVolume store;
  ASSERT_EQ(Shown(store.Run("CREATE KEYSPACE ks")), "ok");
  ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY) WITH default_time_to_live = 5")),
            "ok");
  ASSERT_EQ(Shown(store.Run("INSERT INTO ks.t (k) VALUES (1)")), "ok");
  ASSERT_EQ(Shown(store.Run("INSERT INTO ks.t (k) VALUES (2) USING TTL 60")), "ok");
  store.simulation().RunFor(std::chrono::seconds(6));
  EXPECT_EQ(Shown(store.Run("SELECT k FROM ks.t")), " k\n---\n 2\n\n(1 rows)\n");
}

TEST(CqlEngineTest, OptionsAndTableIdsSurviveAReopenExactly) {
  EngineOnVolume store;
  ASSERT_EQ(Shown(store.Run("CREATE KEYSPACE ks")), "ok");
  ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.a (k int PRIMARY KEY) WITH comment = 'C:\\new=1'")),
            "ok");
  ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.b (k int PRIMARY KEY)")), "ok");
  const std::string described = Shown(store.Run("DESCRIBE TABLE ks.a"));
  EXPECT_NE(described.find("AND comment = 'C:\\new=1'"), std::string::npos) << described;
  const std::string b_id =
      Shown(store.Run("SELECT id FROM system_schema.tables WHERE "
                      "keyspace_name = 'ks' AND table_name = 'b'"));
  ASSERT_EQ(Shown(store.Run("DROP TABLE ks.b")), "ok");
  store.Reopen();
  EXPECT_EQ(Shown(store.Run("DESCRIBE TABLE ks.a")), described);
  ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.c (k int PRIMARY KEY)")), "ok");
  const std::string c_id =
      Shown(store.Run("SELECT id FROM system_schema.tables WHERE "
                      "keyspace_name = 'ks' AND table_name = 'c'"));
  EXPECT_NE(c_id, b_id);  // Ids are never reused, across restarts too.
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
  ASSERT_EQ(Shown(store.Run("CREATE KEYSPACE ks")), "ok");
  ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY)")), "ok");
  failing = true;
  EXPECT_TRUE(Shown(store.Run("CREATE TABLE ks.u (k int PRIMARY KEY)"))
                  .starts_with("error: Server Error. CREATE TABLE: disk I/O error"));
  EXPECT_TRUE(
      Shown(store.Run("INSERT INTO ks.t (k) VALUES (1)")).starts_with("error: Server Error"));
  failing = false;
  EXPECT_EQ(Shown(store.Run("SELECT * FROM ks.u")), "error: Object Not Found");
  EXPECT_EQ(Shown(store.Run("SELECT count(*) FROM ks.t")), " count\n-------\n     0\n\n(1 rows)\n");
  EXPECT_EQ(Shown(store.Run("CREATE TABLE ks.u (k int PRIMARY KEY)")), "ok");
  store.Reopen();
  EXPECT_EQ(Shown(store.Run("SELECT count(*) FROM ks.u")), " count\n-------\n     0\n\n(1 rows)\n");
}

// Fails one disk write: hit number `*target` of the write site.
class OneWriteFailure final : public sim::FaultPlan {
 public:
  explicit OneWriteFailure(const std::uint64_t* target) : target_(target) {}
  sim::FaultDecision Decide(std::string_view site, std::uint64_t hit, sim::Rng&) const override {
    if (site == fakes::SqliteVfs::kSiteWrite && hit == *target_) {
      return sim::FaultDecision{sim::FaultAction::kError, {}, sim::StatusCode::kIoError};
    }
    return sim::FaultDecision{};
  }
  std::string Describe() const override { return "one write failure"; }

 private:
  const std::uint64_t* target_;
};

std::uint64_t WritesSoFar(sim::Simulation& simulation) {
  for (const sim::SiteCoverage& site : simulation.faults().Coverage()) {
    if (site.site == fakes::SqliteVfs::kSiteWrite) return site.hits;
  }
  return 0;
}

// A write that fails at any one of its disk writes leaves no trace: in
// particular no row of nulls, which no sequence of CQL statements makes.
TEST(CqlEngineTest, AFailedWriteAtAnyDiskWriteLeavesNoPhantomRow) {
  for (std::uint64_t offset = 1; offset <= 12; ++offset) {
    std::uint64_t target = 0;  // No failure during set-up.
    EngineOnVolume store(nullptr, {.fault_plan = std::make_shared<OneWriteFailure>(&target)});
    ASSERT_EQ(Shown(store.Run("CREATE KEYSPACE ks")), "ok");
    ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY, v text)")), "ok");
    ASSERT_EQ(Shown(store.Run("UPDATE ks.t SET v = 'x' WHERE k = 1")), "ok");
    target = WritesSoFar(store.simulation()) + offset;
    const std::string outcome = Shown(store.Run("DELETE v FROM ks.t WHERE k = 1"));
    const std::string rows = Shown(store.Run("SELECT * FROM ks.t"));
    if (outcome == "ok") {
      EXPECT_EQ(rows, " k | v\n---+---\n\n(0 rows)\n") << "offset " << offset;
    } else {
      EXPECT_EQ(rows, " k | v\n---+---\n 1 | x\n\n(1 rows)\n") << "offset " << offset << outcome;
    }
  }
}

TEST(CqlEngineTest, ADamagedCatalogOrCellIsCorruptionNotACrash) {
  fakes::Volume volume("store-data", fakes::VolumeKind::kNamedVolume);
  {
    EngineOnVolume store(&volume);
    ASSERT_EQ(Shown(store.Run("CREATE KEYSPACE ks")), "ok");
    ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY, v list<int>)")), "ok");
    ASSERT_EQ(Shown(store.Run("INSERT INTO ks.t (k, v) VALUES (1, [5])")), "ok");
    // Damage the cell behind the engine's back: a list of lists.
    sqlite3* db = store.handle();
    const std::string bad = EncodeCollection(Value{
        Value::Kind::kList, 0, 0, {}, {Value{Value::Kind::kList, 0, 0, {}, {Value::Int(5)}}}});
    sqlite3_stmt* update = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE t1 SET c1 = ?", -1, &update, nullptr), SQLITE_OK);
    sqlite3_bind_blob(update, 1, bad.data(), static_cast<int>(bad.size()), SQLITE_TRANSIENT);
    ASSERT_EQ(sqlite3_step(update), SQLITE_DONE);
    sqlite3_finalize(update);
    EXPECT_EQ(Shown(store.Run("SELECT * FROM ks.t")),
              "error: Server Error. Corruption: a stored collection value cannot be read");
    // And a storage name that would be SQL.
    ASSERT_EQ(sqlite3_exec(db, "UPDATE fl_columns SET sql_name = 'c1; DROP TABLE t1'", nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
  }
  sim::Simulation simulation;
  fakes::SqliteVfs vfs(simulation);
  vfs.Mount("/var/lib/store", volume);
  auto opened = StoreDatabase::Open(vfs, "/var/lib/store/meta.db");
  ASSERT_TRUE(std::holds_alternative<sim::Status>(opened));
  EXPECT_EQ(std::get<sim::Status>(opened).ToString(),
            "Corruption: catalog of ks.t: bad storage name 'c1; DROP TABLE t1' for column k");
}

// The catalog reads a table's columns as SQLite stores them when they lie
// in their order (WriteTable writes them so); one stored out of its
// order still comes back in the table's order.
TEST(CqlEngineTest, ColumnsStoredOutOfTheirOrderLoadInTheirOrder) {
  fakes::Volume volume("store-data", fakes::VolumeKind::kNamedVolume);
  {
    EngineOnVolume store(&volume);
    ASSERT_EQ(Shown(store.Run("CREATE KEYSPACE ks")), "ok");
    ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY, a int, b text)")), "ok");
    ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.u (k int PRIMARY KEY, c int)")), "ok");
    // t's key column moved after every other row.
    ASSERT_EQ(sqlite3_exec(store.handle(),
                           "CREATE TEMP TABLE moved AS SELECT * FROM fl_columns WHERE ordinal = 0 "
                           "AND table_id = (SELECT id FROM fl_tables WHERE name = 't');"
                           "DELETE FROM fl_columns WHERE rowid IN (SELECT f.rowid FROM fl_columns "
                           "f JOIN moved m ON f.table_id = m.table_id AND f.name = m.name);"
                           "INSERT INTO fl_columns SELECT * FROM moved;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
  }
  sim::Simulation simulation;
  fakes::SqliteVfs vfs(simulation);
  vfs.Mount("/var/lib/store", volume);
  auto opened = StoreDatabase::Open(vfs, "/var/lib/store/meta.db");
  ASSERT_TRUE(std::holds_alternative<std::unique_ptr<StoreDatabase>>(opened));
  const Catalog& catalog = std::get<std::unique_ptr<StoreDatabase>>(opened)->engine().catalog();
  const auto names = [&](const std::string& table) {
    std::vector<std::string> columns;
    for (const ColumnInfo& column : catalog.FindTable("ks", table)->columns) {
      columns.push_back(column.name);
    }
    return columns;
  };
  EXPECT_EQ(names("t"), (std::vector<std::string>{"k", "a", "b"}));
  EXPECT_EQ(names("u"), (std::vector<std::string>{"k", "c"}));
}

// Layout 7 reads the system tables through SELECTs of their own, not
// views: a store saved at layout 6 has its views dropped when it opens,
// and reads its system tables as before.
TEST(CqlEngineTest, AStoreOfTheViewsLayoutDropsThemAndReadsItsSystemTables) {
  fakes::Volume volume("store-data", fakes::VolumeKind::kNamedVolume);
  {
    EngineOnVolume store(&volume);
    ASSERT_EQ(Shown(store.Run("CREATE KEYSPACE ks")), "ok");
    ASSERT_EQ(Shown(store.Run("CREATE TABLE ks.t (k int PRIMARY KEY, a int)")), "ok");
    ASSERT_EQ(sqlite3_exec(store.handle(),
                           "CREATE VIEW fl_system_local AS SELECT 'stale' AS c0;"
                           "PRAGMA user_version = 6;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
  }
  EngineOnVolume store(&volume);
  const auto one_value = [&](const char* sql) {
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(store.handle(), sql, -1, &statement, nullptr), SQLITE_OK);
    std::string value = "(no row)";
    if (sqlite3_step(statement) == SQLITE_ROW) {
      value = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    }
    sqlite3_finalize(statement);
    return value;
  };
  EXPECT_EQ(one_value("SELECT count(*) FROM sqlite_schema WHERE type = 'view'"), "0");
  EXPECT_EQ(one_value("PRAGMA user_version"), "7");
  const auto shown = [&](const char* cql) { return Shown(store.Run(cql)); };
  EXPECT_EQ(shown("SELECT key, bootstrapped FROM system.local"),
            "   key | bootstrapped\n"
            "-------+--------------\n"
            " local |    COMPLETED\n"
            "\n(1 rows)\n");
  EXPECT_EQ(shown("SELECT column_name, kind FROM system_schema.columns WHERE keyspace_name = 'ks'"),
            " column_name |          kind\n"
            "-------------+---------------\n"
            "           k | partition_key\n"
            "           a |       regular\n"
            "\n(2 rows)\n");
}

}  // namespace
}  // namespace faultline::models::cql
