#include "app/check_config.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/migrate/runner.h"
#include "scenarios/check_migrations/check_migrations.h"

namespace faultline::app {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxConfigBytes = 64 * 1024;
constexpr int kMaxNesting = 8;  // toml++ parses nesting by recursion.

struct ConfigError {
  std::string message;
};

std::string At(const std::string& path, const toml::node& node) {
  const toml::source_position at = node.source().begin;
  return fmt::format("{}:{}:{}", path, at.line, at.column);
}

std::string KeyAt(const std::string& path, const toml::key& key) {
  const toml::source_position at = key.source().begin;
  return fmt::format("{}:{}:{}", path, at.line, at.column);
}

std::string StringAt(const std::string& path, const toml::node& node, std::string_view key) {
  const std::optional<std::string> value = node.value<std::string>();
  if (!value) throw ConfigError{fmt::format("{}: {} is a string", At(path, node), key)};
  return *value;
}

// The config above `folder`: the folder itself, then each parent up to
// the first that holds .git (the repository's root) or the root.
std::optional<fs::path> FindAbove(const std::string& folder) {
  std::error_code error;
  fs::path at = fs::absolute(folder, error);
  if (error) return std::nullopt;
  constexpr int kMaxLevels = 64;
  for (int level = 0; level < kMaxLevels; ++level) {
    if (fs::is_regular_file(at / kCheckConfigName, error)) return at / kCheckConfigName;
    if (fs::exists(at / ".git", error) || !at.has_parent_path() || at.parent_path() == at) break;
    at = at.parent_path();
  }
  return std::nullopt;
}

bool TooDeep(const std::string& text) {
  int depth = 0;
  for (const char c : text) {
    if (c == '[' || c == '{') ++depth;
    if (c == ']' || c == '}') --depth;
    if (depth > kMaxNesting) return true;
  }
  return false;
}

scenarios::Ignore IgnoreOf(const std::string& path, const toml::node& node) {
  const toml::table* entry = node.as_table();
  if (entry == nullptr) {
    throw ConfigError{fmt::format(
        "{}: an ignore is a table: {{ rule = \"...\", reason = \"...\" }}", At(path, node))};
  }
  scenarios::Ignore ignore;
  ignore.where = At(path, node);
  for (const auto& [key, value] : *entry) {
    if (key == "rule") {
      ignore.rule = StringAt(path, value, "rule");
      if (!scenarios::Ignorable(ignore.rule)) {
        throw ConfigError{fmt::format("{}: rule '{}': {}", At(path, value), ignore.rule,
                                      scenarios::NoSuchRule(ignore.rule))};
      }
    } else if (key == "reason") {
      ignore.reason = StringAt(path, value, "reason");
    } else if (key == "file") {
      ignore.file = StringAt(path, value, "file");
    } else {
      throw ConfigError{fmt::format("{}: an ignore has rule, reason and file, not '{}'",
                                    KeyAt(path, key), key.str())};
    }
  }
  if (ignore.rule.empty() || ignore.reason.empty()) {
    throw ConfigError{
        fmt::format("{}: an ignore says its rule and, as reason, why", At(path, node))};
  }
  return ignore;
}

CheckConfig Read(const std::string& path, const toml::table& root) {
  CheckConfig config{.path = path};
  for (const auto& [name, section] : root) {
    if (name != "check-migrations" || !section.is_table()) {
      throw ConfigError{fmt::format("{}: {} has a [check-migrations] table only, not '{}'",
                                    KeyAt(path, name), kCheckConfigName, name.str())};
    }
  }
  const toml::table* table = root["check-migrations"].as_table();
  if (table == nullptr) return config;
  for (const auto& [key, value] : *table) {
    if (key == "runner") {
      config.runner = StringAt(path, value, "runner");
      const auto& names = models::migrate::kRunnerNames;
      if (*config.runner != "all" &&
          std::find(std::begin(names), std::end(names), *config.runner) == std::end(names)) {
        throw ConfigError{
            fmt::format("{}: runner is golang-migrate, safe, db-init or all", At(path, value))};
      }
    } else if (key == "keyspace") {
      config.keyspace = StringAt(path, value, "keyspace");
      if (std::string problem = scenarios::KeyspaceProblem(*config.keyspace); !problem.empty()) {
        throw ConfigError{fmt::format("{}: keyspace: {}", At(path, value), problem)};
      }
    } else if (key == "store") {
      config.store = StringAt(path, value, "store");
      if (*config.store != "yugabyte" && *config.store != "cassandra") {
        throw ConfigError{fmt::format("{}: store is yugabyte or cassandra", At(path, value))};
      }
    } else if (key == "since") {
      config.since = StringAt(path, value, "since");
    } else if (key == "fail-on-runner-risks") {
      const std::optional<bool> flag = value.value<bool>();
      if (!flag)
        throw ConfigError{
            fmt::format("{}: fail-on-runner-risks is true or false", At(path, value))};
      config.fail_on_runner_risks = flag;
    } else if (key == "ignore") {
      const toml::array* list = value.as_array();
      if (list == nullptr) {
        throw ConfigError{fmt::format("{}: ignore is a list of tables", At(path, value))};
      }
      for (const toml::node& item : *list) config.ignores.push_back(IgnoreOf(path, item));
    } else {
      throw ConfigError{fmt::format(
          "{}: [check-migrations] takes runner, keyspace, store, since, fail-on-runner-risks and "
          "ignore, not '{}'",
          KeyAt(path, key), key.str())};
    }
  }
  return config;
}

}  // namespace

sim::Result<std::optional<CheckConfig>> ReadCheckConfig(const std::string& folder,
                                                        const std::string& explicit_path) {
  std::optional<fs::path> path;
  if (!explicit_path.empty()) {
    path = explicit_path;
  } else {
    path = FindAbove(folder);
  }
  if (!path) return std::optional<CheckConfig>();
  const std::string name = path->string();
  std::error_code error;
  const std::uintmax_t size = fs::file_size(*path, error);
  if (error || !fs::is_regular_file(*path, error)) {
    return sim::Status::InvalidArgument(fmt::format("{}: not a readable file", name));
  }
  if (size > kMaxConfigBytes) {
    return sim::Status::InvalidArgument(
        fmt::format("{}: over {} bytes: not a config file", name, kMaxConfigBytes));
  }
  std::ifstream in(*path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return sim::Status::InvalidArgument(fmt::format("{}: cannot read", name));
  if (TooDeep(text.str())) {
    return sim::Status::InvalidArgument(
        fmt::format("{}: nested over {} levels deep", name, kMaxNesting));
  }
  try {
    const toml::table root = toml::parse(text.str(), name);
    return std::optional<CheckConfig>(Read(name, root));
  } catch (const toml::parse_error& parse) {
    const toml::source_position at = parse.source().begin;
    return sim::Status::InvalidArgument(
        fmt::format("{}:{}:{}: {}", name, at.line, at.column, parse.description()));
  } catch (const ConfigError& wrong) {
    return sim::Status::InvalidArgument(wrong.message);
  }
}

}  // namespace faultline::app
