#include "models/cql/parser.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "models/cql/keywords.h"
#include "models/cql/parser_internal.h"
#include "models/cql/types.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace parsing {

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string Upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

ParsedStatement Parser::ParseStatement() {
  bind_markers_ = 0;
  depth_ = 0;
  ycql_error_.reset();
  cassandra_error_.reset();
  const Position start = Peek().position;
  Statement statement = StatementBody();
  FL_ASSERT_MSG(depth_ == 0, "nesting left open: {}", depth_);
  FL_ASSERT(bind_markers_ >= 0);
  if (!Peek().IsSymbol(";") && !AtEnd()) Fail(Peek(), "';' or end of input");
  return ParsedStatement{std::move(statement),        start,
                         StatementText(start.offset), bind_markers_,
                         std::move(ycql_error_),      std::move(cassandra_error_)};
}

void Parser::RefusedByCassandra(const Token& at, std::string_view unexpected) {
  if (cassandra_error_) return;
  cassandra_error_ = ParsedStatement::DialectError{
      at.position.offset, fmt::format("{}, unexpected {}", kSyntaxError, unexpected)};
}

ParseError Parser::EarliestError(ParseError error, const std::vector<Token>& tokens) const {
  // A statement neither grammar takes: YCQL's error, if earlier, says where
  // it went wrong first (`ADD COLUMN x text`: at COLUMN, not at text).
  if (!ycql_error_ || ycql_error_->offset >= error.position.offset) return error;
  for (const Token& token : tokens) {
    if (token.position.offset == ycql_error_->offset) {
      return ParseError{token.position, ycql_error_->message};
    }
  }
  return error;
}

void Parser::RefusedByYcql(const Token& at, std::string_view unexpected) {
  if (ycql_error_) return;
  ycql_error_ = ParsedStatement::DialectError{
      at.position.offset, fmt::format("{}, unexpected {}", kSyntaxError, unexpected)};
}

// The statement's own text: up to its ';' or the end, comments included.
std::string Parser::StatementText(std::size_t from) const {
  FL_ASSERT_MSG(from <= Here() && Here() <= source_.size(), "text from {} to {} of {} bytes", from,
                Here(), source_.size());
  std::string text(source_.substr(from, Here() - from));
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

std::string Parser::TextSince(std::size_t from) const {
  // Up to the end of the last token taken: a comment after it is not the
  // statement's (a WHERE's text stored on one line must not swallow what
  // follows it).
  const std::size_t to = next_ > 0 ? tokens_[next_ - 1].end : from;
  FL_ASSERT_MSG(from <= Here() && to <= source_.size(), "text from {} to {} of {} bytes", from, to,
                source_.size());
  if (to <= from) return {};
  std::string text(source_.substr(from, to - from));
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

void Parser::Fail(const Token& at, std::string_view expecting) const {
  std::string message = fmt::format("{}, unexpected {}", kSyntaxError, DescribeToken(at));
  if (!expecting.empty()) message += fmt::format(", expecting {}", expecting);
  throw ParseFailure{ParseError{at.position, std::move(message)}};
}

void Parser::ExpectKeyword(std::string_view keyword) {
  if (!AcceptKeyword(keyword)) Fail(Peek(), fmt::format("'{}'", keyword));
}

void Parser::ExpectSymbol(std::string_view symbol) {
  if (!AcceptSymbol(symbol)) Fail(Peek(), fmt::format("'{}'", symbol));
}

// An identifier, lower-cased unless it was double-quoted. A reserved word
// of YCQL's grammar is no name unless quoted: bison reports the keyword's
// token (YCQL's messages name it in capitals: "unexpected TABLE").
std::string Parser::Identifier(std::string_view what) {
  const Token& token = Peek();
  if (token.kind == TokenKind::kIdentifier) {
    std::string name = Lower(token.text);
    if (IsReservedWord(name)) {
      if (IsCassandraReservedWord(name)) {
        throw ParseFailure{ParseError{token.position,
                                      fmt::format("{}, unexpected {}", kSyntaxError, Upper(name))}};
      }
      RefusedByYcql(token, Upper(name));  // A name in Cassandra: `end`, `user`, ...
    } else if (IsCassandraReservedWord(name)) {
      RefusedByCassandra(token, Upper(name));  // A name in YCQL: `add`, `index`, ...
    }
    ++next_;
    return name;
  }
  if (token.kind == TokenKind::kQuotedIdentifier) return Next().text;
  Fail(token, what);
}

// A type's or an option's name: keywords such as `text` or `set` are not
// reserved there.
std::string Parser::Word(std::string_view what) {
  const Token& token = Peek();
  if (token.kind == TokenKind::kIdentifier) return Lower(Next().text);
  if (token.kind == TokenKind::kQuotedIdentifier) return Next().text;
  Fail(token, what);
}

QualifiedName Parser::TableName() {
  QualifiedName name;
  name.offset = Here();
  name.name = Identifier("a table name");
  if (AcceptSymbol(".")) {
    // After the dot any keyword is a name (the grammar's attr_name is a
    // ColLabel): system_schema.keyspaces.
    name.keyspace = std::move(name.name);
    name.name = Word("a table name");
  }
  return name;
}

TypeName Parser::Type() {
  const Nested nested(*this);
  TypeName type;
  type.base = Word("a type");
  if (AcceptSymbol("<")) {
    do {
      type.parameters.push_back(Type());
    } while (AcceptSymbol(","));
    ExpectSymbol(">");
  }
  return type;
}

Term Parser::Literal(Term::Kind kind) {
  Term term;
  term.kind = kind;
  term.text = Next().text;
  return term;
}

// A value, with where it starts: errors about it point there.
Term Parser::ParseTerm() {
  const Nested nested(*this);
  const std::size_t at = Here();
  Term term = ParseTermHere();
  term.offset = at;
  return term;
}

Term Parser::ParseTermHere() {
  const Token& token = Peek();
  switch (token.kind) {
    case TokenKind::kString:
      return Literal(Term::Kind::kString);
    case TokenKind::kInteger:
      return Literal(Term::Kind::kInteger);
    case TokenKind::kFloat:
      return Literal(Term::Kind::kFloat);
    case TokenKind::kBlob:
      return Literal(Term::Kind::kBlob);
    case TokenKind::kUuid:
      return Literal(Term::Kind::kUuid);
    default:
      break;
  }
  if (token.IsKeyword("true") || token.IsKeyword("false")) return Literal(Term::Kind::kBoolean);
  if (token.IsKeyword("null")) return Literal(Term::Kind::kNull);
  if (AcceptSymbol("?")) {
    Term term;
    term.kind = Term::Kind::kBindMarker;
    term.bind_index = bind_markers_++;
    return term;
  }
  if (AcceptSymbol("-")) {
    if (Peek().kind != TokenKind::kInteger && Peek().kind != TokenKind::kFloat) {
      Fail(Peek(), "a number");
    }
    Term term =
        Literal(Peek().kind == TokenKind::kInteger ? Term::Kind::kInteger : Term::Kind::kFloat);
    term.text = "-" + term.text;
    return term;
  }
  if (AcceptSymbol("[")) return Collection(Term::Kind::kList, "]");
  if (AcceptSymbol("{")) return Collection(Term::Kind::kSet, "}");
  Fail(token, "a value");
}

// After the opening bracket: elements up to `close`; `{k: v, ...}` is a map.
Term Parser::Collection(Term::Kind kind, std::string_view close) {
  Term term;
  term.kind = kind;
  if (AcceptSymbol(close)) return term;
  if (kind == Term::Kind::kSet && IsFieldName(Peek()) && Peek(1).IsSymbol(":")) {
    return UdtLiteral();
  }
  do {
    term.elements.push_back(ParseTerm());
    if (kind != Term::Kind::kList && (term.kind == Term::Kind::kMap || term.elements.size() == 1) &&
        AcceptSymbol(":")) {
      term.kind = Term::Kind::kMap;
      term.elements.push_back(ParseTerm());
    } else if (term.kind == Term::Kind::kMap) {
      Fail(Peek(), "':'");
    }
  } while (AcceptSymbol(","));
  FL_ASSERT(term.kind != Term::Kind::kMap || term.elements.size() % 2 == 0);
  ExpectSymbol(close);
  return term;
}

// A name where a UDT literal has its field names: an identifier that is
// no literal keyword (true, false, null).
bool Parser::IsFieldName(const Token& token) const {
  if (token.kind == TokenKind::kQuotedIdentifier) return true;
  return token.kind == TokenKind::kIdentifier && !token.IsKeyword("true") &&
         !token.IsKeyword("false") && !token.IsKeyword("null");
}

// After '{': field: value, ... '}' (YCQL's PTCollectionExpr with field
// references, Cassandra's userTypeLiteral).
Term Parser::UdtLiteral() {
  Term term;
  term.kind = Term::Kind::kUdt;
  do {
    term.fields.push_back(Identifier("a field name"));
    ExpectSymbol(":");
    term.elements.push_back(ParseTerm());
  } while (AcceptSymbol(","));
  ExpectSymbol("}");
  FL_ASSERT(term.fields.size() == term.elements.size());
  return term;
}

// `with_in`: SELECT's WHERE also takes `column IN (value, ...)`.
std::vector<Relation> Parser::Relations(bool with_in) {
  std::vector<Relation> relations;
  do {
    Relation relation;
    relation.offset = Here();
    relation.column = Identifier("a column name");
    if (with_in && AcceptKeyword("in")) {
      relation.op = "IN";
      relation.value.offset = Here();
      relation.value.kind = Term::Kind::kList;
      ExpectSymbol("(");
      if (!AcceptSymbol(")")) {
        do {
          relation.value.elements.push_back(ParseTerm());
        } while (AcceptSymbol(","));
        ExpectSymbol(")");
      }
      relations.push_back(std::move(relation));
      continue;
    }
    const Token& op = Peek();
    static constexpr std::string_view kOperators[] = {"=", "<", ">", "<=", ">=", "!="};
    if (op.kind != TokenKind::kSymbol ||
        std::find(std::begin(kOperators), std::end(kOperators), op.text) == std::end(kOperators)) {
      Fail(op, "a comparison");
    }
    relation.op = Next().text;
    relation.value = ParseTerm();
    FL_ASSERT(!relation.column.empty() && !relation.op.empty());
    relations.push_back(std::move(relation));
  } while (AcceptKeyword("and"));
  FL_ASSERT(relations.size() <= tokens_.size());  // Each took tokens.
  return relations;
}

bool Parser::IfNotExists() {
  if (!AcceptKeyword("if")) return false;
  ExpectKeyword("not");
  ExpectKeyword("exists");
  return true;
}

bool Parser::IfExists() {
  if (!AcceptKeyword("if")) return false;
  ExpectKeyword("exists");
  return true;
}

// IF EXISTS, or IF relation AND ...: for UPDATE and DELETE.
void Parser::Conditions(bool& if_exists, std::vector<Relation>& conditions) {
  if (!AcceptKeyword("if")) return;
  if (AcceptKeyword("exists")) {
    if_exists = true;
  } else {
    conditions = Relations();
  }
}

std::optional<Term> Parser::UsingTtl() {
  if (!AcceptKeyword("using")) return std::nullopt;
  ExpectKeyword("ttl");
  return ParseTerm();
}

Statement Parser::StatementBody() {
  const Token& first = Peek();
  if (AcceptKeyword("create")) return Create();
  if (AcceptKeyword("drop")) return Drop();
  if (AcceptKeyword("use")) return Use{Identifier("a keyspace name")};
  if (AcceptKeyword("alter")) return Alter();
  if (AcceptKeyword("truncate")) {
    AcceptKeyword("table");
    return Truncate{TableName()};
  }
  if (AcceptKeyword("insert")) return InsertBody();
  if (AcceptKeyword("update")) return UpdateBody();
  if (AcceptKeyword("delete")) return DeleteBody();
  if (AcceptKeyword("select")) return SelectBody();
  if (AcceptKeyword("begin")) return BatchBody();
  if (AcceptKeyword("describe") || AcceptKeyword("desc")) return DescribeBody();
  Fail(first, "a statement");
}

Statement Parser::InsertBody() {
  ExpectKeyword("into");
  Insert statement;
  statement.table = TableName();
  ExpectSymbol("(");
  do {
    statement.column_offsets.push_back(Here());
    statement.columns.push_back(Identifier("a column name"));
  } while (AcceptSymbol(","));
  ExpectSymbol(")");
  ExpectKeyword("values");
  ExpectSymbol("(");
  do {
    statement.values.push_back(ParseTerm());
  } while (AcceptSymbol(","));
  ExpectSymbol(")");
  statement.if_not_exists = IfNotExists();
  statement.ttl = UsingTtl();
  return statement;
}

Statement Parser::UpdateBody() {
  Update statement;
  statement.table = TableName();
  statement.ttl = UsingTtl();
  ExpectKeyword("set");
  do {
    Assignment assignment;
    assignment.offset = Here();
    assignment.column = Identifier("a column name");
    ExpectSymbol("=");
    AssignedValue(assignment);
    statement.assignments.push_back(std::move(assignment));
  } while (AcceptSymbol(","));
  ExpectKeyword("where");
  statement.where = Relations();
  Conditions(statement.if_exists, statement.conditions);
  return statement;
}

// After `column =`: a value, `column + v`, `column - v` or `v + column`.
void Parser::AssignedValue(Assignment& assignment) {
  const Token& first = Peek();
  if (first.kind == TokenKind::kIdentifier || first.kind == TokenKind::kQuotedIdentifier) {
    if (!first.IsKeyword("true") && !first.IsKeyword("false") && !first.IsKeyword("null")) {
      if (Identifier("a column name") != assignment.column) Fail(first, "a value");
      if (AcceptSymbol("+")) {
        assignment.op = Assignment::Op::kAdd;
      } else {
        ExpectSymbol("-");
        assignment.op = Assignment::Op::kSubtract;
      }
      assignment.value = ParseTerm();
      return;
    }
  }
  assignment.value = ParseTerm();
  if (AcceptSymbol("+")) {
    const Token& column = Peek();
    if (Identifier("a column name") != assignment.column) Fail(column, "the assigned column");
    assignment.op = Assignment::Op::kPrepend;
  }
}

std::optional<TypeName> Parser::TypeOnly() {
  try {
    TypeName type = Type();
    if (!AtEnd()) return std::nullopt;
    return type;
  } catch (const ParseFailure&) {
    return std::nullopt;
  }
}

Statement Parser::DeleteBody() {
  Delete statement;
  if (!Peek().IsKeyword("from")) {
    do {
      statement.column_offsets.push_back(Here());
      statement.columns.push_back(Identifier("a column name"));
    } while (AcceptSymbol(","));
  }
  ExpectKeyword("from");
  statement.table = TableName();
  ExpectKeyword("where");
  statement.where = Relations();
  Conditions(statement.if_exists, statement.conditions);
  return statement;
}

Statement Parser::SelectBody() {
  Select statement;
  if (AcceptSymbol("*")) {
    statement.star = true;
  } else if (Peek().IsKeyword("count") && Peek(1).IsSymbol("(")) {
    Next();
    Next();
    ExpectSymbol("*");
    ExpectSymbol(")");
    statement.count = true;
  } else {
    do {
      statement.column_offsets.push_back(Here());
      statement.columns.push_back(Identifier("a column name or '*'"));
    } while (AcceptSymbol(","));
  }
  ExpectKeyword("from");
  statement.table = TableName();
  if (AcceptKeyword("where")) statement.where = Relations(/*with_in=*/true);
  if (AcceptKeyword("order")) {
    ExpectKeyword("by");
    do {
      OrderingTerm term;
      term.offset = Here();
      term.column = Identifier("a column name");
      if (AcceptKeyword("desc")) {
        term.descending = true;
      } else {
        AcceptKeyword("asc");
      }
      statement.order_by.push_back(std::move(term));
    } while (AcceptSymbol(","));
  }
  if (AcceptKeyword("limit")) statement.limit = ParseTerm();
  if (AcceptKeyword("allow")) {
    ExpectKeyword("filtering");
    statement.allow_filtering = true;
  }
  return statement;
}

Statement Parser::BatchBody() {
  if (!AcceptKeyword("unlogged")) AcceptKeyword("logged");
  ExpectKeyword("batch");
  Batch batch;
  constexpr std::size_t kMaxBatch = 10'000;
  while (!AcceptKeyword("apply")) {
    if (batch.statements.size() >= kMaxBatch) Fail(Peek(), "'APPLY BATCH'");
    if (AcceptKeyword("insert")) {
      batch.statements.push_back(std::get<Insert>(InsertBody()));
    } else if (AcceptKeyword("update")) {
      batch.statements.push_back(std::get<Update>(UpdateBody()));
    } else if (AcceptKeyword("delete")) {
      batch.statements.push_back(std::get<Delete>(DeleteBody()));
    } else {
      Fail(Peek(), "INSERT, UPDATE, DELETE or 'APPLY BATCH'");
    }
    AcceptSymbol(";");
  }
  ExpectKeyword("batch");
  return batch;
}

// ycqlsh's forms: KEYSPACES, CLUSTER, TABLES, [FULL] SCHEMA, KEYSPACE [name] (the
// current one without), TABLE or COLUMNFAMILY name, and a bare name (a
// keyspace if one has it, else a table).
Statement Parser::DescribeBody() {
  Describe statement;
  if (AcceptKeyword("keyspaces")) {
    statement.what = Describe::What::kKeyspaces;
  } else if (AcceptKeyword("cluster")) {
    statement.what = Describe::What::kCluster;
  } else if (AcceptKeyword("tables")) {
    statement.what = Describe::What::kTables;
  } else if (AcceptKeyword("full") || Peek().IsKeyword("schema")) {
    ExpectKeyword("schema");
    statement.what = Describe::What::kSchema;
  } else if (AcceptKeyword("keyspace")) {
    statement.what = Describe::What::kKeyspace;
    if (!AtEnd() && !Peek().IsSymbol(";")) statement.keyspace = Identifier("a keyspace name");
  } else if (AcceptKeyword("table") || AcceptKeyword("columnfamily")) {
    statement.what = Describe::What::kTable;
    statement.table = TableName();
  } else {
    statement.what = Describe::What::kName;
    statement.table = TableName();
  }
  return statement;
}

}  // namespace parsing

// A user-defined type's name is quoted where CQL needs it (types.h).
std::string TypeName::ToString() const {
  if (parameters.empty()) return QuotedName(base);
  std::string text = base + "<";
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (i > 0) text += ", ";
    text += parameters[i].ToString();
  }
  return text + ">";
}

ParseResult Parse(std::string_view text) {
  ParseResult result;
  LexResult lexed = Lex(text);
  if (lexed.error) {
    result.error =
        ParseError{lexed.error->position, "Invalid SQL Statement. " + lexed.error->message};
    return result;
  }
  parsing::Parser parser(lexed.tokens, text);
  try {
    for (;;) {
      while (parser.AcceptSymbol(";")) {
      }
      if (parser.AtEnd()) break;
      result.statements.push_back(parser.ParseStatement());
    }
  } catch (const parsing::ParseFailure& failure) {
    result.error = parser.EarliestError(failure.error, lexed.tokens);
  }
  return result;
}

std::optional<TypeName> ParseTypeName(std::string_view text) {
  LexResult lexed = Lex(text);
  if (lexed.error) return std::nullopt;
  parsing::Parser parser(lexed.tokens, text);
  return parser.TypeOnly();
}

std::string FormatError(std::string_view text, const ParseError& error) {
  std::size_t line_start = error.position.offset;
  while (line_start > 0 && text[line_start - 1] != '\n') --line_start;
  std::size_t line_end = error.position.offset;
  while (line_end < text.size() && text[line_end] != '\n') ++line_end;
  const std::string_view line = text.substr(line_start, line_end - line_start);
  return fmt::format("{}\n{}\n{}^", error.message, line,
                     std::string(error.position.offset - line_start, ' '));
}

}  // namespace faultline::models::cql
