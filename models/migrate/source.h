// Migration sources in golang-migrate's layout: one file per version and
// direction, `{version}_{title}.up.{ext}` and an optional
// `{version}_{title}.down.{ext}`, applied in ascending numeric version
// order. A source is what an image version bundles.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/status.h"

namespace faultline::models::migrate {

struct MigrationFile {
  MigrationFile() = default;
  MigrationFile(std::string file_name, std::string file_contents)
      : name(std::move(file_name)), contents(std::move(file_contents)) {}
  std::string name;  // "1754293669_init_s3_object_index.up.cql"
  std::string contents;
};

struct Migration {
  std::uint64_t version = 0;
  std::string title;
  std::optional<std::string> up;  // The bodies.
  std::optional<std::string> down;
  std::string up_name;  // File names, for messages.
  std::string down_name;
};

class MigrationSource {
 public:
  MigrationSource() = default;

  // Builds a source from files. Names that do not parse as migrations are an
  // error naming the file (golang-migrate skips them silently, which hides a
  // typo); so are two files for one version and direction.
  static sim::Result<MigrationSource> FromFiles(const std::vector<MigrationFile>& files);
  // The same from the files of a directory (not recursive), sorted by name.
  // Files without a migration's shape and not ending in .cql or .sql are
  // skipped (a README next to the migrations is fine).
  static sim::Result<MigrationSource> FromDirectory(const std::filesystem::path& directory);

  bool empty() const { return migrations_.empty(); }
  const std::map<std::uint64_t, Migration>& migrations() const { return migrations_; }
  const Migration* Find(std::uint64_t version) const;
  // The first version, or nullopt when empty.
  std::optional<std::uint64_t> First() const;
  // The version after / before `version`, or nullopt.
  std::optional<std::uint64_t> Next(std::uint64_t version) const;
  std::optional<std::uint64_t> Prev(std::uint64_t version) const;

 private:
  std::map<std::uint64_t, Migration> migrations_;
};

}  // namespace faultline::models::migrate
