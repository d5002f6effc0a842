#include "sim/trace.h"

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace faultline::sim {
namespace {

TraceEvent MakeEvent(std::string name, std::vector<TraceField> fields = {}) {
  return TraceEvent{0,
                    3,
                    kTimeZero + std::chrono::microseconds(1500),
                    "kuri-1",
                    2,
                    std::move(name),
                    std::move(fields)};
}

TEST(TraceTest, HashCoversEveryPartOfAnEvent) {
  const TraceEvent base = MakeEvent("migrate.step", {{"version", 1754293669}, {"dirty", true}});
  std::vector<TraceEvent> variants(7, base);
  variants[0].step = 4;
  variants[1].time += std::chrono::nanoseconds(1);
  variants[2].process = "kuri-2";
  variants[3].incarnation = 3;
  variants[4].name = "migrate.stop";
  variants[5].fields[0].value = 1754293670;
  variants[6].fields[1].value = false;
  for (const TraceEvent& variant : variants) EXPECT_NE(HashEvent(variant), HashEvent(base));
  // Same text, other type: a string "1" is not the integer 1.
  EXPECT_NE(HashEvent(MakeEvent("x", {{"v", 1}})), HashEvent(MakeEvent("x", {{"v", "1"}})));
  EXPECT_NE(HashEvent(MakeEvent("x", {{"v", 1}})), HashEvent(MakeEvent("x", {{"v", 1u}})));
}

TEST(TraceTest, StreamHashDependsOnOrder) {
  Trace a;
  Trace b;
  a.Record(MakeEvent("one"));
  a.Record(MakeEvent("two"));
  b.Record(MakeEvent("two"));
  b.Record(MakeEvent("one"));
  EXPECT_NE(a.hash(), b.hash());
  EXPECT_EQ(a.event_count(), 2u);
  Trace c;
  c.Record(MakeEvent("one"));
  c.Record(MakeEvent("two"));
  EXPECT_EQ(a.hash(), c.hash());
  EXPECT_EQ(FormatHash(a.hash()).size(), 16u);
}

TEST(TraceTest, RingSinkKeepsTheLastEventsInOrder) {
  Trace trace;
  RingSink ring(3);
  trace.AddSink(&ring);
  for (int i = 0; i < 5; ++i) trace.Record(MakeEvent("e" + std::to_string(i)));
  const std::vector<TraceEvent> kept = ring.Events();
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0].name, "e2");
  EXPECT_EQ(kept[2].name, "e4");
  EXPECT_EQ(kept[2].index, 4u);
  EXPECT_EQ(ring.written(), 5u);
}

// The ring kept last takes each event by move, after every sink: each
// sink still sees the whole event, and the ring keeps what they saw.
TEST(TraceTest, TheRingKeptLastTakesEachEventAfterTheSinksSawItWhole) {
  Trace trace;
  RingSink recent(2);
  RecordingSink recorded(10);
  trace.KeepLastIn(&recent);
  trace.AddSink(&recorded);               // Added after, still sees each event first.
  const std::string long_text(100, 'x');  // Past the short-string buffer.
  for (int i = 0; i < 3; ++i) {
    trace.Record(MakeEvent("e" + std::to_string(i), {{"text", long_text}, {"n", i}}));
  }
  ASSERT_EQ(recorded.events().size(), 3u);
  for (const TraceEvent& seen : recorded.events()) {
    EXPECT_EQ(seen.FieldText("text"), long_text);
    EXPECT_NE(seen.hash, 0u);
  }
  const std::vector<TraceEvent> kept = recent.Events();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0], recorded.events()[1]);
  EXPECT_EQ(kept[1], recorded.events()[2]);
  EXPECT_EQ(recent.written(), 3u);
}

// While the sinks see an event, the trace names it (an assertion inside a
// sink prints it: the ring has not taken it yet).
TEST(TraceTest, TheEventBeingRecordedIsNamedWhileTheSinksSeeIt) {
  struct Checking final : TraceSink {
    const Trace* trace = nullptr;
    int matched = 0;
    void Write(const TraceEvent& event) override { matched += trace->recording() == &event; }
  };
  Trace trace;
  Checking sink;
  sink.trace = &trace;
  trace.AddSink(&sink);
  EXPECT_EQ(trace.recording(), nullptr);
  trace.Record(MakeEvent("a"));
  trace.Record(MakeEvent("b"));
  EXPECT_EQ(sink.matched, 2);
  EXPECT_EQ(trace.recording(), nullptr);
}

TEST(TraceTest, JsonLinesAndTextSinksWriteOneLinePerEvent) {
  Trace trace;
  std::ostringstream json;
  std::ostringstream text;
  JsonLinesSink json_sink(json);
  TextSink text_sink(text);
  trace.AddSink(&json_sink);
  trace.AddSink(&text_sink);
  trace.Record(MakeEvent("cql.error", {{"text", "Undefined Column \"node_id\"\n"}, {"code", -3}}));
  EXPECT_EQ(json.str(),
            R"({"index":0,"time_ns":1500000,"step":3,"process":"kuri-1","incarnation":2,)"
            R"("event":"cql.error","fields":{"text":"Undefined Column \"node_id\"\n","code":-3}})"
            "\n");
  EXPECT_EQ(text.str(),
            "1.5ms #3 kuri-1/2 cql.error text=\"Undefined Column \\\"node_id\\\"\\n\" code=-3\n");
}

TEST(TraceTest, FindFirstDivergenceNamesTheFirstDifferentEvent) {
  std::vector<TraceEvent> left{MakeEvent("a"), MakeEvent("b"), MakeEvent("c")};
  std::vector<TraceEvent> right = left;
  EXPECT_FALSE(FindFirstDivergence(left, right).has_value());
  right[1].fields.push_back({"extra", 1});
  auto divergence = FindFirstDivergence(left, right);
  ASSERT_TRUE(divergence.has_value());
  EXPECT_EQ(divergence->index, 1u);
  EXPECT_EQ(divergence->left->name, "b");
  EXPECT_NE(divergence->Describe().find("extra=1"), std::string::npos);
  // One run ending early diverges where it ended.
  right = left;
  right.pop_back();
  divergence = FindFirstDivergence(left, right);
  ASSERT_TRUE(divergence.has_value());
  EXPECT_EQ(divergence->index, 2u);
  EXPECT_TRUE(divergence->left.has_value());
  EXPECT_FALSE(divergence->right.has_value());
  EXPECT_NE(divergence->Describe().find("(run ended)"), std::string::npos);
}

}  // namespace
}  // namespace faultline::sim

namespace faultline::sim {
namespace {

// Every JSON writer (--trace, --json, --perfetto) quotes through JsonQuoted:
// its output is valid UTF-8 whatever the bytes, and says which byte was there.
TEST(JsonQuotedTest, KeepsUtf8AndEscapesEveryOtherByte) {
  EXPECT_EQ(JsonQuoted("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x88"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x88\"");  // é, €, a cat: as they are.
  EXPECT_EQ(JsonQuoted("caf\xe9"), "\"caf\\u00e9\"");  // Latin-1 é: the character of its value.
  EXPECT_EQ(JsonQuoted("a\x01\x7f\tb\n\"\\"), "\"a\\u0001\\u007f\\tb\\n\\\"\\\\\"");
  EXPECT_EQ(JsonQuoted("\xc0\xaf"), "\"\\u00c0\\u00af\"");             // An overlong '/'.
  EXPECT_EQ(JsonQuoted("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"");  // A surrogate.
  EXPECT_EQ(JsonQuoted("\xf4\x90\x80\x80"), "\"\\u00f4\\u0090\\u0080\\u0080\"");  // Past U+10FFFF.
  EXPECT_EQ(JsonQuoted("\xe2\x82"), "\"\\u00e2\\u0082\"");                        // Cut short.
}

TEST(JsonQuotedTest, CutsAtACharacterBoundary) {
  EXPECT_EQ(CutAtCharacter("caf\xc3\xa9!", 4), "caf");
  EXPECT_EQ(CutAtCharacter("caf\xc3\xa9!", 5), "caf\xc3\xa9");
  EXPECT_EQ(CutAtCharacter("short", 10), "short");
}

}  // namespace
}  // namespace faultline::sim
