#include "models/migrate/source.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "sim/assert.h"

namespace faultline::models::migrate {
namespace {

struct ParsedName {
  std::uint64_t version = 0;
  std::string title;
  bool up = true;
};

// golang-migrate's pattern: ^([0-9]+)_(.*)\.(down|up)\.(.*)$
std::optional<ParsedName> ParseName(std::string_view name) {
  const std::size_t underscore = name.find('_');
  if (underscore == std::string_view::npos || underscore == 0) return std::nullopt;
  ParsedName parsed;
  const auto [end, error] = std::from_chars(name.data(), name.data() + underscore, parsed.version);
  if (error != std::errc() || end != name.data() + underscore) return std::nullopt;
  const std::string_view rest = name.substr(underscore + 1);
  // The title is greedy: the last ".up." or ".down." decides.
  const std::size_t up = rest.rfind(".up.");
  const std::size_t down = rest.rfind(".down.");
  if (up == std::string_view::npos && down == std::string_view::npos) return std::nullopt;
  parsed.up = down == std::string_view::npos || (up != std::string_view::npos && up > down);
  // The direction chosen is one whose marker is in the name.
  FL_ASSERT((parsed.up ? up : down) != std::string_view::npos);
  parsed.title = std::string(rest.substr(0, parsed.up ? up : down));
  FL_ASSERT(parsed.title.size() < rest.size());
  return parsed;
}

bool LooksLikeMigration(std::string_view name) {
  return name.ends_with(".cql") || name.ends_with(".sql");
}

}  // namespace

sim::Result<MigrationSource> MigrationSource::FromFiles(const std::vector<MigrationFile>& files) {
  MigrationSource source;
  for (const MigrationFile& file : files) {
    const std::optional<ParsedName> parsed = ParseName(file.name);
    if (!parsed) {
      return sim::Status::InvalidArgument(fmt::format(
          "{}: not a migration file name: expected {{version}}_{{title}}.up.cql or .down.cql",
          file.name));
    }
    Migration& migration = source.migrations_[parsed->version];
    migration.version = parsed->version;
    // golang-migrate keys files by version and direction only: an up and a
    // down file may have different titles.
    if (migration.title.empty()) migration.title = parsed->title;
    std::optional<std::string>& body = parsed->up ? migration.up : migration.down;
    std::string& name = parsed->up ? migration.up_name : migration.down_name;
    if (body) {
      return sim::Status::InvalidArgument(fmt::format(
          "{}: duplicate migration file: {} has the same version and direction", file.name, name));
    }
    body = file.contents;
    name = file.name;
  }
  // Each version has its number and at least one file; no file made two.
  FL_ASSERT(source.migrations_.size() <= files.size());
  for (const auto& [version, migration] : source.migrations_) {
    FL_ASSERT(migration.version == version);
    FL_ASSERT(migration.up.has_value() || migration.down.has_value());
  }
  return source;
}

sim::Result<MigrationSource> MigrationSource::FromDirectory(
    const std::filesystem::path& directory) {
  std::error_code error;
  std::vector<std::filesystem::path> paths;
  for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end;
       it.increment(error)) {
    if (it->is_regular_file()) paths.push_back(it->path());
  }
  if (error) {
    return sim::Status::InvalidArgument(fmt::format("{}: cannot read the migration folder: {}",
                                                    directory.string(), error.message()));
  }
  std::sort(paths.begin(), paths.end());
  std::vector<MigrationFile> files;
  for (const std::filesystem::path& path : paths) {
    const std::string name = path.filename().string();
    if (!ParseName(name) && !LooksLikeMigration(name)) continue;
    std::ifstream in(path, std::ios::binary);
    std::stringstream contents;
    contents << in.rdbuf();
    if (!in) return sim::Status::InvalidArgument(fmt::format("{}: cannot read", path.string()));
    files.emplace_back(name, contents.str());
  }
  sim::Result<MigrationSource> source = FromFiles(files);
  if (!source.ok()) {
    return sim::Status::InvalidArgument(
        fmt::format("{}/{}", directory.string(), source.status().message()));
  }
  return source;
}

const Migration* MigrationSource::Find(std::uint64_t version) const {
  auto found = migrations_.find(version);
  if (found == migrations_.end()) return nullptr;
  FL_ASSERT(found->second.version == version);
  return &found->second;
}

std::optional<std::uint64_t> MigrationSource::First() const {
  if (migrations_.empty()) return std::nullopt;
  return migrations_.begin()->first;
}

std::optional<std::uint64_t> MigrationSource::Next(std::uint64_t version) const {
  auto next = migrations_.upper_bound(version);
  if (next == migrations_.end()) return std::nullopt;
  FL_ASSERT(next->first > version);
  return next->first;
}

std::optional<std::uint64_t> MigrationSource::Prev(std::uint64_t version) const {
  auto at = migrations_.lower_bound(version);
  if (at == migrations_.begin()) return std::nullopt;
  const std::uint64_t previous = std::prev(at)->first;
  FL_ASSERT(previous < version);
  return previous;
}

}  // namespace faultline::models::migrate
