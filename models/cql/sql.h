// Small RAII helpers over SQLite's C API for the store's own statements
// (internal to models/cql/; not installed).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "models/cql/catalog.h"

namespace faultline::models::cql {

// A prepared statement, finalized when it goes.
class SqlStatement {
 public:
  SqlStatement(sqlite3* db, std::string_view sql) {
    code_ = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  }
  // One of `cache`'s, borrowed: reset and unbound when it goes, not
  // finalized.
  SqlStatement(StatementCache& cache, const std::string& sql)
      : stmt_(cache.Get(sql)), cache_(&cache) {
    code_ = stmt_ != nullptr ? SQLITE_OK : sqlite3_errcode(cache.db());
    if (stmt_ != nullptr) cache.Borrow();
  }
  ~SqlStatement() {
    if (cache_ == nullptr) {
      sqlite3_finalize(stmt_);
    } else if (stmt_ != nullptr) {
      sqlite3_reset(stmt_);
      sqlite3_clear_bindings(stmt_);
      cache_->GiveBack();
    }
  }
  SqlStatement(const SqlStatement&) = delete;
  SqlStatement& operator=(const SqlStatement&) = delete;

  bool ok() const { return code_ == SQLITE_OK; }
  int code() const { return code_; }
  sqlite3_stmt* get() { return stmt_; }

  void Bind(int index, std::string_view text) {
    sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
  void Bind(int index, std::int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return code_ = sqlite3_step(stmt_); }
  std::string Text(int column) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    return text == nullptr
               ? std::string()
               : std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
  }
  // The same, without a copy: good until the next Step or reset.
  std::string_view View(int column) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    return text == nullptr
               ? std::string_view()
               : std::string_view(text,
                                  static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
  }
  std::int64_t Int(int column) { return sqlite3_column_int64(stmt_, column); }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  StatementCache* cache_ = nullptr;  // Set when borrowed.
  int code_ = SQLITE_OK;
};

// Runs `sql` (no results); SQLite's result code.
inline int ExecSql(sqlite3* db, const std::string& sql) {
  return sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
}

// `name` as a SQLite string literal.
inline std::string SqlQuote(std::string_view text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace faultline::models::cql
