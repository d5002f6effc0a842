// A scenario file's [[image]]s: image versions of its own, with their
// migrations (inline or a folder) and their runner's settings (file/reader.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "fakes/runtime.h"
#include "fakes/sqlite_vfs.h"
#include "models/migrate/folder.h"
#include "models/migrate/statements.h"
#include "models/operator/migrate_cli.h"
#include "models/s3/seed_images.h"
#include "scenarios/core/duration.h"
#include "scenarios/core/failure_classes.h"
#include "scenarios/file/reader.h"
#include "sim/assert.h"

namespace faultline::scenarios::file {

// [[image]]: an image version with its own migrations, inline
// ([[image.file]] name/body) or a folder relative to the scenario file.
void Reader::ReadImages(const toml::node& node, Scenario& scenario) const {
  const toml::array* list = node.as_array();
  if (list == nullptr) Fail(&node, "'image' must be an array of tables: write [[image]]");
  std::size_t number = 0;
  for (const toml::node& item : *list) {
    const std::string where = fmt::format("image {}: ", ++number);
    const toml::table* table = item.as_table();
    if (table == nullptr) Fail(&item, where + "an image must be a table");
    OnlyKeys(*table,
             {"service", "version", "runner", "writes_node_id", "reads_node_id", "migrations",
              "file", "multi_statement", "migrations_table", "bound_session", "retry"},
             where);
    ImageSpec image;
    image.service = String(*table, "service", where, true);
    if (image.service != "node" && image.service != "proxy") {
      Fail(table->get("service"), where + "'service' is \"node\" or \"proxy\"");
    }
    image.version = String(*table, "version", where, true);
    for (const ImageSpec& earlier : scenario.images) {
      if (earlier.service == image.service && earlier.version == image.version) {
        Fail(table->get("version"),
             where + fmt::format("a {} image '{}' is defined already; give this one another "
                                 "version",
                                 image.service, image.version));
      }
    }
    const std::vector<std::string>& builtin = models::s3::SeedImageVersions(ImageOfSpec(image));
    FL_ASSERT(!builtin.empty());  // Both images have built-in versions.
    if (std::find(builtin.begin(), builtin.end(), image.version) != builtin.end()) {
      Fail(table->get("version"),
           where +
               fmt::format("'{}' is a built-in version; give yours another name", image.version));
    }
    if (table->contains("runner")) image.runner = String(*table, "runner", where, true);
    if (image.runner != "golang-migrate" && image.runner != "safe" && image.runner != "db-init") {
      Fail(table->get("runner"), where + "'runner' is golang-migrate, safe or db-init");
    }
    if (const toml::node* writes = table->get("writes_node_id")) {
      if (writes->as_boolean() == nullptr)
        Fail(writes, where + "'writes_node_id' is true or false");
      if (image.service != "node") Fail(writes, where + "'writes_node_id' is for node images");
      image.writes_node_id = writes->as_boolean()->get();
    }
    if (const toml::node* reads = table->get("reads_node_id")) {
      if (reads->as_boolean() == nullptr) Fail(reads, where + "'reads_node_id' is true or false");
      if (image.service != "proxy") Fail(reads, where + "'reads_node_id' is for proxy images");
      image.reads_node_id = reads->as_boolean()->get();
    }
    // Only its service's flag may differ from the default: the other is not written.
    FL_ASSERT(image.service == "node" ? image.reads_node_id == ImageSpec{}.reads_node_id
                                      : image.writes_node_id == ImageSpec{}.writes_node_id);
    ReadRunnerSettings(*table, where, image);
    if (table->contains("migrations")) {
      const std::string folder = String(*table, "migrations", where, true);
      image.files = ReadFolder(folder, table->get("migrations"), where);
    }
    if (const toml::node* files = table->get("file")) ReadFiles(*files, where, image);
    sim::Result<models::migrate::MigrationSource> source =
        models::migrate::MigrationSource::FromFiles(image.files);
    if (!source.ok()) Fail(table, where + source.status().message());
    const toml::node* at = table->contains("migrations") ? table->get("migrations") : table;
    for (const models::migrate::MigrationFile& file : image.files) {
      if (const auto error = models::migrate::FindSyntaxError(file.contents)) {
        Fail(at, fmt::format("{}{}:{}:{}: {}", where, file.name, error->line, error->column,
                             error->message));
      }
    }
    scenario.images.push_back(std::move(image));
  }
}

// golang-migrate's driver options (its URL's x-multi-statement and
// x-migrations-table, and gocql's ClusterConfig.Keyspace) and the
// gateway's start-up retry.
void Reader::ReadRunnerSettings(const toml::table& table, const std::string& where,
                                ImageSpec& image) const {
  const auto flag = [&](std::string_view key, bool& value) {
    const toml::node* at = table.get(key);
    if (at == nullptr) return;
    if (at->as_boolean() == nullptr) Fail(at, fmt::format("{}'{}' is true or false", where, key));
    value = at->as_boolean()->get();
  };
  for (const std::string_view key : {"multi_statement", "migrations_table", "bound_session"}) {
    if (table.contains(key) && image.runner != "golang-migrate") {
      Fail(table.get(key), fmt::format("{}'{}' is a setting of the golang-migrate runner, not "
                                       "of {}",
                                       where, key, image.runner));
    }
  }
  flag("multi_statement", image.golang_migrate.multi_statement);
  flag("bound_session", image.golang_migrate.bound_session);
  if (table.contains("migrations_table")) {
    const std::string name = NonEmpty(table, "migrations_table", where);
    FL_ASSERT(!name.empty());  // name[0] below.
    const bool identifier =
        std::all_of(
            name.begin(), name.end(),
            [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }) &&
        std::isalpha(static_cast<unsigned char>(name[0]));
    if (!identifier || name.size() > 48) {
      Fail(table.get("migrations_table"),
           where +
               "'migrations_table' is a table name: a letter, then letters, digits or _ (at "
               "most 48)");
    }
    image.golang_migrate.migrations_table = name;
  }
  if (const toml::node* retry = table.get("retry")) ReadRetry(*retry, where, image.retry);
}

void Reader::ReadRetry(const toml::node& node, const std::string& where,
                       models::s3::RetryPolicy& retry) const {
  const toml::table* table = node.as_table();
  const std::string usage = where + "'retry' is { attempts = 30, delay = \"2s\", cap = \"15s\" }";
  if (table == nullptr) Fail(&node, usage);
  OnlyKeys(*table, {"attempts", "delay", "cap"}, where + "retry: ");
  if (const std::optional<std::int64_t> attempts = Integer(*table, "attempts", where)) {
    if (*attempts < 1 || *attempts > models::s3::kMaxRetryAttempts) {
      Fail(table->get("attempts"),
           fmt::format("{}'attempts' is from 1 to {}", where, models::s3::kMaxRetryAttempts));
    }
    retry.attempts = static_cast<int>(*attempts);
  }
  for (const std::string_view key : {"delay", "cap"}) {
    if (!table->contains(key)) continue;
    const std::string text = String(*table, key, where, true);
    const std::optional<sim::Duration> duration = ParseDuration(text);
    if (!duration || *duration <= sim::Duration::zero() || *duration > std::chrono::hours(1)) {
      Fail(table->get(key),
           fmt::format("{}retry '{}' is a duration from 1ms to 1h (write 2s, 500ms)", where, key));
    }
    (key == "delay" ? retry.initial : retry.cap) = *duration;
  }
  // As the gateway: the back-off doubles up to the cap, never past it.
  retry.cap = std::max(retry.cap, retry.initial);
  FL_ASSERT(retry.attempts >= 1 && retry.attempts <= models::s3::kMaxRetryAttempts);
  FL_ASSERT(retry.initial > sim::Duration::zero());
}

void Reader::ReadFiles(const toml::node& node, const std::string& where, ImageSpec& image) const {
  const toml::array* list = node.as_array();
  if (list == nullptr) Fail(&node, where + "'file' must be an array of tables: [[image.file]]");
  const std::size_t before = image.files.size();  // A folder's, if any.
  for (const toml::node& item : *list) {
    const toml::table* table = item.as_table();
    if (table == nullptr) Fail(&item, where + "a file is a table with name and body");
    OnlyKeys(*table, {"name", "body"}, where + "file: ");
    image.files.emplace_back(String(*table, "name", where + "file: ", true),
                             String(*table, "body", where + "file: ", true));
    if (models::migrate::StatementCount(image.files.back().contents) > limits_.statements) {
      Fail(&item, fmt::format("{}file {}: {}", where, image.files.back().name,
                              OverLimit(limits_, &InputLimits::statements)));
    }
  }
  FL_ASSERT(image.files.size() == before + list->size());
}

// The migration files of a folder (relative to the scenario file), read
// as models/migrate/folder.h reads one; any problem is an error at the
// folder's line.
std::vector<models::migrate::MigrationFile> Reader::ReadFolder(const std::string& folder,
                                                               const toml::node* at,
                                                               const std::string& where) const {
  FL_ASSERT(at != nullptr);  // The folder's key, where any problem is told.
  const std::filesystem::path path =
      std::filesystem::path(source_).parent_path() / std::filesystem::path(folder);
  std::error_code error;
  if (!std::filesystem::is_directory(path, error) || error) {
    Fail(at, fmt::format("{}cannot read the migration folder {}", where, path.string()));
  }
  // Scenario files that work keep working: a Latin-1 byte in a file is
  // the store's to refuse, not the reader's.
  sim::Result<std::vector<models::migrate::MigrationFile>> files =
      models::migrate::ReadMigrationFolder(path, FolderLimitsOf(limits_, /*require_text=*/false));
  if (!files.ok()) Fail(at, where + files.status().message());
  return std::move(files).value();
}

}  // namespace faultline::scenarios::file
