#include "scenarios/check_migrations/statements.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "models/cql/ast.h"
#include "models/migrate/cassandra_driver.h"
#include "models/migrate/lint.h"
#include "scenarios/check_migrations/observe.h"
#include "sim/assert.h"

namespace faultline::scenarios::check {

using models::migrate::MigrationFile;
using models::migrate::MigrationSource;
using models::migrate::SchemaModel;
namespace cql = models::cql;

std::vector<MigrationFile> FilesUpTo(const MigrationSource& source, std::uint64_t version) {
  std::vector<MigrationFile> files;
  for (const auto& [v, migration] : source.migrations()) {
    if (v > version) break;
    if (migration.up) files.emplace_back(migration.up_name, *migration.up);
    if (migration.down) files.emplace_back(migration.down_name, *migration.down);
  }
  return files;
}

SchemaModel SchemaAt(const MigrationSource& source, const std::string& keyspace,
                     std::optional<std::uint64_t> version) {
  if (!version) return {};
  return models::migrate::ExpectedSchema(*MigrationSource::FromFiles(FilesUpTo(source, *version)),
                                         keyspace);
}

std::optional<std::pair<std::int64_t, bool>> OneVersion(const std::string& versions) {
  const std::size_t space = versions.find(' ');
  if (space == std::string::npos || versions.find(',') != std::string::npos) return std::nullopt;
  std::int64_t version = 0;
  const auto [end, error] = std::from_chars(versions.data(), versions.data() + space, version);
  if (error != std::errc() || end != versions.data() + space) return std::nullopt;
  return std::make_pair(version, versions.substr(space + 1) == "dirty");
}

std::vector<std::int64_t> RecordedVersionNumbers(const std::string& versions) {
  std::vector<std::int64_t> numbers;
  std::size_t at = 0;
  constexpr std::size_t kMaxRows = 10'000;
  while (at < versions.size() && numbers.size() < kMaxRows) {
    std::int64_t version = 0;
    const auto [end, error] =
        std::from_chars(versions.data() + at, versions.data() + versions.size(), version);
    if (error != std::errc()) break;  // "none", or a store's error text.
    numbers.push_back(version);
    const std::size_t next = versions.find(", ", static_cast<std::size_t>(end - versions.data()));
    if (next == std::string::npos) break;
    at = next + 2;
  }
  std::sort(numbers.rbegin(), numbers.rend());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  return numbers;
}

std::size_t StatementCount(const models::migrate::Migration& migration) {
  if (!migration.up) return 0;
  std::size_t count = 0;
  for (const std::string& piece : models::migrate::SplitStatements(*migration.up)) {
    count += models::migrate::Trimmed(piece).empty() ? 0 : 1;
  }
  return count;
}

bool HasDataStatements(const std::string& body) {
  for (const auto& statement : models::migrate::StatementsOf(body)) {
    const bool data = std::holds_alternative<cql::Insert>(statement.statement) ||
                      std::holds_alternative<cql::Update>(statement.statement) ||
                      std::holds_alternative<cql::Delete>(statement.statement) ||
                      std::holds_alternative<cql::Batch>(statement.statement);
    if (data) return true;
  }
  return false;
}

std::optional<std::uint64_t> FirstVersionWritingRows(const MigrationSource& source) {
  for (const auto& [version, migration] : source.migrations()) {
    if (migration.up && HasDataStatements(*migration.up)) return version;
  }
  return std::nullopt;
}

std::string ForceCommand(const std::string& to) {
  return to == "-1" ? "migrate force -- -1" : "migrate force " + to;
}

std::optional<std::pair<std::string, std::size_t>> RanAtCrash(const MigrationSource& source,
                                                              const std::string& keyspace,
                                                              std::string_view site,
                                                              std::uint64_t hit) {
  return FolderPasses(source).RanAtCrash(keyspace, site, hit);
}

FolderPasses::FolderPasses(const MigrationSource& source) {
  // Up passes every version, a down-only one too (with no statement).
  std::uint64_t sent = 0;
  for (const auto& [version, migration] : source.migrations()) {
    versions_.push_back(&migration);
    statements_.push_back(StatementCount(migration));
    sent_before_.push_back(sent);
    sent += statements_.back();
  }
  sent_before_.push_back(sent);
  FL_ASSERT(sent_before_.size() == versions_.size() + 1);
}

std::optional<std::pair<std::string, std::size_t>> FolderPasses::RanAtCrash(
    const std::string& keyspace, std::string_view site, std::uint64_t hit) const {
  const std::string prefix = fmt::format("migrate.{}.", keyspace);
  if (!site.starts_with(prefix) || hit == 0) return std::nullopt;
  const std::string_view point = site.substr(prefix.size());
  const auto nth = [&](std::uint64_t n) -> std::optional<std::size_t> {
    if (n < 1 || n > versions_.size()) return std::nullopt;
    return static_cast<std::size_t>(n - 1);
  };
  const auto at = [&](std::optional<std::size_t> i,
                      bool all_ran) -> std::optional<std::pair<std::string, std::size_t>> {
    if (!i || !versions_[*i]->up) return std::nullopt;
    return std::make_pair(versions_[*i]->up_name, all_ran ? statements_[*i] : 0);
  };
  // Migrate's own points: once a version, before and after its statements.
  if (point == "before_set_dirty" || point == "after_set_dirty") return at(nth(hit), false);
  if (point == "before_set_clean" || point == "after_set_clean") return at(nth(hit), true);
  // SetVersion, twice a version (dirty, then clean): its select and its
  // insert pass once a call...
  if (point == "set_version.after_select" || point == "set_version.before_insert") {
    return at(nth((hit + 1) / 2), hit % 2 == 0);
  }
  // ...its delete once a row it deletes: none before the first version's
  // dirty write, one ever after. Pass 1 is the first version's clean write,
  // then pass h is version h/2 + 1's, dirty when h is even.
  if (point == "set_version.after_delete") return at(nth(hit / 2 + 1), hit % 2 == 1);
  if (point == "statement.before" || point == "statement.after") {
    // The statement pass `hit` is the (hit)-th statement sent: before it,
    // hit - 1 were done; after it, hit. The version is the first whose
    // statements reach past that (a version without statements is never
    // the one: upper_bound skips it).
    const bool before = point == "statement.before";
    const std::uint64_t done = hit - (before ? 1 : 0);
    // The first version whose statements end past `done` (before) or at
    // or past it (after).
    const auto ends = [&](std::size_t i) { return sent_before_[i + 1]; };
    std::size_t low = 0;
    std::size_t high = versions_.size();
    while (low < high) {  // Binary search on the versions' ends.
      const std::size_t mid = low + (high - low) / 2;
      if (before ? ends(mid) > done : ends(mid) >= done) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    // Skip versions without statements (their end equals the one before).
    while (low < versions_.size() && statements_[low] == 0) ++low;
    if (low == versions_.size()) return std::nullopt;
    FL_ASSERT(done >= sent_before_[low] && done - sent_before_[low] <= statements_[low]);
    return std::make_pair(versions_[low]->up_name,
                          static_cast<std::size_t>(done - sent_before_[low]));
  }
  return std::nullopt;
}

std::string StatementsThatRan(const MigrationSource& source, const std::string& keyspace,
                              std::int64_t version, const SchemaModel& live,
                              std::optional<std::size_t> ran) {
  const models::migrate::Migration* migration =
      version < 0 ? nullptr : source.Find(static_cast<std::uint64_t>(version));
  if (migration == nullptr || !migration->up) return "compare DESCRIBE KEYSPACE with the folder";
  const auto statements = models::migrate::StatementsOf(*migration->up);
  if (!ran) {
    SchemaModel schema =
        SchemaAt(source, keyspace, source.Prev(static_cast<std::uint64_t>(version)));
    for (std::size_t k = 0; k <= statements.size() && !ran; ++k) {
      if (k > 0) {
        models::migrate::ApplyStatement(statements[k - 1].statement, keyspace, schema);
      }
      if (schema == live) ran = k;
    }
  }
  if (!ran) {
    return fmt::format("the keyspace matches no prefix of {}: compare DESCRIBE KEYSPACE with it",
                       migration->up_name);
  }
  const std::size_t total = statements.size();
  const auto before = source.Prev(static_cast<std::uint64_t>(version));
  const std::string force_before = before ? std::to_string(*before) : "-- -1";
  if (*ran == 0) {
    return fmt::format("none of the {} statement(s) of {} ran, yet running it again fails", total,
                       migration->up_name);
  }
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < *ran && i < total; ++i) {
    lines.push_back(fmt::format("line {}: {}", statements[i].line, FirstLine(statements[i].text)));
  }
  if (*ran >= total) {
    return fmt::format("all {} statement(s) of {} ran ({}), yet neither force brings it up", total,
                       migration->up_name, Joined(lines, "; "));
  }
  return fmt::format(
      "statements 1-{} of {} of {} ran ({}): undo them and `migrate force {}`, or run "
      "statements {}-{} by hand and `migrate force {}`",
      *ran, total, migration->up_name, Joined(lines, "; "), force_before, *ran + 1, total, version);
}

}  // namespace faultline::scenarios::check
