// CQL column types: what a parsed type name means, checked. The store maps
// each to a SQLite storage class (SqliteAffinity) and uses IsKeyable to refuse
// collections and counters in primary keys, as CQL does.
#pragma once

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "models/cql/ast.h"
#include "models/cql/errors.h"

namespace faultline::models::cql {

struct CqlType {
  enum class Kind : unsigned char {
    kText,
    kBigint,
    kInt,
    kSmallint,
    kTinyint,
    kVarint,
    kBoolean,
    kBlob,
    kTimestamp,
    kDate,
    kUuid,
    kTimeuuid,
    kDouble,
    kFloat,
    kDecimal,
    kInet,
    kCounter,
    kList,
    kSet,
    kMap,
  };
  // How deep collections may nest (the store's encoding reads this deep).
  static constexpr int kMaxDepth = 8;

  Kind kind = Kind::kText;
  bool frozen = false;
  std::vector<CqlType> parameters;  // list<T>, set<T>: one; map<K, V>: two.

  // The name as DESCRIBE prints it: "text", "map<text, bigint>", "frozen<list<int>>".
  std::string ToString() const;
  // 0 for a scalar, 1 for a collection of scalars, ...
  int Depth() const {
    int deepest = 0;
    for (const CqlType& parameter : parameters) deepest = std::max(deepest, parameter.Depth());
    return IsCollection() ? deepest + 1 : 0;
  }
  bool IsCollection() const {
    return kind == Kind::kList || kind == Kind::kSet || kind == Kind::kMap;
  }
  // Whether it may be part of a primary key.
  bool IsKeyable() const { return kind != Kind::kCounter && (!IsCollection() || frozen); }
  // "INTEGER", "REAL", "TEXT" or "BLOB": how the store keeps its values.
  std::string_view SqliteAffinity() const;
  friend bool operator==(const CqlType&, const CqlType&) = default;
};

// The type `name` denotes (varchar is text), or an InvalidArgument error
// naming what is wrong: an unknown type, or the wrong number of parameters.
std::variant<CqlType, CqlError> ResolveType(const TypeName& name);

}  // namespace faultline::models::cql
