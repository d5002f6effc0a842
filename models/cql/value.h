// CQL values: what a cell holds, how a literal or a bound value becomes one
// for a column's type, and how ycqlsh prints it. Each CQL type keeps its
// values in one representation (Value::Kind): integers of every width,
// timestamps (milliseconds since the Unix epoch) and counters are kInt;
// uuid, inet, date, decimal are kText in their canonical text form.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "models/cql/ast.h"
#include "models/cql/errors.h"
#include "models/cql/types.h"

namespace faultline::models::cql {

struct Value {
  // The numbers are the on-disk encoding's tags (EncodeValue): pinned below,
  // since a renumbering would misread every stored value.
  enum class Kind : unsigned char {
    kNull,
    kInt,
    kDouble,
    kBool,
    kText,
    kBlob,
    kList,
    kSet,
    kMap,
    kUdt,  // A UDT's fields in the type's order; a field added since reads null.
  };
  Kind kind = Kind::kNull;
  std::int64_t integer = 0;     // kInt; kBool as 0 or 1.
  double real = 0;              // kDouble.
  std::string bytes;            // kText, kBlob.
  std::vector<Value> elements;  // Collections (a map's keys and values alternate), UDT fields.

  static Value Null() { return {}; }
  static Value Int(std::int64_t v) { return {Kind::kInt, v, 0, {}, {}}; }
  static Value Double(double v) { return {Kind::kDouble, 0, v, {}, {}}; }
  static Value Bool(bool v) { return {Kind::kBool, v ? 1 : 0, 0, {}, {}}; }
  static Value Text(std::string v) { return {Kind::kText, 0, 0, std::move(v), {}}; }
  static Value Blob(std::string v) { return {Kind::kBlob, 0, 0, std::move(v), {}}; }
  bool is_null() const { return kind == Kind::kNull; }

  friend bool operator==(const Value&, const Value&) = default;
};

static_assert(
    static_cast<int>(Value::Kind::kNull) == 0 && static_cast<int>(Value::Kind::kInt) == 1 &&
        static_cast<int>(Value::Kind::kDouble) == 2 && static_cast<int>(Value::Kind::kBool) == 3 &&
        static_cast<int>(Value::Kind::kText) == 4 && static_cast<int>(Value::Kind::kBlob) == 5 &&
        static_cast<int>(Value::Kind::kList) == 6 && static_cast<int>(Value::Kind::kSet) == 7 &&
        static_cast<int>(Value::Kind::kMap) == 8 && static_cast<int>(Value::Kind::kUdt) == 9,
    "Value::Kind is the on-disk tag of every stored value: never renumber it");

// Days since 1970-01-01 of a civil date, and back (Howard Hinnant's
// algorithms): dates as CQL's `date` and timestamps count them.
struct Civil {
  std::int64_t year;
  unsigned month, day;
};
std::int64_t DaysFromCivil(std::int64_t y, unsigned m, unsigned d);
Civil CivilFromDays(std::int64_t z);

// The representation each CQL type keeps its values in.
Value::Kind Representation(const CqlType& type);

// A total order on values of one type (sets and map keys are kept sorted).
std::strong_ordering Compare(const Value& a, const Value& b);

// The value `term` denotes for a column of `type`, with `bound` supplying bind
// markers; Datatype Mismatch or Invalid Arguments when it cannot be one.
// Collections come out canonical: sets sorted without duplicates, maps sorted
// by key, an empty collection null (CQL does not tell them apart).
std::variant<Value, CqlError> FromTerm(const Term& term, const CqlType& type,
                                       std::span<const Value> bound);

// Checks a value supplied from outside (a bound value) against `type`, and
// makes collections canonical.
std::variant<Value, CqlError> Coerce(Value value, const CqlType& type);

// As ycqlsh prints a cell: text bare, True/False, 0xcafe, null,
// {'a', 'b'}, {'k': 1}, [1, 2], {street: 'x', zip: 1} (a UDT: names bare,
// as cqlsh's format_value_utype), 2025-01-01 00:00:00.000000+0000.
std::string FormatCell(const Value& value, const CqlType& type);
// As a CQL literal: text quoted ('it''s'), for inside collections and in statements.
std::string FormatLiteral(const Value& value, const CqlType& type);

// A collection's value as one SQLite BLOB, and back. Decoding checks the
// bytes against `type` (each element of the kind its type keeps): damaged
// bytes give nullopt, never a value of the wrong shape.
std::string EncodeCollection(const Value& value);
std::optional<Value> DecodeCollection(std::string_view bytes, const CqlType& type);
// The same without a type (the wire's value lists): structure checked only.
std::optional<Value> DecodeUntyped(std::string_view bytes);

// A comparison of a condition (IF c > 1) or a restriction.
enum class Comparison : unsigned char {
  kEqual,
  kNotEqual,
  kLess,
  kGreater,
  kLessOrEqual,
  kGreaterOrEqual
};
// The comparison `op` spells (= != < > <= >=); nullopt for another text.
std::optional<Comparison> ParseComparison(std::string_view op);

// Comparison for conditions and for the reference model. Nulls compare
// equal only to null, and are neither less nor greater than anything.
bool Satisfies(const Value& actual, Comparison op, const Value& expected, const CqlType& type);

}  // namespace faultline::models::cql
