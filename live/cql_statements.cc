#include "live/cql_statements.h"

#include <fmt/format.h>

#include "models/cql/lexer.h"
#include "models/cql/parser.h"
#include "models/cql/value.h"

namespace faultline::live::cql {
namespace {

namespace ast = models::cql;
using models::cql::CqlType;
using StoreCode = models::cql::ErrorCode;
using models::cql::TableInfo;

CqlError Error(StoreCode code, std::string message) {
  CqlError error;
  error.code = code;
  error.message = std::move(message);
  return error;
}

std::string KeyspaceOf(const ast::QualifiedName& name, const std::string& session) {
  return name.keyspace.empty() ? session : name.keyspace;
}

// Walks a statement's terms, giving each bind marker its column.
class MarkerWalk {
 public:
  MarkerWalk(const TableInfo& table, BindMarkers& out) : table_(table), out_(out) {}

  void Term(const ast::Term& term, const std::string& column, bool in_list = false) {
    if (term.kind != ast::Term::Kind::kBindMarker) return;
    const ast::ColumnInfo* info = table_.Find(column);
    ColumnSpec spec;
    spec.name = column;
    if (info != nullptr) spec.type = info->type;
    if (in_list) {
      CqlType list;
      list.kind = CqlType::Kind::kList;
      list.parameters.push_back(spec.type);
      spec.type = std::move(list);
    }
    Place(term.bind_index, std::move(spec));
    if (info != nullptr && info->role == ast::ColumnInfo::Role::kPartitionKey) {
      partition_markers_.emplace_back(info->position, term.bind_index);
    }
  }
  void Integer(const std::optional<ast::Term>& term, const std::string& name) {
    if (!term || term->kind != ast::Term::Kind::kBindMarker) return;
    ColumnSpec spec;
    spec.name = name;
    spec.type.kind = CqlType::Kind::kInt;
    Place(term->bind_index, std::move(spec));
  }
  void Relations(const std::vector<ast::Relation>& relations) {
    for (const ast::Relation& relation : relations) {
      Term(relation.value, relation.column, relation.op == "IN");
    }
  }
  void Finish() {
    std::sort(partition_markers_.begin(), partition_markers_.end());
    if (partition_markers_.size() != table_.PartitionKeyColumns()) return;
    for (const auto& [position, index] : partition_markers_) {
      out_.partition_key.push_back(static_cast<std::uint16_t>(index));
    }
  }

 private:
  void Place(int index, ColumnSpec spec) {
    if (index < 0) return;
    const auto at = static_cast<std::size_t>(index);
    if (out_.columns.size() <= at) out_.columns.resize(at + 1);
    out_.columns[at] = std::move(spec);
  }
  const TableInfo& table_;
  BindMarkers& out_;
  std::vector<std::pair<int, int>> partition_markers_;
};

void Walk(MarkerWalk& walk, const ast::Insert& insert) {
  for (std::size_t i = 0; i < insert.values.size() && i < insert.columns.size(); ++i) {
    walk.Term(insert.values[i], insert.columns[i]);
  }
  walk.Integer(insert.ttl, "[ttl]");
}
void Walk(MarkerWalk& walk, const ast::Update& update) {
  walk.Integer(update.ttl, "[ttl]");
  for (const ast::Assignment& assignment : update.assignments) {
    walk.Term(assignment.value, assignment.column);
  }
  walk.Relations(update.where);
  walk.Relations(update.conditions);
}
void Walk(MarkerWalk& walk, const ast::Delete& remove) {
  walk.Relations(remove.where);
  walk.Relations(remove.conditions);
}
void Walk(MarkerWalk& walk, const ast::Select& select) {
  walk.Relations(select.where);
  walk.Integer(select.limit, "[limit]");
}

const ast::QualifiedName* TableNamed(const ast::Statement& statement) {
  if (const auto* s = std::get_if<ast::Insert>(&statement)) return &s->table;
  if (const auto* s = std::get_if<ast::Update>(&statement)) return &s->table;
  if (const auto* s = std::get_if<ast::Delete>(&statement)) return &s->table;
  if (const auto* s = std::get_if<ast::Select>(&statement)) return &s->table;
  return nullptr;
}

// A SELECT's columns as the catalog types them (the star: every column).
std::vector<ColumnSpec> ResultOf(const ast::Select& select, const TableInfo& table) {
  std::vector<ColumnSpec> result;
  if (select.count) {
    ColumnSpec count;
    count.name = "count";
    count.type.kind = CqlType::Kind::kBigint;
    return {count};
  }
  if (select.star) {
    for (const ast::ColumnInfo& column : table.columns)
      result.push_back({column.name, column.type});
    return result;
  }
  for (const std::string& name : select.columns) {
    const ast::ColumnInfo* column = table.Find(name);
    if (column == nullptr) return {};  // A function or a cast: the rows' own metadata says.
    result.push_back({column->name, column->type});
  }
  return result;
}

}  // namespace

std::variant<BindMarkers, CqlError> MarkersOf(std::string_view text, const std::string& keyspace,
                                              const models::cql::Catalog& catalog) {
  ast::ParseResult parsed = ast::Parse(text);
  if (parsed.error) {
    return Error(StoreCode::kSyntaxError, ast::FormatError(text, *parsed.error));
  }
  BindMarkers markers;
  if (parsed.statements.size() != 1) return markers;
  const ast::ParsedStatement& statement = parsed.statements.front();
  markers.columns.resize(static_cast<std::size_t>(statement.bind_markers));
  std::vector<const ast::Modification*> parts;
  const ast::QualifiedName* name = TableNamed(statement.statement);
  if (const auto* batch = std::get_if<ast::Batch>(&statement.statement)) {
    for (const ast::Modification& part : batch->statements) {
      const ast::QualifiedName* table = std::visit([](const auto& m) { return &m.table; }, part);
      const TableInfo* info = catalog.FindTable(KeyspaceOf(*table, keyspace), table->name);
      if (info == nullptr) return models::cql::ObjectNotFound();
      MarkerWalk walk(*info, markers);
      std::visit([&walk](const auto& m) { Walk(walk, m); }, part);
    }
    return markers;
  }
  if (name == nullptr) return markers;  // DDL, USE: no markers to type.
  markers.keyspace = KeyspaceOf(*name, keyspace);
  markers.table = name->name;
  const TableInfo* info = catalog.FindTable(markers.keyspace, markers.table);
  if (info == nullptr) {
    if (markers.keyspace.empty()) return Error(StoreCode::kNoKeyspace, "No Namespace Used");
    return models::cql::ObjectNotFound();
  }
  MarkerWalk walk(*info, markers);
  std::visit(
      [&](const auto& s) {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, ast::Insert> || std::is_same_v<S, ast::Update> ||
                      std::is_same_v<S, ast::Delete> || std::is_same_v<S, ast::Select>) {
          Walk(walk, s);
        }
        if constexpr (std::is_same_v<S, ast::Select>) markers.result = ResultOf(s, *info);
      },
      statement.statement);
  walk.Finish();
  return markers;
}

std::variant<std::string, CqlError> Inlined(std::string_view text, const BindMarkers& markers,
                                            const std::vector<std::optional<Value>>& values) {
  if (values.size() != markers.columns.size()) {
    return Error(StoreCode::kCqlStatementInvalid,
                 fmt::format("Invalid Arguments. The statement has {} bind markers; {} values "
                             "were bound",
                             markers.columns.size(), values.size()));
  }
  const ast::LexResult lexed = ast::Lex(text);
  if (lexed.error) return Error(StoreCode::kSyntaxError, lexed.error->message);
  std::string out;
  std::size_t copied = 0;
  std::size_t marker = 0;
  for (const ast::Token& token : lexed.tokens) {
    if (!token.IsSymbol("?")) continue;
    if (marker >= values.size()) break;
    out.append(text.substr(copied, token.position.offset - copied));
    const std::optional<Value>& value = values[marker];
    const CqlType& type = markers.columns[marker].type;
    // A decimal is kept as its digits (DecodeValue made them), which CQL
    // writes unquoted; every other value as its literal.
    const bool digits = value && type.kind == CqlType::Kind::kDecimal &&
                        value->kind == models::cql::Value::Kind::kText;
    out += !value   ? std::string("null")
           : digits ? value->bytes
                    : models::cql::FormatLiteral(*value, type);
    copied = token.end;
    ++marker;
  }
  out.append(text.substr(copied));
  return out;
}

std::optional<SchemaChange> SchemaChangeOf(std::string_view text, const std::string& keyspace) {
  ast::ParseResult parsed = ast::Parse(text);
  if (parsed.error || parsed.statements.size() != 1) return std::nullopt;
  const ast::Statement& s = parsed.statements.front().statement;
  const auto table = [&](const char* change, const ast::QualifiedName& name) {
    return SchemaChange{change, "TABLE", KeyspaceOf(name, keyspace), name.name};
  };
  const auto type = [&](const char* change, const ast::QualifiedName& name) {
    return SchemaChange{change, "TYPE", KeyspaceOf(name, keyspace), name.name};
  };
  if (const auto* c = std::get_if<ast::CreateKeyspace>(&s))
    return SchemaChange{"CREATED", "KEYSPACE", c->name, ""};
  if (const auto* c = std::get_if<ast::DropKeyspace>(&s))
    return SchemaChange{"DROPPED", "KEYSPACE", c->name, ""};
  if (const auto* c = std::get_if<ast::CreateTable>(&s)) return table("CREATED", c->table);
  if (const auto* c = std::get_if<ast::AlterTable>(&s)) return table("UPDATED", c->table);
  if (const auto* c = std::get_if<ast::DropTable>(&s)) return table("DROPPED", c->table);
  if (const auto* c = std::get_if<ast::CreateIndex>(&s)) return table("UPDATED", c->table);
  if (const auto* c = std::get_if<ast::CreateView>(&s)) return table("CREATED", c->view);
  if (const auto* c = std::get_if<ast::DropView>(&s)) return table("DROPPED", c->view);
  if (const auto* c = std::get_if<ast::CreateType>(&s)) return type("CREATED", c->type);
  if (const auto* c = std::get_if<ast::AlterType>(&s)) return type("UPDATED", c->type);
  if (const auto* c = std::get_if<ast::DropType>(&s)) return type("DROPPED", c->type);
  if (std::holds_alternative<ast::DropIndex>(s)) {
    // The table an index was on is the catalog's: the keyspace changed.
    return SchemaChange{"UPDATED", "KEYSPACE",
                        KeyspaceOf(std::get<ast::DropIndex>(s).index, keyspace), ""};
  }
  return std::nullopt;
}

std::pair<std::string, std::string> TableOf(std::string_view text, const std::string& keyspace) {
  ast::ParseResult parsed = ast::Parse(text);
  if (parsed.error || parsed.statements.size() != 1) return {};
  const ast::QualifiedName* name = TableNamed(parsed.statements.front().statement);
  if (name == nullptr) return {};
  return {KeyspaceOf(*name, keyspace), name->name};
}

}  // namespace faultline::live::cql
