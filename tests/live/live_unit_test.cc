// live/'s pure parts: the CQL codec, the statement analysis, the HTTP body
// helpers, the prompt's words; and a Session whose recording replays.
#include <gtest/gtest.h>

#include <chrono>
#include <variant>

#include "live/cql_codec.h"
#include "live/cql_statements.h"
#include "live/http_body.h"
#include "live/prompt_words.h"
#include "live/session.h"
#include "models/cql/catalog.h"
#include "models/cql/types.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/harness/runner.h"
#include "scenarios/world/world.h"
#include "tests/models/cql_store_fixture.h"

namespace faultline::live {
namespace {

using models::cql::CqlType;
using models::cql::Value;
using Kind = CqlType::Kind;

CqlType Type(Kind kind, std::vector<CqlType> parameters = {}) {
  CqlType type;
  type.kind = kind;
  type.parameters = std::move(parameters);
  return type;
}

// Every value the store keeps, through the protocol's bytes and back.
TEST(CqlCodecTest, EveryTypeRoundTripsThroughItsBytes) {
  const std::vector<std::pair<CqlType, Value>> cases = {
      {Type(Kind::kBigint), Value::Int(-1234567890123)},
      {Type(Kind::kInt), Value::Int(-7)},
      {Type(Kind::kSmallint), Value::Int(-300)},
      {Type(Kind::kTinyint), Value::Int(-5)},
      {Type(Kind::kVarint), Value::Int(128)},
      {Type(Kind::kVarint), Value::Int(-129)},
      {Type(Kind::kCounter), Value::Int(42)},
      {Type(Kind::kTimestamp), Value::Int(1735689600123)},
      {Type(Kind::kBoolean), Value::Bool(true)},
      {Type(Kind::kDouble), Value::Double(9.75)},
      {Type(Kind::kFloat), Value::Double(1.5)},
      {Type(Kind::kText), Value::Text("héllo")},
      {Type(Kind::kBlob), Value::Blob(std::string("\0\1\xff", 3))},
      {Type(Kind::kUuid), Value::Text("123e4567-e89b-12d3-a456-426614174000")},
      {Type(Kind::kDate), Value::Text("2026-12-04")},
      {Type(Kind::kDate), Value::Text("1969-07-20")},
      {Type(Kind::kInet), Value::Text("10.0.0.7")},
      {Type(Kind::kInet), Value::Text("::1")},
      {Type(Kind::kDecimal), Value::Text("-12.50")},
      {Type(Kind::kDecimal), Value::Text("0.001")},
  };
  for (const auto& [type, value] : cases) {
    const std::string bytes = cql::EncodeValue(value, type);
    const std::optional<Value> back = cql::DecodeValue(bytes, type);
    ASSERT_TRUE(back.has_value()) << type.ToString();
    EXPECT_EQ(*back, value) << type.ToString();
  }
  Value set;
  set.kind = Value::Kind::kSet;
  set.elements = {Value::Text("a"), Value::Text("b")};
  const CqlType set_type = Type(Kind::kSet, {Type(Kind::kText)});
  EXPECT_EQ(cql::DecodeValue(cql::EncodeValue(set, set_type), set_type), set);
  Value map;
  map.kind = Value::Kind::kMap;
  map.elements = {Value::Text("k"), Value::Int(1)};
  const CqlType map_type = Type(Kind::kMap, {Type(Kind::kText), Type(Kind::kInt)});
  EXPECT_EQ(cql::DecodeValue(cql::EncodeValue(map, map_type), map_type), map);
}

// Native protocol v4, section 6: int is 4 bytes, bigint 8, a varint the
// fewest two's complement bytes; a date is days since the epoch plus 2^31.
TEST(CqlCodecTest, BytesAreTheSpecs) {
  EXPECT_EQ(cql::EncodeValue(Value::Int(1), Type(Kind::kInt)), std::string("\0\0\0\1", 4));
  EXPECT_EQ(cql::EncodeValue(Value::Int(128), Type(Kind::kVarint)), std::string("\0\x80", 2));
  EXPECT_EQ(cql::EncodeValue(Value::Int(-1), Type(Kind::kVarint)), "\xff");
  EXPECT_EQ(cql::EncodeValue(Value::Text("1970-01-02"), Type(Kind::kDate)),
            std::string("\x80\0\0\1", 4));
}

TEST(CqlCodecTest, WrongSizesAndShortReadsAreRefusedNotRead) {
  EXPECT_FALSE(cql::DecodeValue("abc", Type(Kind::kInt)).has_value());
  EXPECT_FALSE(cql::DecodeValue("", Type(Kind::kBoolean)).has_value());
  EXPECT_FALSE(cql::DecodeValue(std::string("\0\0\0\5a", 5), Type(Kind::kList, {Type(Kind::kText)}))
                   .has_value());
  const std::string short_string("\0\x10short", 7);  // A string of 16 bytes, 5 there.
  cql::Reader in(short_string);
  in.String();
  EXPECT_TRUE(in.failed());
  const std::string promised("\0\1\x05", 3);  // Values and a page size promised, none there.
  cql::Reader parameters(promised);
  cql::QueryParameters read;
  EXPECT_FALSE(cql::ReadParameters(parameters, read));
}

TEST(CqlStatementsTest, BindMarkersTakeTheirColumnsTypes) {
  models::cql::EngineOnVolume store;
  for (const char* statement :
       {"CREATE KEYSPACE shop", "CREATE TABLE shop.items (id int PRIMARY KEY, name text)"}) {
    ASSERT_TRUE(std::holds_alternative<models::cql::QueryResult>(store.Run(statement)));
  }
  const models::cql::Catalog& catalog = store.engine().catalog();
  auto found = cql::MarkersOf("INSERT INTO items (id, name) VALUES (?, ?)", "shop", catalog);
  ASSERT_TRUE(std::holds_alternative<cql::BindMarkers>(found));
  const cql::BindMarkers& markers = std::get<cql::BindMarkers>(found);
  ASSERT_EQ(markers.columns.size(), 2u);
  EXPECT_EQ(markers.columns[0].type.kind, Kind::kInt);
  EXPECT_EQ(markers.columns[1].type.kind, Kind::kText);
  EXPECT_EQ(markers.partition_key, std::vector<std::uint16_t>{0});
  auto inlined = cql::Inlined("INSERT INTO items (id, name) VALUES (?, ?)", markers,
                              {Value::Int(3), Value::Text("it's")});
  EXPECT_EQ(std::get<std::string>(inlined), "INSERT INTO items (id, name) VALUES (3, 'it''s')");
  auto update = cql::MarkersOf("UPDATE items SET name = ? WHERE id = ?", "shop", catalog);
  ASSERT_TRUE(std::holds_alternative<cql::BindMarkers>(update));
  EXPECT_EQ(std::get<cql::BindMarkers>(update).columns.at(0).type.kind, Kind::kText);
  EXPECT_EQ(std::get<cql::BindMarkers>(update).columns.at(1).type.kind, Kind::kInt);
  EXPECT_TRUE(std::holds_alternative<models::cql::CqlError>(
      cql::MarkersOf("SELECT * FROM nowhere WHERE a = ?", "shop", catalog)));
  EXPECT_TRUE(
      std::holds_alternative<models::cql::CqlError>(cql::MarkersOf("SELEKT 1", "shop", catalog)));
}

// A bound decimal is written unquoted (quoted, the store takes it for a
// string: Datatype Mismatch); a scale below zero and an exponent keep its value.
TEST(CqlStatementsTest, DecimalsAreWrittenAsNumbers) {
  models::cql::EngineOnVolume store;
  for (const char* statement :
       {"CREATE KEYSPACE shop", "CREATE TABLE shop.prices (id int PRIMARY KEY, price decimal)"}) {
    ASSERT_TRUE(std::holds_alternative<models::cql::QueryResult>(store.Run(statement)));
  }
  const std::string text = "INSERT INTO prices (id, price) VALUES (?, ?)";
  auto markers = cql::MarkersOf(text, "shop", store.engine().catalog());
  const CqlType decimal = Type(Kind::kDecimal);
  const std::optional<Value> price =
      cql::DecodeValue(cql::EncodeValue(Value::Text("-12.50"), decimal), decimal);
  auto inlined = cql::Inlined(text, std::get<cql::BindMarkers>(markers), {Value::Int(1), price});
  EXPECT_EQ(std::get<std::string>(inlined), "INSERT INTO prices (id, price) VALUES (1, -12.50)");
  EXPECT_TRUE(std::holds_alternative<models::cql::QueryResult>(
      store.Run("INSERT INTO shop.prices (id, price) VALUES (1, -12.50)")));
  // 1 at scale -3 (the spec's scale is an int, and may be negative).
  EXPECT_EQ(cql::DecodeValue(std::string("\xff\xff\xff\xfd\x01", 5), decimal), Value::Text("1000"));
  EXPECT_EQ(cql::DecodeValue(cql::EncodeValue(Value::Text("1.5e3"), decimal), decimal),
            Value::Text("1500"));
}

TEST(CqlCodecTest, LongStringsAreCutNotCorrupted) {
  cql::Writer out;
  out.String(std::string(70'000, 'x'));
  cql::Reader in(out.bytes());
  EXPECT_EQ(in.String().size(), 0xffffu);
  EXPECT_TRUE(in.done());
}

TEST(CqlCodecTest, UnsetAndNamedValuesAreTold) {
  const std::string unset("\0\1\x01\0\1\xff\xff\xff\xfe", 9);  // One value, unset.
  cql::Reader in(unset);
  cql::QueryParameters read;
  ASSERT_TRUE(cql::ReadParameters(in, read));
  ASSERT_EQ(read.values.size(), 1u);
  EXPECT_TRUE(read.values[0].unset);
  EXPECT_FALSE(read.values[0].bytes.has_value());
  const std::string named("\0\1\x41\0\0", 5);
  cql::Reader by_name(named);
  EXPECT_FALSE(cql::ReadParameters(by_name, read));
}

TEST(CqlStatementsTest, DdlSaysItsSchemaChange) {
  const auto table = cql::SchemaChangeOf("CREATE TABLE t (a int PRIMARY KEY)", "shop");
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(table->change, "CREATED");
  EXPECT_EQ(table->target, "TABLE");
  EXPECT_EQ(table->keyspace, "shop");
  EXPECT_EQ(cql::SchemaChangeOf("DROP KEYSPACE k", "")->target, "KEYSPACE");
  EXPECT_FALSE(cql::SchemaChangeOf("SELECT * FROM t", "shop").has_value());
}

TEST(HttpBodyTest, PercentDecodingAndAwsChunkedBodies) {
  EXPECT_EQ(PercentDecoded("/b/my%20key"), "/b/my key");
  EXPECT_FALSE(PercentDecoded("/b/%2").has_value());
  EXPECT_FALSE(PercentDecoded("/b/%zz").has_value());
  EXPECT_EQ(DecodeAwsChunked("5;chunk-signature=ab\r\nhello\r\n0;chunk-signature=cd\r\n\r\n"),
            "hello");
  EXPECT_FALSE(DecodeAwsChunked("5\r\nhel").has_value());
  EXPECT_FALSE(DecodeAwsChunked("ffffffffffffffff\r\nx\r\n").has_value());
  EXPECT_TRUE(IsAwsChunked("", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"));
}

TEST(HttpBodyTest, RangesAsRfc9110SaysThem) {
  EXPECT_EQ(ParseRange("bytes=0-9", 100)->length, 10u);
  EXPECT_EQ(ParseRange("bytes=90-", 100)->first, 90u);
  EXPECT_EQ(ParseRange("bytes=-5", 100)->first, 95u);
  EXPECT_EQ(ParseRange("bytes=50-1000", 100)->length, 50u);
  EXPECT_FALSE(ParseRange("bytes=200-", 100)->satisfiable);
  EXPECT_FALSE(ParseRange("bytes=0-1,5-6", 100).has_value());
  EXPECT_FALSE(ParseRange("items=0-1", 100).has_value());
}

TEST(PromptWordsTest, WordsFillTheKindsFieldsInOrder) {
  const scenarios::Scenario topology = SeedClusterTopology();
  auto kill = StepOfWords("kill kuri-1", topology);
  ASSERT_TRUE(std::holds_alternative<scenarios::Step>(kill)) << std::get<std::string>(kill);
  EXPECT_EQ(std::get<scenarios::Step>(kill).service, "kuri-1");
  auto wait = StepOfWords("wait 30s", topology);
  EXPECT_EQ(std::get<scenarios::Step>(wait).duration, std::chrono::seconds(30));
  auto cql = StepOfWords("cql keyspace=shop SELECT * FROM items WHERE id = 1", topology);
  const auto& statement = std::get<scenarios::Step>(cql);
  EXPECT_EQ(statement.statement, "SELECT * FROM items WHERE id = 1");
  EXPECT_EQ(statement.keyspace, "shop");
  auto partition = StepOfWords("partition yugabyte kuri-1", topology);
  EXPECT_EQ(std::get<scenarios::Step>(partition).peer, "kuri-1");
}

TEST(PromptWordsTest, CompletionsOfferKindsServicesAndFields) {
  const std::vector<std::string> services = {"yugabyte", "kuri-1", "kuri-2", "s3-proxy"};
  EXPECT_EQ(Completions("ki", services), std::vector<std::string>{"kill"});
  const std::vector<std::string> kuri = Completions("kill ku", services);
  EXPECT_EQ(kuri, (std::vector<std::string>{"kuri-1", "kuri-2"}));
  const std::vector<std::string> fields = Completions("partition kuri-1 ", services);
  EXPECT_NE(std::find(fields.begin(), fields.end(), "one_way="), fields.end());
  EXPECT_NE(std::find(fields.begin(), fields.end(), "yugabyte"), fields.end());
  EXPECT_EQ(Completions("st", services), (std::vector<std::string>{"status", "stop"}));
}

TEST(PromptWordsTest, MistakesSayWhatIsWrong) {
  const scenarios::Scenario topology = SeedClusterTopology();
  EXPECT_NE(std::get<std::string>(StepOfWords("frobnicate", topology)).find("no step kind"),
            std::string::npos);
  EXPECT_NE(std::get<std::string>(StepOfWords("kill kuri-9", topology)).find("kuri-9"),
            std::string::npos);
  const std::string soon = std::get<std::string>(StepOfWords("wait soon", topology));
  EXPECT_NE(soon.find("soon"), std::string::npos) << soon;
  EXPECT_NE(std::get<std::string>(StepOfWords("heal now", topology)).find("too many"),
            std::string::npos);
}

// A session's recording replays with the runner to the answers the
// clients got, each one an expectation of the file.
TEST(SessionTest, ARecordingReplaysToTheSameAnswers) {
  sim::Duration wall{};
  SessionOptions options{.seed = 5, .elapsed = [&wall] { return wall; }};
  Session session(SeedClusterTopology(), options);
  session.Start();
  std::vector<int> statuses;
  const auto s3 = [&](std::string method, std::string path, std::string body) {
    scenarios::Step step;
    step.kind = scenarios::Step::Kind::kS3;
    step.method = std::move(method);
    step.path = std::move(path);
    step.body = std::move(body);
    wall += std::chrono::milliseconds(700);  // The wall clock moves between requests.
    statuses.push_back(session.Play(std::move(step)).status);
  };
  s3("PUT", "/b/one", "1");
  s3("PUT", "/b/two", "2");
  scenarios::Step stop;  // Stopped, it stays down: the GETs of its objects fail.
  stop.kind = scenarios::Step::Kind::kStop;
  stop.service = "kuri-1";
  session.Play(stop);
  s3("GET", "/b/one", "");
  s3("GET", "/b/two", "");
  wall += std::chrono::seconds(30);
  s3("GET", "/b/one", "");
  scenarios::Step select;
  select.kind = scenarios::Step::Kind::kCql;
  select.statement = "SELECT key FROM filecoingw_s3.s3objects";
  select.keyspace = "filecoingw_s3";
  select.number = 1;
  session.Play(select);
  EXPECT_EQ(session.world().last_answer.cql->result.rows.size(), 1u);

  sim::Result<std::string> recording = session.Recording();
  ASSERT_TRUE(recording.ok()) << recording.status().ToString();
  auto parsed = scenarios::ParseScenario(*recording, "recording");
  ASSERT_TRUE(std::holds_alternative<scenarios::Scenario>(parsed))
      << std::get<scenarios::FileError>(parsed).message;
  const scenarios::Scenario& story = std::get<scenarios::Scenario>(parsed);
  const scenarios::ScenarioResult first = scenarios::RunScenario(story, {});
  const scenarios::ScenarioResult second = scenarios::RunScenario(story, {});
  std::vector<int> replayed;
  for (const scenarios::StepResult& step : first.steps) {
    for (const scenarios::CheckResult& check : step.checks) {
      EXPECT_TRUE(check.held) << step.action << ": " << check.what << " / " << check.actual;
    }
    if (step.status != 0) replayed.push_back(step.status);
  }
  EXPECT_EQ(replayed, statuses);
  EXPECT_NE(std::count(statuses.begin(), statuses.end(), 200), 5);  // The stop showed.
  EXPECT_EQ(first.trace_hash, second.trace_hash);
}

// A body or path TOML cannot hold (not UTF-8) is refused by the recording,
// which says so, rather than written as other bytes.
TEST(SessionTest, BytesAFileCannotHoldAreRefusedNotRewritten) {
  sim::Duration wall{};
  Session session(SeedClusterTopology(),
                  {.seed = 1, .fast = true, .elapsed = [&wall] { return wall; }});
  session.Start();
  scenarios::Step put;
  put.kind = scenarios::Step::Kind::kS3;
  put.method = "PUT";
  put.path = "/b/\xff";
  put.body = "x";
  session.Play(put);
  sim::Result<std::string> recording = session.Recording();
  ASSERT_FALSE(recording.ok());
  EXPECT_NE(recording.status().message().find("/b/"), std::string::npos)
      << recording.status().message();
}

}  // namespace
}  // namespace faultline::live
