#include "live/cql_codec.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cstring>

namespace faultline::live::cql {
namespace {

using Kind = CqlType::Kind;

std::uint16_t TypeId(Kind kind) {
  switch (kind) {
    case Kind::kText:
      return 0x000D;
    case Kind::kBigint:
      return 0x0002;
    case Kind::kInt:
      return 0x0009;
    case Kind::kSmallint:
      return 0x0013;
    case Kind::kTinyint:
      return 0x0014;
    case Kind::kVarint:
      return 0x000E;
    case Kind::kBoolean:
      return 0x0004;
    case Kind::kBlob:
      return 0x0003;
    case Kind::kTimestamp:
      return 0x000B;
    case Kind::kDate:
      return 0x0011;
    case Kind::kUuid:
      return 0x000C;
    case Kind::kTimeuuid:
      return 0x000F;
    case Kind::kDouble:
      return 0x0007;
    case Kind::kFloat:
      return 0x0008;
    case Kind::kDecimal:
      return 0x0006;
    case Kind::kInet:
      return 0x0010;
    case Kind::kCounter:
      return 0x0005;
    case Kind::kList:
      return 0x0020;
    case Kind::kMap:
      return 0x0021;
    case Kind::kSet:
      return 0x0022;
    case Kind::kUdt:
      return 0x0030;
  }
  return 0x000D;
}

std::string BigEndian(std::uint64_t v, int bytes) {
  std::string out(static_cast<std::size_t>(bytes), '\0');
  for (int i = bytes - 1; i >= 0; --i, v >>= 8)
    out[static_cast<std::size_t>(i)] = static_cast<char>(v & 0xff);
  return out;
}

// Two's complement, big-endian, in as few bytes as keep the sign.
std::string Varint(std::int64_t v) {
  std::string out = BigEndian(static_cast<std::uint64_t>(v), 8);
  std::size_t skip = 0;
  while (skip + 1 < out.size()) {
    const auto first = static_cast<unsigned char>(out[skip]);
    const auto next = static_cast<unsigned char>(out[skip + 1]);
    if ((first == 0x00 && next < 0x80) || (first == 0xff && next >= 0x80)) {
      ++skip;
    } else {
      break;
    }
  }
  return out.substr(skip);
}

std::optional<std::int64_t> FromVarint(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > 8) return std::nullopt;
  std::uint64_t v = static_cast<unsigned char>(bytes[0]) >= 0x80 ? ~std::uint64_t{0} : 0;
  for (const char c : bytes) v = (v << 8) | static_cast<unsigned char>(c);
  return static_cast<std::int64_t>(v);
}

std::optional<std::int64_t> Signed(std::string_view bytes, std::size_t size) {
  if (bytes.size() != size) return std::nullopt;
  return FromVarint(bytes);
}

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string UuidBytes(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i + 1 < text.size() && out.size() < 16;) {
    if (text[i] == '-') {
      ++i;
      continue;
    }
    out += static_cast<char>(Hex(text[i]) * 16 + Hex(text[i + 1]));
    i += 2;
  }
  out.resize(16, '\0');
  return out;
}

std::string UuidText(std::string_view bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += fmt::format("{:02x}", static_cast<unsigned char>(bytes[i]));
  }
  return out;
}

// A date as the store keeps it ("2026-12-04") from its days since 1970-01-01.
std::string DateText(std::int64_t days) {
  const models::cql::Civil civil = models::cql::CivilFromDays(days);
  return fmt::format("{:04}-{:02}-{:02}", civil.year, civil.month, civil.day);
}

// "-12.50" as a decimal: its scale and unscaled digits ("-1250", 2); an
// exponent moves the scale ("1.5e3": 15, scale -2).
std::string DecimalBytes(std::string_view text) {
  std::string digits;
  std::int32_t scale = 0;
  bool negative = false;
  bool point = false;
  const std::size_t e = text.find_first_of("eE");
  if (e != std::string_view::npos) {
    std::int32_t exponent = 0;
    const std::string_view power = text.substr(e + 1);
    const std::size_t skip = !power.empty() && power[0] == '+' ? 1 : 0;
    std::from_chars(power.data() + skip, power.data() + power.size(), exponent);
    scale = -exponent;
    text = text.substr(0, e);
  }
  for (const char c : text) {
    if (c == '-') negative = true;
    if (c == '.') point = true;
    if (c >= '0' && c <= '9') {
      digits += c;
      if (point) ++scale;
    }
  }
  // The magnitude in base 256, most significant first.
  std::vector<unsigned> magnitude;
  for (const char c : digits) {
    unsigned carry = static_cast<unsigned>(c - '0');
    for (auto it = magnitude.rbegin(); it != magnitude.rend(); ++it) {
      const unsigned v = *it * 10 + carry;
      *it = v & 0xff;
      carry = v >> 8;
    }
    while (carry > 0) {
      magnitude.insert(magnitude.begin(), carry & 0xff);
      carry >>= 8;
    }
  }
  if (magnitude.empty() || magnitude.front() >= 0x80) magnitude.insert(magnitude.begin(), 0);
  if (negative) {
    unsigned carry = 1;
    for (auto it = magnitude.rbegin(); it != magnitude.rend(); ++it) {
      const unsigned v = (~*it & 0xff) + carry;
      *it = v & 0xff;
      carry = v >> 8;
    }
  }
  std::string out = BigEndian(static_cast<std::uint32_t>(scale), 4);
  for (const unsigned byte : magnitude) out += static_cast<char>(byte);
  return out;
}

std::string DecimalText(std::string_view bytes) {
  const std::int32_t scale = static_cast<std::int32_t>(*FromVarint(bytes.substr(0, 4)));
  const std::optional<std::int64_t> unscaled = FromVarint(bytes.substr(4));
  std::string digits = std::to_string(unscaled.value_or(0));
  const bool negative = !digits.empty() && digits[0] == '-';
  if (negative) digits.erase(0, 1);
  if (scale > 0) {
    if (digits.size() <= static_cast<std::size_t>(scale)) {
      digits.insert(0, static_cast<std::size_t>(scale) + 1 - digits.size(), '0');
    }
    digits.insert(digits.size() - static_cast<std::size_t>(scale), ".");
  } else if (scale < 0 && scale >= -1000 && digits != "0") {
    digits.append(static_cast<std::size_t>(-scale), '0');  // 1 at scale -3 is 1000.
  }
  return (negative ? "-" : "") + digits;
}

std::string Elements(const Value& value, const CqlType& type) {
  Writer out;
  const bool map = type.kind == Kind::kMap;
  out.Int(static_cast<std::int32_t>(map ? value.elements.size() / 2 : value.elements.size()));
  for (std::size_t i = 0; i < value.elements.size(); ++i) {
    const CqlType& element = map ? type.parameters[i % 2] : type.parameters[0];
    const Value& v = value.elements[i];
    out.Bytes(v.is_null() ? std::nullopt : std::optional(EncodeValue(v, element)));
  }
  return out.Take();
}

std::optional<Value> DecodeElements(std::string_view bytes, const CqlType& type) {
  Reader in(bytes);
  const std::int32_t count = in.Int();
  const bool map = type.kind == Kind::kMap;
  if (in.failed() || count < 0 || static_cast<std::size_t>(count) > bytes.size())
    return std::nullopt;
  Value value;
  value.kind = type.kind == Kind::kList ? Value::Kind::kList
               : map                    ? Value::Kind::kMap
                                        : Value::Kind::kSet;
  for (std::int32_t i = 0; i < count * (map ? 2 : 1); ++i) {
    const CqlType& element =
        map ? type.parameters[static_cast<std::size_t>(i % 2)] : type.parameters[0];
    const std::optional<std::string> part = in.Bytes();
    if (in.failed() || !part) return std::nullopt;
    std::optional<Value> decoded = DecodeValue(*part, element);
    if (!decoded) return std::nullopt;
    value.elements.push_back(std::move(*decoded));
  }
  if (!in.done()) return std::nullopt;
  return value;
}

}  // namespace

std::string EncodeValue(const Value& value, const CqlType& type) {
  switch (type.kind) {
    case Kind::kBigint:
    case Kind::kCounter:
    case Kind::kTimestamp:
      return BigEndian(static_cast<std::uint64_t>(value.integer), 8);
    case Kind::kInt:
      return BigEndian(static_cast<std::uint64_t>(value.integer), 4);
    case Kind::kSmallint:
      return BigEndian(static_cast<std::uint64_t>(value.integer), 2);
    case Kind::kTinyint:
      return BigEndian(static_cast<std::uint64_t>(value.integer), 1);
    case Kind::kVarint:
      return Varint(value.integer);
    case Kind::kBoolean:
      return std::string(1, value.integer != 0 ? '\1' : '\0');
    case Kind::kDouble:
      return BigEndian(std::bit_cast<std::uint64_t>(value.real), 8);
    case Kind::kFloat:
      return BigEndian(std::bit_cast<std::uint32_t>(static_cast<float>(value.real)), 4);
    case Kind::kUuid:
    case Kind::kTimeuuid:
      return UuidBytes(value.bytes);
    case Kind::kDate: {
      const std::string& t = value.bytes;  // YYYY-MM-DD, as the store keeps it.
      std::int64_t y = 1970;
      unsigned m = 1;
      unsigned d = 1;
      std::from_chars(t.data(), t.data() + std::min<std::size_t>(4, t.size()), y);
      if (t.size() >= 10) {
        std::from_chars(t.data() + 5, t.data() + 7, m);
        std::from_chars(t.data() + 8, t.data() + 10, d);
      }
      return BigEndian(
          static_cast<std::uint32_t>(models::cql::DaysFromCivil(y, m, d) + (std::int64_t{1} << 31)),
          4);
    }
    case Kind::kInet: {
      unsigned char address[16];
      if (inet_pton(AF_INET, value.bytes.c_str(), address) == 1) {
        return std::string(reinterpret_cast<const char*>(address), 4);
      }
      if (inet_pton(AF_INET6, value.bytes.c_str(), address) == 1) {
        return std::string(reinterpret_cast<const char*>(address), 16);
      }
      return {};
    }
    case Kind::kDecimal:
      return DecimalBytes(value.bytes);
    case Kind::kList:
    case Kind::kSet:
    case Kind::kMap:
      return Elements(value, type);
    case Kind::kUdt: {
      Writer out;
      for (std::size_t i = 0; i < type.parameters.size(); ++i) {
        const bool present = i < value.elements.size() && !value.elements[i].is_null();
        out.Bytes(present ? std::optional(EncodeValue(value.elements[i], type.parameters[i]))
                          : std::nullopt);
      }
      return out.Take();
    }
    case Kind::kText:
    case Kind::kBlob:
      return value.bytes;
  }
  return value.bytes;
}

std::optional<Value> DecodeValue(std::string_view bytes, const CqlType& type) {
  const auto integer = [&](std::size_t size) -> std::optional<Value> {
    const std::optional<std::int64_t> v = Signed(bytes, size);
    if (!v) return std::nullopt;
    return Value::Int(*v);
  };
  switch (type.kind) {
    case Kind::kBigint:
    case Kind::kCounter:
    case Kind::kTimestamp:
      return integer(8);
    case Kind::kInt:
      return integer(4);
    case Kind::kSmallint:
      return integer(2);
    case Kind::kTinyint:
      return integer(1);
    case Kind::kVarint: {
      const std::optional<std::int64_t> v = FromVarint(bytes);
      if (!v) return std::nullopt;
      return Value::Int(*v);
    }
    case Kind::kBoolean:
      if (bytes.size() != 1) return std::nullopt;
      return Value::Bool(bytes[0] != 0);
    case Kind::kDouble: {
      const std::optional<std::int64_t> v = Signed(bytes, 8);
      if (!v) return std::nullopt;
      return Value::Double(std::bit_cast<double>(*v));
    }
    case Kind::kFloat: {
      const std::optional<std::int64_t> v = Signed(bytes, 4);
      if (!v) return std::nullopt;
      return Value::Double(std::bit_cast<float>(static_cast<std::uint32_t>(*v)));
    }
    case Kind::kUuid:
    case Kind::kTimeuuid:
      if (bytes.size() != 16) return std::nullopt;
      return Value::Text(UuidText(bytes));
    case Kind::kDate: {
      if (bytes.size() != 4) return std::nullopt;
      const std::uint64_t days =
          static_cast<std::uint32_t>(*FromVarint(bytes.substr(0, 4)) & 0xffffffff);
      return Value::Text(DateText(static_cast<std::int64_t>(days) - (std::int64_t{1} << 31)));
    }
    case Kind::kInet: {
      char text[INET6_ADDRSTRLEN];
      const int family = bytes.size() == 4 ? AF_INET : bytes.size() == 16 ? AF_INET6 : 0;
      if (family == 0 || inet_ntop(family, bytes.data(), text, sizeof text) == nullptr) {
        return std::nullopt;
      }
      return Value::Text(text);
    }
    case Kind::kDecimal:
      if (bytes.size() < 5 || bytes.size() > 12) return std::nullopt;
      return Value::Text(DecimalText(bytes));
    case Kind::kList:
    case Kind::kSet:
    case Kind::kMap:
      return DecodeElements(bytes, type);
    case Kind::kUdt: {
      Reader in(bytes);
      Value value;
      value.kind = Value::Kind::kUdt;
      for (std::size_t i = 0; i < type.parameters.size() && !in.done(); ++i) {
        const std::optional<std::string> field = in.Bytes();
        if (in.failed()) return std::nullopt;
        if (!field) {
          value.elements.push_back(Value::Null());
          continue;
        }
        std::optional<Value> decoded = DecodeValue(*field, type.parameters[i]);
        if (!decoded) return std::nullopt;
        value.elements.push_back(std::move(*decoded));
      }
      if (!in.done()) return std::nullopt;
      return value;
    }
    case Kind::kText:
      return Value::Text(std::string(bytes));
    case Kind::kBlob:
      return Value::Blob(std::string(bytes));
  }
  return std::nullopt;
}

FrameHeader ReadHeader(const std::uint8_t (&b)[kHeaderSize]) {
  FrameHeader header;
  header.version = b[0];
  header.flags = b[1];
  header.stream = static_cast<std::int16_t>((b[2] << 8) | b[3]);
  header.opcode = b[4];
  header.length =
      (std::uint32_t{b[5]} << 24) | (std::uint32_t{b[6]} << 16) | (std::uint32_t{b[7]} << 8) | b[8];
  return header;
}

std::string Frame(std::int16_t stream, Opcode opcode, std::string_view body) {
  Writer out;
  out.Byte(0x80 | kVersion).Byte(0).Short(static_cast<std::uint16_t>(stream));
  out.Byte(static_cast<std::uint8_t>(opcode)).Int(static_cast<std::int32_t>(body.size()));
  out.Raw(body);
  return out.Take();
}

Writer& Writer::Byte(std::uint8_t v) {
  bytes_ += static_cast<char>(v);
  return *this;
}
Writer& Writer::Short(std::uint16_t v) { return Raw(BigEndian(v, 2)); }
Writer& Writer::Int(std::int32_t v) { return Raw(BigEndian(static_cast<std::uint32_t>(v), 4)); }
Writer& Writer::Long(std::int64_t v) { return Raw(BigEndian(static_cast<std::uint64_t>(v), 8)); }
Writer& Writer::String(std::string_view v) {
  v = v.substr(0, 0xffff);  // A [string] holds at most that: longer ones are cut.
  return Short(static_cast<std::uint16_t>(v.size())).Raw(v);
}
Writer& Writer::LongString(std::string_view v) {
  return Int(static_cast<std::int32_t>(v.size())).Raw(v);
}
Writer& Writer::Bytes(const std::optional<std::string>& v) {
  if (!v) return Int(-1);
  return Int(static_cast<std::int32_t>(v->size())).Raw(*v);
}
Writer& Writer::ShortBytes(std::string_view v) {
  return Short(static_cast<std::uint16_t>(v.size())).Raw(v);
}
Writer& Writer::StringList(const std::vector<std::string>& v) {
  Short(static_cast<std::uint16_t>(v.size()));
  for (const std::string& s : v) String(s);
  return *this;
}
Writer& Writer::StringMultimap(const std::map<std::string, std::vector<std::string>>& v) {
  Short(static_cast<std::uint16_t>(v.size()));
  for (const auto& [key, values] : v) String(key).StringList(values);
  return *this;
}
Writer& Writer::Type(const CqlType& type) {
  Short(TypeId(type.kind));
  if (type.kind == Kind::kUdt) {
    // The keyspace is the name's part before a '.', when it has one.
    const std::size_t dot = type.name.find('.');
    String(dot == std::string::npos ? "" : type.name.substr(0, dot));
    String(dot == std::string::npos ? type.name : type.name.substr(dot + 1));
    Short(static_cast<std::uint16_t>(type.parameters.size()));
    for (std::size_t i = 0; i < type.parameters.size(); ++i) {
      String(i < type.field_names.size() ? type.field_names[i] : "").Type(type.parameters[i]);
    }
    return *this;
  }
  for (const CqlType& parameter : type.parameters) Type(parameter);
  return *this;
}
Writer& Writer::Raw(std::string_view v) {
  bytes_.append(v);
  return *this;
}

std::string_view Reader::Take(std::size_t n) {
  if (failed_ || n > bytes_.size() - at_) {
    failed_ = true;
    return {};
  }
  const std::string_view part = bytes_.substr(at_, n);
  at_ += n;
  return part;
}
std::uint8_t Reader::Byte() {
  const std::string_view b = Take(1);
  return b.empty() ? 0 : static_cast<std::uint8_t>(b[0]);
}
std::uint16_t Reader::Short() {
  const std::string_view b = Take(2);
  if (b.empty()) return 0;
  return static_cast<std::uint16_t>((static_cast<unsigned char>(b[0]) << 8) |
                                    static_cast<unsigned char>(b[1]));
}
std::int32_t Reader::Int() {
  const std::string_view b = Take(4);
  return b.empty() ? 0 : static_cast<std::int32_t>(*Signed(b, 4));
}
std::int64_t Reader::Long() {
  const std::string_view b = Take(8);
  return b.empty() ? 0 : *Signed(b, 8);
}
std::string Reader::String() { return std::string(Take(Short())); }
std::string Reader::LongString() {
  const std::int32_t n = Int();
  if (n < 0) {
    failed_ = true;
    return {};
  }
  return std::string(Take(static_cast<std::size_t>(n)));
}
std::optional<std::string> Reader::Bytes() {
  const std::int32_t n = Int();
  if (n < 0) return std::nullopt;
  return std::string(Take(static_cast<std::size_t>(n)));
}
std::string Reader::ShortBytes() { return std::string(Take(Short())); }
std::string Reader::Raw(std::size_t n) { return std::string(Take(n)); }
BoundValue Reader::Bound() {
  const std::int32_t length = Int();
  if (length < 0) return BoundValue{std::nullopt, length == -2};
  return BoundValue{Raw(static_cast<std::size_t>(length)), false};
}
std::map<std::string, std::string> Reader::StringMap() {
  std::map<std::string, std::string> map;
  const std::uint16_t n = Short();
  for (std::uint16_t i = 0; i < n && !failed_; ++i) {
    std::string key = String();
    map[std::move(key)] = String();
  }
  return map;
}
std::vector<std::string> Reader::StringList() {
  std::vector<std::string> list;
  const std::uint16_t n = Short();
  for (std::uint16_t i = 0; i < n && !failed_; ++i) list.push_back(String());
  return list;
}

bool ReadParameters(Reader& in, QueryParameters& parameters) {
  parameters.consistency = in.Short();
  const std::uint8_t flags = in.Byte();
  const bool named = (flags & 0x40) != 0;
  if ((flags & 0x01) != 0) {
    const std::uint16_t n = in.Short();
    if (named) return false;  // Values by name: refused (drivers bind by position).
    for (std::uint16_t i = 0; i < n && !in.failed(); ++i) parameters.values.push_back(in.Bound());
  }
  parameters.skip_metadata = (flags & 0x02) != 0;
  if ((flags & 0x04) != 0) parameters.page_size = in.Int();
  if ((flags & 0x08) != 0) parameters.paging_state = in.Bytes().value_or("");
  if ((flags & 0x10) != 0) in.Short();  // Serial consistency: one store, nothing to choose.
  if ((flags & 0x20) != 0) in.Long();   // The client's timestamp: the store's clock decides.
  return !in.failed();
}

}  // namespace faultline::live::cql
