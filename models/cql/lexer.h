// The CQL lexer: turns statement text into tokens with their positions.
// Keywords are not separate tokens: CQL keywords are case-insensitive
// identifiers, and the parser matches them by text (IsKeyword).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/status.h"

namespace faultline::models::cql {

struct Position {
  int line = 1;    // From 1.
  int column = 1;  // From 1, in bytes.
  std::size_t offset = 0;
};

enum class TokenKind : unsigned char {
  kIdentifier,        // Unquoted: text is as written (compare with IsKeyword).
  kQuotedIdentifier,  // "Mixed Case": text without the quotes, "" unescaped.
  kString,            // 'text': without the quotes, '' unescaped.
  kInteger,
  kFloat,
  kBlob,    // 0xCAFE: text is the hex digits.
  kUuid,    // 123e4567-e89b-12d3-a456-426614174000, unquoted as CQL writes it.
  kSymbol,  // ( ) , ; . * = < > <= >= != ? { } [ ] : + -
  kEnd,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  Position position;
  std::size_t end = 0;  // Offset just past the token in the text.

  bool IsKeyword(std::string_view keyword) const;  // Case-insensitive, unquoted only.
  bool IsSymbol(std::string_view symbol) const {
    return kind == TokenKind::kSymbol && text == symbol;
  }
};

// How a token is named in "syntax error, unexpected ..." messages.
std::string DescribeToken(const Token& token);

struct LexError {
  Position position;
  std::string message;
};

// Tokens of `text`, ending with a kEnd token; comments (--, //, /* */) and
// white space are skipped. On an unterminated string, identifier or comment,
// or a character CQL does not use, the error says where.
struct LexResult {
  std::vector<Token> tokens;
  std::optional<LexError> error;
};
LexResult Lex(std::string_view text);

}  // namespace faultline::models::cql
