#include "models/cql/lexer.h"

#include <cctype>

#include <fmt/format.h>
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

bool IsIdentifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentifierPart(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Walks the text, keeping line and column.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  bool AtEnd() const { return position_.offset >= text_.size(); }
  char Peek(std::size_t ahead = 0) const {
    const std::size_t at = position_.offset + ahead;
    return at < text_.size() ? text_[at] : '\0';
  }
  char Next() {
    FL_ASSERT_MSG(position_.offset < text_.size(), "reading past the end at {}", position_.offset);
    const char c = text_[position_.offset++];
    if (c == '\n') {
      ++position_.line;
      position_.column = 1;
    } else {
      ++position_.column;
    }
    return c;
  }
  const Position& position() const { return position_; }

 private:
  std::string_view text_;
  Position position_;
};

constexpr int kUuidLength = 36;

// Whether a uuid (8-4-4-4-12 hex digits) starts here and ends at a word boundary.
bool IsUuidAt(const Cursor& cursor) {
  for (int i = 0; i < kUuidLength; ++i) {
    const char c = cursor.Peek(static_cast<std::size_t>(i));
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return !IsIdentifierPart(cursor.Peek(kUuidLength));
}

// Reads a quoted run ('...' or "..."), where a doubled quote stands for one.
bool ReadQuoted(Cursor& cursor, char quote, std::string& out) {
  FL_ASSERT(cursor.Peek() == quote);
  cursor.Next();  // The opening quote.
  while (!cursor.AtEnd()) {
    const char c = cursor.Next();
    if (c != quote) {
      out.push_back(c);
      continue;
    }
    if (cursor.Peek() != quote) return true;
    out.push_back(cursor.Next());
  }
  return false;
}

// Skips white space and comments; false on an unterminated block comment.
bool SkipSpaceAndComments(Cursor& cursor) {
  for (;;) {
    const char c = cursor.Peek();
    if (std::isspace(static_cast<unsigned char>(c))) {
      cursor.Next();
    } else if ((c == '-' && cursor.Peek(1) == '-') || (c == '/' && cursor.Peek(1) == '/')) {
      while (!cursor.AtEnd() && cursor.Peek() != '\n') cursor.Next();
    } else if (c == '/' && cursor.Peek(1) == '*') {
      cursor.Next();
      cursor.Next();
      while (!cursor.AtEnd() && !(cursor.Peek() == '*' && cursor.Peek(1) == '/')) cursor.Next();
      if (cursor.AtEnd()) return false;
      cursor.Next();
      cursor.Next();
    } else {
      FL_ASSERT(cursor.AtEnd() || !std::isspace(static_cast<unsigned char>(cursor.Peek())));
      return true;
    }
  }
}

}  // namespace

bool Token::IsKeyword(std::string_view keyword) const {
  if (kind != TokenKind::kIdentifier || text.size() != keyword.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) !=
        std::tolower(static_cast<unsigned char>(keyword[i]))) {
      return false;
    }
  }
  return true;
}

std::string DescribeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEnd:
      return "end of input";
    case TokenKind::kString:
      return fmt::format("string '{}'", token.text);
    case TokenKind::kQuotedIdentifier:
      return fmt::format("identifier \"{}\"", token.text);
    default:
      return fmt::format("'{}'", token.text);
  }
}

LexResult Lex(std::string_view text) {
  LexResult result;
  Cursor cursor(text);
  constexpr std::size_t kMaxTokens = 1'000'000;
  for (;;) {
    if (!SkipSpaceAndComments(cursor)) {
      result.error = LexError{cursor.position(), "unterminated comment"};
      return result;
    }
    const Position start = cursor.position();
    if (cursor.AtEnd()) {
      result.tokens.push_back(Token{TokenKind::kEnd, "", start});
      return result;
    }
    if (result.tokens.size() >= kMaxTokens) {
      result.error = LexError{start, fmt::format("more than {} tokens", kMaxTokens)};
      return result;
    }
    const char c = cursor.Peek();
    Token token{TokenKind::kSymbol, "", start};
    if (c == '\'' || c == '"') {
      token.kind = c == '\'' ? TokenKind::kString : TokenKind::kQuotedIdentifier;
      if (!ReadQuoted(cursor, c, token.text)) {
        result.error =
            LexError{start, c == '\'' ? "unterminated string" : "unterminated identifier"};
        return result;
      }
    } else if (IsUuidAt(cursor)) {
      token.kind = TokenKind::kUuid;
      for (int i = 0; i < kUuidLength; ++i) token.text += cursor.Next();
    } else if (c == '0' && (cursor.Peek(1) == 'x' || cursor.Peek(1) == 'X')) {
      token.kind = TokenKind::kBlob;
      cursor.Next();
      cursor.Next();
      while (std::isxdigit(static_cast<unsigned char>(cursor.Peek()))) token.text += cursor.Next();
    } else if (IsDigit(c)) {
      token.kind = TokenKind::kInteger;
      while (IsDigit(cursor.Peek())) token.text += cursor.Next();
      if (cursor.Peek() == '.' && IsDigit(cursor.Peek(1))) {
        token.kind = TokenKind::kFloat;
        token.text += cursor.Next();
        while (IsDigit(cursor.Peek())) token.text += cursor.Next();
      }
    } else if (IsIdentifierStart(c)) {
      token.kind = TokenKind::kIdentifier;
      while (IsIdentifierPart(cursor.Peek())) token.text += cursor.Next();
    } else if ((c == '<' || c == '>' || c == '!') && cursor.Peek(1) == '=') {
      token.text = {cursor.Next(), cursor.Next()};
    } else if (std::string_view("(),;.*=<>?{}[]:+-").find(c) != std::string_view::npos) {
      token.text = std::string(1, cursor.Next());
    } else {
      // The whole character, when it is a multi-byte one.
      std::string character(1, c);
      const auto lead = static_cast<unsigned char>(c);
      const int extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
      for (int i = 1; i <= extra && (static_cast<unsigned char>(cursor.Peek(i)) & 0xC0) == 0x80;
           ++i) {
        character += cursor.Peek(i);
      }
      result.error = LexError{start, fmt::format("unexpected character '{}'", character)};
      return result;
    }
    token.end = cursor.position().offset;
    result.tokens.push_back(std::move(token));
    // Every token moves the cursor on: the loop ends within the text's length.
    FL_ASSERT(cursor.position().offset > start.offset);
    FL_ASSERT(cursor.position().offset <= text.size());
  }
}

}  // namespace faultline::models::cql
