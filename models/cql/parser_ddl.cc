// The grammar of definitions: CREATE, ALTER and DROP of keyspaces, tables
// and indexes (the rest of the parser is in parser.cc).
#include <fmt/format.h>

#include "models/cql/parser_internal.h"
#include "sim/assert.h"

namespace faultline::models::cql::parsing {

Statement Parser::Create() {
  if (AcceptKeyspaceWord()) {
    CreateKeyspace statement;
    statement.if_not_exists = IfNotExists();
    statement.name = Identifier("a keyspace name");
    if (AcceptKeyword("with")) Options(statement.options);
    return statement;
  }
  if (AcceptKeyword("type")) return CreateTypeBody();
  if (AcceptKeyword("materialized")) {
    ExpectKeyword("view");
    return CreateViewBody();
  }
  const bool unique = AcceptKeyword("unique");
  const bool custom = AcceptKeyword("custom");
  if (unique || custom || Peek().IsKeyword("index")) {
    ExpectKeyword("index");
    return CreateIndexBody(unique, custom);
  }
  if (!AcceptTableWord()) {
    Fail(Peek(), "'KEYSPACE', 'TABLE', 'INDEX', 'TYPE' or 'MATERIALIZED VIEW'");
  }
  return CreateTableBody();
}

Statement Parser::CreateTableBody() {
  CreateTable statement;
  statement.if_not_exists = IfNotExists();
  statement.table = TableName();
  ExpectSymbol("(");
  do {
    // Cassandra's tableDefinition takes a trailing comma; YCQL's
    // TableElementList does not.
    if (Peek().IsSymbol(")") && !statement.columns.empty()) {
      RefusedByYcql(Peek(), "')'");
      break;
    }
    if (AcceptKeyword("primary")) {
      ExpectKeyword("key");
      PrimaryKey(statement);
      continue;
    }
    ColumnDefinition column;
    column.offset = Here();
    column.name = Identifier("a column name");
    column.type = Type();
    column.is_static = AcceptKeyword("static");
    if (AcceptKeyword("primary")) {
      ExpectKeyword("key");
      if (!statement.partition_key.empty()) Fail(Peek(), "one primary key");
      statement.partition_key = {column.name};
      statement.partition_key_marked = true;
    }
    statement.columns.push_back(std::move(column));
  } while (AcceptSymbol(","));
  ExpectSymbol(")");
  if (AcceptKeyword("with")) TableOptions(statement.options, statement.clustering_order);
  return statement;
}

void Parser::PrimaryKey(CreateTable& statement) {
  if (!statement.partition_key.empty()) Fail(Peek(), "one primary key");
  ExpectSymbol("(");
  if (AcceptSymbol("(")) {
    statement.partition_key_marked = true;
    do {
      statement.partition_key.push_back(Identifier("a column name"));
    } while (AcceptSymbol(","));
    ExpectSymbol(")");
  } else {
    statement.partition_key.push_back(Identifier("a column name"));
  }
  while (AcceptSymbol(",")) statement.clustering_key.push_back(Identifier("a column name"));
  ExpectSymbol(")");
}

void Parser::TableOptions(std::vector<std::pair<std::string, std::string>>& options,
                          std::vector<std::pair<std::string, bool>>& clustering_order) {
  do {
    if (AcceptKeyword("clustering")) {
      ExpectKeyword("order");
      ExpectKeyword("by");
      ExpectSymbol("(");
      do {
        std::string column = Identifier("a column name");
        bool descending = false;
        if (AcceptKeyword("desc")) {
          descending = true;
        } else {
          AcceptKeyword("asc");
        }
        clustering_order.emplace_back(std::move(column), descending);
      } while (AcceptSymbol(","));
      ExpectSymbol(")");
      continue;
    }
    options.push_back(OneOption());
  } while (AcceptKeyword("and"));
}

// name = value [AND name = value ...].
void Parser::Options(std::vector<std::pair<std::string, std::string>>& options) {
  do {
    options.push_back(OneOption());
  } while (AcceptKeyword("and"));
}

// name = value, the value kept as written.
std::pair<std::string, std::string> Parser::OneOption() {
  std::string name = Word("an option name");
  ExpectSymbol("=");
  const std::size_t from = Here();
  (void)ParseTerm();
  return {std::move(name), TextSince(from)};
}

// After CREATE TYPE: the fields, as a table's columns are written.
Statement Parser::CreateTypeBody() {
  CreateType statement;
  statement.if_not_exists = IfNotExists();
  statement.type = TableName();
  ExpectSymbol("(");
  do {
    if (Peek().IsSymbol(")") && !statement.fields.empty()) {  // Cassandra's trailing comma.
      RefusedByYcql(Peek(), "')'");
      break;
    }
    ColumnDefinition field;
    field.offset = Here();
    field.name = Identifier("a field name");
    field.type = Type();
    statement.fields.push_back(std::move(field));
  } while (AcceptSymbol(","));
  ExpectSymbol(")");
  FL_ASSERT(!statement.fields.empty());
  return statement;
}

// After CREATE MATERIALIZED VIEW: the names, then the rest up to the
// statement's end, which must hold PRIMARY KEY (ast.h, CreateView).
Statement Parser::CreateViewBody() {
  CreateView statement;
  statement.if_not_exists = IfNotExists();
  statement.view = TableName();
  ExpectKeyword("as");
  ExpectKeyword("select");
  while (!AtEnd() && !Peek().IsSymbol(";") && !Peek().IsKeyword("from")) Next();
  ExpectKeyword("from");
  statement.base = TableName();
  bool primary_key = false;
  while (!AtEnd() && !Peek().IsSymbol(";")) {
    if (Peek().IsKeyword("primary") && Peek(1).IsKeyword("key") && !primary_key) {
      primary_key = true;
      statement.primary_offset = Here();
    }
    Next();
  }
  if (!primary_key) Fail(Peek(), "'PRIMARY KEY'");
  return statement;
}

// After ALTER TYPE (ast.h, AlterType).
Statement Parser::AlterTypeBody() {
  AlterType statement;
  statement.if_exists = IfExists();
  statement.type = TableName();
  statement.action_offset = Here();
  if (AcceptKeyword("add")) {
    statement.action = AlterType::Action::kAdd;
    statement.field_if_not_exists = IfNotExists();
    statement.field.offset = Here();
    statement.field.name = Identifier("a field name");
    statement.field.type = Type();
    return statement;
  }
  if (!AcceptKeyword("rename")) Fail(Peek(), "'ADD' or 'RENAME'");
  statement.action = AlterType::Action::kRename;
  statement.rename_if_exists = IfExists();
  do {
    AlterType::Rename rename;
    rename.offset = Here();
    rename.from = Identifier("a field name");
    ExpectKeyword("to");
    rename.to = Identifier("a field name");
    statement.renames.push_back(std::move(rename));
  } while (AcceptKeyword("and"));
  return statement;
}

// After CREATE [UNIQUE] [CUSTOM] INDEX (ast.h, CreateIndex).
Statement Parser::CreateIndexBody(bool unique, bool custom) {
  CreateIndex statement;
  statement.unique = unique;
  statement.custom = custom;
  statement.if_not_exists = IfNotExists();
  if (!Peek().IsKeyword("on")) {
    statement.name_offset = Here();
    statement.name = Identifier("an index name");
  }
  ExpectKeyword("on");
  statement.table = TableName();
  ExpectSymbol("(");
  if (AcceptSymbol("(")) {  // YCQL's hash columns of the index: ((a, b), c).
    do {
      statement.targets.push_back(IndexTargetHere());
    } while (AcceptSymbol(","));
    ExpectSymbol(")");
    statement.hash_targets = statement.targets.size();
    while (AcceptSymbol(",")) statement.targets.push_back(IndexTargetHere());
  } else {
    do {
      statement.targets.push_back(IndexTargetHere());
    } while (AcceptSymbol(","));
  }
  ExpectSymbol(")");
  if (AcceptKeyword("include") || AcceptKeyword("covering")) {
    ExpectSymbol("(");
    do {
      statement.included_offsets.push_back(Here());
      statement.included.push_back(Identifier("a column name"));
    } while (AcceptSymbol(","));
    ExpectSymbol(")");
  }
  if (AcceptKeyword("where")) {
    const std::size_t from = Here();
    statement.where = Relations();
    statement.where_text = TextSince(from);
  }
  if (AcceptKeyword("using")) {
    statement.using_offset = Here();
    if (Peek().kind != TokenKind::kString) Fail(Peek(), "a class name in quotes");
    statement.using_class = Next().text;
  }
  if (AcceptKeyword("with")) TableOptions(statement.options, statement.clustering_order);
  FL_ASSERT(!statement.targets.empty() && statement.hash_targets <= statement.targets.size());
  return statement;
}

// A column, or keys(c), values(c), entries(c), full(c).
IndexTarget Parser::IndexTargetHere() {
  IndexTarget target;
  for (const auto& [kind, word] : kIndexFunctions) {
    if (Peek().IsKeyword(word) && Peek(1).IsSymbol("(")) {
      Next();
      Next();
      target.kind = kind;
      target.offset = Here();
      target.column = Identifier("a column name");
      ExpectSymbol(")");
      return target;
    }
  }
  target.offset = Here();
  target.column = Identifier("a column name");
  return target;
}

Statement Parser::Drop() {
  if (AcceptKeyspaceWord()) {
    DropKeyspace statement;
    statement.if_exists = IfExists();
    statement.name = Identifier("a keyspace name");
    return statement;
  }
  if (Peek().IsKeyword("materialized")) {
    DropView statement;
    statement.materialized_offset = Here();
    Next();
    ExpectKeyword("view");
    statement.if_exists = IfExists();
    statement.view = TableName();
    return statement;
  }
  if (AcceptKeyword("type")) {
    DropType statement;
    statement.if_exists = IfExists();
    statement.type = TableName();
    return statement;
  }
  if (AcceptKeyword("index")) {
    DropIndex statement;
    statement.if_exists = IfExists();
    statement.index = TableName();
    return statement;
  }
  if (!AcceptTableWord()) {
    Fail(Peek(), "'KEYSPACE', 'TABLE', 'INDEX', 'TYPE' or 'MATERIALIZED VIEW'");
  }
  DropTable statement;
  statement.if_exists = IfExists();
  statement.table = TableName();
  return statement;
}

Statement Parser::Alter() {
  if (AcceptKeyword("type")) return AlterTypeBody();
  if (!AcceptTableWord()) Fail(Peek(), "'TABLE' or 'TYPE'");
  AlterTable statement;
  statement.table = TableName();
  std::vector<AlterTable> operations;
  constexpr std::size_t kMaxOperations = 1'000;
  do {
    if (!operations.empty()) RefusedByCassandra(Peek(), DescribeToken(Peek()));
    AlterOperations(statement, operations);
    FL_ASSERT(!operations.empty());
  } while (operations.size() < kMaxOperations &&
           (Peek().IsKeyword("add") || Peek().IsKeyword("drop") || Peek().IsKeyword("rename") ||
            Peek().IsKeyword("with")));
  AlterTable first = std::move(operations.front());
  first.then.assign(std::make_move_iterator(operations.begin() + 1),
                    std::make_move_iterator(operations.end()));
  return first;
}

// One action and its columns: ADD a int[, b text] | ADD (a int, ...) |
// DROP a[, b] | DROP (a, ...) | RENAME a TO b[, c TO d | AND c TO d] |
// WITH options. What one grammar takes and the other does not is noted.
void Parser::AlterOperations(const AlterTable& head, std::vector<AlterTable>& operations) {
  AlterTable operation;
  operation.table = head.table;
  const Token& action = Peek();
  if (AcceptKeyword("with")) {
    operation.action = AlterTable::Action::kWith;
    Options(operation.options);
    operations.push_back(std::move(operation));
    return;
  }
  if (AcceptKeyword("add")) {
    operation.action = AlterTable::Action::kAdd;
  } else if (AcceptKeyword("drop")) {
    operation.action = AlterTable::Action::kDrop;
  } else if (AcceptKeyword("rename")) {
    operation.action = AlterTable::Action::kRename;
  } else {
    Fail(action, "'ADD', 'DROP', 'RENAME' or 'WITH'");
  }
  if (Peek().IsKeyword("if")) {
    RefusedByYcql(Peek(), "IF");
    operation.if_exists = operation.action == AlterTable::Action::kAdd ? IfNotExists() : IfExists();
  }
  const bool parenthesized =
      operation.action != AlterTable::Action::kRename && Peek().IsSymbol("(");
  if (parenthesized) {
    RefusedByYcql(Peek(), "'('");
    Next();
  }
  const std::size_t first = operations.size();
  do {
    AlterTable one = operation;
    one.column.offset = Here();
    one.column.name = Identifier("a column name");
    if (one.action == AlterTable::Action::kAdd) {
      one.column.type = Type();
      // Cassandra's alterTableStatement takes ADD ... STATIC; YCQL's
      // alter_table_op (parser_gram.y) ends the column at its type.
      if (Peek().IsKeyword("static")) {
        RefusedByYcql(Peek(), "STATIC");
        one.column.is_static = AcceptKeyword("static");
      }
    } else if (one.action == AlterTable::Action::kRename) {
      ExpectKeyword("to");
      one.new_name_offset = Here();
      one.new_name = Identifier("a column name");
    }
    operations.push_back(std::move(one));
    // RENAME's list: YCQL's with ',' (renameColumnList), Cassandra's with AND.
    if (operation.action == AlterTable::Action::kRename && Peek().IsKeyword("and")) {
      RefusedByYcql(Peek(), "AND");
      Next();
      continue;
    }
    if (!Peek().IsSymbol(",")) break;
    if (!parenthesized) RefusedByCassandra(Peek(), "','");  // Its lists are in parentheses.
    Next();
  } while (operations.size() - first < 1'000);
  if (parenthesized) ExpectSymbol(")");
}

}  // namespace faultline::models::cql::parsing
