// CQL column types: what a parsed type name means, checked. The store maps
// each to a SQLite storage class (SqliteAffinity) and uses IsKeyable to refuse
// collections and counters in primary keys, as CQL does.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
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
    kUdt,  // A user-defined type: `name`, its fields `field_names` with their types in
           // `parameters`.
  };
  // How deep collections may nest (the store's encoding reads this deep).
  static constexpr int kMaxDepth = 8;

  Kind kind = Kind::kText;
  bool frozen = false;
  std::vector<CqlType> parameters;  // list<T>, set<T>: one; map<K, V>: two; a UDT: its fields'.
  std::string name;                 // A UDT's.
  std::vector<std::string> field_names;

  // The name as DESCRIBE prints it: "text", "map<text, bigint>", "frozen<list<int>>".
  std::string ToString() const;
  // 0 for a scalar, 1 for a collection of scalars, ...
  int Depth() const {
    int deepest = 0;
    for (const CqlType& parameter : parameters) deepest = std::max(deepest, parameter.Depth());
    return IsStructured() ? deepest + 1 : 0;
  }
  bool IsCollection() const {
    return kind == Kind::kList || kind == Kind::kSet || kind == Kind::kMap;
  }
  // A collection or a UDT: values with parts, stored in the store's own encoding.
  bool IsStructured() const { return IsCollection() || kind == Kind::kUdt; }
  // Whether it may be part of a primary key.
  bool IsKeyable() const { return kind != Kind::kCounter && (!IsStructured() || frozen); }
  // "INTEGER", "REAL", "TEXT" or "BLOB": how the store keeps its values.
  std::string_view SqliteAffinity() const;
  friend bool operator==(const CqlType&, const CqlType&) = default;
};

// A name as CQL must write it: quoted unless all lower-case word characters
// and no reserved word.
std::string QuotedName(std::string_view name);

// A keyspace's user-defined type as CREATE TYPE defined it (and ALTER TYPE
// changed it): its fields' names and types as written.
struct UserType {
  std::string name;
  std::vector<std::string> field_names;
  std::vector<TypeName> field_types;
  friend bool operator==(const UserType&, const UserType&) = default;
};
using UserTypes = std::map<std::string, UserType, std::less<>>;

// The type `name` denotes (varchar is text), or an error naming what is
// wrong: the wrong number of parameters, a non-frozen collection or UDT in a
// collection, or an unknown name. With `types`, a name that is no built-in
// type is one of them (Type Not Found otherwise, as YCQL says); without,
// it is Invalid Arguments ("unknown type").
std::variant<CqlType, CqlError> ResolveType(const TypeName& name, const UserTypes* types = nullptr);

}  // namespace faultline::models::cql
