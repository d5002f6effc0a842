// The store's own encoding of collection and UDT values (one SQLite BLOB a
// cell): a kind tag, then the value; checked against the type when read.
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "models/cql/value.h"
#include "sim/assert.h"

namespace faultline::models::cql {

namespace {
void Append(std::string& out, const Value& value) {
  out += static_cast<char>(value.kind);
  switch (value.kind) {
    case Value::Kind::kNull:
      return;
    case Value::Kind::kInt:
    case Value::Kind::kBool:
      out.append(reinterpret_cast<const char*>(&value.integer), sizeof value.integer);
      return;
    case Value::Kind::kDouble:
      out.append(reinterpret_cast<const char*>(&value.real), sizeof value.real);
      return;
    case Value::Kind::kText:
    case Value::Kind::kBlob: {
      const auto size = static_cast<std::uint32_t>(value.bytes.size());
      out.append(reinterpret_cast<const char*>(&size), sizeof size);
      out += value.bytes;
      return;
    }
    default: {
      const auto count = static_cast<std::uint32_t>(value.elements.size());
      out.append(reinterpret_cast<const char*>(&count), sizeof count);
      for (const Value& element : value.elements) Append(out, element);
    }
  }
}

// Reads one value at `at` into `out`; false on malformed bytes (a damaged
// file), or, given a `type`, on a value of another shape than the type's.
bool Read(std::string_view bytes, std::size_t& at, int depth, const CqlType* type, Value& out) {
  auto take = [&](void* to, std::size_t n) {
    if (at + n > bytes.size()) return false;
    std::memcpy(to, bytes.data() + at, n);
    at += n;
    return true;
  };
  unsigned char kind = 0;
  if (depth > CqlType::kMaxDepth || !take(&kind, 1) ||
      kind > static_cast<unsigned char>(Value::Kind::kUdt)) {
    return false;
  }
  out = Value();
  out.kind = static_cast<Value::Kind>(kind);
  if (type != nullptr && !out.is_null() && out.kind != Representation(*type)) return false;
  std::uint32_t size = 0;
  switch (out.kind) {
    case Value::Kind::kNull:
      return true;
    case Value::Kind::kInt:
    case Value::Kind::kBool:
      return take(&out.integer, sizeof out.integer);
    case Value::Kind::kDouble:
      return take(&out.real, sizeof out.real);
    case Value::Kind::kText:
    case Value::Kind::kBlob:
      if (!take(&size, sizeof size) || at + size > bytes.size()) return false;
      out.bytes.assign(bytes.substr(at, size));
      at += size;
      return true;
    default:
      break;
  }
  if (!take(&size, sizeof size) || size > bytes.size() - at) return false;  // >= 1 byte each.
  const bool udt = out.kind == Value::Kind::kUdt;
  if (type != nullptr && (type->parameters.empty() ||
                          (out.kind == Value::Kind::kMap && type->parameters.size() != 2) ||
                          (udt && size > type->parameters.size()))) {
    return false;
  }
  if (out.kind == Value::Kind::kMap && size % 2 != 0) return false;
  out.elements.resize(size);
  for (std::uint32_t i = 0; i < size; ++i) {
    const std::size_t parameter = udt ? i : out.kind == Value::Kind::kMap ? i % 2 : 0;
    const CqlType* element_type = type == nullptr ? nullptr : &type->parameters[parameter];
    if (!Read(bytes, at, depth + 1, element_type, out.elements[i])) return false;
  }
  // Fields added to the type since the value was written read as null.
  if (udt && type != nullptr) out.elements.resize(type->parameters.size());
  return true;
}
}  // namespace

std::string EncodeCollection(const Value& value) {
  std::string out;
  Append(out, value);
  return out;
}

std::optional<Value> DecodeCollection(std::string_view bytes, const CqlType& type) {
  std::size_t at = 0;
  Value value;
  if (!Read(bytes, at, 0, &type, value) || at != bytes.size()) return std::nullopt;
  return value;
}

std::optional<Value> DecodeUntyped(std::string_view bytes) {
  std::size_t at = 0;
  Value value;
  if (!Read(bytes, at, 0, nullptr, value) || at != bytes.size()) return std::nullopt;
  return value;
}

}  // namespace faultline::models::cql
