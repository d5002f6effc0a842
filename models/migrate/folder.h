// A migration folder read from disk the way a user's tool must read it:
// every entry examined, only regular files read (a FIFO is never opened, so
// reading never blocks), each file bounded, and every problem an error that
// names the file (and, for bytes that are not text, the line and column).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "models/migrate/source.h"
#include "sim/status.h"

namespace faultline::models::migrate {

struct FolderLimits {
  std::uintmax_t max_file_bytes = 1 << 20;
  std::size_t max_entries = 10'000;
  std::size_t max_statements = 10'000;  // In one file, as SplitStatements cuts it.
  // How a refusal names a limit passed, after "dir/1_a.up.cql: " (the
  // caller may say how to raise it); empty: "over N bytes" and so on.
  std::string over_file_bytes;
  std::string over_entries;
  std::string over_statements;
  // Refuse a file that is not UTF-8 text (a NUL byte, a control byte, a
  // Latin-1 byte): "dir/1_a.up.cql:3:7: not UTF-8 text (byte 0xe9)".
  bool require_text = true;
};

// The migration files of `folder` (not recursive), sorted by name. A name
// with neither ".up." nor ".down." in it and not ending in .cql or .sql (a
// README) is skipped; every other name must be a migration's, and
// MigrationSource::FromFiles must accept the set (no two files for one
// version and direction).
sim::Result<std::vector<MigrationFile>> ReadMigrationFolder(const std::filesystem::path& folder,
                                                            const FolderLimits& limits = {});

// Where `bytes` stops being UTF-8 text without control bytes (tab, line
// feed and carriage return allowed): 1-based line and column, and the byte;
// nullopt when it is text.
struct NotText {
  int line = 1;
  int column = 1;
  unsigned char byte = 0;
};
std::optional<NotText> FindNotText(std::string_view bytes);

}  // namespace faultline::models::migrate
