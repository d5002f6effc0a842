#include "sim/trace.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <ostream>

#include <fmt/format.h>

#include "sim/assert.h"
#include "sim/random.h"

namespace faultline::sim {
namespace {

// Streams 64-bit words into a state, eight bytes at a time (a byte-at-a-time
// FNV-1a was 6% of check-migrations' profile). Each word step is a bijection
// of the state, so two streams that differ in one word never meet again;
// SplitMix64's finaliser mixes the end. Words are read little-endian, so the
// hash is the same on every host. Strings are length-prefixed so ("ab", "c")
// and ("a", "bc") hash differently.
class Hasher {
 public:
  void AddU64(std::uint64_t value) {
    state_ = std::rotl((state_ ^ value) * 0x9E3779B97F4A7C15ULL, 29);
  }
  void AddString(std::string_view text) {
    AddU64(text.size());
    std::size_t at = 0;
    for (; at + 8 <= text.size(); at += 8) AddU64(LittleEndianWord(text.data() + at, 8));
    if (at < text.size()) AddU64(LittleEndianWord(text.data() + at, text.size() - at));
  }
  std::uint64_t Finish() const { return Mix64(state_); }

 private:
  // Up to 8 bytes as a little-endian word, zero-padded.
  static std::uint64_t LittleEndianWord(const char* bytes, std::size_t count) {
    FL_ASSERT(count <= 8);
    std::uint64_t word = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&word, bytes, count);
    } else {
      for (std::size_t i = 0; i < count; ++i)
        word |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
    }
    return word;
  }
  std::uint64_t state_ = 0xCBF29CE484222325ULL;
};

// The length of the well-formed UTF-8 sequence at text[at] (RFC 3629: no
// overlong forms, no surrogates, nothing past U+10FFFF), or 0 if there is none.
std::size_t Utf8SequenceAt(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) {
    return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : 0u;
  };
  const unsigned lead = byte(0);
  const auto continues = [&](std::size_t i, unsigned low = 0x80, unsigned high = 0xBF) {
    return byte(i) >= low && byte(i) <= high;
  };
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return continues(1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    const unsigned low = lead == 0xE0 ? 0xA0 : 0x80;
    const unsigned high = lead == 0xED ? 0x9F : 0xBF;
    return continues(1, low, high) && continues(2) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    const unsigned low = lead == 0xF0 ? 0x90 : 0x80;
    const unsigned high = lead == 0xF4 ? 0x8F : 0xBF;
    return continues(1, low, high) && continues(2) && continues(3) ? 4 : 0;
  }
  return 0;
}

// Every byte of `text` as JSON (and TOML basic-string) text: the quote, the
// backslash and every control character escaped; well-formed UTF-8 as it
// is; a byte that is not part of well-formed UTF-8 (Latin-1 text, binary)
// as the escape of the character of that value (0xE9 as \\u00e9), so the output is always valid
// UTF-8 and says which byte was there.
void AppendJsonString(std::string& out, std::string_view text) {
  out.push_back('"');
  for (std::size_t at = 0; at < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[at]);
    const std::size_t length = Utf8SequenceAt(text, at);
    if (length > 1) {
      out.append(text.substr(at, length));
      at += length;
      continue;
    }
    ++at;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        // Control characters, DEL (TOML wants it escaped) and stray bytes.
        if (c < 0x20 || c == 0x7F || length == 0) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

void AppendJsonValue(std::string& out, const TraceValue& value) {
  if (value.kind() == TraceValue::Kind::kString) {
    AppendJsonString(out, value.AsString());
  } else {
    out += value.ToString();
  }
}

}  // namespace

std::string TraceValue::ToString() const {
  switch (kind_) {
    case Kind::kInt:
      return fmt::format("{}", AsInt());
    case Kind::kUint:
      return fmt::format("{}", AsUint());
    case Kind::kBool:
      return AsBool() ? "true" : "false";
    case Kind::kString:
      return text_;
  }
  return {};
}

const TraceValue* TraceEvent::Find(std::string_view key) const {
  for (const TraceField& field : fields) {
    if (field.key == key) return &field.value;
  }
  return nullptr;
}

std::string TraceEvent::FieldText(std::string_view key) const {
  const TraceValue* value = Find(key);
  return value == nullptr ? std::string() : value->ToString();
}

std::uint64_t HashEvent(const TraceEvent& event) {
  Hasher hasher;
  hasher.AddU64(event.step);
  hasher.AddU64(static_cast<std::uint64_t>(ToNanoseconds(event.time)));
  hasher.AddString(event.process);
  hasher.AddU64(event.incarnation);
  hasher.AddString(event.name);
  hasher.AddU64(event.fields.size());
  for (const TraceField& field : event.fields) {
    hasher.AddString(field.key);
    hasher.AddU64(static_cast<std::uint64_t>(field.value.kind()));
    if (field.value.kind() == TraceValue::Kind::kString) {
      hasher.AddString(field.value.AsString());
    } else {
      hasher.AddU64(field.value.AsUint());
    }
  }
  return hasher.Finish();
}

std::string FormatEventText(const TraceEvent& event) {
  std::string text = fmt::format("{} #{} {}/{} {}", FormatTime(event.time), event.step,
                                 event.process, event.incarnation, event.name);
  for (const TraceField& field : event.fields) {
    text += ' ';
    text += field.key;
    text += '=';
    if (field.value.kind() == TraceValue::Kind::kString) {
      AppendJsonString(text, field.value.AsString());
    } else {
      text += field.value.ToString();
    }
  }
  return text;
}

std::string FormatEventJson(const TraceEvent& event) {
  std::string out = fmt::format(R"({{"index":{},"time_ns":{},"step":{},"process":)", event.index,
                                ToNanoseconds(event.time), event.step);
  AppendJsonString(out, event.process);
  out += fmt::format(R"(,"incarnation":{},"event":)", event.incarnation);
  AppendJsonString(out, event.name);
  out += R"(,"fields":{)";
  for (std::size_t i = 0; i < event.fields.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendJsonString(out, event.fields[i].key);
    out.push_back(':');
    AppendJsonValue(out, event.fields[i].value);
  }
  out += "}}";
  return out;
}

RingSink::RingSink(std::size_t capacity) : capacity_(capacity) {
  FL_ASSERT(capacity > 0);
  slots_.reserve(std::min<std::size_t>(capacity, 1024));
}

void RingSink::Write(const TraceEvent& event) { Take(TraceEvent(event)); }

void RingSink::Take(TraceEvent&& event) {
  if (slots_.size() < capacity_) {
    slots_.push_back(std::move(event));
  } else {
    slots_[written_ % capacity_] = std::move(event);
  }
  ++written_;
}

std::vector<TraceEvent> RingSink::Events() const {
  if (written_ <= capacity_) return slots_;
  std::vector<TraceEvent> ordered;
  ordered.reserve(capacity_);
  const std::size_t oldest = written_ % capacity_;
  for (std::size_t i = 0; i < capacity_; ++i) ordered.push_back(slots_[(oldest + i) % capacity_]);
  return ordered;
}

RecordingSink::RecordingSink(std::size_t max_events) : max_events_(max_events) {}

void RecordingSink::Write(const TraceEvent& event) {
  FL_ASSERT_MSG(hashes_.size() < kMaxHashes, "a recorded run emitted more than {} events",
                kMaxHashes);
  // Recorded by a Trace, the event carries its hash (an event written
  // to the sink directly, as a test may, is hashed here).
  hashes_.push_back(event.hash != 0 ? event.hash : HashEvent(event));
  if (events_.size() < max_events_) events_.push_back(event);
}

void JsonLinesSink::Write(const TraceEvent& event) { out_ << FormatEventJson(event) << '\n'; }

void TextSink::Write(const TraceEvent& event) { out_ << FormatEventText(event) << '\n'; }

void Trace::AddSink(TraceSink* sink) {
  FL_ASSERT(sink != nullptr);
  FL_ASSERT(sinks_.size() < kMaxSinks);
  FL_ASSERT(std::find(sinks_.begin(), sinks_.end(), sink) == sinks_.end());
  FL_ASSERT(sink != last_);  // The kept ring takes each event once, last.
  sinks_.push_back(sink);
}

void Trace::RemoveSink(TraceSink* sink) { std::erase(sinks_, sink); }

void Trace::KeepLastIn(RingSink* ring) {
  FL_ASSERT(ring != nullptr && last_ == nullptr);
  FL_ASSERT(std::find(sinks_.begin(), sinks_.end(), ring) == sinks_.end());
  last_ = ring;
}

void Trace::Record(TraceEvent event) {
  event.index = event_count_++;
  event.hash = HashEvent(event);
  hash_ = Mix64(hash_ ^ event.hash);
  recording_ = &event;
  for (TraceSink* sink : sinks_) sink->Write(event);
  recording_ = nullptr;
  if (last_ != nullptr) last_->Take(std::move(event));
}

std::string FormatHash(std::uint64_t hash) { return fmt::format("{:016x}", hash); }

std::string Divergence::Describe() const {
  auto describe = [](const std::optional<TraceEvent>& event) {
    return event ? FormatEventText(*event) : std::string("(run ended)");
  };
  return fmt::format("first divergent event is #{}\n  first run:  {}\n  second run: {}", index,
                     describe(left), describe(right));
}

std::optional<Divergence> FindFirstDivergence(std::span<const TraceEvent> left,
                                              std::span<const TraceEvent> right) {
  const std::size_t common = std::min(left.size(), right.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (!(left[i] == right[i])) return Divergence{i, left[i], right[i]};
  }
  if (left.size() == right.size()) return std::nullopt;
  Divergence divergence{common, std::nullopt, std::nullopt};
  if (left.size() > common) divergence.left = left[common];
  if (right.size() > common) divergence.right = right[common];
  return divergence;
}

std::string JsonQuoted(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

std::string_view CutAtCharacter(std::string_view text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t end = max;
  // Back over continuation bytes (10xxxxxx) to the start of their character.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace faultline::sim
