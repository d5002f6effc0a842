#include "models/cql/errors.h"
#include "models/cql/types.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "models/cql/parser.h"

namespace faultline::models::cql {
namespace {

// The type of column `column` in a CREATE TABLE, resolved.
std::variant<CqlType, CqlError> TypeOf(std::string_view declaration) {
  const ParseResult parsed =
      Parse(fmt::format("CREATE TABLE t (k int PRIMARY KEY, c {})", declaration));
  EXPECT_FALSE(parsed.error.has_value()) << declaration;
  if (parsed.error) return SyntaxError(parsed.error->message);
  return ResolveType(std::get<CreateTable>(parsed.statements[0].statement).columns[1].type);
}

std::string Resolved(std::string_view declaration) {
  auto type = TypeOf(declaration);
  if (auto* error = std::get_if<CqlError>(&type)) return "error: " + error->message;
  return std::get<CqlType>(type).ToString();
}

TEST(CqlTypesTest, ResolvesTheTypesRealMigrationsUse) {
  EXPECT_EQ(Resolved("text"), "text");
  EXPECT_EQ(Resolved("VARCHAR"), "text");  // An alias, case-insensitive like every keyword.
  EXPECT_EQ(Resolved("bigint"), "bigint");
  EXPECT_EQ(Resolved("timestamp"), "timestamp");
  EXPECT_EQ(Resolved("set<text>"), "set<text>");
  EXPECT_EQ(Resolved("map<text, bigint>"), "map<text, bigint>");
  EXPECT_EQ(Resolved("list<frozen<map<uuid, blob>>>"), "list<frozen<map<uuid, blob>>>");
  EXPECT_EQ(Resolved("counter"), "counter");
}

TEST(CqlTypesTest, RefusesWhatCqlRefuses) {
  EXPECT_EQ(Resolved("string"), "error: Invalid Arguments. unknown type string");
  EXPECT_EQ(Resolved("map<text>"), "error: Invalid Arguments. type map takes 2 type parameters");
  EXPECT_EQ(Resolved("int<text>"), "error: Invalid Arguments. type int takes no parameters");
  EXPECT_EQ(Resolved("list<counter>"),
            "error: Invalid Arguments. counters are not allowed inside collections");
}

TEST(CqlTypesTest, KeyabilityAndStorage) {
  auto type = [](std::string_view declaration) { return std::get<CqlType>(TypeOf(declaration)); };
  EXPECT_TRUE(type("text").IsKeyable());
  EXPECT_FALSE(type("set<text>").IsKeyable());
  EXPECT_TRUE(type("frozen<set<text>>").IsKeyable());
  EXPECT_FALSE(type("counter").IsKeyable());
  EXPECT_EQ(type("bigint").SqliteAffinity(), "INTEGER");
  EXPECT_EQ(type("double").SqliteAffinity(), "REAL");
  EXPECT_EQ(type("blob").SqliteAffinity(), "BLOB");
  EXPECT_EQ(type("uuid").SqliteAffinity(), "TEXT");
}

TEST(CqlErrorsTest, TextsAreYcqls) {
  EXPECT_EQ(DuplicateObject("filecoingw_s3", "s3objects").message,
            "Duplicate Object. Object 'filecoingw_s3.s3objects' already exists");
  EXPECT_EQ(static_cast<int>(DuplicateObject("a", "b").code), -202);
  EXPECT_EQ(UndefinedColumn().message, "Undefined Column. Column doesn't exist");
  EXPECT_EQ(static_cast<int>(UndefinedColumn().code), -203);
  EXPECT_EQ(DuplicateColumn("node_id").message,
            "Duplicate Column. Invalid column name because it conflicts with the existing "
            "column: node_id");
  EXPECT_EQ(ObjectNotFound().message, "Object Not Found");
  EXPECT_EQ(static_cast<int>(ObjectNotFound().code), -301);
  EXPECT_EQ(KeyspaceNotFound().message, "Keyspace Not Found");
  EXPECT_EQ(static_cast<int>(KeyspaceNotFound().code), -308);
  EXPECT_EQ(AlterKeyColumn().message, "Alter key column. Can't alter key column");
}

TEST(CqlErrorsTest, WireTextAddsTheStatementCaretAndCode) {
  const std::string statement = "SELECT node_id FROM filecoingw_s3.S3Objects WHERE bucket = ?";
  EXPECT_EQ(UndefinedColumn().WireText(statement, 7),
            "Undefined Column. Column doesn't exist\n"
            "SELECT node_id FROM filecoingw_s3.S3Objects WHERE bucket = ?\n"
            "       ^^^^^^^\n (ql error -203)");
  // Every line of the statement, the carets under the token's line only
  // (yb/yql/cql/ql/ptree/process_context.cc); without an offset, no carets.
  EXPECT_EQ(ObjectNotFound().WireText("SELECT *\nFROM ks.nope\nLIMIT 1", 14),
            "Object Not Found\nSELECT *\nFROM ks.nope\n     ^^^^^^^\nLIMIT 1\n (ql error -301)");
  EXPECT_EQ(NoKeyspace().WireText("CREATE TABLE t (k int PRIMARY KEY)", std::nullopt),
            "No Namespace Used\nCREATE TABLE t (k int PRIMARY KEY)\n (ql error -215)");
}

}  // namespace
}  // namespace faultline::models::cql
