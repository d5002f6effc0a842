// The CQL parser's recursive descent (internal to models/cql/; not
// installed): one class, whose grammar is split by statement kind between
// parser.cc (values, relations, DML, DESCRIBE) and parser_ddl.cc (CREATE,
// ALTER, DROP of keyspaces, tables and indexes).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/cql/ast.h"
#include "models/cql/lexer.h"
#include "models/cql/parser.h"
#include "sim/assert.h"

namespace faultline::models::cql::parsing {

inline constexpr std::string_view kSyntaxError = "Invalid SQL Statement. syntax error";

// Carries a syntax error out of the recursive descent; caught in Parse() and
// never seen outside the parser.
struct ParseFailure {
  ParseError error;
};

std::string Lower(std::string text);
std::string Upper(std::string text);

class Parser {
 public:
  Parser(const std::vector<Token>& tokens, std::string_view source)
      : tokens_(tokens), source_(source) {}

  bool AtEnd() const { return Peek().kind == TokenKind::kEnd; }
  bool AcceptSymbol(std::string_view symbol) {
    if (!Peek().IsSymbol(symbol)) return false;
    ++next_;
    return true;
  }
  const Token& Peek(std::size_t ahead = 0) const {
    FL_ASSERT(!tokens_.empty() && tokens_.back().kind == TokenKind::kEnd);
    return tokens_[std::min(next_ + ahead, tokens_.size() - 1)];
  }

  // One statement, from the current token up to (not including) ';' or the end.
  ParsedStatement ParseStatement();
  // The error to report for a statement that failed with `error`.
  ParseError EarliestError(ParseError error, const std::vector<Token>& tokens) const;
  // A type name and nothing after it, or nullopt.
  std::optional<TypeName> TypeOnly();

 private:
  // Tokens.
  const Token& Next() {
    const Token& token = Peek();
    if (token.kind != TokenKind::kEnd) ++next_;
    return token;
  }
  [[noreturn]] void Fail(const Token& at, std::string_view expecting) const;
  bool AcceptKeyword(std::string_view keyword) {
    if (!Peek().IsKeyword(keyword)) return false;
    ++next_;
    return true;
  }
  void ExpectKeyword(std::string_view keyword);
  void ExpectSymbol(std::string_view symbol);
  // CQL's synonyms: KEYSPACE or SCHEMA, TABLE or COLUMNFAMILY.
  bool AcceptKeyspaceWord() { return AcceptKeyword("keyspace") || AcceptKeyword("schema"); }
  bool AcceptTableWord() { return AcceptKeyword("table") || AcceptKeyword("columnfamily"); }
  std::size_t Here() const { return Peek().position.offset; }
  // Notes that YCQL's grammar refuses what is at `at` (Cassandra's takes it);
  // the first such note of a statement is kept.
  void RefusedByYcql(const Token& at, std::string_view unexpected);
  void RefusedByCassandra(const Token& at, std::string_view unexpected);
  // The source text from `from` to the current token, without trailing
  // white space.
  std::string TextSince(std::size_t from) const;
  std::string StatementText(std::size_t from) const;

  // Names, types, values (parser.cc).
  std::string Identifier(std::string_view what);
  std::string Word(std::string_view what);
  QualifiedName TableName();
  TypeName Type();
  Term Literal(Term::Kind kind);
  Term ParseTerm();
  Term ParseTermHere();
  Term Collection(Term::Kind kind, std::string_view close);
  bool IsFieldName(const Token& token) const;
  Term UdtLiteral();
  std::vector<Relation> Relations(bool with_in = false);
  bool IfNotExists();
  bool IfExists();
  void Conditions(bool& if_exists, std::vector<Relation>& conditions);
  std::optional<Term> UsingTtl();

  // Statements (parser.cc).
  Statement StatementBody();
  Statement InsertBody();
  Statement UpdateBody();
  void AssignedValue(Assignment& assignment);
  Statement DeleteBody();
  Statement SelectBody();
  Statement BatchBody();
  Statement DescribeBody();

  // Definitions (parser_ddl.cc).
  Statement Create();
  Statement CreateTableBody();
  void PrimaryKey(CreateTable& statement);
  Statement CreateIndexBody(bool unique, bool custom);
  Statement CreateTypeBody();
  Statement CreateViewBody();
  Statement AlterTypeBody();
  IndexTarget IndexTargetHere();
  // WITH's part: name = value and CLUSTERING ORDER BY (...), joined by AND.
  void TableOptions(std::vector<std::pair<std::string, std::string>>& options,
                    std::vector<std::pair<std::string, bool>>& clustering_order);
  void Options(std::vector<std::pair<std::string, std::string>>& options);
  std::pair<std::string, std::string> OneOption();
  Statement Drop();
  Statement Alter();
  void AlterOperations(const AlterTable& head, std::vector<AlterTable>& operations);

  // Types and collection literals nest; past kMaxDepth it is an error, not
  // a stack overflow.
  static constexpr int kMaxDepth = 32;
  struct Nested {
    explicit Nested(Parser& parser) : parser_(parser) {
      if (++parser_.depth_ > kMaxDepth) parser_.Fail(parser_.Peek(), "less nesting");
    }
    ~Nested() { --parser_.depth_; }
    Parser& parser_;
  };

  const std::vector<Token>& tokens_;
  std::string_view source_;
  std::size_t next_ = 0;
  int bind_markers_ = 0;
  int depth_ = 0;
  std::optional<ParsedStatement::DialectError> ycql_error_;
  std::optional<ParsedStatement::DialectError> cassandra_error_;
};

}  // namespace faultline::models::cql::parsing
