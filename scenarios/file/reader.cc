#include "scenarios/file/scenario_file.h"

#include "fakes/runtime.h"
#include "fakes/sqlite_vfs.h"
#include "models/migrate/cassandra_driver.h"
#include "models/migrate/folder.h"
#include "models/migrate/statements.h"
#include "models/operator/migrate_cli.h"
#include "models/s3/seed_images.h"
#include "scenarios/core/failure_classes.h"
#include "scenarios/core/topology.h"
#include "scenarios/steps/steps.h"
#include "sim/assert.h"
#include "sim/trace.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace faultline::scenarios {
namespace {

// Carries a located error out of the nested reading; caught in ParseScenario.
struct Located {
  std::string message;
};

class Reader {
 public:
  Reader(std::string_view source, const InputLimits& limits) : source_(source), limits_(limits) {}

  [[noreturn]] void Fail(const toml::node* node, std::string_view what) const {
    if (node == nullptr) throw Located{fmt::format("{}: {}", source_, what)};
    FailAt(node->source().begin, what);
  }
  [[noreturn]] void FailAt(const toml::source_position& at, std::string_view what) const {
    throw Located{fmt::format("{}:{}:{}: {}", source_, at.line, at.column, what)};
  }

  // Only `allowed` keys may appear in `table`.
  void OnlyKeys(const toml::table& table, const std::set<std::string_view>& allowed,
                std::string_view where) const {
    for (const auto& [key, value] : table) {
      if (!allowed.contains(key.str())) {
        std::string list;
        for (std::string_view name : allowed)
          list += (list.empty() ? "" : ", ") + std::string(name);
        FailAt(key.source().begin,
               fmt::format("{}unknown key '{}' (expected one of: {})", where, key.str(), list));
      }
    }
  }

  std::string String(const toml::table& table, std::string_view key, std::string_view where,
                     bool required) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) {
      if (required) Fail(&table, fmt::format("{}missing '{}'", where, key));
      return {};
    }
    const auto* text = node->as_string();
    if (text == nullptr) Fail(node, fmt::format("{}'{}' must be a string", where, key));
    return text->get();
  }

  std::optional<std::int64_t> Integer(const toml::table& table, std::string_view key,
                                      std::string_view where) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return std::nullopt;
    const auto* number = node->as_integer();
    if (number == nullptr) Fail(node, fmt::format("{}'{}' must be an integer", where, key));
    return number->get();
  }

  Scenario Read(const toml::table& root) const {
    OnlyKeys(root,
             {"name", "title", "story", "lesson", "class", "seed", "topology", "crash", "checkers",
              "image", "service", "step", "budget", "fault"},
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
    if (!scenario.crash_site.empty()) CheckCrashSite(*root.get("crash")->as_table(), scenario);
    if (const toml::node* faults = root.get("fault")) ReadFaults(*faults, scenario);
    return scenario;
  }

 private:
  void ReadTopology(const toml::node& node, Scenario& scenario) const {
    const toml::table* table = node.as_table();
    if (table == nullptr) Fail(&node, "[topology] must be a table");
    OnlyKeys(*table, {"node", "proxy", "db_init", "store", "nodes", "node_keyspace"}, "topology: ");
    if (const std::optional<std::int64_t> nodes = Integer(*table, "nodes", "topology: ")) {
      if (*nodes < 1 || *nodes > models::s3::kMaxNodes) {
        Fail(table->get("nodes"),
             fmt::format("topology: 'nodes' is 1 to {}, not {}", models::s3::kMaxNodes, *nodes));
      }
      scenario.nodes = static_cast<int>(*nodes);
    }
    if (table->contains("node_keyspace")) {
      const std::string keyspace = String(*table, "node_keyspace", "topology: ", true);
      if (keyspace != "own" && keyspace != "shared") {
        Fail(table->get("node_keyspace"),
             "topology: 'node_keyspace' is \"own\" (one per node, as in the seed) or \"shared\"");
      }
      scenario.shared_node_keyspace = keyspace == "shared";
    }
    const std::pair<const char*, std::string Scenario::*> keys[] = {
        {"node", &Scenario::node_version},
        {"proxy", &Scenario::proxy_version},
        {"db_init", &Scenario::db_init_version},
        {"store", &Scenario::store_version}};
    for (const auto& [key, member] : keys) {
      if (!table->contains(key)) continue;
      std::string version = String(*table, key, "topology: ", true);
      CheckVersion(table->get(key), ServiceOfTopologyKey(key), version, scenario, "topology: ");
      scenario.*member = std::move(version);
    }
  }

  // The service whose image a [topology] key sets (kuri-2 runs kuri-1's).
  static std::string ServiceOfTopologyKey(std::string_view key) {
    if (key == "node") return "kuri-1";
    if (key == "proxy") return "s3-proxy";
    if (key == "db_init") return "db-init";
    return "yugabyte";
  }

  // [budget] time = "48h", steps = 100000000: what one run may spend.
  void ReadBudget(const toml::node& node, Scenario& scenario) const {
    const toml::table* table = node.as_table();
    if (table == nullptr) Fail(&node, "[budget] must be a table");
    OnlyKeys(*table, {"time", "steps"}, "budget: ");
    if (table->contains("time")) {
      const std::string text = String(*table, "time", "budget: ", true);
      const std::optional<sim::Duration> time = ParseDuration(text);
      if (!time || *time == sim::Duration::zero()) {
        Fail(table->get("time"), "budget: " + DurationError(text) + ", and more than none");
      }
      scenario.budget.virtual_time = *time;
    }
    if (const std::optional<std::int64_t> steps = Integer(*table, "steps", "budget: ")) {
      if (*steps < 1 || static_cast<std::uint64_t>(*steps) > Budget::kMaxSteps) {
        Fail(table->get("steps"),
             fmt::format("budget: 'steps' is 1 to {}, not {}", Budget::kMaxSteps, *steps));
      }
      scenario.budget.steps = static_cast<std::uint64_t>(*steps);
    }
  }

  void ReadCrash(const toml::node& node, Scenario& scenario) const {
    const toml::table* table = node.as_table();
    if (table == nullptr) Fail(&node, "[crash] must be a table");
    OnlyKeys(*table, {"site", "hit"}, "crash: ");
    scenario.crash_site = String(*table, "site", "crash: ", true);
    const std::optional<std::int64_t> hit = Integer(*table, "hit", "crash: ");
    if (!hit || *hit < 1) Fail(table, "crash: 'hit' must be a positive integer");
    scenario.crash_hit = static_cast<std::uint64_t>(*hit);
  }

  // The crash's site must be one a run of this cluster can pass (read last:
  // the steps' set-image and migrate steps add sites).
  void CheckCrashSite(const toml::table& crash, const Scenario& scenario) const {
    CheckSite(crash.get("site"), scenario.crash_site, scenario, "crash: ");
  }

  void CheckSite(const toml::node* at, const std::string& site, const Scenario& scenario,
                 const std::string& where) const {
    const std::vector<std::string> sites = FaultSitesOf(scenario);
    if (std::binary_search(sites.begin(), sites.end(), site)) return;
    std::string list;
    for (const std::string& known : sites) list += (list.empty() ? "" : ", ") + known;
    Fail(at, fmt::format("{}no runner of this cluster has a fault site '{}' (its sites: {})", where,
                         site, list));
  }

  // [[fault]]: site, hit, action (crash, error, delay), and for an error its
  // kind and text, for a delay its length, and which service's hits count.
  void ReadFaults(const toml::node& node, Scenario& scenario) const {
    const toml::array* list = node.as_array();
    if (list == nullptr) Fail(&node, "'fault' must be an array of tables: write [[fault]]");
    if (list->size() > limits_.faults) {
      Fail(&node, fmt::format("{} [[fault]]s: {}", list->size(),
                              OverLimit(limits_, &InputLimits::faults)));
    }
    std::size_t number = 0;
    for (const toml::node& item : *list) {
      const std::string where = fmt::format("fault {}: ", ++number);
      const toml::table* table = item.as_table();
      if (table == nullptr) Fail(&item, where + "a fault must be a table");
      OnlyKeys(*table, {"site", "hit", "action", "error", "message", "for", "survives", "service"},
               where);
      FaultSpec fault;
      fault.site = NonEmpty(*table, "site", where);
      CheckSite(table->get("site"), fault.site, scenario, where);
      const std::optional<std::int64_t> hit = Integer(*table, "hit", where);
      if (hit && *hit < 1) Fail(table->get("hit"), where + "'hit' must be a positive integer");
      fault.hit = hit ? static_cast<std::uint64_t>(*hit) : 1;
      const std::string action = String(*table, "action", where, true);
      const auto found = std::find_if(FaultActions().begin(), FaultActions().end(),
                                      [&](const FaultActionName& a) { return a.name == action; });
      if (found == FaultActions().end()) {
        Fail(table->get("action"), where + "'action' is crash, error, delay or power-loss");
      }
      fault.action = found->action;
      // A power loss drops unsynced writes: only where data is written.
      if (fault.action == FaultSpec::Action::kPowerLoss && !IsDataIoSite(fault.site)) {
        Fail(table->get("site"),
             where +
                 "a power-loss is at a disk I/O site: disk.read, disk.write, disk.sync or "
                 "disk.truncate");
      }
      ReadFaultDetails(*table, where, fault);
      if (table->contains("service")) fault.service = ServiceName(*table, "service", where);
      scenario.faults.push_back(std::move(fault));
    }
  }

  // The disk sites where data moves, so where a power loss drops some.
  static bool IsDataIoSite(std::string_view site) {
    for (const std::string_view io :
         {fakes::SqliteVfs::kSiteRead, fakes::SqliteVfs::kSiteWrite, fakes::SqliteVfs::kSiteSync,
          fakes::SqliteVfs::kSiteTruncate}) {
      if (site == io) return true;
    }
    return false;
  }

  // A power loss's model (sim::SurvivorsNamed), the same in a step and a fault.
  sim::Survivors ReadSurvivors(const toml::table& table, std::string_view key,
                               const std::string& where) const {
    const std::optional<sim::Survivors> survivors =
        sim::SurvivorsNamed(String(table, key, where, true));
    if (!survivors) {
      Fail(table.get(key),
           where + "'survives' is nothing-unsynced, in-order-prefix or torn-blocks");
    }
    return *survivors;
  }

  // What an error or a delay needs, and nothing an action does not use.
  void ReadFaultDetails(const toml::table& table, const std::string& where,
                        FaultSpec& fault) const {
    const bool error = fault.action == FaultSpec::Action::kError;
    const bool delay = fault.action == FaultSpec::Action::kDelay;
    for (const char* key : {"error", "message"}) {
      if (table.contains(key) && !error)
        Fail(table.get(key), fmt::format("{}'{}' is for an error", where, key));
    }
    if (table.contains("for") && !delay) Fail(table.get("for"), where + "'for' is for a delay");
    const bool power_loss = fault.action == FaultSpec::Action::kPowerLoss;
    if (table.contains("survives") && !power_loss) {
      Fail(table.get("survives"), where + "'survives' is for a power-loss");
    }
    if (power_loss && table.contains("survives")) {
      fault.survivors = ReadSurvivors(table, "survives", where);
    }
    if (error) {
      fault.error = table.contains("error") ? String(table, "error", where, true) : "server";
      std::string kinds;
      bool known = false;
      for (const FaultError& kind : FaultErrors()) {
        kinds += (kinds.empty() ? "" : ", ") + std::string(kind.name);
        known = known || kind.name == fault.error;
      }
      if (!known) Fail(table.get("error"), fmt::format("{}'error' is one of {}", where, kinds));
      fault.message = String(table, "message", where, false);
    }
    if (delay) {
      const std::string text = String(table, "for", where, true);
      const std::optional<sim::Duration> duration = ParseDuration(text);
      if (!duration) Fail(table.get("for"), where + DurationError(text));
      fault.delay = *duration;
    }
  }

  // [[image]]: an image version with its own migrations, inline
  // ([[image.file]] name/body) or a folder relative to the scenario file.
  void ReadImages(const toml::node& node, Scenario& scenario) const {
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
      const std::vector<std::string>& builtin = models::s3::SeedImageVersions(ImageOfSpec(image));
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
  void ReadRunnerSettings(const toml::table& table, const std::string& where,
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

  void ReadRetry(const toml::node& node, const std::string& where,
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
        Fail(
            table->get(key),
            fmt::format("{}retry '{}' is a duration from 1ms to 1h (write 2s, 500ms)", where, key));
      }
      (key == "delay" ? retry.initial : retry.cap) = *duration;
    }
    // As the gateway: the back-off doubles up to the cap, never past it.
    retry.cap = std::max(retry.cap, retry.initial);
  }

  void ReadFiles(const toml::node& node, const std::string& where, ImageSpec& image) const {
    const toml::array* list = node.as_array();
    if (list == nullptr) Fail(&node, where + "'file' must be an array of tables: [[image.file]]");
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
  }

  // The migration files of a folder (relative to the scenario file), read
  // as models/migrate/folder.h reads one; any problem is an error at the
  // folder's line.
  std::vector<models::migrate::MigrationFile> ReadFolder(const std::string& folder,
                                                         const toml::node* at,
                                                         const std::string& where) const {
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

  // [[service]]: changes to one service of the seed compose file.
  void ReadServices(const toml::node& node, Scenario& scenario) const {
    const toml::array* list = node.as_array();
    if (list == nullptr) Fail(&node, "'service' must be an array of tables: write [[service]]");
    std::size_t number = 0;
    for (const toml::node& item : *list) {
      const std::string where = fmt::format("service {}: ", ++number);
      const toml::table* table = item.as_table();
      if (table == nullptr) Fail(&item, where + "a service must be a table");
      OnlyKeys(*table, {"name", "restart", "depends_on", "data", "env"}, where);
      ServiceOverride change;
      change.name = ServiceName(*table, "name", where);
      if (const toml::node* env = table->get("env")) change.env = ReadEnv(*env, change.name, where);
      change.restart = String(*table, "restart", where, false);
      if (!change.restart.empty() && change.restart != "no" && change.restart != "always" &&
          change.restart != "on-failure") {
        Fail(table->get("restart"), where + "'restart' is no, always or on-failure");
      }
      change.data = String(*table, "data", where, false);
      if (!change.data.empty() && change.data != "host" && change.data != "named") {
        Fail(table->get("data"), where + "'data' is host or named");
      }
      if (const toml::node* depends = table->get("depends_on")) {
        const toml::array* on = depends->as_array();
        if (on == nullptr)
          Fail(depends, where + "'depends_on' is an array of { service, condition }");
        change.depends_on.emplace();
        for (const toml::node& entry : *on) {
          const toml::table* dependency = entry.as_table();
          if (dependency == nullptr) Fail(&entry, where + "a dependency is { service, condition }");
          OnlyKeys(*dependency, {"service", "condition"}, where + "depends_on: ");
          const std::string condition = String(*dependency, "condition", where, false);
          if (!condition.empty() && condition != "started" && condition != "healthy" &&
              condition != "completed") {
            Fail(dependency->get("condition"),
                 where + "'condition' is started, healthy or completed");
          }
          std::string service = ServiceName(*dependency, "service", where + "depends_on: ");
          if (service == change.name) {
            Fail(dependency->get("service"), where + "a service cannot depend on itself");
          }
          change.depends_on->emplace_back(std::move(service),
                                          condition.empty() ? "started" : condition);
        }
      }
      scenario.services.push_back(std::move(change));
    }
  }

  // env = { KEYSPACE = "..." }: only what the service's image reads.
  std::map<std::string, std::string> ReadEnv(const toml::node& node, const std::string& service,
                                             const std::string& where) const {
    const toml::table* table = node.as_table();
    if (table == nullptr) Fail(&node, where + "'env' is a table: env = { KEY = \"value\" }");
    const std::vector<std::string>& known = models::s3::EnvironmentKeys(ImageOf(service));
    std::map<std::string, std::string> env;
    for (const auto& [key, value] : *table) {
      const std::string name(key.str());
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        Fail(&value, fmt::format("{}{} reads no variable '{}' (it reads: {})", where, service, name,
                                 list.empty() ? "none" : list));
      }
      const auto* text = value.as_string();
      if (text == nullptr) Fail(&value, fmt::format("{}env: '{}' must be a string", where, name));
      env[name] = text->get();
    }
    CheckEnvValues(*table, service, env, where);
    return env;
  }

  // The values a node reads as numbers must be ones it accepts.
  void CheckEnvValues(const toml::table& table, const std::string& service,
                      const std::map<std::string, std::string>& env,
                      const std::string& where) const {
    if (ImageOf(service) != models::s3::kNodeImage) return;
    fakes::ServiceSpec spec;
    spec.environment = env;
    if (env.contains("PORT") && models::s3::NodePort(spec) == 0) {
      Fail(table.get("PORT"), where + "env: PORT is a port number, 1 to 65535");
    }
    if (!models::s3::NodeRetryPolicy(spec, models::s3::RetryPolicy{})) {
      Fail(&table, fmt::format("{}env: RETRY_ATTEMPTS is 1 to {}; RETRY_DELAY_MS and RETRY_CAP_MS "
                               "are milliseconds, 1 to {}",
                               where, models::s3::kMaxRetryAttempts, models::s3::kMaxRetryDelayMs));
    }
  }

  // A depends_on cycle would leave `up` waiting forever: refused at the
  // depends_on of the first [[service]] on the cycle. So would waiting for a
  // service without a health check to be healthy.
  void CheckNoDependencyCycle(const toml::node& services, const Scenario& scenario) const {
    const fakes::ComposeSpec spec = ComposeSpecOf(scenario);
    for (const ServiceOverride& change : scenario.services) {
      for (const auto& entry :
           change.depends_on.value_or(std::vector<std::pair<std::string, std::string>>{})) {
        // Named, not a structured binding: clang 14 (the fuzzers' compiler)
        // cannot capture one in the lambda below.
        const std::string& dependency = entry.first;
        const std::string& condition = entry.second;
        const auto target = std::find_if(spec.services.begin(), spec.services.end(),
                                         [&](const auto& s) { return s.name == dependency; });
        if (condition == "healthy" && target != spec.services.end() && !target->healthcheck) {
          Fail(DependsOnOf(services, change.name),
               fmt::format("service {}: {} has no health check, so waiting for it to be healthy "
                           "would never end (use started or completed)",
                           change.name, dependency));
        }
      }
    }
    const std::vector<std::string> cycle = fakes::FindDependencyCycle(spec);
    if (cycle.empty()) return;
    std::string path;
    for (const std::string& name : cycle) path += (path.empty() ? "" : " -> ") + name;
    const toml::node* at = &services;
    std::size_t number = 0;
    for (const toml::node& item : *services.as_array()) {
      ++number;
      const toml::table& table = *item.as_table();
      const std::optional<std::string> name = table["name"].value<std::string>();
      if (name && table.contains("depends_on") &&
          std::find(cycle.begin(), cycle.end(), *name) != cycle.end()) {
        at = table.get("depends_on");
        break;
      }
    }
    Fail(at, fmt::format("service {}: a depends_on cycle: {}", number, path));
  }

  // The depends_on of the [[service]] that changes `name`.
  static const toml::node* DependsOnOf(const toml::node& services, const std::string& name) {
    for (const toml::node& item : *services.as_array()) {
      const toml::table& table = *item.as_table();
      if (table["name"].value<std::string>() == name && table.contains("depends_on")) {
        return table.get("depends_on");
      }
    }
    return &services;
  }

  // [checkers] acknowledged-writes = false: the checkers this story breaks.
  void ReadCheckers(const toml::node& node, Scenario& scenario) const {
    const toml::table* table = node.as_table();
    if (table == nullptr) Fail(&node, "[checkers] must be a table");
    OnlyKeys(*table,
             {"acknowledged-writes", "index-points-at-bytes", "schema-matches-image", "converges"},
             "checkers: ");
    for (const auto& [key, value] : *table) {
      const auto* holds = value.as_boolean();
      if (holds == nullptr)
        Fail(&value, fmt::format("checkers: '{}' must be true or false", key.str()));
      scenario.checkers[std::string(key.str())] = holds->get();
    }
  }

  // A step: its kind (steps.h) says which fields it takes; each is read
  // and checked as its field says, and a field of another kind is refused.
  Step ReadStep(const toml::node& node, std::size_t number, const Scenario& scenario) const {
    const std::string where = fmt::format("step {}: ", number);
    const toml::table* table = node.as_table();
    if (table == nullptr) Fail(&node, where + "a step must be a table");
    const std::string action = String(*table, "do", where, true);
    const StepKind* kind = FindStepKind(action);
    if (kind == nullptr) {
      std::set<std::string_view> names;  // Sorted, to be scanned.
      for (const StepKind& known : StepKinds()) names.insert(known.name);
      std::string list;
      for (const std::string_view name : names)
        list += (list.empty() ? "" : ", ") + std::string(name);
      Fail(table->get("do"),
           fmt::format("{}unknown action '{}' (expected one of: {})", where, action, list));
    }
    CheckStepKeys(*table, *kind, where);
    Step step;
    step.kind = kind->kind;
    step.number = std::max<std::int64_t>(kind->number, 0);
    step.narration = String(*table, "say", where, false);
    step.duration = kind->default_duration;
    for (const StepFieldUse& use : kind->fields) ReadField(use, *table, scenario, where, step);
    // A link has two ends: the other end, or a direction, needs the first.
    if (step.service.empty() && (!step.peer.empty() || step.one_way)) {
      Fail(table->get(step.peer.empty() ? "one_way" : "peer"),
           fmt::format("{}'{}' needs 'service', the link's other end", where,
                       step.peer.empty() ? "one_way" : "peer"));
    }
    if (std::any_of(kind->fields.begin(), kind->fields.end(),
                    [](const StepFieldUse& use) { return use.field == StepField::kVolume; })) {
      CheckVolume(*table, step, scenario, where);
    }
    FL_ASSERT(&StepKindOf(step) == kind);  // What is read is written back as the same kind.
    if (const toml::node* expect = table->get("expect"))
      step.expect = ReadExpectations(*expect, where);
    return step;
  }

  // Only do, say, expect and the kind's own fields; a field another kind
  // takes is named as such (a person wrote it, and it would do nothing).
  void CheckStepKeys(const toml::table& table, const StepKind& kind,
                     const std::string& where) const {
    std::set<std::string_view> allowed = {"do", "say", "expect"};
    std::string takes;
    for (const StepFieldUse& use : kind.fields) {
      allowed.insert(StepFieldKey(use.field));
      takes += (takes.empty() ? "" : ", ") + std::string(StepFieldKey(use.field));
    }
    std::set<std::string_view> any_field;
    for (const StepKind& other : StepKinds()) {
      for (const StepFieldUse& use : other.fields) any_field.insert(StepFieldKey(use.field));
    }
    for (const auto& [key, value] : table) {
      if (allowed.contains(key.str()) || !any_field.contains(key.str())) continue;
      Fail(&value, fmt::format("{}{} takes no '{}'{}", where, kind.name, key.str(),
                               takes.empty() ? "" : " (it takes " + takes + ")"));
    }
    OnlyKeys(table, allowed, where);
  }

  // One field of a step, read and checked as that field is wherever it
  // appears; `required` says whether the kind needs it.
  void ReadField(const StepFieldUse& use, const toml::table& table, const Scenario& scenario,
                 const std::string& where, Step& step) const {
    const std::string_view key = StepFieldKey(use.field);
    const toml::node* at = table.get(key);
    if (at == nullptr && !use.required) return;
    switch (use.field) {
      case StepField::kService:
        step.service = ServiceName(table, key, where);
        if (step.kind == Step::Kind::kS3 && ImageOf(step.service) != models::s3::kNodeImage &&
            ImageOf(step.service) != models::s3::kProxyImage) {
          Fail(at, where + "an s3 step goes to the proxy or a node, not " + step.service);
        }
        return;
      case StepField::kVersion:
        step.version = String(table, key, where, true);
        CheckVersion(at, step.service, step.version, scenario, where);
        return;
      case StepField::kMethod: {
        static const std::set<std::string, std::less<>> kMethods = {"GET", "PUT", "HEAD", "DELETE",
                                                                    "POST"};
        step.method = String(table, key, where, true);
        if (!kMethods.contains(step.method)) {
          Fail(at, where + "'method' is GET, PUT, HEAD, DELETE or POST");
        }
        return;
      }
      case StepField::kPath:
        step.path = NonEmpty(table, key, where);
        if (!step.path.starts_with('/')) Fail(at, where + "'path' starts with /, like /bucket/key");
        return;
      case StepField::kQuery:
        step.query = String(table, key, where, true);
        return;
      case StepField::kBody:
        step.body = String(table, key, where, true);
        return;
      case StepField::kParts: {
        const toml::array* list = at == nullptr ? nullptr : at->as_array();
        if (list == nullptr || list->empty() || list->size() > kMaxParts) {
          Fail(at == nullptr ? &table : at,
               fmt::format("{}multipart needs 'parts', a list of 1 to {} strings", where,
                           kMaxParts));
        }
        for (const toml::node& part : *list) {
          if (part.as_string() == nullptr) Fail(&part, where + "each part is a string");
          step.parts.push_back(part.as_string()->get());
        }
        return;
      }
      case StepField::kStatement:
        step.statement = NonEmpty(table, key, where);
        return;
      case StepField::kKeyspace:
        step.keyspace = NonEmpty(table, key, where);
        return;
      case StepField::kTo: {
        const std::optional<std::int64_t> to = Integer(table, key, where);
        if (!to) Fail(&table, where + "migrate-force needs 'to', the version to record");
        if (*to < -1) Fail(at, where + "'to' is a version, or -1 for none");
        step.number = *to;
        return;
      }
      case StepField::kUntil: {
        step.state = String(table, key, where, true);
        if (!IsContainerState(step.state)) {
          Fail(at, where + "'until' is created, running, restarting or exited");
        }
        return;
      }
      case StepField::kPeer:
        step.peer = ServiceName(table, key, where);
        if (step.peer == step.service) Fail(at, where + "'peer' is another service");
        return;
      case StepField::kOneWay: {
        const auto* flag = at->as_boolean();
        if (flag == nullptr) Fail(at, where + "'one_way' is true or false");
        step.one_way = flag->get();
        return;
      }
      case StepField::kDistribution:
        step.distribution = String(table, key, where, true);
        if (step.distribution != "fixed" && step.distribution != "uniform" &&
            step.distribution != "exponential") {
          Fail(at, where + "'distribution' is fixed, uniform or exponential");
        }
        return;
      case StepField::kBase:
      case StepField::kExtra: {
        const std::string text = String(table, key, where, true);
        const std::optional<sim::Duration> duration = ParseDuration(text);
        // A message that takes an hour is no network: a bound on both.
        if (!duration || *duration > std::chrono::hours(1)) {
          Fail(at, fmt::format("{}'{}' is a duration of at most 1h (write 500ms, 2s)", where, key));
        }
        (use.field == StepField::kBase ? step.duration : step.extra) = *duration;
        return;
      }
      case StepField::kProbability: {
        if (at == nullptr) Fail(&table, where + "loss needs 'probability', a number from 0 to 1");
        const std::optional<double> probability = at->value<double>();
        if (!probability || *probability < 0.0 || *probability > 1.0) {
          Fail(at, where + "'probability' is a number from 0 to 1");
        }
        step.probability = *probability;
        return;
      }
      case StepField::kSurvives: {
        step.survivors = ReadSurvivors(table, key, where);
        return;
      }
      case StepField::kCommand: {
        step.command = NonEmpty(table, key, where);
        const std::vector<std::string> words = models::ops::MigrateCliWords(step.command);
        if (words.empty() || !models::ops::IsMigrateCliCommand(words[0])) {
          Fail(at, where +
                       "'command' is a migrate command: up [N], down [N], down -all, goto V, "
                       "force V or version");
        }
        return;
      }
      case StepField::kVolume:
        step.volume = NonEmpty(table, key, where);
        return;  // Checked against the service's mounts by CheckVolume.
      case StepField::kOn: {
        const toml::array* list = at == nullptr ? nullptr : at->as_array();
        const std::string_view usage =
            "'on' lists the I/O that fails: \"read\", \"write\", \"sync\"";
        if (list == nullptr || list->empty())
          Fail(at == nullptr ? &table : at, where + std::string(usage));
        for (const toml::node& item : *list) {
          const std::string* io = item.as_string() == nullptr ? nullptr : &item.as_string()->get();
          if (io == nullptr || !fakes::DiskIoNamed(*io)) {
            Fail(&item, where + std::string(usage));
          }
          if (std::find(step.io.begin(), step.io.end(), *io) != step.io.end()) {
            Fail(&item, fmt::format("{}'on' names {} twice", where, *io));
          }
          step.io.push_back(*io);
        }
        return;
      }
      case StepField::kPersistent: {
        const auto* flag = at->as_boolean();
        if (flag == nullptr) Fail(at, where + "'persistent' is true or false");
        step.persistent = flag->get();
        return;
      }
      case StepField::kFor: {
        const std::string text = String(table, key, where, true);
        const std::optional<sim::Duration> duration = ParseDuration(text);
        if (!duration) Fail(at, where + DurationError(text));
        // Waiting for a state needs some time to wait in.
        if ((step.kind == Step::Kind::kWaitFor || step.kind == Step::Kind::kClog ||
             step.kind == Step::Kind::kPowerLoss) &&
            *duration == sim::Duration::zero()) {
          Fail(at, fmt::format("{}{} needs a 'for' longer than 0", where, StepKindOf(step).name));
        }
        step.duration = *duration;
        return;
      }
    }
  }

  // A disk step's service mounts a volume, and its `volume` is one of them.
  void CheckVolume(const toml::table& table, const Step& step, const Scenario& scenario,
                   const std::string& where) const {
    const fakes::ComposeSpec spec = ComposeSpecOf(scenario);
    std::vector<std::string> sources;
    for (const fakes::ServiceSpec& service : spec.services) {
      if (service.name != step.service) continue;
      for (const fakes::MountSpec& mount : service.mounts) sources.push_back(mount.source);
    }
    if (sources.empty()) {
      Fail(table.get("service"),
           fmt::format("{}{} mounts no volume: there is no disk to act on", where, step.service));
    }
    if (!step.volume.empty() &&
        std::find(sources.begin(), sources.end(), step.volume) == sources.end()) {
      Fail(table.get("volume"), fmt::format("{}{} mounts no volume '{}' (it mounts {})", where,
                                            step.service, step.volume, fmt::join(sources, ", ")));
    }
  }

  // A container state as `docker ps` names it (fakes::ContainerStateName).
  static bool IsContainerState(std::string_view name) {
    for (const fakes::ContainerState state :
         {fakes::ContainerState::kCreated, fakes::ContainerState::kRunning,
          fakes::ContainerState::kRestarting, fakes::ContainerState::kExited}) {
      if (fakes::ContainerStateName(state) == name) return true;
    }
    return false;
  }

  // A required text that must say something: an empty one would be written
  // back as missing (and means nothing).
  std::string NonEmpty(const toml::table& table, std::string_view key,
                       const std::string& where) const {
    std::string text = String(table, key, where, true);
    if (text.empty()) Fail(table.get(key), fmt::format("{}'{}' is empty", where, key));
    return text;
  }

  std::vector<Expectation> ReadExpectations(const toml::node& node,
                                            const std::string& where) const {
    const toml::array* list = node.as_array();
    if (list == nullptr) Fail(&node, where + "'expect' must be an array of tables");
    std::vector<Expectation> expectations;
    for (const toml::node& item : *list) {
      const toml::table* table = item.as_table();
      if (table == nullptr)
        Fail(&item, where + "each expectation is a table, like { status = 200 }");
      expectations.push_back(ReadExpectation(*table, where));
    }
    return expectations;
  }

  // One expectation checks one thing: its first key says what, and only
  // that kind's own keys may come with it (a stray key would be ignored,
  // and a check a person wrote would silently not run).
  Expectation ReadExpectation(const toml::table& table, const std::string& where) const {
    struct Form {
      std::string_view key;
      Expectation::Kind kind;
      std::set<std::string_view> keys;
    };
    static const Form kForms[] = {
        {"status", Expectation::Kind::kStatus, {"status"}},
        {"status_in", Expectation::Kind::kStatusIn, {"status_in"}},
        {"log", Expectation::Kind::kLogContains, {"log", "contains", "lacks"}},
        {"rows", Expectation::Kind::kRows, {"rows"}},
        {"row_with", Expectation::Kind::kRowWith, {"row_with"}},
        {"schema_migrations", Expectation::Kind::kSchemaMigrations, {"schema_migrations", "is"}},
        {"restarted", Expectation::Kind::kRestarted, {"restarted", "times"}},
        {"state", Expectation::Kind::kState, {"state", "is"}},
        {"exited", Expectation::Kind::kExitCode, {"exited", "code"}},
        {"serving", Expectation::Kind::kServing, {"serving"}},
        {"not_serving", Expectation::Kind::kServing, {"not_serving"}},
        {"contains", Expectation::Kind::kOutputContains, {"contains"}},
        {"lacks", Expectation::Kind::kOutputLacks, {"lacks"}},
    };
    OnlyKeys(
        table,
        {"status", "status_in", "contains", "lacks", "log", "restarted", "times", "serving",
         "not_serving", "state", "is", "exited", "code", "rows", "row_with", "schema_migrations"},
        where + "expect: ");
    const Form* form = nullptr;
    for (const Form& candidate : kForms) {
      if (table.contains(candidate.key)) {
        form = &candidate;
        break;
      }
    }
    if (form == nullptr) {
      Fail(&table, where +
                       "an expectation needs one of status, status_in, contains, lacks, log, "
                       "restarted, serving, not_serving, state, exited, rows, row_with or "
                       "schema_migrations");
    }
    const std::string what = fmt::format("{}a '{}' expectation: ", where, form->key);
    OnlyKeys(table, form->keys, what);
    Expectation expectation;
    expectation.kind = form->kind;
    switch (form->kind) {
      case Expectation::Kind::kStatus:
        expectation.number = *Integer(table, "status", what);
        if (expectation.number < 100 || expectation.number > 599) {
          Fail(table.get("status"), what + "an HTTP status is 100 to 599");
        }
        break;
      case Expectation::Kind::kLogContains:
      case Expectation::Kind::kLogLacks:
        expectation.service = ServiceName(table, "log", what, /*pattern=*/true);
        if (table.contains("contains") == table.contains("lacks")) {
          Fail(&table, what + "it needs 'contains' or 'lacks', one of them");
        }
        if (table.contains("lacks")) expectation.kind = Expectation::Kind::kLogLacks;
        expectation.text = NonEmpty(table, table.contains("lacks") ? "lacks" : "contains", what);
        break;
      case Expectation::Kind::kStatusIn: {
        const toml::array* list = table.get("status_in")->as_array();
        if (list == nullptr || list->empty() || list->size() > 100) {
          Fail(table.get("status_in"), what + "'status_in' is a list of 1 to 100 HTTP statuses");
        }
        for (const toml::node& item : *list) {
          const auto* status = item.as_integer();
          if (status == nullptr || status->get() < 100 || status->get() > 599) {
            Fail(&item, what + "an HTTP status is 100 to 599");
          }
          expectation.numbers.push_back(status->get());
        }
        break;
      }
      case Expectation::Kind::kRows: {
        const std::optional<std::int64_t> rows = Integer(table, "rows", what);
        if (!rows || *rows < 0) Fail(table.get("rows"), what + "'rows' is a count, 0 or more");
        expectation.number = *rows;
        break;
      }
      case Expectation::Kind::kRowWith:
        expectation.text = NonEmpty(table, "row_with", what);
        break;
      case Expectation::Kind::kSchemaMigrations:
        expectation.service = NonEmpty(table, "schema_migrations", what);
        expectation.text = NonEmpty(table, "is", what);
        break;
      case Expectation::Kind::kRestarted:
        expectation.service = ServiceName(table, "restarted", what);
        expectation.number = Integer(table, "times", what).value_or(1);
        if (expectation.number < 0) Fail(table.get("times"), what + "'times' must not be negative");
        break;
      case Expectation::Kind::kState: {
        expectation.service = ServiceName(table, "state", what);
        expectation.text = String(table, "is", what, true);
        if (!IsContainerState(expectation.text)) {
          Fail(table.get("is"), what + "'is' is created, running, restarting or exited");
        }
        break;
      }
      case Expectation::Kind::kExitCode: {
        expectation.service = ServiceName(table, "exited", what);
        const std::optional<std::int64_t> code = Integer(table, "code", what);
        if (!code) Fail(&table, what + "it needs 'code'");
        if (*code < 0 || *code > 255) Fail(table.get("code"), what + "an exit code is 0 to 255");
        expectation.number = *code;
        break;
      }
      case Expectation::Kind::kServing:
        expectation.service = ServiceName(table, form->key, what);
        expectation.number = form->key == "serving" ? 1 : 0;
        break;
      case Expectation::Kind::kOutputContains:
      case Expectation::Kind::kOutputLacks:
        expectation.text = String(table, form->key, what, true);
        break;
    }
    return expectation;
  }

  // A service of the seed's compose file, named under `key`; with
  // `pattern`, also "kuri-*": any service whose name starts so.
  std::string ServiceName(const toml::table& table, std::string_view key, std::string_view where,
                          bool pattern = false) const {
    std::string name = String(table, key, where, true);
    if (pattern && name.ends_with('*') && !MatchingServices(name, services_).empty()) return name;
    if (ImageOf(name).empty()) {
      std::string list;
      for (std::size_t i = 0; i < services_.size(); ++i) {
        list += (i == 0 ? "" : i + 1 == services_.size() ? " and " : ", ") + services_[i].name;
      }
      Fail(table.get(key),
           fmt::format("{}no service '{}' (this cluster's services are {})", where, name, list));
    }
    return name;
  }

  // `version` of `service`'s image: a built-in one, or an [[image]] of the
  // scenario (read before the topology and the steps).
  void CheckVersion(const toml::node* at, const std::string& service, const std::string& version,
                    const Scenario& scenario, std::string_view where) const {
    const std::string image = ImageOf(service);
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
  std::string ImageOf(std::string_view service) const {
    for (const ServiceImage& known : services_) {
      if (known.name == service) return known.image;
    }
    return {};
  }

  static std::string ImageOfSpec(const ImageSpec& image) {
    return image.service == "proxy" ? models::s3::kProxyImage : models::s3::kNodeImage;
  }

  std::string source_;
  const InputLimits& limits_;
  // The cluster's services, from [topology] (read before anything names one);
  // before it, the seed's.
  mutable std::vector<ServiceImage> services_ = ServicesOf(Scenario{});
};

}  // namespace

std::variant<Scenario, FileError> ParseScenario(std::string_view text, std::string_view source,
                                                const InputLimits& limits) {
  try {
    const toml::table root = toml::parse(text, source);
    return Reader(source, limits).Read(root);
  } catch (const toml::parse_error& error) {
    const toml::source_position at = error.source().begin;
    return FileError{fmt::format("{}:{}:{}: {}", source, at.line, at.column, error.description())};
  } catch (const Located& error) {
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
  if (contents.size() > limits.scenario_file_bytes) {
    return FileError{
        fmt::format("{}: {}", path.string(), OverLimit(limits, &InputLimits::scenario_file_bytes))};
  }
  return ParseScenario(contents, path.string(), limits);
}

}  // namespace faultline::scenarios
