// The CQL native protocol, version 4 (Cassandra's native_protocol_v4.spec),
// as bytes: frame headers, the body's primitive types, the type options of
// result metadata, and values to and from the store's representation
// (models/cql/value.h). Pure functions, tested and fuzzed apart from the
// sockets (cql_front.cc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/cql/engine.h"
#include "models/cql/types.h"
#include "models/cql/value.h"

namespace faultline::live::cql {

using models::cql::CqlType;
using models::cql::Value;

inline constexpr std::uint8_t kVersion = 4;
inline constexpr std::size_t kHeaderSize = 9;
// The spec's own bound on a frame's body is 256 MB; a statement and its
// values need far less.
inline constexpr std::uint32_t kMaxBody = 16u << 20;

enum class Opcode : std::uint8_t {
  kError = 0x00,
  kStartup = 0x01,
  kReady = 0x02,
  kAuthenticate = 0x03,
  kOptions = 0x05,
  kSupported = 0x06,
  kQuery = 0x07,
  kResult = 0x08,
  kPrepare = 0x09,
  kExecute = 0x0A,
  kRegister = 0x0B,
  kEvent = 0x0C,
  kBatch = 0x0D,
};

// The protocol's error codes (spec section 9).
enum class ErrorCode : std::int32_t {
  kServerError = 0x0000,
  kProtocolError = 0x000A,
  kUnavailable = 0x1000,
  kSyntaxError = 0x2000,
  kInvalid = 0x2200,
  kConfigError = 0x2300,
  kAlreadyExists = 0x2400,
  kUnprepared = 0x2500,
};

struct FrameHeader {
  std::uint8_t version = 0;  // With the direction bit (0x80 for a response).
  std::uint8_t flags = 0;
  std::int16_t stream = 0;
  std::uint8_t opcode = 0;
  std::uint32_t length = 0;
};

FrameHeader ReadHeader(const std::uint8_t (&bytes)[kHeaderSize]);
// A response frame of `body`, on `stream`.
std::string Frame(std::int16_t stream, Opcode opcode, std::string_view body);

// Writes the body's primitive types, big-endian.
class Writer {
 public:
  Writer& Byte(std::uint8_t v);
  Writer& Short(std::uint16_t v);
  Writer& Int(std::int32_t v);
  Writer& Long(std::int64_t v);
  Writer& String(std::string_view v);                  // [string]: a short length.
  Writer& LongString(std::string_view v);              // [long string]: an int length.
  Writer& Bytes(const std::optional<std::string>& v);  // [bytes]: -1 for null.
  Writer& ShortBytes(std::string_view v);
  Writer& StringList(const std::vector<std::string>& v);
  Writer& StringMultimap(const std::map<std::string, std::vector<std::string>>& v);
  Writer& Type(const CqlType& type);  // [option], nested for collections and UDTs.
  Writer& Raw(std::string_view v);
  const std::string& bytes() const { return bytes_; }
  std::string Take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

// A [value] a client binds (spec 3): its bytes, null, or "unset" (length
// -2: leave the column as it is, which a statement's text cannot say).
struct BoundValue {
  std::optional<std::string> bytes;  // nullopt: null, or unset.
  bool unset = false;
};

// Reads them; any read past the end sets failed() and returns a zero value,
// so a caller checks once at the end.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  std::uint8_t Byte();
  std::uint16_t Short();
  std::int32_t Int();
  std::int64_t Long();
  std::string String();
  std::string LongString();
  std::optional<std::string> Bytes();  // nullopt for null (and for "not set", -2).
  std::string ShortBytes();
  std::string Raw(std::size_t n);
  BoundValue Bound();  // A [value].
  std::map<std::string, std::string> StringMap();
  std::vector<std::string> StringList();
  bool failed() const { return failed_; }
  bool done() const { return at_ == bytes_.size(); }

 private:
  std::string_view Take(std::size_t n);
  std::string_view bytes_;
  std::size_t at_ = 0;
  bool failed_ = false;
};

// A value's bytes as the protocol carries it for `type`, and back. Decoding
// fails (nullopt) on bytes of the wrong size or shape.
std::string EncodeValue(const Value& value, const CqlType& type);
std::optional<Value> DecodeValue(std::string_view bytes, const CqlType& type);

// QUERY's and EXECUTE's parameters (spec 4.1.4).
struct QueryParameters {
  std::uint16_t consistency = 0;
  std::vector<BoundValue> values;
  bool skip_metadata = false;
  std::int32_t page_size = 0;  // 0: none asked.
  std::string paging_state;
};
// false when the bytes are not parameters.
bool ReadParameters(Reader& in, QueryParameters& parameters);

}  // namespace faultline::live::cql
