// User-defined types: CREATE TYPE, ALTER TYPE (Cassandra's only) and DROP
// TYPE, accepted and refused as each dialect does. YCQL: yugabyte-db
// src/yb/yql/cql/ql/ptree/pt_create_type.cc, pt_type.cc, sem_context.cc
// (Duplicate Type Field), master/catalog_manager.cc (CreateUDType,
// DeleteUDType: their texts), parser_gram.y (no ALTER TYPE of Cassandra's
// form). Cassandra: cql3/statements/schema/CreateTypeStatement.java,
// AlterTypeStatement.java, DropTypeStatement.java (trunk's texts).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "models/cql/engine.h"
#include "models/cql/parser.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

QueryResult TypeChanged() { return QueryResult{QueryResult::Kind::kSchemaChange, {}, {}, {}, {}}; }

// Whether `type` names the user type `name`, at any depth.
bool Names(const TypeName& type, std::string_view name) {
  if (type.parameters.empty()) return type.base == name;
  return std::any_of(type.parameters.begin(), type.parameters.end(),
                     [&](const TypeName& parameter) { return Names(parameter, name); });
}

bool Holds(const CqlType& type, std::string_view name) {
  if (type.kind == CqlType::Kind::kUdt && type.name == name) return true;
  return std::any_of(type.parameters.begin(), type.parameters.end(),
                     [&](const CqlType& parameter) { return Holds(parameter, name); });
}

// Whether `type` names `target`, directly or through the fields of the user
// types it names; `budget` bounds the walk (a type names only others).
bool Reaches(const UserTypes& types, const TypeName& type, std::string_view target,
             std::size_t budget) {
  if (budget == 0) return false;
  if (type.base == target) return true;
  for (const TypeName& parameter : type.parameters) {
    if (Reaches(types, parameter, target, budget)) return true;
  }
  const auto user = types.find(type.base);
  if (user == types.end() || !type.parameters.empty()) return false;
  return std::any_of(
      user->second.field_types.begin(), user->second.field_types.end(),
      [&](const TypeName& field) { return Reaches(types, field, target, budget - 1); });
}

// Each type of `types` and each column of the keyspace's tables resolves
// with `types` (a type changed in it may nest too deep now).
std::optional<CqlError> CheckResolvable(const KeyspaceInfo& keyspace, const UserTypes& types) {
  for (const auto& [name, type] : types) {
    std::variant<CqlType, CqlError> resolved = ResolveType(TypeName{name, {}}, &types);
    if (auto* error = std::get_if<CqlError>(&resolved)) return *error;
  }
  for (const auto& [table_name, table] : keyspace.tables) {
    for (const ColumnInfo& column : table.columns) {
      const std::optional<TypeName> name = ParseTypeName(column.type.ToString());
      if (!name) continue;
      std::variant<CqlType, CqlError> resolved = ResolveType(*name, &types);
      if (auto* error = std::get_if<CqlError>(&resolved)) return *error;
    }
  }
  return std::nullopt;
}

CqlError DuplicateType(std::string_view keyspace, std::string_view name) {
  return {ErrorCode::kDuplicateType,
          fmt::format("Duplicate Type. Type '{}.{}' already exists", keyspace, name)};
}

}  // namespace

// The keyspace a type statement names, or the session's: it must exist.
std::variant<const KeyspaceInfo*, CqlError> Engine::TypeKeyspace(const Session& session,
                                                                 const QualifiedName& type) const {
  std::variant<std::string, CqlError> named = ResolveKeyspaceName(session, type.keyspace);
  if (auto* error = std::get_if<CqlError>(&named)) return At(std::move(*error), type.offset);
  const KeyspaceInfo* info = catalog_.FindKeyspace(std::get<std::string>(named));
  if (info == nullptr) return At(KeyspaceNotFound(), type.offset);
  return info;
}

// Each field named once, of a type that exists and may be a field's.
std::optional<CqlError> Engine::CheckTypeFields(const std::string& keyspace,
                                                const std::string& type,
                                                const std::vector<ColumnDefinition>& fields) {
  const UserTypes& types = catalog_.FindKeyspace(keyspace)->types;
  std::set<std::string> seen;
  for (const ColumnDefinition& field : fields) {
    if (!seen.insert(field.name).second) {
      if (dialect_ == Dialect::kCassandra) {
        return InvalidRequest(
            fmt::format("Duplicate field name '{}' in type '{}'", field.name, type));
      }
      return At(CqlError{ErrorCode::kDuplicateTypeField, "Duplicate Type Field"}, field.offset);
    }
    std::variant<CqlType, CqlError> resolved = ResolveType(field.type, &types);
    if (auto* error = std::get_if<CqlError>(&resolved)) return At(std::move(*error), field.offset);
    const CqlType& field_type = std::get<CqlType>(resolved);
    if (field_type.kind == CqlType::Kind::kCounter) {
      return InvalidRequest("A user type cannot contain counters");
    }
    if (field_type.kind == CqlType::Kind::kUdt && !field_type.frozen) {
      if (dialect_ == Dialect::kCassandra) {
        return InvalidRequest("A user type cannot contain non-frozen UDTs");
      }
      return At(FeatureNotSupported("A user-defined type cannot contain non-frozen UDTs"),
                field.offset);
    }
    // Cassandra takes a collection field (frozen with the value); YCQL
    // wants it frozen (pt_create_type.cc).
    if (dialect_ == Dialect::kYcql && field_type.IsCollection() && !field_type.frozen) {
      return At(CqlError{ErrorCode::kInvalidTypeDefinition,
                         "Invalid Type Definition. UDT field types cannot be (un-frozen) "
                         "collections"},
                field.offset);
    }
  }
  return std::nullopt;
}

Outcome Engine::CommitType(const std::string& keyspace, UserType type, std::string_view what) {
  ForgetPrepared();
  if (!Begin()) return SqliteFailure(what);
  if (Catalog::WriteType(statements_, keyspace, type) != SQLITE_OK || !Commit()) {
    CqlError error = SqliteFailure(what);
    Rollback();
    return error;
  }
  const std::string name = type.name;
  catalog_.ApplyType(keyspace, std::move(type));
  FL_ASSERT(catalog_.FindKeyspace(keyspace)->types.contains(name));
  return TypeChanged();
}

Outcome Engine::Run(Session& session, const CreateType& statement) {
  std::variant<const KeyspaceInfo*, CqlError> found_keyspace =
      TypeKeyspace(session, statement.type);
  if (auto* error = std::get_if<CqlError>(&found_keyspace)) return std::move(*error);
  const KeyspaceInfo* info = std::get<const KeyspaceInfo*>(found_keyspace);
  const std::string& keyspace = info->name;
  if (info->system) return At(SystemNamespaceReadonly(), statement.type.offset);
  const bool exists = info->types.contains(statement.type.name);
  // Cassandra looks for the name first; YCQL's master after the analysis.
  if (dialect_ == Dialect::kCassandra && exists) {
    if (statement.if_not_exists) return QueryResult{};
    return InvalidRequest(
        fmt::format("A user type with name '{}' already exists", statement.type.name));
  }
  if (auto error = CheckTypeFields(keyspace, statement.type.name, statement.fields)) {
    return std::move(*error);
  }
  if (exists) {
    if (statement.if_not_exists) return QueryResult{};
    return At(DuplicateType(keyspace, statement.type.name), statement.type.offset);
  }
  UserType type{statement.type.name, {}, {}};
  for (const ColumnDefinition& field : statement.fields) {
    type.field_names.push_back(field.name);
    type.field_types.push_back(field.type);
  }
  return CommitType(keyspace, std::move(type), "CREATE TYPE");
}

Outcome Engine::Run(Session& session, const AlterType& statement) {
  if (dialect_ == Dialect::kYcql) {
    // parser_gram.y has ALTER TYPE only in PostgreSQL's inactive forms.
    return At(SyntaxError("Invalid SQL Statement. syntax error"), statement.action_offset);
  }
  std::variant<const KeyspaceInfo*, CqlError> found_keyspace =
      TypeKeyspace(session, statement.type);
  if (auto* error = std::get_if<CqlError>(&found_keyspace)) return std::move(*error);
  const KeyspaceInfo* info = std::get<const KeyspaceInfo*>(found_keyspace);
  const std::string& keyspace = info->name;
  const auto found = info->types.find(statement.type.name);
  if (found == info->types.end()) {
    if (statement.if_exists) return QueryResult{};
    return InvalidRequest(fmt::format("Type {}.{} doesn't exist", keyspace, statement.type.name));
  }
  UserType type = found->second;
  const std::string full_name = keyspace + "." + type.name;
  const auto has = [&](const std::string& field) {
    return std::find(type.field_names.begin(), type.field_names.end(), field) !=
           type.field_names.end();
  };
  if (statement.action == AlterType::Action::kAdd) {
    const ColumnDefinition& field = statement.field;
    if (has(field.name)) {
      if (statement.field_if_not_exists) return QueryResult{};
      return InvalidRequest(
          fmt::format("Cannot add field {} to type {}: a field with name {} already exists",
                      field.name, full_name, field.name));
    }
    if (Reaches(info->types, field.type, type.name, info->types.size() + 1)) {
      return InvalidRequest(fmt::format(
          "Cannot add new field {} of type {} to user type {} as it would create a circular "
          "reference",
          field.name, field.type.ToString(), full_name));
    }
    if (auto error = CheckTypeFields(keyspace, type.name, {field})) return std::move(*error);
    type.field_names.push_back(field.name);
    type.field_types.push_back(field.type);
    // Every type and column that holds this one must still resolve, within
    // the depth the store's encoding reads.
    UserTypes trial = info->types;
    trial.insert_or_assign(type.name, type);
    if (auto error = CheckResolvable(*info, trial)) return std::move(*error);
    return CommitType(keyspace, std::move(type), "ALTER TYPE");
  }
  for (const AlterType::Rename& rename : statement.renames) {
    const auto at = std::find(type.field_names.begin(), type.field_names.end(), rename.from);
    if (at == type.field_names.end()) {
      if (statement.rename_if_exists) continue;
      return InvalidRequest(  // [sic] "Unkown", as in AlterTypeStatement.
          fmt::format("Unkown field {} in user type {}", rename.from, full_name));
    }
    *at = rename.to;
  }
  const std::set<std::string> distinct(type.field_names.begin(), type.field_names.end());
  if (distinct.size() != type.field_names.size()) {
    // [sic] AlterTypeStatement passes the keyspace where the type belongs.
    return InvalidRequest(
        fmt::format("Duplicate field name {} in type {}", statement.renames.front().to, keyspace));
  }
  return CommitType(keyspace, std::move(type), "ALTER TYPE");
}

Outcome Engine::Run(Session& session, const DropType& statement) {
  std::variant<std::string, CqlError> named = ResolveKeyspaceName(session, statement.type.keyspace);
  if (auto* error = std::get_if<CqlError>(&named)) {
    return At(std::move(*error), statement.type.offset);
  }
  const std::string& keyspace = std::get<std::string>(named);
  // A type in a keyspace that is not there is a type that is not there.
  const KeyspaceInfo* info = catalog_.FindKeyspace(keyspace);
  const bool exists = info != nullptr && info->types.contains(statement.type.name);
  if (!exists) {
    if (statement.if_exists) return QueryResult{};
    if (dialect_ == Dialect::kCassandra) {
      return InvalidRequest(
          fmt::format("Type '{}.{}' doesn't exist", keyspace, statement.type.name));
    }
    return At(CqlError{ErrorCode::kTypeNotFound, "Type Not Found. The type does not exist"},
              statement.type.offset);
  }
  const std::string& name = statement.type.name;
  std::vector<std::string> tables;
  std::string first_column;
  for (const auto& [table_name, table] : info->tables) {
    for (const ColumnInfo& column : table.columns) {
      if (!Holds(column.type, name)) continue;
      if (first_column.empty()) first_column = column.name;
      if (tables.empty() || tables.back() != table_name) tables.push_back(table_name);
    }
  }
  std::vector<std::string> types;
  std::string first_field;
  for (const auto& [type_name, type] : info->types) {
    for (std::size_t i = 0; i < type.field_types.size(); ++i) {
      if (!Names(type.field_types[i], name)) continue;
      if (first_field.empty()) first_field = type.field_names[i];
      if (types.empty() || types.back() != type_name) types.push_back(type_name);
    }
  }
  if (dialect_ == Dialect::kCassandra) {
    if (!types.empty()) {
      return InvalidRequest(
          fmt::format("Cannot drop user type '{}.{}' as it is still used by user "
                      "types {}",
                      keyspace, name, fmt::join(types, ", ")));
    }
    if (!tables.empty()) {
      return InvalidRequest(
          fmt::format("Cannot drop user type '{}.{}' as it is still used by "
                      "tables {}",
                      keyspace, name, fmt::join(tables, ", ")));
    }
  } else {
    if (!tables.empty()) {
      return InvalidRequest(
          fmt::format("Cannot delete type '{}.{}'. It is used in column {} of "
                      "table {}",
                      keyspace, name, first_column, tables.front()));
    }
    if (!types.empty()) {
      return InvalidRequest(
          fmt::format("Cannot delete type '{}.{}'. It is used in field {} of "
                      "type '{}'",
                      keyspace, name, first_field, types.front()));
    }
  }
  ForgetPrepared();
  if (!Begin()) return SqliteFailure("DROP TYPE");
  if (Catalog::EraseType(statements_, keyspace, name) != SQLITE_OK || !Commit()) {
    CqlError error = SqliteFailure("DROP TYPE");
    Rollback();
    return error;
  }
  catalog_.ApplyTypeDropped(keyspace, name);
  FL_ASSERT(!catalog_.FindKeyspace(keyspace)->types.contains(name));
  return TypeChanged();
}

}  // namespace faultline::models::cql
