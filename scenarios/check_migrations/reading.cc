// What the folder checked defines, and what was seen of it (checker.h).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <system_error>

#include "models/migrate/runner.h"
#include "models/migrate/schema_check.h"
#include "models/s3/seed_images.h"
#include "scenarios/check_migrations/checker.h"
#include "scenarios/check_migrations/statements.h"
#include "scenarios/harness/runner.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios::check {

// The folder the subject runs at the end of the case's run: the image
// rolled back to, for a rollback; else the folder checked.
const MigrationSource& Checker::ImageAtEnd(const Case& c,
                                           std::optional<MigrationSource>& kept) const {
  if (c.check != "rollback") return source_;
  for (const ImageSpec& image : c.scenario.images) {
    if (image.version != kShipped) continue;
    sim::Result<MigrationSource> source = MigrationSource::FromFiles(image.files);
    FL_ASSERT(source.ok());
    return kept.emplace(std::move(source).value());
  }
  FL_PANIC("rollback case {} without the image it rolls back to", c.index);
}

std::vector<MigrationFile> Checker::FilesUpTo(std::uint64_t version) const {
  return check::FilesUpTo(source_, version);
}

namespace {

// Whether `files` are `source`'s up to `version` as FilesUpTo lists them,
// compared in place.
bool AreFilesUpTo(const MigrationSource& source, std::uint64_t version,
                  const std::vector<MigrationFile>& files) {
  std::size_t i = 0;
  const auto same = [&](const std::string& name, const std::string& contents) {
    const bool equal = i < files.size() && files[i].name == name && files[i].contents == contents;
    ++i;
    return equal;
  };
  for (const auto& [v, migration] : source.migrations()) {
    if (v > version) break;
    if (migration.up && !same(migration.up_name, *migration.up)) return false;
    if (migration.down && !same(migration.down_name, *migration.down)) return false;
  }
  return i == files.size();
}

bool SameFiles(const std::vector<MigrationFile>& a, const std::vector<MigrationFile>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const MigrationFile& x, const MigrationFile& y) {
                      return x.name == y.name && x.contents == y.contents;
                    });
}

// The version a migration file's name begins with ("00012_t.up.cql": 12).
std::optional<std::uint64_t> VersionOfName(const std::string& name) {
  std::uint64_t version = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), version);
  if (error != std::errc() || end == name.data()) return std::nullopt;
  return version;
}

}  // namespace

void Checker::LeaveOutTheFolder(Case& c) const {
  FL_ASSERT(c.folder_images.empty());
  for (std::size_t i = 0; i < c.scenario.images.size(); ++i) {
    ImageSpec& image = c.scenario.images[i];
    if (image.files.empty()) continue;
    if (SameFiles(image.files, options_.files)) {
      c.folder_images.emplace(i, std::nullopt);
    } else if (const std::optional<std::uint64_t> last = VersionOfName(image.files.back().name);
               last && AreFilesUpTo(source_, *last, image.files)) {
      c.folder_images.emplace(i, *last);
    } else {
      continue;  // Another folder's (--older): kept as it is.
    }
    image.files.clear();
    image.files.shrink_to_fit();
  }
}

void Checker::PutTheFolderBack(Case& c) const {
  for (const auto& [i, version] : c.folder_images) {
    FL_ASSERT_MSG(i < c.scenario.images.size() && c.scenario.images[i].files.empty(),
                  "case {}: image {} of {} left out", c.index, i, c.scenario.images.size());
    c.scenario.images[i].files = version ? FilesUpTo(*version) : options_.files;
  }
  c.folder_images.clear();
}

void Checker::ApplyUp(const models::migrate::Migration& migration, SchemaModel& schema) const {
  if (!migration.up) return;
  for (const auto& statement : models::migrate::StatementsOf(*migration.up)) {
    models::migrate::ApplyStatement(statement.statement, options_.keyspace, schema);
  }
}

// The schema the files up to `version` define: from the mark at or before
// it, with fewer than schema_every_ files' statements applied (a case
// asks for one or two, and copies the mark, in proportion to the folder
// anyway; keeping every version's would cost the folder's length squared),
// the last one asked kept.
const SchemaModel& Checker::SchemaAt(std::optional<std::uint64_t> version) const {
  static const SchemaModel kEmpty;
  if (!version) return kEmpty;
  if (schema_at_ && schema_at_->first == *version) return schema_at_->second;
  const auto& migrations = source_.migrations();
  FL_ASSERT_MSG(migrations.contains(*version), "no version {} in the folder", *version);
  SchemaModel schema;
  auto next = migrations.begin();
  if (auto mark = schema_marks_.upper_bound(*version); mark != schema_marks_.begin()) {
    --mark;
    schema = mark->second;
    next = std::next(migrations.find(mark->first));
  }
  std::size_t applied = 0;
  for (; next != migrations.end() && next->first <= *version; ++next) {
    FL_ASSERT(++applied <= schema_every_);
    ApplyUp(next->second, schema);
  }
  schema_at_.emplace(*version, std::move(schema));
  return schema_at_->second;
}

// Whether the state a crash left is one the folder defines: no version
// and no table, or a clean version with exactly its files' schema (for a
// runner that keeps no golang-migrate table: any version's schema).
bool Checker::Consistent(const Observed& seen, const std::string& runner) const {
  if (seen.versions == "none") {
    if (seen.schema().empty()) return true;
    if (runner == "golang-migrate") return false;
    SchemaModel schema;  // Each version's in turn.
    for (const auto& [version, migration] : source_.migrations()) {
      ApplyUp(migration, schema);
      if (seen.schema() == schema) return true;
    }
    return false;
  }
  const auto one = OneVersion(seen.versions);
  return one && !one->second && one->first >= 0 &&
         seen.schema() == SchemaAt(static_cast<std::uint64_t>(one->first));
}

bool Checker::AllServeTheFolder(const std::vector<Observed>& seen, bool compare_schema) const {
  return std::all_of(seen.begin(), seen.end(), [&](const Observed& s) {
    return s.serving && (!compare_schema || HasTheFoldersSchema(s));
  });
}

bool Checker::HasTheFoldersSchema(const Observed& seen) const {
  FL_ASSERT(seen.schema_read != nullptr);
  if (known_folders_schema_ != nullptr && seen.schema_read == known_folders_schema_) return true;
  return seen.schema() == expected_;
}

namespace {

// How many of `folder`'s tables `seen` has: the two sorted maps walked
// side by side (a lookup of each table cost the folder's length times its
// logarithm, in every case that does not come up).
std::size_t TablesOfTheFolderIn(const SchemaModel& seen, const SchemaModel& folder) {
  std::size_t present = 0;
  auto a = seen.begin();
  auto b = folder.begin();
  while (a != seen.end() && b != folder.end()) {
    if (a->first < b->first) {
      ++a;
    } else if (b->first < a->first) {
      ++b;
    } else {
      ++present;
      ++a;
      ++b;
    }
  }
  FL_ASSERT(present <= std::min(seen.size(), folder.size()));
  return present;
}

}  // namespace

// "1754293669 dirty, 1 of 2 tables": the version table and how much of
// the folder's schema is there.
std::string Checker::StateText(const Observed& seen, const std::string& runner) const {
  const std::size_t present = TablesOfTheFolderIn(seen.schema(), expected_);
  const std::string tables =
      fmt::format("{} of the folder's {} table(s)", present, expected_.size());
  // Only golang-migrate keeps its version in schema_migrations.
  if (runner != "golang-migrate") return tables;
  return fmt::format("schema_migrations: {}; {}", seen.versions, tables);
}

const Observed* Checker::FirstDown(const std::vector<Observed>& seen) {
  for (const Observed& s : seen) {
    if (!s.serving) return &s;
  }
  return nullptr;
}

std::string Checker::FileOf(std::int64_t version) const {
  const models::migrate::Migration* migration =
      version < 0 ? nullptr : source_.Find(static_cast<std::uint64_t>(version));
  return migration != nullptr ? migration->up_name : std::string();
}

bool Checker::History(const std::string& file) const {
  if (!options_.since || file.empty()) return false;
  for (const auto& [version, migration] : source_.migrations()) {
    if (migration.up_name == file || migration.down_name == file) {
      return version <= *options_.since;
    }
  }
  return false;
}

// The line of the version's file where the statement the failure quotes
// starts (golang-migrate quotes the piece it sent); 1 when not found.
int Checker::LineOfFailure(std::uint64_t version, const std::string& text) const {
  const models::migrate::Migration* migration = source_.Find(version);
  if (migration == nullptr || !migration->up) return 1;
  for (const auto& statement : models::migrate::StatementsOf(*migration->up)) {
    if (text.find(statement.text) != std::string::npos) return statement.line;
  }
  return 1;
}

}  // namespace faultline::scenarios::check
