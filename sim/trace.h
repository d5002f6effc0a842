// The structured trace: every observable thing a simulation does is an event
// with the virtual time, the scheduler step, the process and its incarnation,
// a name and named fields. The trace folds every event into a 64-bit hash, so
// two runs are identical exactly when their hashes are (up to collisions),
// and FindFirstDivergence() says where two recorded runs part ways.
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/clock.h"

namespace faultline::sim {

// One field value: a signed or unsigned integer, a boolean or a string.
class TraceValue {
 public:
  enum class Kind : unsigned char { kInt, kUint, kBool, kString };

  TraceValue(bool value) : kind_(Kind::kBool), bits_(value ? 1 : 0) {}  // NOLINT
  template <std::signed_integral T>
  TraceValue(T value) : kind_(Kind::kInt), bits_(static_cast<std::uint64_t>(value)) {}  // NOLINT
  template <std::unsigned_integral T>
  requires(!std::same_as<T, bool>) TraceValue(T value)
      : kind_(Kind::kUint), bits_(value) {}                                         // NOLINT
  TraceValue(std::string_view value) : kind_(Kind::kString), text_(value) {}        // NOLINT
  TraceValue(const char* value) : kind_(Kind::kString), text_(value) {}             // NOLINT
  TraceValue(std::string value) : kind_(Kind::kString), text_(std::move(value)) {}  // NOLINT

  Kind kind() const { return kind_; }
  std::int64_t AsInt() const { return static_cast<std::int64_t>(bits_); }
  std::uint64_t AsUint() const { return bits_; }
  bool AsBool() const { return bits_ != 0; }
  const std::string& AsString() const { return text_; }

  // The value as text: numbers in decimal, booleans as true/false, strings
  // as they are.
  std::string ToString() const;

  friend bool operator==(const TraceValue&, const TraceValue&) = default;

 private:
  Kind kind_;
  std::uint64_t bits_ = 0;
  std::string text_;
};

struct TraceField {
  std::string key;
  TraceValue value;
  friend bool operator==(const TraceField&, const TraceField&) = default;
};

struct TraceEvent {
  std::uint64_t index = 0;  // Position in the stream, from 0.
  std::uint64_t step = 0;   // Scheduler step during which it was emitted.
  TimePoint time{};
  std::string process;  // Name of the emitting process.
  std::uint32_t incarnation = 0;
  std::string name;  // component.what, e.g. "process.kill".
  std::vector<TraceField> fields;
  // HashEvent(*this), set once when the trace records it (0 before), so
  // that no sink hashes an event again.
  std::uint64_t hash = 0;

  // The field named `key`, or nullptr.
  const TraceValue* Find(std::string_view key) const;
  // The field named `key` as text, or "" when the event has none.
  std::string FieldText(std::string_view key) const;

  friend bool operator==(const TraceEvent&, const TraceEvent&) = default;
};

// A stable 64-bit hash of everything in `event` but its index.
std::uint64_t HashEvent(const TraceEvent& event);
// "0.000001000s #12 kuri-1/2 process.start image=\"v2\"".
std::string FormatEventText(const TraceEvent& event);
// One JSON object on one line, without the trailing newline.
std::string FormatEventJson(const TraceEvent& event);
// `text` as a quoted JSON string ("a\"b"); also a valid TOML basic string.
std::string JsonQuoted(std::string_view text);
// The longest prefix of `text` of at most `max` bytes that does not end
// inside a UTF-8 character: where to cut a long text shown in the trace.
std::string_view CutAtCharacter(std::string_view text, std::size_t max);

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void Write(const TraceEvent& event) = 0;
};

// Keeps the last `capacity` events.
class RingSink final : public TraceSink {
 public:
  // REQUIRES: capacity > 0.
  explicit RingSink(std::size_t capacity);
  void Write(const TraceEvent& event) override;
  // Write, taking the event instead of copying it (Trace::KeepLastIn).
  void Take(TraceEvent&& event);
  // The kept events, oldest first.
  std::vector<TraceEvent> Events() const;
  std::uint64_t written() const { return written_; }

 private:
  std::vector<TraceEvent> slots_;
  std::size_t capacity_;
  std::uint64_t written_ = 0;
};

// Keeps the first `max_events` events whole and the hash of every event, so
// a divergence far into a long run is still located by index.
class RecordingSink final : public TraceSink {
 public:
  static constexpr std::size_t kMaxHashes = std::size_t{1} << 26;

  explicit RecordingSink(std::size_t max_events);
  void Write(const TraceEvent& event) override;
  const std::vector<TraceEvent>& events() const { return events_; }
  const std::vector<std::uint64_t>& hashes() const { return hashes_; }

 private:
  std::size_t max_events_;
  std::vector<TraceEvent> events_;
  std::vector<std::uint64_t> hashes_;
};

// Writes FormatEventJson() lines; the stream must outlive the sink.
class JsonLinesSink final : public TraceSink {
 public:
  explicit JsonLinesSink(std::ostream& out) : out_(out) {}
  void Write(const TraceEvent& event) override;

 private:
  std::ostream& out_;
};

// Writes FormatEventText() lines; the stream must outlive the sink.
class TextSink final : public TraceSink {
 public:
  explicit TextSink(std::ostream& out) : out_(out) {}
  void Write(const TraceEvent& event) override;

 private:
  std::ostream& out_;
};

// The event stream of one simulation: numbers events, folds them into the
// trace hash and hands them to the sinks in order.
class Trace {
 public:
  // Sinks are not owned; each must outlive the Trace or be removed first.
  void AddSink(TraceSink* sink);
  void RemoveSink(TraceSink* sink);
  // `ring` takes each event after every sink has seen it: moved, not
  // copied (a simulation's recent events, kept for its assertions, would
  // otherwise copy every event's strings once more).
  void KeepLastIn(RingSink* ring);
  // The event the sinks are being handed now (nullptr between events): an
  // assertion inside a sink names it, as the ring has not taken it yet.
  const TraceEvent* recording() const { return recording_; }

  // Assigns event.index, folds the event into hash() and writes it to sinks.
  void Record(TraceEvent event);

  std::uint64_t hash() const { return hash_; }
  std::uint64_t event_count() const { return event_count_; }

 private:
  static constexpr std::size_t kMaxSinks = 16;
  static constexpr std::uint64_t kEmptyHash = 0x6661756C746C696EULL;  // "faultlin"

  std::vector<TraceSink*> sinks_;
  RingSink* last_ = nullptr;
  const TraceEvent* recording_ = nullptr;
  std::uint64_t hash_ = kEmptyHash;
  std::uint64_t event_count_ = 0;
};

// "0123456789abcdef": a trace hash as 16 hex digits.
std::string FormatHash(std::uint64_t hash);

struct Divergence {
  std::uint64_t index = 0;
  std::optional<TraceEvent> left;   // Missing when the left run ended first.
  std::optional<TraceEvent> right;  // Missing when the right run ended first.

  std::string Describe() const;
};

// The first index at which the two event sequences differ, or nullopt when
// they are identical.
std::optional<Divergence> FindFirstDivergence(std::span<const TraceEvent> left,
                                              std::span<const TraceEvent> right);

}  // namespace faultline::sim
