#include "models/cql/value.h"

#include <gtest/gtest.h>

#include "models/cql/collations.h"
#include "models/cql/parser.h"

namespace faultline::models::cql {
namespace {

CqlType TypeNamed(std::string_view text) {
  return std::get<CqlType>(ResolveType(*ParseTypeName(text)));
}

// The term of `INSERT INTO t (c) VALUES (<literal>)`.
Term TermOf(std::string_view literal) {
  ParseResult parsed =
      Parse(std::string("INSERT INTO t (c) VALUES (") + std::string(literal) + ")");
  EXPECT_FALSE(parsed.error) << parsed.error->message;
  return std::get<Insert>(parsed.statements.at(0).statement).values.at(0);
}

std::string Cell(std::string_view literal, std::string_view type) {
  std::variant<Value, CqlError> value = FromTerm(TermOf(literal), TypeNamed(type), {});
  if (auto* error = std::get_if<CqlError>(&value)) return "error: " + error->message;
  return FormatCell(std::get<Value>(value), TypeNamed(type));
}

TEST(CqlCollationTest, DecimalsCompareByValue) {
  EXPECT_LT(CompareDecimals("9", "10"), 0);
  EXPECT_EQ(CompareDecimals("10", "10.000"), 0);
  EXPECT_EQ(CompareDecimals("-0", "0.0"), 0);
  EXPECT_LT(CompareDecimals("-2", "-1.5"), 0);
  EXPECT_LT(CompareDecimals("-1", "0.001"), 0);
  EXPECT_LT(CompareDecimals("0.0012", "0.012"), 0);
  EXPECT_GT(CompareDecimals("1e3", "999.9"), 0);
  EXPECT_EQ(CompareDecimals("1.5E-2", "0.015"), 0);
  EXPECT_EQ(CompareDecimals("007", "7"), 0);
}

TEST(CqlCollationTest, TimeuuidsCompareByTheirTime) {
  // time_low 1 is earlier than time_mid 1, though it sorts later as text.
  EXPECT_LT(CompareTimeuuids("00000001-0000-1000-8000-000000000000",
                             "00000000-0001-1000-8000-000000000000"),
            0);
  // time_hi outweighs everything after it.
  EXPECT_GT(CompareTimeuuids("00000000-0000-1001-8000-000000000000",
                             "ffffffff-ffff-1000-8000-000000000000"),
            0);
  EXPECT_EQ(CompareTimeuuids("12345678-9abc-1def-8000-000000000001",
                             "12345678-9abc-1def-8000-000000000001"),
            0);
}

TEST(CqlValueTest, LiteralsPrintAsYcqlshPrintsThem) {
  EXPECT_EQ(Cell("'it''s'", "text"), "it's");
  EXPECT_EQ(Cell("42", "bigint"), "42");
  EXPECT_EQ(Cell("-7", "int"), "-7");
  EXPECT_EQ(Cell("true", "boolean"), "True");
  EXPECT_EQ(Cell("1.5", "double"), "1.5");
  EXPECT_EQ(Cell("0xCAFE", "blob"), "0xcafe");
  EXPECT_EQ(Cell("'2025-01-02 03:04:05.678Z'", "timestamp"), "2025-01-02 03:04:05.678000+0000");
  EXPECT_EQ(Cell("1735689600000", "timestamp"), "2025-01-01 00:00:00.000000+0000");
  EXPECT_EQ(Cell("'2025-01-01 10:00'", "timestamp"), "2025-01-01 10:00:00.000000+0000");
  EXPECT_EQ(Cell("'2025-01-01 10:00:00+0100'", "timestamp"), "2025-01-01 09:00:00.000000+0000");
  EXPECT_EQ(Cell("'2024-02-29T23:59:59-02:30'", "timestamp"), "2024-03-01 02:29:59.000000+0000");
  EXPECT_EQ(Cell("'2025-02-29'", "timestamp"),
            "error: Invalid Arguments. Invalid timestamp '2025-02-29'");
  EXPECT_EQ(Cell("'2025-04-31'", "timestamp"),
            "error: Invalid Arguments. Invalid timestamp '2025-04-31'");
  EXPECT_EQ(Cell("123E4567-E89B-12D3-A456-426614174000", "uuid"),
            "123e4567-e89b-12d3-a456-426614174000");
  EXPECT_EQ(Cell("null", "text"), "null");
}

TEST(CqlValueTest, CollectionsAreCanonical) {
  EXPECT_EQ(Cell("{'b', 'a', 'b'}", "set<text>"), "{'a', 'b'}");
  EXPECT_EQ(Cell("{'b': 2, 'a': 1, 'b': 3}", "map<text, int>"), "{'a': 1, 'b': 3}");
  EXPECT_EQ(Cell("[3, 1, 3]", "list<int>"), "[3, 1, 3]");
  EXPECT_EQ(Cell("{}", "set<int>"), "null");
  EXPECT_EQ(Cell("[]", "list<int>"), "null");
}

TEST(CqlValueTest, MismatchesAndRangesAreErrors) {
  EXPECT_EQ(Cell("'x'", "int"), "error: Datatype Mismatch. Cannot convert a string to int");
  EXPECT_EQ(Cell("1", "text"), "error: Datatype Mismatch. Cannot convert an integer to text");
  EXPECT_EQ(Cell("2147483648", "int"),
            "error: Invalid Arguments. Value 2147483648 is out of range for int");
  EXPECT_EQ(Cell("128", "tinyint"),
            "error: Invalid Arguments. Value 128 is out of range for tinyint");
  EXPECT_EQ(Cell("'2025-13-01'", "timestamp"),
            "error: Invalid Arguments. Invalid timestamp '2025-13-01'");
  EXPECT_EQ(Cell("'123e4567-e89b-12d3-a456-426614174000'", "uuid"),
            "error: Datatype Mismatch. Cannot convert a string to uuid");
  EXPECT_EQ(Cell("123e4567-e89b-12d3-a456-426614174000", "text"),
            "error: Datatype Mismatch. Cannot convert a uuid to text");
  EXPECT_EQ(Cell("{1, null}", "set<int>"), "error: null is not supported inside collections");
}

TEST(CqlValueTest, CollectionEncodingRoundTrips) {
  const CqlType type = TypeNamed("map<text, frozen<list<int>>>");
  std::variant<Value, CqlError> value = FromTerm(TermOf("{'a': [1, 2], 'b': []}"), type, {});
  ASSERT_TRUE(std::holds_alternative<Value>(value));
  const Value& original = std::get<Value>(value);
  EXPECT_EQ(DecodeCollection(EncodeCollection(original), type), original);
  // Truncated bytes, or bytes of another type's shape, never decode.
  const std::string encoded = EncodeCollection(original);
  for (std::size_t cut = 0; cut < encoded.size(); ++cut) {
    EXPECT_EQ(DecodeCollection(std::string_view(encoded).substr(0, cut), type), std::nullopt);
  }
  EXPECT_EQ(DecodeCollection(encoded, TypeNamed("map<text, frozen<list<text>>>")), std::nullopt);
  EXPECT_EQ(DecodeCollection(encoded, TypeNamed("list<int>")), std::nullopt);
  EXPECT_EQ(DecodeUntyped(encoded), original);
}

TEST(CqlValueTest, BoundValuesAreCheckedAgainstTheColumnType) {
  const Value bound[] = {Value::Text("hello"), Value::Int(5)};
  Term marker;
  marker.kind = Term::Kind::kBindMarker;
  marker.bind_index = 0;
  EXPECT_TRUE(std::holds_alternative<CqlError>(FromTerm(marker, TypeNamed("int"), bound)));
  EXPECT_EQ(std::get<Value>(FromTerm(marker, TypeNamed("text"), bound)), Value::Text("hello"));
  marker.bind_index = 1;
  EXPECT_EQ(std::get<Value>(FromTerm(marker, TypeNamed("double"), bound)), Value::Double(5));
  marker.bind_index = 2;
  EXPECT_TRUE(std::holds_alternative<CqlError>(FromTerm(marker, TypeNamed("int"), bound)));
}

}  // namespace
}  // namespace faultline::models::cql
