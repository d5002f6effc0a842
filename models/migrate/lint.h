// Static checks of a migration folder in golang-migrate's layout, made by
// reading it (the store's own parser, golang-migrate's own splitting): each
// rule has a stable id, and each finding a one-line message and the
// file:line:column it is about. The rules are one table, LintRules(), which
// the reports and docs/check-migrations.md follow; squawk and Atlas
// document their rules the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/cql/ast.h"
#include "models/cql/catalog.h"
#include "models/migrate/source.h"
#include "sim/status.h"

namespace faultline::models::migrate {

enum class Severity : unsigned char { kError, kWarning, kNote };
std::string_view SeverityName(Severity severity);  // "error", "warning", "note"

struct LintRule {
  std::string_view id;  // "not-idempotent": stable, what reports and suppressions name.
  Severity severity;
  std::string_view summary;  // What it finds, one line.
  std::string_view fix;      // What to do instead, one line.
  // Whether its findings about a file shipped before (check-migrations'
  // --since) still count: the rule speaks of a change to what shipped, or
  // of what keeps the folder from running at all. Other rules judge a
  // file's content, which shipped long ago.
  bool judges_history = false;
};
// Every rule, static and dynamic (store-refuses is found by running the
// folder), in the order reports list them.
const std::vector<LintRule>& LintRules();
// The rule with `id`. REQUIRES: it is one of LintRules().
const LintRule& RuleOf(std::string_view id);

struct LintFinding {
  std::string rule;  // A LintRules() id.
  std::string file;  // The file's name in the folder ("1_init.up.cql"); empty: the folder.
  int line = 1;
  int column = 1;
  std::string message;
  // Whether `file` is a file of the folder; false: a path as given (the
  // sum file, the older folder).
  bool in_folder = true;
  friend bool operator==(const LintFinding&, const LintFinding&) = default;
};

// A sum file, as Atlas's atlas.sum: the checksum of every file of the
// folder when it was written (`--write-sum`), so a later check knows which
// files were shipped and whether one was edited since. The checksum is
// FNV-1a 64 (sim/fnv.h): it detects edits, it does not resist forgery.
//
//   faultline-sum 1
//   1754293669_init.up.cql fnv1a64:8c3a5e0f6b2d4a17
struct SumEntry {
  std::string file;
  std::uint64_t checksum = 0;
  int line = 0;  // In the sum file.
};
struct SumFile {
  std::vector<SumEntry> entries;
};
std::string WriteSumFile(const std::vector<MigrationFile>& files);
// The entries, or an error "<source>:<line>:<column>: what is wrong".
sim::Result<SumFile> ParseSumFile(std::string_view text, std::string_view source);
std::uint64_t FileChecksum(std::string_view contents);

struct LintInput {
  std::vector<MigrationFile> files;  // The folder (ReadMigrationFolder: a valid source).
  std::string keyspace;              // The keyspace it migrates.
  // The folder as an older release shipped it (--from DIR): its files were
  // applied on the volumes that release left.
  const std::vector<MigrationFile>* older = nullptr;
  std::string older_name;        // Its path, for findings about it.
  const SumFile* sum = nullptr;  // The files shipped before (--sum FILE).
  std::string sum_name;          // The sum file's path, for findings about it.
  bool multi_statement = true;   // golang-migrate splits each file on ';'.
  // The checked store's grammar: what it alone refuses is a parse-error too
  // (none: only what neither dialect takes).
  std::optional<cql::Dialect> dialect;
};

// Every finding of the static rules, by file (in the folder's order), then
// by line. Never fails: a file that does not parse is a finding.
std::vector<LintFinding> LintFolder(const LintInput& input);

// A statement of a file as golang-migrate sends it (multi-statement mode:
// the file split on every ';'; else the file is one query), and where it
// starts. Pieces that do not parse are left out (parse-error reports them).
struct LocatedStatement {
  cql::Statement statement;
  int line = 1;
  int column = 1;
  std::string text;  // As written, without the ';'.
};
std::vector<LocatedStatement> StatementsOf(std::string_view body, bool multi_statement = true);

// The keyspace a folder's statements name (a qualified table, USE, CREATE
// KEYSPACE), when they name exactly one; nullopt when they name none or
// several. The store's own (system*) are read, not migrated: never named.
std::optional<std::string> NamedKeyspace(const std::vector<MigrationFile>& files);

}  // namespace faultline::models::migrate
