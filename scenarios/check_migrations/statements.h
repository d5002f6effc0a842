// What check-migrations knows of golang-migrate's files (internal to
// scenarios/): how many statements it sends for a file, which of them had
// run at a crash at one of its fault sites, what an operator must do about
// those that ran, and the schema a prefix of the folder defines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/migrate/schema_check.h"
#include "models/migrate/source.h"

namespace faultline::scenarios::check {

// The files of versions up to `version` (up and down).
std::vector<models::migrate::MigrationFile> FilesUpTo(
    const models::migrate::MigrationSource& source, std::uint64_t version);
// The schema those files define in `keyspace`; empty for nullopt.
models::migrate::SchemaModel SchemaAt(const models::migrate::MigrationSource& source,
                                      const std::string& keyspace,
                                      std::optional<std::uint64_t> version);
// "3 dirty" -> (3, true); nullopt for "none" or more than one row.
std::optional<std::pair<std::int64_t, bool>> OneVersion(const std::string& versions);
// Every version schema_migrations records ("3 dirty, 5 clean"), newest
// first, once each; none for "none" or an error's text.
std::vector<std::int64_t> RecordedVersionNumbers(const std::string& versions);
// How many statements golang-migrate sends for the file: its pieces after
// the ';' split that are not blank (CassandraDriver::Run).
std::size_t StatementCount(const models::migrate::Migration& migration);
// Whether the body writes data (INSERT, UPDATE, DELETE, BATCH).
bool HasDataStatements(const std::string& body);
// The version of `source`'s first up file that writes data; none when no
// file does. A lost version at a file from it on makes the restart run a
// data statement again (the files up to the lost one run again; the ones
// after it run for the first time). Worked out once: each file is parsed.
std::optional<std::uint64_t> FirstVersionWritingRows(
    const models::migrate::MigrationSource& source);
// `migrate force X` as an operator types it: -1 after `--` (Go's flag
// parsing takes "-1" for a flag).
std::string ForceCommand(const std::string& to);
// The file in flight and how many of its statements had run when
// golang-migrate crashed at the `hit`-th pass of `site` (its sites:
// kGolangMigrateFaultPoints); nullopt for a site before any file.
// FolderPasses works it out once a folder, in time that does not grow with
// the folder's length a crash.
std::optional<std::pair<std::string, std::size_t>> RanAtCrash(
    const models::migrate::MigrationSource& source, const std::string& keyspace,
    std::string_view site, std::uint64_t hit);
class FolderPasses {
 public:
  // `source` must outlive it (it keeps pointers to its migrations).
  explicit FolderPasses(const models::migrate::MigrationSource& source);
  std::optional<std::pair<std::string, std::size_t>> RanAtCrash(const std::string& keyspace,
                                                                std::string_view site,
                                                                std::uint64_t hit) const;

 private:
  std::vector<const models::migrate::Migration*> versions_;  // In order.
  std::vector<std::size_t> statements_;                      // StatementCount of each.
  // Statements sent before each version's first, and after the last.
  std::vector<std::uint64_t> sent_before_;
};
// Which statements of the file of `version` ran (`ran` when known, else
// read from the DDL's effect on `live`), and what an operator must do:
// "statements 1-2 of 3 of F ran (line 1: CREATE TABLE a ...): undo them
// and `migrate force 1`, or run statements 3-3 by hand and ...".
std::string StatementsThatRan(const models::migrate::MigrationSource& source,
                              const std::string& keyspace, std::int64_t version,
                              const models::migrate::SchemaModel& live,
                              std::optional<std::size_t> ran);

}  // namespace faultline::scenarios::check
