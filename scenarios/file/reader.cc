// Reading a scenario file: ParseScenario and LoadScenarioFile
// (scenario_file.h), and what every section's reader shares (reader.h).
#include "scenarios/file/scenario_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "fakes/runtime.h"
#include "fakes/sqlite_vfs.h"
#include "models/migrate/folder.h"
#include "models/migrate/statements.h"
#include "models/operator/migrate_cli.h"
#include "models/s3/seed_images.h"
#include "scenarios/core/closest_name.h"
#include "scenarios/core/duration.h"
#include "scenarios/core/failure_classes.h"
#include "scenarios/file/reader.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace file {

void Reader::Fail(const toml::node* node, std::string_view what) const {
  if (node == nullptr) throw Located{fmt::format("{}: {}", source_, what)};
  FailAt(node->source().begin, what);
}

void Reader::FailAt(const toml::source_position& at, std::string_view what) const {
  throw Located{fmt::format("{}:{}:{}: {}", source_, at.line, at.column, what)};
}

// Only `allowed` keys may appear in `table`.
void Reader::OnlyKeys(const toml::table& table, const std::set<std::string_view>& allowed,
                      std::string_view where) const {
  FL_ASSERT_MSG(!allowed.empty(), "{}no key is allowed", where);
  for (const auto& [key, value] : table) {
    if (!allowed.contains(key.str())) {
      std::string list;
      for (std::string_view name : allowed) list += (list.empty() ? "" : ", ") + std::string(name);
      const std::vector<std::string_view> choices(allowed.begin(), allowed.end());
      FailAt(key.source().begin, fmt::format("{}unknown key '{}'{} (expected one of: {})", where,
                                             key.str(), DidYouMean(key.str(), choices), list));
    }
  }
}

std::string Reader::String(const toml::table& table, std::string_view key, std::string_view where,
                           bool required) const {
  // Messages are where + what: "step 2: missing 'do'".
  FL_ASSERT_MSG(where.empty() || where.ends_with(": "), "where '{}'", where);
  const toml::node* node = table.get(key);
  if (node == nullptr) {
    if (required) Fail(&table, fmt::format("{}missing '{}'", where, key));
    return {};
  }
  const auto* text = node->as_string();
  if (text == nullptr) Fail(node, fmt::format("{}'{}' must be a string", where, key));
  return text->get();
}

std::optional<std::int64_t> Reader::Integer(const toml::table& table, std::string_view key,
                                            std::string_view where) const {
  const toml::node* node = table.get(key);
  if (node == nullptr) return std::nullopt;
  const auto* number = node->as_integer();
  if (number == nullptr) Fail(node, fmt::format("{}'{}' must be an integer", where, key));
  return number->get();
}

// A required text that must say something: an empty one would be written
// back as missing (and means nothing).
std::string Reader::NonEmpty(const toml::table& table, std::string_view key,
                             const std::string& where) const {
  std::string text = String(table, key, where, true);
  if (text.empty()) Fail(table.get(key), fmt::format("{}'{}' is empty", where, key));
  return text;
}

Scenario Reader::Read(const toml::table& root) const {
  OnlyKeys(root,
           {"name", "title", "story", "lesson", "class", "seed", "topology", "crash", "checkers",
            "image", "service", "step", "budget", "fault", "recorded"},
           "");
  Scenario scenario;
  scenario.name = String(root, "name", "", true);
  scenario.title = String(root, "title", "", true);
  scenario.story = String(root, "story", "", false);
  scenario.lesson = String(root, "lesson", "", false);
  scenario.failure_class = String(root, "class", "", false);
  if (!scenario.failure_class.empty() && FindFailureClass(scenario.failure_class) == nullptr) {
    std::string known;
    for (const FailureClass& c : FailureClasses()) {
      known += (known.empty() ? "" : ", ") + std::string(c.id);
    }
    Fail(root.get("class"),
         fmt::format("no failure class '{}' (known: {})", scenario.failure_class, known));
  }
  if (const std::optional<std::int64_t> seed = Integer(root, "seed", "")) {
    if (*seed < 0) Fail(root.get("seed"), "'seed' must not be negative");
    scenario.seed = static_cast<std::uint64_t>(*seed);
  }
  // Images first: the topology and the steps may name their versions.
  if (const toml::node* images = root.get("image")) ReadImages(*images, scenario);
  if (const toml::node* topology = root.get("topology")) ReadTopology(*topology, scenario);
  services_ = ServicesOf(scenario);  // What service names in the rest may be.
  if (const toml::node* crash = root.get("crash")) ReadCrash(*crash, scenario);
  if (const toml::node* budget = root.get("budget")) ReadBudget(*budget, scenario);
  if (const toml::node* checkers = root.get("checkers")) ReadCheckers(*checkers, scenario);
  if (const toml::node* recorded = root.get("recorded")) ReadRecorded(*recorded, scenario);
  if (const toml::node* services = root.get("service")) {
    ReadServices(*services, scenario);
    CheckNoDependencyCycle(*services, scenario);
  }
  const toml::node* steps = root.get("step");
  if (steps == nullptr) Fail(&root, "a scenario needs at least one [[step]]");
  const toml::array* list = steps->as_array();
  if (list == nullptr) Fail(steps, "'step' must be an array of tables: write [[step]]");
  if (list->size() > limits_.steps) {
    Fail(steps,
         fmt::format("{} [[step]]s: {}", list->size(), OverLimit(limits_, &InputLimits::steps)));
  }
  std::size_t number = 0;
  for (const toml::node& step : *list) {
    scenario.steps.push_back(ReadStep(step, ++number, scenario));
  }
  FL_ASSERT(scenario.steps.size() == list->size());
  if (!scenario.crash_site.empty()) {
    FL_ASSERT(root.get("crash") != nullptr && root.get("crash")->is_table());  // ReadCrash's.
    CheckCrashSite(*root.get("crash")->as_table(), scenario);
  }
  if (const toml::node* faults = root.get("fault")) ReadFaults(*faults, scenario);
  return scenario;
}

// A service of the seed's compose file, named under `key`; with
// `pattern`, also "kuri-*": any service whose name starts so.
std::string Reader::ServiceName(const toml::table& table, std::string_view key,
                                std::string_view where, bool pattern) const {
  FL_ASSERT(!services_.empty());  // The list a wrong name is told.
  std::string name = String(table, key, where, true);
  if (pattern && name.ends_with('*') && !MatchingServices(name, services_).empty()) return name;
  if (ImageOf(name).empty()) {
    std::string list;
    for (std::size_t i = 0; i < services_.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == services_.size() ? " and " : ", ") + services_[i].name;
    }
    std::vector<std::string_view> names;
    for (const auto& service : services_) names.push_back(service.name);
    Fail(table.get(key), fmt::format("{}no service '{}'{} (this cluster's services are {})", where,
                                     name, DidYouMean(name, names), list));
  }
  return name;
}

// `version` of `service`'s image: a built-in one, or an [[image]] of the
// scenario (read before the topology and the steps).
void Reader::CheckVersion(const toml::node* at, const std::string& service,
                          const std::string& version, const Scenario& scenario,
                          std::string_view where) const {
  const std::string image = ImageOf(service);
  // Its service was read (ServiceName) or is the topology's own.
  FL_ASSERT_MSG(!image.empty(), "{}{} runs no image", where, service);
  const std::vector<std::string>& builtin = models::s3::SeedImageVersions(image);
  if (std::find(builtin.begin(), builtin.end(), version) != builtin.end()) return;
  std::string known;
  for (const std::string& name : builtin) known += (known.empty() ? "" : ", ") + name;
  for (const ImageSpec& own : scenario.images) {
    if (ImageOfSpec(own) != image) continue;
    if (own.version == version) return;
    known += ", " + own.version;
  }
  Fail(at,
       fmt::format("{}{} has no image version '{}' (known: {})", where, service, version, known));
}

// The image `service` runs in this cluster; empty when there is none.
std::string Reader::ImageOf(std::string_view service) const {
  for (const ServiceImage& known : services_) {
    if (known.name == service) return known.image;
  }
  return {};
}

std::string Reader::ImageOfSpec(const ImageSpec& image) {
  return image.service == "proxy" ? models::s3::kProxyImage : models::s3::kNodeImage;
}

}  // namespace file

namespace {

// toml++ bounds arrays and inline tables at 256 levels, but reads a dotted
// key (a.b.c = 1, [a.b.c]) by recursion without a bound: 50,000 levels
// overflow the stack. So the longest chain of dotted key parts is measured
// here first, with the same bound. Quoted strings (multi-line ones too) and
// comments are skipped; anything but a key part, a dot or a blank ends a
// chain, so numbers such as 1.5 never add up.
constexpr std::size_t kMaxKeyDepth = 256;

std::optional<FileError> KeyTooDeep(std::string_view text, std::string_view source) {
  std::size_t line = 1;
  std::size_t line_start = 0;
  std::size_t chain = 0;
  std::string_view open_quote;  // The quote of the string we are in, if any.
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
      if (open_quote.size() != 3) open_quote = {};  // Only """ and ''' span lines.
      chain = 0;
    } else if (!open_quote.empty()) {
      if (c == '\\' && open_quote[0] == '"') {
        ++i;  // An escaped character, never the closing quote.
      } else if (text.substr(i).starts_with(open_quote)) {
        i += open_quote.size() - 1;
        open_quote = {};
      }
    } else if (c == '"' || c == '\'') {
      const std::string_view triple = c == '"' ? R"(""")" : "'''";
      open_quote = text.substr(i).starts_with(triple) ? triple : text.substr(i, 1);
      i += open_quote.size() - 1;
    } else if (c == '#') {
      const std::size_t end = text.find('\n', i);
      i = (end == std::string_view::npos ? text.size() : end) - 1;  // The newline ends it.
    } else if (c == '.') {
      if (++chain > kMaxKeyDepth) {
        return FileError{fmt::format("{}:{}:{}: a key nested more than {} levels deep", source,
                                     line, i - line_start + 1, kMaxKeyDepth)};
      }
    } else if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != ' ' &&
               c != '\t') {
      chain = 0;
    }
  }
  return std::nullopt;
}

}  // namespace

std::variant<Scenario, FileError> ParseScenario(std::string_view text, std::string_view source,
                                                const InputLimits& limits) {
  if (std::optional<FileError> deep = KeyTooDeep(text, source)) return *deep;
  try {
    const toml::table root = toml::parse(text, source);
    return file::Reader(source, limits).Read(root);
  } catch (const toml::parse_error& error) {
    const toml::source_position at = error.source().begin;
    return FileError{fmt::format("{}:{}:{}: {}", source, at.line, at.column, error.description())};
  } catch (const file::Located& error) {
    // Every mistake says where: "file:line:col: what".
    FL_ASSERT_MSG(error.message.starts_with(source), "unlocated: {}", error.message);
    return FileError{error.message};
  }
}

std::variant<Scenario, FileError> LoadScenarioFile(const std::filesystem::path& path,
                                                   const InputLimits& limits) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::not_found) {
    return FileError{fmt::format("{}: no such file", path.string())};
  }
  if (status.type() == std::filesystem::file_type::directory) {
    return FileError{fmt::format("{}: is a directory, not a scenario file", path.string())};
  }
  if (error) {  // A loop of links, a folder it may not enter.
    return FileError{fmt::format("{}: cannot read it: {}", path.string(), error.message())};
  }
  // A FIFO would block the read until a writer comes (perhaps never); a
  // device never ends. A scenario is a file.
  if (status.type() != std::filesystem::file_type::regular) {
    return FileError{
        fmt::format("{}: is not a regular file (a FIFO, a device or a socket), not "
                    "a scenario file",
                    path.string())};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return FileError{
        fmt::format("{}: cannot read the file: {}", path.string(), std::strerror(errno))};
  }
  // A bound: a scenario is a page of text, and /dev/zero never ends. Read
  // in pieces, so a raised limit costs only what the file holds.
  std::string contents;
  std::array<char, 64 * 1024> piece;
  while (contents.size() <= limits.scenario_file_bytes &&
         in.read(piece.data(), piece.size()).gcount() > 0) {
    contents.append(piece.data(), static_cast<std::size_t>(in.gcount()));
  }
  // At most one piece past the limit is ever held.
  FL_ASSERT(contents.size() <= limits.scenario_file_bytes + piece.size());
  if (contents.size() > limits.scenario_file_bytes) {
    return FileError{
        fmt::format("{}: {}", path.string(), OverLimit(limits, &InputLimits::scenario_file_bytes))};
  }
  return ParseScenario(contents, path.string(), limits);
}

}  // namespace faultline::scenarios
