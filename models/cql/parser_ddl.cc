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
  if (!AcceptTableWord()) {
    Fail(Peek(), "'KEYSPACE' or 'TABLE'");
  }
  return CreateTableBody();
}

Statement Parser::CreateTableBody() {
  CreateTable statement;
  statement.if_not_exists = IfNotExists();
  statement.table = TableName();
  ExpectSymbol("(");
  do {
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
    }
    statement.columns.push_back(std::move(column));
  } while (AcceptSymbol(","));
  ExpectSymbol(")");
  if (AcceptKeyword("with")) TableOptions(statement);
  return statement;
}

void Parser::PrimaryKey(CreateTable& statement) {
  if (!statement.partition_key.empty()) Fail(Peek(), "one primary key");
  ExpectSymbol("(");
  if (AcceptSymbol("(")) {
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

void Parser::TableOptions(CreateTable& statement) {
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
        statement.clustering_order.emplace_back(std::move(column), descending);
      } while (AcceptSymbol(","));
      ExpectSymbol(")");
      continue;
    }
    statement.options.push_back(OneOption());
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

Statement Parser::Drop() {
  if (AcceptKeyspaceWord()) {
    DropKeyspace statement;
    statement.if_exists = IfExists();
    statement.name = Identifier("a keyspace name");
    return statement;
  }
  if (!AcceptTableWord()) {
    Fail(Peek(), "'KEYSPACE' or 'TABLE'");
  }
  DropTable statement;
  statement.if_exists = IfExists();
  statement.table = TableName();
  return statement;
}

Statement Parser::Alter() {
  if (!AcceptTableWord()) Fail(Peek(), "'TABLE'");
  AlterTable statement;
  statement.table = TableName();
  if (AcceptKeyword("add")) {
    statement.action = AlterTable::Action::kAdd;
    statement.column.offset = Here();
    statement.column.name = Identifier("a column name");
    statement.column.type = Type();
    statement.column.is_static = AcceptKeyword("static");
  } else if (AcceptKeyword("drop")) {
    statement.action = AlterTable::Action::kDrop;
    statement.column.offset = Here();
    statement.column.name = Identifier("a column name");
  } else if (AcceptKeyword("rename")) {
    statement.action = AlterTable::Action::kRename;
    statement.column.offset = Here();
    statement.column.name = Identifier("a column name");
    ExpectKeyword("to");
    statement.new_name_offset = Here();
    statement.new_name = Identifier("a column name");
  } else if (AcceptKeyword("with")) {
    statement.action = AlterTable::Action::kWith;
    Options(statement.options);
  } else {
    Fail(Peek(), "'ADD', 'DROP', 'RENAME' or 'WITH'");
  }
  return statement;
}

}  // namespace faultline::models::cql::parsing
