#include "models/cql/types.h"

#include <array>
#include <cctype>
#include <utility>

#include <fmt/format.h>

#include "models/cql/keywords.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

using Kind = CqlType::Kind;

struct NamedKind {
  std::string_view name;
  Kind kind;
};

// Scalar type names, including CQL's aliases (varchar is text).
constexpr std::array<NamedKind, 18> kScalars{{
    {"text", Kind::kText},
    {"varchar", Kind::kText},
    {"ascii", Kind::kText},
    {"bigint", Kind::kBigint},
    {"int", Kind::kInt},
    {"smallint", Kind::kSmallint},
    {"tinyint", Kind::kTinyint},
    {"varint", Kind::kVarint},
    {"boolean", Kind::kBoolean},
    {"blob", Kind::kBlob},
    {"timestamp", Kind::kTimestamp},
    {"date", Kind::kDate},
    {"uuid", Kind::kUuid},
    {"timeuuid", Kind::kTimeuuid},
    {"double", Kind::kDouble},
    {"float", Kind::kFloat},
    {"decimal", Kind::kDecimal},
    {"counter", Kind::kCounter},
}};

std::string_view CanonicalName(Kind kind) {
  switch (kind) {
    case Kind::kText:
      return "text";
    case Kind::kBigint:
      return "bigint";
    case Kind::kInt:
      return "int";
    case Kind::kSmallint:
      return "smallint";
    case Kind::kTinyint:
      return "tinyint";
    case Kind::kVarint:
      return "varint";
    case Kind::kBoolean:
      return "boolean";
    case Kind::kBlob:
      return "blob";
    case Kind::kTimestamp:
      return "timestamp";
    case Kind::kDate:
      return "date";
    case Kind::kUuid:
      return "uuid";
    case Kind::kTimeuuid:
      return "timeuuid";
    case Kind::kDouble:
      return "double";
    case Kind::kFloat:
      return "float";
    case Kind::kDecimal:
      return "decimal";
    case Kind::kInet:
      return "inet";
    case Kind::kCounter:
      return "counter";
    case Kind::kList:
      return "list";
    case Kind::kSet:
      return "set";
    case Kind::kMap:
      return "map";
    case Kind::kUdt:
      break;  // Its own name.
  }
  return "?";
}

}  // namespace

std::string QuotedName(std::string_view name) {
  // A reserved word is a name only when quoted (keywords.h).
  const bool plain = !name.empty() && !IsReservedWord(name) &&
                     std::islower(static_cast<unsigned char>(name[0])) &&
                     std::all_of(name.begin(), name.end(), [](char c) {
                       return std::islower(static_cast<unsigned char>(c)) ||
                              std::isdigit(static_cast<unsigned char>(c)) || c == '_';
                     });
  if (plain) return std::string(name);
  std::string quoted = "\"";
  for (const char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string CqlType::ToString() const {
  if (kind == Kind::kUdt) return frozen ? "frozen<" + QuotedName(name) + ">" : QuotedName(name);
  std::string text(CanonicalName(kind));
  if (!parameters.empty()) {
    text += "<";
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      if (i > 0) text += ", ";
      text += parameters[i].ToString();
    }
    text += ">";
  }
  return frozen ? "frozen<" + text + ">" : text;
}

std::string_view CqlType::SqliteAffinity() const {
  switch (kind) {
    case Kind::kBigint:
    case Kind::kInt:
    case Kind::kSmallint:
    case Kind::kTinyint:
    case Kind::kVarint:
    case Kind::kBoolean:
    case Kind::kTimestamp:
    case Kind::kCounter:
      return "INTEGER";
    case Kind::kDouble:
    case Kind::kFloat:
      return "REAL";
    case Kind::kBlob:
    case Kind::kList:
    case Kind::kSet:
    case Kind::kMap:
    case Kind::kUdt:
      return "BLOB";  // Collections and UDTs in the store's own encoding (EncodeCollection).
    default:
      return "TEXT";  // Text, uuids, dates, decimals.
  }
}

namespace {

// A UDT's fields resolved; `depth` bounds types nested in types.
std::variant<CqlType, CqlError> ResolveUserType(const UserType& user, const UserTypes& types,
                                                int depth);
std::variant<CqlType, CqlError> Resolve(const TypeName& name, const UserTypes* types, int depth);

}  // namespace

std::variant<CqlType, CqlError> ResolveType(const TypeName& name, const UserTypes* types) {
  std::variant<CqlType, CqlError> type = Resolve(name, types, 0);
  // The store's encoding reads values this deep (value_encoding.cc), so a
  // type nested deeper could be written but never read back.
  if (const auto* resolved = std::get_if<CqlType>(&type);
      resolved != nullptr && resolved->Depth() > CqlType::kMaxDepth) {
    return InvalidArgument(fmt::format("types nest at most {} deep", CqlType::kMaxDepth));
  }
  return type;
}

namespace {

std::variant<CqlType, CqlError> ResolveUserType(const UserType& user, const UserTypes& types,
                                                int depth) {
  FL_ASSERT(user.field_names.size() == user.field_types.size());
  CqlType type{Kind::kUdt, false, {}, user.name, user.field_names};
  for (const TypeName& field : user.field_types) {
    auto resolved = Resolve(field, &types, depth + 1);
    if (auto* error = std::get_if<CqlError>(&resolved)) return *error;
    type.parameters.push_back(std::get<CqlType>(std::move(resolved)));
  }
  return type;
}

std::variant<CqlType, CqlError> Resolve(const TypeName& name, const UserTypes* types, int depth) {
  if (name.base == "frozen") {
    if (name.parameters.size() != 1) return InvalidArgument("frozen<> takes one type");
    auto inner = Resolve(name.parameters[0], types, depth);
    if (auto* error = std::get_if<CqlError>(&inner)) return *error;
    CqlType type = std::get<CqlType>(std::move(inner));
    type.frozen = true;
    return type;
  }
  for (const NamedKind& scalar : kScalars) {
    if (scalar.name != name.base) continue;
    if (!name.parameters.empty()) {
      return InvalidArgument(fmt::format("type {} takes no parameters", name.base));
    }
    return CqlType{scalar.kind, false, {}};
  }
  if (name.base == "inet" && name.parameters.empty()) return CqlType{Kind::kInet, false, {}};
  const std::pair<std::string_view, std::pair<Kind, std::size_t>> kCollections[] = {
      {"list", {Kind::kList, 1}}, {"set", {Kind::kSet, 1}}, {"map", {Kind::kMap, 2}}};
  for (const auto& [collection, shape] : kCollections) {
    if (collection != name.base) continue;
    if (name.parameters.size() != shape.second) {
      return InvalidArgument(fmt::format("type {} takes {} type parameter{}", name.base,
                                         shape.second, shape.second == 1 ? "" : "s"));
    }
    CqlType type{shape.first, false, {}};
    for (const TypeName& parameter : name.parameters) {
      auto resolved = Resolve(parameter, types, depth + 1);
      if (auto* error = std::get_if<CqlError>(&resolved)) return *error;
      CqlType element = std::get<CqlType>(std::move(resolved));
      if (element.kind == Kind::kCounter) {
        return InvalidArgument("counters are not allowed inside collections");
      }
      // YCQL's words (ptree/pt_type.cc); Cassandra refuses it too
      // ("Non-frozen UDTs are not allowed inside collections").
      if (element.kind == Kind::kUdt && !element.frozen) {
        return InvalidTableDefinition(
            "Collection type parameters cannot be (un-frozen) collections or UDTs");
      }
      if (element.IsCollection() && !element.frozen) {
        return InvalidArgument("Non-frozen collections are not allowed inside collections");
      }
      if (element.Depth() >= CqlType::kMaxDepth) {
        return InvalidArgument(fmt::format("collections nest at most {} deep", CqlType::kMaxDepth));
      }
      type.parameters.push_back(std::move(element));
    }
    return type;
  }
  if (types == nullptr || !name.parameters.empty()) {
    return InvalidArgument(fmt::format("unknown type {}", name.ToString()));
  }
  const auto user = types->find(name.base);
  // PTUserDefinedType::Analyze (ptree/pt_type.cc).
  if (user == types->end()) {
    return CqlError{ErrorCode::kTypeNotFound, "Type Not Found. Could not find user defined type"};
  }
  // Types name only types made before them, so this is a bound, not a cycle.
  if (depth > CqlType::kMaxDepth) {
    return InvalidArgument(fmt::format("types nest at most {} deep", CqlType::kMaxDepth));
  }
  return ResolveUserType(user->second, *types, depth);
}

}  // namespace

}  // namespace faultline::models::cql
