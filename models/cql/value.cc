#include "models/cql/value.h"
#include "sim/assert.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "models/cql/collations.h"

namespace faultline::models::cql {
namespace {

using Kind = CqlType::Kind;

std::variant<Value, CqlError> FromTermText(const std::string& text, const CqlType& type);
std::variant<Value, CqlError> Canonical(Value value, const CqlType& type);
std::variant<Value, CqlError> FromUdtLiteral(const Term& term, const CqlType& type,
                                             std::span<const Value> bound);

CqlError Mismatch(const CqlType& type, std::string_view what) {
  return DatatypeMismatch(fmt::format("Cannot convert {} to {}", what, type.ToString()));
}

// The integer range of each integer type.
std::pair<std::int64_t, std::int64_t> IntegerRange(Kind kind) {
  switch (kind) {
    case Kind::kInt:
      return {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
    case Kind::kSmallint:
      return {std::numeric_limits<std::int16_t>::min(), std::numeric_limits<std::int16_t>::max()};
    case Kind::kTinyint:
      return {std::numeric_limits<std::int8_t>::min(), std::numeric_limits<std::int8_t>::max()};
    default:
      return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
  }
}

std::variant<Value, CqlError> CheckRange(std::int64_t v, const CqlType& type) {
  const auto [low, high] = IntegerRange(type.kind);
  if (v < low || v > high) {
    return InvalidArgument(fmt::format("Value {} is out of range for {}", v, type.ToString()));
  }
  return Value::Int(v);
}

// Reads `count` digits at `at` into `out`.
bool Digits(std::string_view text, std::size_t at, std::size_t count, unsigned& out) {
  FL_ASSERT(count >= 1 && count <= 9);  // Fits an unsigned.
  if (at + count > text.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + static_cast<unsigned>(text[i] - '0');
  }
  return true;
}

// "2025-01-02", "2025-01-02 03:04:05", "...T...", ".123", "Z" or "+0000".
unsigned DaysInMonth(unsigned year, unsigned month) {
  FL_ASSERT(month >= 1 && month <= 12);
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// A zone suffix: "", "Z", "UTC", or +HHMM / -HHMM / +HH:MM; its offset in minutes.
std::optional<int> ParseZone(std::string_view zone) {
  if (zone.empty() || zone == "Z" || zone == " UTC" || zone == "UTC") return 0;
  if (zone.front() == ' ') zone.remove_prefix(1);
  if (zone.size() < 5 || (zone[0] != '+' && zone[0] != '-')) return std::nullopt;
  unsigned hours = 0, minutes = 0;
  const std::size_t minutes_at = zone[3] == ':' ? 4 : 3;
  if (!Digits(zone, 1, 2, hours) || !Digits(zone, minutes_at, 2, minutes) ||
      zone.size() != minutes_at + 2 || hours > 23 || minutes > 59) {
    return std::nullopt;
  }
  const int offset = static_cast<int>(hours * 60 + minutes);
  FL_ASSERT(offset >= 0 && offset < 24 * 60);
  return zone[0] == '-' ? -offset : offset;
}

// "2025-01-02", with an optional time "03:04", "03:04:05" or "03:04:05.678"
// (after ' ' or 'T') and an optional zone (see ParseZone).
std::optional<std::int64_t> ParseTimestamp(std::string_view text) {
  unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, millis = 0;
  if (!Digits(text, 0, 4, year) || text.size() < 10 || text[4] != '-' || text[7] != '-' ||
      !Digits(text, 5, 2, month) || !Digits(text, 8, 2, day) || month < 1 || month > 12 ||
      day < 1 || day > DaysInMonth(year, month)) {
    return std::nullopt;
  }
  std::size_t at = 10;
  if (at + 1 < text.size() && (text[at] == ' ' || text[at] == 'T') &&
      std::isdigit(static_cast<unsigned char>(text[at + 1]))) {
    if (!Digits(text, at + 1, 2, hour) || text.size() < at + 6 || text[at + 3] != ':' ||
        !Digits(text, at + 4, 2, minute) || hour > 23 || minute > 59) {
      return std::nullopt;
    }
    at += 6;
    if (at < text.size() && text[at] == ':') {
      if (!Digits(text, at + 1, 2, second) || second > 59) return std::nullopt;
      at += 3;
    }
    if (at < text.size() && text[at] == '.') {
      std::size_t digits = 0;
      ++at;
      while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
        if (digits++ < 3) millis = millis * 10 + static_cast<unsigned>(text[at] - '0');
        ++at;
      }
      if (digits == 0) return std::nullopt;
      for (; digits < 3; ++digits) millis *= 10;
    }
  }
  const std::optional<int> offset_minutes = ParseZone(text.substr(at));
  FL_ASSERT(at <= text.size() && millis < 1000);
  if (!offset_minutes) return std::nullopt;
  const std::int64_t days = DaysFromCivil(year, month, day);
  return ((days * 24 + hour) * 60 + minute - *offset_minutes) * 60'000 +
         std::int64_t{second} * 1000 + millis;
}

std::string FormatTimestamp(std::int64_t millis) {
  std::int64_t days = millis / 86'400'000;
  std::int64_t rest = millis % 86'400'000;
  if (rest < 0) {
    rest += 86'400'000;
    --days;
  }
  const Civil civil = CivilFromDays(days);
  FL_ASSERT(rest >= 0 && rest < 86'400'000);
  FL_ASSERT(DaysFromCivil(civil.year, civil.month, civil.day) == days);  // The two inverses agree.
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03}000+0000", civil.year, civil.month,
                     civil.day, rest / 3'600'000, rest / 60'000 % 60, rest / 1000 % 60,
                     rest % 1000);
}

bool IsUuid(std::string_view text) {
  if (text.size() != 36) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (text[i] == '-')) return false;
    if (!dash && !std::isxdigit(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

// An IPv4 or IPv6 address, as inet_pton reads them.
bool IsInet(const std::string& text) {
  unsigned char address[sizeof(in6_addr)];
  return inet_pton(AF_INET, text.c_str(), address) == 1 ||
         inet_pton(AF_INET6, text.c_str(), address) == 1;
}

std::string Lowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::variant<Value, CqlError> FromString(const std::string& text, const CqlType& type) {
  switch (type.kind) {
    case Kind::kTimestamp: {
      const std::optional<std::int64_t> millis = ParseTimestamp(text);
      if (!millis) return InvalidArgument(fmt::format("Invalid timestamp '{}'", text));
      return Value::Int(*millis);
    }
    case Kind::kUuid:
    case Kind::kTimeuuid:
      if (!IsUuid(text)) return InvalidArgument(fmt::format("Invalid uuid '{}'", text));
      // A timeuuid is a version 1 uuid: the time is in it.
      if (type.kind == Kind::kTimeuuid && text[14] != '1') {
        return InvalidArgument(fmt::format("Invalid timeuuid '{}': not a version 1 uuid", text));
      }
      return Value::Text(Lowered(text));
    case Kind::kDate:
      if (!ParseTimestamp(text) || text.size() != 10) {
        return InvalidArgument(fmt::format("Invalid date '{}'", text));
      }
      return Value::Text(text);
    case Kind::kText:
      return Value::Text(text);
    case Kind::kInet:
      if (!IsInet(text)) return InvalidArgument(fmt::format("Invalid inet '{}'", text));
      return Value::Text(text);
    default:
      return Mismatch(type, "a string");
  }
}

std::variant<Value, CqlError> FromInteger(const std::string& text, const CqlType& type) {
  if (Representation(type) == Value::Kind::kDouble || type.kind == Kind::kDecimal) {
    return FromTermText(text, type);
  }
  if (Representation(type) != Value::Kind::kInt) return Mismatch(type, "an integer");
  std::int64_t v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error != std::errc() || end != text.data() + text.size()) {
    return InvalidArgument(fmt::format("Value {} is out of range for {}", text, type.ToString()));
  }
  return CheckRange(v, type);
}

std::variant<Value, CqlError> FromCollection(const Term& term, const CqlType& type,
                                             std::span<const Value> bound) {
  const bool empty_braces = term.elements.empty() && term.kind != Term::Kind::kList;
  const bool fits = (term.kind == Term::Kind::kList && type.kind == Kind::kList) ||
                    (term.kind == Term::Kind::kSet && type.kind == Kind::kSet) ||
                    (term.kind == Term::Kind::kMap && type.kind == Kind::kMap) ||
                    (empty_braces && (type.kind == Kind::kSet || type.kind == Kind::kMap));
  if (!fits) return Mismatch(type, "a collection literal");
  Value value;
  value.kind = Representation(type);
  FL_ASSERT(type.IsCollection());
  FL_ASSERT(type.parameters.size() == (type.kind == Kind::kMap ? 2u : 1u));
  FL_ASSERT(term.kind != Term::Kind::kMap || term.elements.size() % 2 == 0);
  for (std::size_t i = 0; i < term.elements.size(); ++i) {
    const CqlType& element_type =
        type.kind == Kind::kMap ? type.parameters[i % 2] : type.parameters[0];
    std::variant<Value, CqlError> element = FromTerm(term.elements[i], element_type, bound);
    if (auto* error = std::get_if<CqlError>(&element)) return std::move(*error);
    if (std::get<Value>(element).is_null()) return NullInCollections();
    value.elements.push_back(std::move(std::get<Value>(element)));
  }
  return Canonical(std::move(value), type);
}

// {field: value, ...} for a UDT: fields in any order, the missing ones null
// (YCQL's PTCollectionExpr::InitializeUDTValues, Cassandra's UserTypes).
std::variant<Value, CqlError> FromUdtLiteral(const Term& term, const CqlType& type,
                                             std::span<const Value> bound) {
  if (type.kind != Kind::kUdt) return Mismatch(type, "a user-defined type literal");
  FL_ASSERT(term.fields.size() == term.elements.size());
  FL_ASSERT(type.field_names.size() == type.parameters.size());
  Value value;
  value.kind = Value::Kind::kUdt;
  value.elements.resize(type.field_names.size());
  for (std::size_t i = 0; i < term.fields.size(); ++i) {
    const auto field = std::find(type.field_names.begin(), type.field_names.end(), term.fields[i]);
    if (field == type.field_names.end()) {
      return InvalidArgument("Invalid field name found for user-defined type instance");
    }
    const auto at = static_cast<std::size_t>(field - type.field_names.begin());
    std::variant<Value, CqlError> element = FromTerm(term.elements[i], type.parameters[at], bound);
    if (auto* error = std::get_if<CqlError>(&element)) return std::move(*error);
    value.elements[at] = std::move(std::get<Value>(element));
  }
  return value;
}

}  // namespace

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
std::int64_t DaysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

Civil CivilFromDays(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  FL_ASSERT(m >= 1 && m <= 12 && d >= 1 && d <= 31);
  return {static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2), m, d};
}

namespace {
// A decimal's text: [+-]digits[.digits][e[+-]digits], with an exponent a
// decimal can hold; a literal is that by the lexer, a bound value must be
// checked.
bool IsDecimalText(std::string_view text) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i - start;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  if (digits() == 0) return false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    const std::size_t exponent_digits = digits();
    if (exponent_digits == 0 || exponent_digits > 9) return false;  // |exponent| < 10^9.
  }
  return i == text.size();
}

std::variant<Value, CqlError> FromTermText(const std::string& text, const CqlType& type) {
  if (type.kind == Kind::kDecimal) {
    if (!IsDecimalText(text)) return InvalidArgument(fmt::format("Invalid decimal '{}'", text));
    return Value::Text(text);
  }
  double v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error != std::errc() || end != text.data() + text.size()) {
    return InvalidArgument(fmt::format("Invalid number {}", text));
  }
  return Value::Double(v);
}

// Sorts and deduplicates sets and maps (the last value of a repeated map key
// wins, as in Cassandra); an empty collection is null.
std::variant<Value, CqlError> Canonical(Value value, const CqlType& type) {
  if (value.elements.empty()) return type.frozen ? value : Value::Null();
  FL_ASSERT(type.kind != Kind::kMap || value.elements.size() % 2 == 0);
  if (type.kind == Kind::kSet) {
    std::sort(value.elements.begin(), value.elements.end(),
              [](const Value& a, const Value& b) { return Compare(a, b) < 0; });
    value.elements.erase(std::unique(value.elements.begin(), value.elements.end()),
                         value.elements.end());
  } else if (type.kind == Kind::kMap) {
    std::vector<std::pair<Value, Value>> entries;
    for (std::size_t i = 0; i + 1 < value.elements.size(); i += 2) {
      entries.emplace_back(std::move(value.elements[i]), std::move(value.elements[i + 1]));
    }
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) { return Compare(a.first, b.first) < 0; });
    value.elements.clear();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i + 1 < entries.size() && entries[i + 1].first == entries[i].first) continue;
      value.elements.push_back(std::move(entries[i].first));
      value.elements.push_back(std::move(entries[i].second));
    }
  }
  FL_ASSERT(type.kind != Kind::kMap || value.elements.size() % 2 == 0);
  return value;
}

std::string HexDigits(std::string_view bytes) {
  std::string text;
  text.reserve(bytes.size() * 2);
  for (const char c : bytes) text += fmt::format("{:02x}", static_cast<unsigned char>(c));
  FL_ASSERT(text.size() == bytes.size() * 2);
  return text;
}
}  // namespace

std::strong_ordering Compare(const Value& a, const Value& b) {
  if (a.kind != b.kind) return a.kind <=> b.kind;
  switch (a.kind) {
    case Value::Kind::kNull:
      return std::strong_ordering::equal;
    case Value::Kind::kInt:
    case Value::Kind::kBool:
      return a.integer <=> b.integer;
    case Value::Kind::kDouble:
      // NaN sorts after every number and equals itself: a total order.
      if (std::isnan(a.real) || std::isnan(b.real)) {
        return std::isnan(a.real) <=> std::isnan(b.real);
      }
      if (a.real < b.real) return std::strong_ordering::less;
      if (a.real > b.real) return std::strong_ordering::greater;
      return std::strong_ordering::equal;
    case Value::Kind::kText:
    case Value::Kind::kBlob:
      return a.bytes.compare(b.bytes) <=> 0;
    default:
      break;
  }
  const std::size_t n = std::min(a.elements.size(), b.elements.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (const auto order = Compare(a.elements[i], b.elements[i]); order != 0) return order;
  }
  return a.elements.size() <=> b.elements.size();
}

namespace {
std::variant<Value, CqlError> FromTermHere(const Term& term, const CqlType& type,
                                           std::span<const Value> bound);
}  // namespace

// An error about a value points at it, unless an element inside it was
// more precise.
std::variant<Value, CqlError> FromTerm(const Term& term, const CqlType& type,
                                       std::span<const Value> bound) {
  std::variant<Value, CqlError> value = FromTermHere(term, type, bound);
  if (auto* error = std::get_if<CqlError>(&value); error != nullptr && !error->offset) {
    error->offset = term.offset;
  }
  return value;
}

namespace {
std::variant<Value, CqlError> FromTermHere(const Term& term, const CqlType& type,
                                           std::span<const Value> bound) {
  switch (term.kind) {
    case Term::Kind::kNull:
      return Value::Null();
    case Term::Kind::kBindMarker:
      if (term.bind_index < 0 || static_cast<std::size_t>(term.bind_index) >= bound.size()) {
        return InvalidArgument(
            fmt::format("No value bound for bind marker {}", term.bind_index + 1));
      }
      return Coerce(bound[static_cast<std::size_t>(term.bind_index)], type);
    case Term::Kind::kInteger:
      return FromInteger(term.text, type);
    case Term::Kind::kFloat:
      if (Representation(type) != Value::Kind::kDouble && type.kind != Kind::kDecimal) {
        return Mismatch(type, "a decimal number");
      }
      return FromTermText(term.text, type);
    case Term::Kind::kString:
      // YCQL writes uuids unquoted; a quoted one is a string.
      if (type.kind == Kind::kUuid || type.kind == Kind::kTimeuuid)
        return Mismatch(type, "a string");
      return FromString(term.text, type);
    case Term::Kind::kUuid:
      if (type.kind != Kind::kUuid && type.kind != Kind::kTimeuuid) return Mismatch(type, "a uuid");
      return FromString(term.text, type);
    case Term::Kind::kBoolean:
      if (type.kind != Kind::kBoolean) return Mismatch(type, "a boolean");
      return Value::Bool(Lowered(term.text) == "true");
    case Term::Kind::kBlob: {
      if (type.kind != Kind::kBlob) return Mismatch(type, "a blob");
      if (term.text.size() % 2 != 0) return InvalidArgument("Invalid blob: odd number of digits");
      std::string bytes;
      for (std::size_t i = 0; i < term.text.size(); i += 2) {
        bytes += static_cast<char>(std::stoi(term.text.substr(i, 2), nullptr, 16));
      }
      return Value::Blob(std::move(bytes));
    }
    case Term::Kind::kList:
    case Term::Kind::kSet:
    case Term::Kind::kMap:
      return FromCollection(term, type, bound);
    case Term::Kind::kUdt:
      return FromUdtLiteral(term, type, bound);
  }
  return Mismatch(type, "this value");
}
}  // namespace

std::variant<Value, CqlError> Coerce(Value value, const CqlType& type) {
  if (value.is_null()) return value;
  const Value::Kind want = Representation(type);
  if (value.kind == Value::Kind::kText && want != Value::Kind::kText) {
    return FromString(value.bytes, type);
  }
  if (value.kind == Value::Kind::kInt && want == Value::Kind::kDouble) {
    return Value::Double(static_cast<double>(value.integer));
  }
  if (value.kind != want) return Mismatch(type, "the bound value");
  if (want == Value::Kind::kInt) return CheckRange(value.integer, type);
  if (type.kind == Kind::kDecimal) return FromTermText(value.bytes, type);
  if (type.kind == Kind::kUuid || type.kind == Kind::kTimeuuid)
    return FromString(value.bytes, type);
  if (type.kind == Kind::kUdt) {
    if (value.elements.size() > type.parameters.size()) return Mismatch(type, "the bound value");
    value.elements.resize(type.parameters.size());
    for (std::size_t i = 0; i < value.elements.size(); ++i) {
      std::variant<Value, CqlError> field =
          Coerce(std::move(value.elements[i]), type.parameters[i]);
      if (auto* error = std::get_if<CqlError>(&field)) return std::move(*error);
      value.elements[i] = std::move(std::get<Value>(field));
    }
    return value;
  }
  if (!type.IsCollection()) return value;
  for (std::size_t i = 0; i < value.elements.size(); ++i) {
    const CqlType& element_type =
        type.kind == Kind::kMap ? type.parameters[i % 2] : type.parameters[0];
    std::variant<Value, CqlError> element = Coerce(std::move(value.elements[i]), element_type);
    if (auto* error = std::get_if<CqlError>(&element)) return std::move(*error);
    value.elements[i] = std::move(std::get<Value>(element));
  }
  return Canonical(std::move(value), type);
}

std::string FormatCell(const Value& value, const CqlType& type) {
  if (value.kind == Value::Kind::kText && !type.IsStructured()) return value.bytes;
  return FormatLiteral(value, type);
}

std::string FormatLiteral(const Value& value, const CqlType& type) {
  switch (value.kind) {
    case Value::Kind::kNull:
      return "null";
    case Value::Kind::kInt:
      if (type.kind == Kind::kTimestamp) return FormatTimestamp(value.integer);
      return fmt::format("{}", value.integer);
    case Value::Kind::kDouble:
      return fmt::format("{}", value.real);
    case Value::Kind::kBool:
      return value.integer != 0 ? "True" : "False";
    case Value::Kind::kText: {
      if (type.kind == Kind::kUuid || type.kind == Kind::kTimeuuid) return value.bytes;
      std::string quoted = "'";
      for (const char c : value.bytes) quoted += c == '\'' ? std::string("''") : std::string(1, c);
      return quoted + "'";
    }
    case Value::Kind::kBlob:
      return "0x" + HexDigits(value.bytes);
    default:
      break;
  }
  if (value.kind == Value::Kind::kUdt) {
    std::string text = "{";
    static const CqlType kUnknownField;
    for (std::size_t i = 0; i < value.elements.size(); ++i) {
      const bool known = i < type.field_names.size() && i < type.parameters.size();
      if (i > 0) text += ", ";
      text +=
          fmt::format("{}: {}", known ? type.field_names[i] : fmt::format("field{}", i),
                      FormatLiteral(value.elements[i], known ? type.parameters[i] : kUnknownField));
    }
    return text + "}";
  }
  const bool is_map = value.kind == Value::Kind::kMap;
  std::string text = value.kind == Value::Kind::kList ? "[" : "{";
  static const CqlType kUnknown;  // A value that does not fit its type prints as text.
  for (std::size_t i = 0; i < value.elements.size(); ++i) {
    const std::size_t parameter = is_map ? i % 2 : 0;
    const CqlType& element_type =
        parameter < type.parameters.size() ? type.parameters[parameter] : kUnknown;
    if (i > 0) text += is_map && i % 2 == 1 ? ": " : ", ";
    text += FormatLiteral(value.elements[i], element_type);
  }
  return text + (value.kind == Value::Kind::kList ? "]" : "}");
}

std::optional<Comparison> ParseComparison(std::string_view op) {
  static constexpr std::pair<std::string_view, Comparison> kComparisons[] = {
      {"=", Comparison::kEqual},        {"!=", Comparison::kNotEqual},
      {"<", Comparison::kLess},         {">", Comparison::kGreater},
      {"<=", Comparison::kLessOrEqual}, {">=", Comparison::kGreaterOrEqual}};
  for (const auto& [text, comparison] : kComparisons) {
    if (text == op) return comparison;
  }
  return std::nullopt;
}

bool Satisfies(const Value& actual, Comparison op, const Value& expected, const CqlType& type) {
  if (actual.is_null() || expected.is_null()) {
    const bool same = actual.is_null() == expected.is_null();
    return op == Comparison::kEqual ? same : op == Comparison::kNotEqual ? !same : false;
  }
  // As the column's collation orders them (collations.h), like WHERE does.
  const auto by = [](int order) { return order <=> 0; };
  const std::strong_ordering order =
      type.kind == Kind::kDecimal    ? by(CompareDecimals(actual.bytes, expected.bytes))
      : type.kind == Kind::kTimeuuid ? by(CompareTimeuuids(actual.bytes, expected.bytes))
                                     : Compare(actual, expected);
  switch (op) {
    case Comparison::kEqual:
      return order == 0;
    case Comparison::kNotEqual:
      return order != 0;
    case Comparison::kLess:
      return order < 0;
    case Comparison::kGreater:
      return order > 0;
    case Comparison::kLessOrEqual:
      return order <= 0;
    case Comparison::kGreaterOrEqual:
      return order >= 0;
  }
  FL_PANIC("a comparison out of its enum: {}", static_cast<int>(op));
}

Value::Kind Representation(const CqlType& type) {
  switch (type.kind) {
    case Kind::kBigint:
    case Kind::kInt:
    case Kind::kSmallint:
    case Kind::kTinyint:
    case Kind::kVarint:
    case Kind::kTimestamp:
    case Kind::kCounter:
      return Value::Kind::kInt;
    case Kind::kDouble:
    case Kind::kFloat:
      return Value::Kind::kDouble;
    case Kind::kBoolean:
      return Value::Kind::kBool;
    case Kind::kBlob:
      return Value::Kind::kBlob;
    case Kind::kList:
      return Value::Kind::kList;
    case Kind::kSet:
      return Value::Kind::kSet;
    case Kind::kMap:
      return Value::Kind::kMap;
    case Kind::kUdt:
      return Value::Kind::kUdt;
    default:
      return Value::Kind::kText;
  }
}

}  // namespace faultline::models::cql
