#include "models/cql/parser.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace faultline::models::cql {
namespace {

// The one statement in `text`; fails the test on a parse error.
template <typename T>
T ParseOne(std::string_view text) {
  ParseResult result = Parse(text);
  EXPECT_FALSE(result.error.has_value()) << (result.error ? FormatError(text, *result.error) : "");
  EXPECT_EQ(result.statements.size(), 1u);
  if (result.statements.empty() || !std::holds_alternative<T>(result.statements[0].statement)) {
    ADD_FAILURE() << "not the expected statement kind: " << text;
    return T{};
  }
  return std::get<T>(result.statements[0].statement);
}

ParseError ParseFailure(std::string_view text) {
  ParseResult result = Parse(text);
  EXPECT_TRUE(result.error.has_value()) << "parsed: " << text;
  return result.error.value_or(ParseError{});
}

TEST(CqlLexerTest, SkipsCommentsAndKeepsPositions) {
  const LexResult lexed = Lex("-- a comment\nSELECT /* inline */ x // tail\nFROM t");
  ASSERT_FALSE(lexed.error.has_value());
  ASSERT_EQ(lexed.tokens.size(), 5u);
  EXPECT_TRUE(lexed.tokens[0].IsKeyword("select"));
  EXPECT_EQ(lexed.tokens[0].position.line, 2);
  EXPECT_EQ(lexed.tokens[1].text, "x");
  EXPECT_EQ(lexed.tokens[1].position.column, 21);
  EXPECT_EQ(lexed.tokens[3].position.line, 3);
  EXPECT_EQ(lexed.tokens[4].kind, TokenKind::kEnd);
}

TEST(CqlLexerTest, StringsIdentifiersNumbersAndBlobs) {
  const LexResult lexed = Lex("'it''s' \"Mixed\"\"Q\" 42 -7 3.5 0xCAFE <= !=");
  ASSERT_FALSE(lexed.error.has_value());
  EXPECT_EQ(lexed.tokens[0].kind, TokenKind::kString);
  EXPECT_EQ(lexed.tokens[0].text, "it's");
  EXPECT_EQ(lexed.tokens[1].kind, TokenKind::kQuotedIdentifier);
  EXPECT_EQ(lexed.tokens[1].text, "Mixed\"Q");
  EXPECT_EQ(lexed.tokens[2].kind, TokenKind::kInteger);
  EXPECT_TRUE(lexed.tokens[3].IsSymbol("-"));
  EXPECT_EQ(lexed.tokens[5].kind, TokenKind::kFloat);
  EXPECT_EQ(lexed.tokens[6].kind, TokenKind::kBlob);
  EXPECT_EQ(lexed.tokens[6].text, "CAFE");
  EXPECT_TRUE(lexed.tokens[7].IsSymbol("<="));
  EXPECT_TRUE(lexed.tokens[8].IsSymbol("!="));
}

TEST(CqlLexerTest, UnterminatedInputIsAnErrorNotACrash) {
  EXPECT_EQ(Lex("SELECT 'abc").error->message, "unterminated string");
  EXPECT_EQ(Lex("SELECT \"abc").error->message, "unterminated identifier");
  EXPECT_EQ(Lex("/* never closed").error->message, "unterminated comment");
  const LexResult odd = Lex("SELECT @x");
  ASSERT_TRUE(odd.error.has_value());
  EXPECT_EQ(odd.error->position.column, 8);
}

TEST(CqlParserTest, CreateTableAsTheSeedMigrationWritesIt) {
  const auto create = ParseOne<CreateTable>(R"(
    CREATE TABLE IF NOT EXISTS filecoingw_s3.S3Objects (
      bucket text, key text, cid text, size bigint, updated timestamp,
      node_id text, expires_at timestamp,
      PRIMARY KEY (bucket, key)
    );)");
  EXPECT_TRUE(create.if_not_exists);
  EXPECT_EQ(create.table, (QualifiedName{"filecoingw_s3", "s3objects"}));
  ASSERT_EQ(create.columns.size(), 7u);
  EXPECT_EQ(create.columns[5].name, "node_id");
  EXPECT_EQ(create.columns[3].type.ToString(), "bigint");
  EXPECT_EQ(create.partition_key, std::vector<std::string>{"bucket"});
  EXPECT_EQ(create.clustering_key, std::vector<std::string>{"key"});
}

TEST(CqlParserTest, CreateTableKeysCollectionsAndOptions) {
  const auto create = ParseOne<CreateTable>(
      "CREATE TABLE t (a int, b int, c text, tags set<text>, attrs map<text, frozen<list<int>>>, "
      "PRIMARY KEY ((a, b), c)) WITH CLUSTERING ORDER BY (c DESC) AND default_time_to_live = 60");
  EXPECT_EQ(create.partition_key, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(create.clustering_key, std::vector<std::string>{"c"});
  EXPECT_EQ(create.columns[4].type.ToString(), "map<text, frozen<list<int>>>");
  ASSERT_EQ(create.clustering_order.size(), 1u);
  EXPECT_TRUE(create.clustering_order[0].second);
  ASSERT_EQ(create.options.size(), 1u);
  EXPECT_EQ(create.options[0], (std::pair<std::string, std::string>{"default_time_to_live", "60"}));
  const auto inline_key = ParseOne<CreateTable>("create table ks.t (id uuid PRIMARY KEY, v blob)");
  EXPECT_EQ(inline_key.partition_key, std::vector<std::string>{"id"});
  EXPECT_FALSE(inline_key.if_not_exists);
}

TEST(CqlParserTest, IdentifiersAreCaseInsensitiveUnlessQuoted) {
  EXPECT_EQ(ParseOne<DropTable>("DROP TABLE Filecoingw_S3.S3Objects").table,
            (QualifiedName{"filecoingw_s3", "s3objects"}));
  EXPECT_EQ(ParseOne<DropTable>("drop table \"MixedCase\"").table.name, "MixedCase");
}

TEST(CqlParserTest, KeyspaceStatements) {
  const auto create = ParseOne<CreateKeyspace>(
      "CREATE KEYSPACE IF NOT EXISTS filecoingw_kuri1 WITH replication = "
      "{'class': 'SimpleStrategy', 'replication_factor': 1} AND durable_writes = true");
  EXPECT_TRUE(create.if_not_exists);
  EXPECT_EQ(create.name, "filecoingw_kuri1");
  EXPECT_TRUE(ParseOne<DropKeyspace>("DROP KEYSPACE IF EXISTS gone").if_exists);
  EXPECT_EQ(ParseOne<Use>("USE filecoingw_s3").keyspace, "filecoingw_s3");
}

TEST(CqlParserTest, AlterAndTruncate) {
  const auto add = ParseOne<AlterTable>("ALTER TABLE S3Objects ADD node_id text");
  EXPECT_EQ(add.action, AlterTable::Action::kAdd);
  EXPECT_EQ(add.column.name, "node_id");
  EXPECT_EQ(add.column.type.base, "text");
  const auto drop = ParseOne<AlterTable>("ALTER TABLE ks.t DROP expires_at");
  EXPECT_EQ(drop.action, AlterTable::Action::kDrop);
  // YCQL's property_op (docs api/ycql/ddl_alter_table.md): options as written.
  const auto with = ParseOne<AlterTable>(
      "ALTER TABLE events WITH gc_grace_seconds = 0 AND compaction = {'class': 'X'}");
  EXPECT_EQ(with.action, AlterTable::Action::kWith);
  EXPECT_EQ(with.options, (std::vector<std::pair<std::string, std::string>>{
                              {"gc_grace_seconds", "0"}, {"compaction", "{'class': 'X'}"}}));
  const auto rename = ParseOne<AlterTable>("ALTER TABLE t RENAME \"Old\" TO fresh");
  EXPECT_EQ(rename.action, AlterTable::Action::kRename);
  EXPECT_EQ(rename.column.name, "Old");
  EXPECT_EQ(rename.new_name, "fresh");
  EXPECT_EQ(ParseOne<Truncate>("TRUNCATE TABLE schema_migrations").table.name, "schema_migrations");
}

// The union of YCQL's IndexStmt (parser_gram.y) and Cassandra's
// createIndexStatement (Parser.g); each engine dialect refuses the rest.
TEST(CqlParserTest, IndexStatementsOfBothGrammars) {
  const auto plain = ParseOne<CreateIndex>("CREATE INDEX ON app.users (email)");
  EXPECT_TRUE(plain.name.empty());
  EXPECT_EQ(plain.table, (QualifiedName{"app", "users", 0}));
  ASSERT_EQ(plain.targets.size(), 1u);
  EXPECT_EQ(plain.targets[0].column, "email");
  EXPECT_EQ(plain.targets[0].kind, IndexTarget::Kind::kColumn);

  const auto ycql = ParseOne<CreateIndex>(
      "create unique index if not exists by_name on users ((a, b), c) include (d, e) "
      "where a > 1 with transactions = {'enabled': 'false'} and clustering order by (c desc)");
  EXPECT_TRUE(ycql.unique && ycql.if_not_exists && !ycql.custom);
  EXPECT_EQ(ycql.name, "by_name");
  EXPECT_EQ(ycql.targets.size(), 3u);
  EXPECT_EQ(ycql.hash_targets, 2u);
  EXPECT_EQ(ycql.included, (std::vector<std::string>{"d", "e"}));
  EXPECT_EQ(ycql.where_text, "a > 1");
  ASSERT_EQ(ycql.options.size(), 1u);
  EXPECT_EQ(ycql.options[0].second, "{'enabled': 'false'}");
  EXPECT_EQ(ycql.clustering_order, (std::vector<std::pair<std::string, bool>>{{"c", true}}));

  const auto sasi = ParseOne<CreateIndex>(
      "CREATE CUSTOM INDEX IF NOT EXISTS ON spans (keys(tags)) USING "
      "'org.apache.cassandra.index.sasi.SASIIndex' WITH OPTIONS = {'mode': 'CONTAINS'}");
  EXPECT_TRUE(sasi.custom && sasi.if_not_exists && sasi.name.empty());
  EXPECT_EQ(sasi.targets[0].kind, IndexTarget::Kind::kKeys);
  EXPECT_EQ(sasi.using_class, "org.apache.cassandra.index.sasi.SASIIndex");
  ASSERT_EQ(sasi.options.size(), 1u);
  EXPECT_EQ(sasi.options[0].first, "options");
  for (const auto* function : {"values", "entries", "full"}) {
    EXPECT_EQ(
        ParseOne<CreateIndex>(fmt::format("CREATE INDEX ON t ({}(m))", function)).targets[0].column,
        "m");
  }
  const auto drop = ParseOne<DropIndex>("DROP INDEX IF EXISTS app.by_name");
  EXPECT_TRUE(drop.if_exists);
  EXPECT_EQ(drop.index, (QualifiedName{"app", "by_name", 0}));
  EXPECT_FALSE(ParseOne<DropIndex>("drop index by_name").if_exists);
  // No table, no targets, a USING without a string: errors, not crashes.
  EXPECT_NE(ParseFailure("CREATE INDEX i ON (v)").message.find("syntax error"), std::string::npos);
  EXPECT_NE(ParseFailure("CREATE INDEX i ON t ()").message.find("syntax error"), std::string::npos);
  EXPECT_NE(ParseFailure("CREATE INDEX i ON t (v) USING cls").message.find("a class name"),
            std::string::npos);
}

TEST(CqlParserTest, InsertWithBindMarkersLwtAndTtl) {
  const ParseResult result = Parse(
      "INSERT INTO schema_migrations (version, dirty) VALUES (?, ?) IF NOT EXISTS USING TTL 30");
  ASSERT_FALSE(result.error.has_value());
  const auto& insert = std::get<Insert>(result.statements[0].statement);
  EXPECT_EQ(result.statements[0].bind_markers, 2);
  EXPECT_EQ(insert.values[1].kind, Term::Kind::kBindMarker);
  EXPECT_EQ(insert.values[1].bind_index, 1);
  EXPECT_TRUE(insert.if_not_exists);
  ASSERT_TRUE(insert.ttl.has_value());
  EXPECT_EQ(insert.ttl->text, "30");
}

TEST(CqlParserTest, InsertLiteralsAndCollections) {
  const auto insert = ParseOne<Insert>(
      "INSERT INTO t (a, b, c, d, e, f, g) VALUES (-5, 'x', true, null, [1, 2], {'k': 1}, 0xff)");
  EXPECT_EQ(insert.values[0].text, "-5");
  EXPECT_EQ(insert.values[1].kind, Term::Kind::kString);
  EXPECT_EQ(insert.values[2].kind, Term::Kind::kBoolean);
  EXPECT_EQ(insert.values[3].kind, Term::Kind::kNull);
  EXPECT_EQ(insert.values[4].kind, Term::Kind::kList);
  EXPECT_EQ(insert.values[4].elements.size(), 2u);
  EXPECT_EQ(insert.values[5].kind, Term::Kind::kMap);
  EXPECT_EQ(insert.values[5].elements.size(), 2u);
  EXPECT_EQ(insert.values[6].kind, Term::Kind::kBlob);
  EXPECT_EQ(ParseOne<Insert>("INSERT INTO t (s) VALUES ({'a', 'b'})").values[0].kind,
            Term::Kind::kSet);
}

TEST(CqlParserTest, UpdateDeleteAndConditions) {
  const auto update = ParseOne<Update>(
      "UPDATE schema_migrations SET dirty = false WHERE version = 1754293669 IF dirty = true");
  EXPECT_EQ(update.assignments[0].column, "dirty");
  EXPECT_EQ(update.where[0].value.text, "1754293669");
  ASSERT_EQ(update.conditions.size(), 1u);
  EXPECT_TRUE(ParseOne<Update>("UPDATE t USING TTL 5 SET a = 1 WHERE k = 2 IF EXISTS").if_exists);
  const auto remove = ParseOne<Delete>("DELETE FROM schema_migrations WHERE version = 3");
  EXPECT_TRUE(remove.columns.empty());
  EXPECT_EQ(ParseOne<Delete>("DELETE a, b FROM t WHERE k = 1 IF EXISTS").columns.size(), 2u);
}

TEST(CqlParserTest, SelectForms) {
  const auto select =
      ParseOne<Select>("SELECT node_id FROM S3Objects WHERE bucket = ? AND key = ? LIMIT 1");
  EXPECT_EQ(select.columns, std::vector<std::string>{"node_id"});
  EXPECT_EQ(select.where.size(), 2u);
  ASSERT_TRUE(select.limit.has_value());
  EXPECT_TRUE(ParseOne<Select>("SELECT * FROM system_schema.tables").star);
  EXPECT_TRUE(ParseOne<Select>("SELECT count(*) FROM t").count);
  EXPECT_TRUE(ParseOne<Select>("SELECT a FROM t WHERE b > 1 ALLOW FILTERING").allow_filtering);
  EXPECT_EQ(ParseOne<Select>("SELECT version, dirty FROM schema_migrations LIMIT 1").columns.size(),
            2u);
}

TEST(CqlParserTest, Batches) {
  const auto batch = ParseOne<Batch>(
      "BEGIN BATCH DELETE FROM schema_migrations WHERE version = 1; "
      "INSERT INTO schema_migrations (version, dirty) VALUES (2, true); APPLY BATCH");
  ASSERT_EQ(batch.statements.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<Delete>(batch.statements[0]));
  EXPECT_TRUE(std::holds_alternative<Insert>(batch.statements[1]));
}

TEST(CqlParserTest, DescribeForms) {
  EXPECT_EQ(ParseOne<Describe>("DESCRIBE KEYSPACES").what, Describe::What::kKeyspaces);
  EXPECT_EQ(ParseOne<Describe>("DESC TABLES").what, Describe::What::kTables);
  EXPECT_EQ(ParseOne<Describe>("DESCRIBE KEYSPACE filecoingw_s3").keyspace, "filecoingw_s3");
  EXPECT_EQ(ParseOne<Describe>("DESCRIBE TABLE filecoingw_s3.S3Objects").table.name, "s3objects");
  EXPECT_EQ(ParseOne<Describe>("describe s3objects").what, Describe::What::kName);
  EXPECT_EQ(ParseOne<Describe>("DESCRIBE COLUMNFAMILY t").what, Describe::What::kTable);
  EXPECT_EQ(ParseOne<Describe>("DESCRIBE SCHEMA").what, Describe::What::kSchema);
  EXPECT_EQ(ParseOne<Describe>("DESCRIBE FULL SCHEMA").what, Describe::What::kSchema);
  EXPECT_EQ(ParseOne<Describe>("DESCRIBE KEYSPACE").keyspace, "");
}

TEST(CqlParserTest, ScriptsSplitOnSemicolonsAndKeepEachStatementsText) {
  const std::string script =
      "CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);\n\n;  -- nothing here\n"
      "CREATE TABLE IF NOT EXISTS b (k int PRIMARY KEY) ;";
  const ParseResult result = Parse(script);
  ASSERT_FALSE(result.error.has_value());
  ASSERT_EQ(result.statements.size(), 2u);
  EXPECT_EQ(result.statements[0].text, "CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY)");
  EXPECT_EQ(result.statements[1].text, "CREATE TABLE IF NOT EXISTS b (k int PRIMARY KEY)");
  EXPECT_EQ(result.statements[1].start.line, 4);
  EXPECT_TRUE(Parse("   -- only a comment\n").statements.empty());
}

TEST(CqlParserTest, SyntaxErrorsNameTheOffendingToken) {
  const std::string text = "SELECT node_id FORM S3Objects";
  const ParseError error = ParseFailure(text);
  EXPECT_EQ(error.message,
            "Invalid SQL Statement. syntax error, unexpected 'FORM', expecting 'from'");
  EXPECT_EQ(error.position.column, 16);
  EXPECT_EQ(FormatError(text, error),
            "Invalid SQL Statement. syntax error, unexpected 'FORM', expecting 'from'\n"
            "SELECT node_id FORM S3Objects\n"
            "               ^");
  EXPECT_EQ(ParseFailure("CREATE TABLE t (a int,,)").message,
            "Invalid SQL Statement. syntax error, unexpected ',', expecting a column name");
  EXPECT_EQ(ParseFailure("SELEKT * FROM t").message,
            "Invalid SQL Statement. syntax error, unexpected 'SELEKT', expecting a statement");
  EXPECT_EQ(
      ParseFailure("SELECT * FROM t WHERE").message,
      "Invalid SQL Statement. syntax error, unexpected end of input, expecting a column name");
  EXPECT_EQ(ParseFailure("SELECT 'open").message, "Invalid SQL Statement. unterminated string");
}

TEST(CqlParserTest, StatementsBeforeAnErrorAreKept) {
  const ParseResult result = Parse("USE ks; CREATE TABLE; USE other");
  ASSERT_TRUE(result.error.has_value());
  EXPECT_EQ(result.statements.size(), 1u);
  EXPECT_EQ(result.error->position.column, 21);
}

// No input crashes the parser: every prefix and a set of mangled statements
// parse or fail cleanly (the libFuzzer target comes with the store).
TEST(CqlParserTest, EveryPrefixParsesOrFailsCleanly) {
  const std::string statement =
      "BEGIN BATCH INSERT INTO ks.t (a, b) VALUES (?, {'k': [1, -2.5]}) IF NOT EXISTS; "
      "UPDATE t USING TTL 3 SET a = 'x''y' WHERE k = 0xAB IF c != null; APPLY BATCH;"
      "CREATE TABLE IF NOT EXISTS \"T\" (a int, b set<text>, PRIMARY KEY ((a), b)) WITH "
      "CLUSTERING ORDER BY (b ASC) AND comment = 'c' /* x */ -- y";
  for (std::size_t length = 0; length <= statement.size(); ++length) {
    const ParseResult result = Parse(std::string_view(statement).substr(0, length));
    if (result.error) {
      EXPECT_LE(result.error->position.offset, length);
    }
  }
}

}  // namespace
}  // namespace faultline::models::cql

namespace faultline::models::cql {
namespace {

// YCQL's grammar (yugabyte-db parser_gram.y: ColId is IDENT,
// unreserved_keyword or col_name_keyword) refuses its reserved words as bare
// names, naming the keyword's token; quoted, or after a dot, they are names.
// What Cassandra's grammar takes and YCQL's refuses parses, with the error
// YCQL gives kept beside the statement: a trailing comma (Parser.g's
// tableDefinition and typeColumns against parser_gram.y's TableElementList),
// and a word YCQL reserves but Cassandra does not (reserved_keywords.txt).
TEST(CqlParserTest, WhatOnlyCassandraTakesCarriesYcqlsError) {
  const std::string trailing = "CREATE TABLE t (k int PRIMARY KEY, v text,)";
  const ParseResult table = Parse(trailing);
  ASSERT_FALSE(table.error.has_value());
  ASSERT_TRUE(table.statements[0].ycql_error.has_value());
  EXPECT_EQ(table.statements[0].ycql_error->message,
            "Invalid SQL Statement. syntax error, unexpected ')'");
  EXPECT_EQ(table.statements[0].ycql_error->offset, trailing.rfind(')'));
  EXPECT_EQ(std::get<CreateTable>(table.statements[0].statement).columns.size(), 2u);
  const ParseResult end = Parse("CREATE TABLE t (k int PRIMARY KEY, end timestamp)");
  ASSERT_FALSE(end.error.has_value());
  ASSERT_TRUE(end.statements[0].ycql_error.has_value());
  EXPECT_EQ(end.statements[0].ycql_error->message,
            "Invalid SQL Statement. syntax error, unexpected END");
  EXPECT_FALSE(Parse("CREATE TABLE t (k int PRIMARY KEY, v text)").statements[0].ycql_error);
  // Reserved in both: an error for both.
  EXPECT_TRUE(Parse("CREATE TABLE t (k int PRIMARY KEY, from text)").error.has_value());
}

TEST(CqlParserTest, TypeStatementsAndUdtLiterals) {
  const auto create =
      ParseOne<CreateType>("CREATE TYPE IF NOT EXISTS app.address (street text, zip int)");
  EXPECT_TRUE(create.if_not_exists);
  EXPECT_EQ(create.type, (QualifiedName{"app", "address", 0}));
  ASSERT_EQ(create.fields.size(), 2u);
  EXPECT_EQ(create.fields[1].type.base, "int");
  const auto add = ParseOne<AlterType>("ALTER TYPE address ADD IF NOT EXISTS city text");
  EXPECT_EQ(add.action, AlterType::Action::kAdd);
  EXPECT_TRUE(add.field_if_not_exists);
  EXPECT_EQ(add.field.name, "city");
  const auto rename = ParseOne<AlterType>("ALTER TYPE address RENAME a TO b AND c TO d");
  ASSERT_EQ(rename.renames.size(), 2u);
  EXPECT_EQ(rename.renames[1].to, "d");
  EXPECT_TRUE(ParseOne<DropType>("DROP TYPE IF EXISTS address").if_exists);
  const auto insert =
      ParseOne<Insert>("INSERT INTO t (k, v) VALUES (1, {street: 'x', \"Zip\": 2, home: {a: 1}})");
  const Term& udt = insert.values[1];
  EXPECT_EQ(udt.kind, Term::Kind::kUdt);
  EXPECT_EQ(udt.fields, (std::vector<std::string>{"street", "Zip", "home"}));
  EXPECT_EQ(udt.elements[2].kind, Term::Kind::kUdt);
  // A map whose keys are literals is still a map.
  EXPECT_EQ(ParseOne<Insert>("INSERT INTO t (k, m) VALUES (1, {'a': 1, true: 2})").values[1].kind,
            Term::Kind::kMap);
}

TEST(CqlParserTest, ReservedWordsAreNoBareNamesAsInYcql) {
  const std::string statement = "CREATE TABLE ks.t (k int PRIMARY KEY, table text)";
  const ParseResult refused = Parse(statement);
  ASSERT_TRUE(refused.error.has_value());
  EXPECT_EQ(refused.error->message, "Invalid SQL Statement. syntax error, unexpected TABLE");
  EXPECT_EQ(refused.error->position.offset, statement.find("table text"));
  for (const char* word : {"select", "from", "token", "limit", "keyspace", "order"}) {
    EXPECT_TRUE(Parse(fmt::format("SELECT {} FROM ks.t", word)).error.has_value()) << word;
  }
  // Unreserved words are names; so is any word quoted, or after a dot.
  EXPECT_FALSE(Parse("CREATE TABLE ks.t (key int PRIMARY KEY, user text, value text, type text, "
                     "\"table\" text)")
                   .error.has_value());
  EXPECT_FALSE(Parse("SELECT keyspace_name FROM system_schema.keyspaces").error.has_value());
}

}  // namespace
}  // namespace faultline::models::cql
