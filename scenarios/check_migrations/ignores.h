// What a team tells check-migrations to leave out, with its reason: a
// comment in a migration file (`-- faultline:ignore RULE reason`, or with
// `//`), which covers that file, or an entry of the folder's config file,
// which covers the folder. RULE is a static rule's id, a verdict's name
// (needs-force, ...) or a runner risk's id. An ignored finding fails
// nothing; the report says what was ignored, where and why, and an ignore
// that matched nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/migrate/source.h"
#include "sim/status.h"

namespace faultline::scenarios {

struct Ignore {
  std::string file;  // The migration file it covers; empty: the whole folder.
  std::string rule;
  std::string reason;
  std::string where;  // "2_users.up.cql:3" or ".faultline.toml:7": where it was said.
  friend bool operator==(const Ignore&, const Ignore&) = default;
};

// Whether `rule` names something an ignore can cover.
bool Ignorable(std::string_view rule);
// Why `rule` is not one, for a message: what it may have meant, and the
// names an ignore takes.
std::string NoSuchRule(std::string_view rule);

// The ignores the files' comments say. An error (file:line:col) for an
// ignore of no known rule, or without a reason.
sim::Result<std::vector<Ignore>> InFileIgnores(
    const std::vector<models::migrate::MigrationFile>& files);

}  // namespace faultline::scenarios
