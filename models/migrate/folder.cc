#include "models/migrate/folder.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "models/migrate/statements.h"
#include "sim/assert.h"

namespace faultline::models::migrate {
namespace {

bool MayBeMigration(const std::string& name) {
  return name.find(".up.") != std::string::npos || name.find(".down.") != std::string::npos ||
         name.ends_with(".cql") || name.ends_with(".sql");
}

// How many bytes the UTF-8 sequence starting with `lead` has; 0 if `lead`
// cannot start one.
int SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

// Whether bytes[at, at + length) is one well-formed UTF-8 sequence (no
// overlong form, no surrogate, nothing past U+10FFFF).
bool WellFormed(std::string_view bytes, std::size_t at, int length) {
  if (at + length > bytes.size()) return false;
  const auto byte = [&](int i) { return static_cast<unsigned char>(bytes[at + i]); };
  for (int i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return false;
  }
  if (length == 3 && byte(0) == 0xe0 && byte(1) < 0xa0) return false;
  if (length == 3 && byte(0) == 0xed && byte(1) > 0x9f) return false;
  if (length == 4 && byte(0) == 0xf0 && byte(1) < 0x90) return false;
  if (length == 4 && byte(0) == 0xf4 && byte(1) > 0x8f) return false;
  return true;
}

std::string OverBytes(const FolderLimits& limits) {
  return !limits.over_file_bytes.empty()
             ? limits.over_file_bytes
             : fmt::format("over {} bytes (a migration file this large is no schema change)",
                           limits.max_file_bytes);
}

sim::Result<std::string> ReadFile(const std::filesystem::path& file, const FolderLimits& limits) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(file, error);
  if (error) {
    return sim::Status::InvalidArgument(
        fmt::format("{}: cannot read: {}", file.string(), error.message()));
  }
  if (!std::filesystem::is_regular_file(status)) {
    return sim::Status::InvalidArgument(fmt::format("{}: not a regular file", file.string()));
  }
  const std::uintmax_t size = std::filesystem::file_size(file, error);
  if (error || size > limits.max_file_bytes) {
    return sim::Status::InvalidArgument(fmt::format("{}: {}", file.string(), OverBytes(limits)));
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return sim::Status::InvalidArgument(fmt::format("{}: cannot open", file.string()));
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    return sim::Status::InvalidArgument(fmt::format("{}: cannot read", file.string()));
  }
  if (contents.size() > limits.max_file_bytes) {  // It grew since it was measured.
    return sim::Status::InvalidArgument(fmt::format("{}: {}", file.string(), OverBytes(limits)));
  }
  if (limits.require_text && contents.starts_with("\xef\xbb\xbf")) {
    return sim::Status::InvalidArgument(fmt::format(
        "{}:1:1: starts with a byte-order mark (U+FEFF), which the store would read as a "
        "character of the first statement: save the file as UTF-8 without it",
        file.string()));
  }
  if (limits.require_text) {
    if (const std::optional<NotText> at = FindNotText(contents)) {
      return sim::Status::InvalidArgument(
          fmt::format("{}:{}:{}: not UTF-8 text (byte 0x{:02x}): a migration file is CQL",
                      file.string(), at->line, at->column, at->byte));
    }
  }
  return contents;
}

}  // namespace

std::optional<NotText> FindNotText(std::string_view bytes) {
  NotText place;
  for (std::size_t at = 0; at < bytes.size();) {
    const auto byte = static_cast<unsigned char>(bytes[at]);
    const int length = SequenceLength(byte);
    const bool control = byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r';
    if (length == 0 || control || byte == 0x7f || !WellFormed(bytes, at, length)) {
      place.byte = byte;
      return place;
    }
    FL_ASSERT(length >= 1 && length <= 4);
    place.line += byte == '\n' ? 1 : 0;
    place.column = byte == '\n' ? 1 : place.column + 1;
    at += static_cast<std::size_t>(length);
  }
  return std::nullopt;
}

sim::Result<std::vector<MigrationFile>> ReadMigrationFolder(const std::filesystem::path& folder,
                                                            const FolderLimits& limits) {
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error) || error) {
    return sim::Status::InvalidArgument(
        fmt::format("{}: not a folder{}", folder.string(), error ? ": " + error.message() : ""));
  }
  std::vector<std::filesystem::path> paths;
  for (std::filesystem::directory_iterator it(folder, error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!MayBeMigration(name)) continue;  // A README: skipped, not counted.
    if (paths.size() >= limits.max_entries) {
      return sim::Status::InvalidArgument(fmt::format(
          "{}: {}", folder.string(),
          limits.over_entries.empty() ? fmt::format("over {} migration files", limits.max_entries)
                                      : limits.over_entries));
    }
    if (std::any_of(name.begin(), name.end(), [](char c) { return c >= 0 && c < 0x20; })) {
      return sim::Status::InvalidArgument(fmt::format(
          "{}: a file name with a control character (a line break?): rename it", folder.string()));
    }
    paths.push_back(it->path());
  }
  if (error) {
    return sim::Status::InvalidArgument(
        fmt::format("{}: cannot list: {}", folder.string(), error.message()));
  }
  std::sort(paths.begin(), paths.end());
  std::vector<MigrationFile> files;
  for (const std::filesystem::path& path : paths) {
    sim::Result<std::string> contents = ReadFile(path, limits);
    if (!contents.ok()) return contents.status();
    if (StatementCount(*contents) > limits.max_statements) {
      return sim::Status::InvalidArgument(fmt::format(
          "{}: {}", path.string(),
          limits.over_statements.empty() ? fmt::format("over {} statements", limits.max_statements)
                                         : limits.over_statements));
    }
    files.emplace_back(path.filename().string(), std::move(contents).value());
  }
  // The set must make a source: names that are migrations', one file per
  // version and direction.
  if (sim::Result<MigrationSource> source = MigrationSource::FromFiles(files); !source.ok()) {
    return sim::Status::InvalidArgument(
        fmt::format("{}/{}", folder.string(), source.status().message()));
  }
  FL_ASSERT(files.size() <= limits.max_entries);
  return files;
}

}  // namespace faultline::models::migrate
