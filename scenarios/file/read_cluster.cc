// The cluster's sections of a scenario file: [topology], [budget],
// [checkers] and [[service]] (file/reader.h).
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
#include "models/s3/s3.h"
#include "models/s3/seed_images.h"
#include "scenarios/checkers/checkers.h"
#include "scenarios/core/duration.h"
#include "scenarios/core/failure_classes.h"
#include "scenarios/file/reader.h"
#include "sim/assert.h"

namespace faultline::scenarios::file {

void Reader::ReadTopology(const toml::node& node, Scenario& scenario) const {
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
  FL_ASSERT(scenario.nodes >= 1 && scenario.nodes <= models::s3::kMaxNodes);
}

// The service whose image a [topology] key sets (kuri-2 runs kuri-1's).
std::string Reader::ServiceOfTopologyKey(std::string_view key) {
  if (key == "node") return "kuri-1";
  if (key == "proxy") return "s3-proxy";
  if (key == "db_init") return "db-init";
  FL_ASSERT_MSG(key == "store", "no [topology] key '{}' names an image", key);
  return "yugabyte";
}

// [budget] time = "48h", steps = 100000000: what one run may spend.
void Reader::ReadBudget(const toml::node& node, Scenario& scenario) const {
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
  FL_ASSERT(scenario.budget.virtual_time > sim::Duration::zero());
  FL_ASSERT(scenario.budget.steps >= 1 && scenario.budget.steps <= Budget::kMaxSteps);
}

// recorded = { checker = "converges", violation = "* is not serving" }: a
// repro's failure as explore found it.
void Reader::ReadRecorded(const toml::node& node, Scenario& scenario) const {
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    Fail(&node,
         "'recorded' must be a table: recorded = { checker = \"...\", violation = \"...\" }");
  }
  std::set<std::string_view> checkers = {"expectation"};
  for (const CheckerSpec& checker : WholeRunCheckers()) checkers.insert(checker.name);
  OnlyKeys(*table, {"checker", "violation", "build"}, "recorded: ");
  RecordedFailure recorded;
  recorded.checker = String(*table, "checker", "recorded: ", true);
  if (!checkers.contains(recorded.checker)) {
    Fail(table->get("checker"),
         fmt::format("recorded: no checker '{}' (a whole-run checker, or expectation)",
                     recorded.checker));
  }
  recorded.violation = String(*table, "violation", "recorded: ", true);
  if (recorded.violation.empty()) Fail(table->get("violation"), "recorded: 'violation' is empty");
  recorded.build = String(*table, "build", "recorded: ", false);
  scenario.recorded = std::move(recorded);
}

// [checkers] acknowledged-writes = false: the checkers this story breaks.
void Reader::ReadCheckers(const toml::node& node, Scenario& scenario) const {
  const toml::table* table = node.as_table();
  if (table == nullptr) Fail(&node, "[checkers] must be a table");
  std::set<std::string_view> names;
  for (const CheckerSpec& checker : WholeRunCheckers()) names.insert(checker.name);
  OnlyKeys(*table, names, "checkers: ");
  for (const auto& [key, value] : *table) {
    const auto* holds = value.as_boolean();
    if (holds == nullptr)
      Fail(&value, fmt::format("checkers: '{}' must be true or false", key.str()));
    scenario.checkers[std::string(key.str())] = holds->get();
  }
}

// [[service]]: changes to one service of the seed compose file.
void Reader::ReadServices(const toml::node& node, Scenario& scenario) const {
  const toml::array* list = node.as_array();
  if (list == nullptr) Fail(&node, "'service' must be an array of tables: write [[service]]");
  const std::size_t before = scenario.services.size();
  std::size_t number = 0;
  for (const toml::node& item : *list) {
    const std::string where = fmt::format("service {}: ", ++number);
    const toml::table* table = item.as_table();
    if (table == nullptr) Fail(&item, where + "a service must be a table");
    OnlyKeys(*table, {"name", "restart", "depends_on", "data", "env"}, where);
    ServiceOverride change;
    change.name = ServiceName(*table, "name", where);
    for (std::size_t i = before; i < scenario.services.size(); ++i) {
      if (scenario.services[i].name == change.name) {
        Fail(table->get("name"),
             where + fmt::format("{} has a [[service]] table already (service {}); put its "
                                 "changes in one",
                                 change.name, i - before + 1));
      }
    }
    if (const toml::node* env = table->get("env")) change.env = ReadEnv(*env, change.name, where);
    change.restart = Choice(*table, "restart", where, fakes::kRestartPolicies);
    change.data = Choice(*table, "data", where, fakes::kVolumeKinds);
    if (const toml::node* depends = table->get("depends_on")) {
      change.depends_on = ReadDependsOn(*depends, change.name, where);
    }
    scenario.services.push_back(std::move(change));
  }
  FL_ASSERT(scenario.services.size() == before + list->size());
}

// depends_on = [{ service = "yugabyte", condition = "healthy" }]: each
// dependency's condition, started when it says none.
std::vector<std::pair<std::string, fakes::DependencyCondition>> Reader::ReadDependsOn(
    const toml::node& node, const std::string& service, const std::string& where) const {
  const toml::array* on = node.as_array();
  if (on == nullptr) Fail(&node, where + "'depends_on' is an array of { service, condition }");
  std::vector<std::pair<std::string, fakes::DependencyCondition>> depends_on;
  for (const toml::node& entry : *on) {
    const toml::table* dependency = entry.as_table();
    if (dependency == nullptr) Fail(&entry, where + "a dependency is { service, condition }");
    OnlyKeys(*dependency, {"service", "condition"}, where + "depends_on: ");
    const std::optional<fakes::DependencyCondition> condition =
        Choice(*dependency, "condition", where, fakes::kDependencyConditions);
    std::string on_service = ServiceName(*dependency, "service", where + "depends_on: ");
    if (on_service == service) {
      Fail(dependency->get("service"), where + "a service cannot depend on itself");
    }
    depends_on.emplace_back(std::move(on_service),
                            condition.value_or(fakes::DependencyCondition::kStarted));
  }
  FL_ASSERT(depends_on.size() == on->size());
  return depends_on;
}

// env = { KEYSPACE = "..." }: only what the service's image reads.
std::map<std::string, std::string> Reader::ReadEnv(const toml::node& node,
                                                   const std::string& service,
                                                   const std::string& where) const {
  const toml::table* table = node.as_table();
  if (table == nullptr) Fail(&node, where + "'env' is a table: env = { KEY = \"value\" }");
  FL_ASSERT_MSG(!ImageOf(service).empty(), "{}{} runs no image", where, service);  // Read first.
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
void Reader::CheckEnvValues(const toml::table& table, const std::string& service,
                            const std::map<std::string, std::string>& env,
                            const std::string& where) const {
  FL_ASSERT(env.size() == table.size());  // `env` is `table`'s values (ReadEnv).
  if (ImageOf(service) == models::s3::kProxyImage && env.contains("BACKENDS")) {
    CheckBackends(*table.get("BACKENDS"), env.at("BACKENDS"), where);
  }
  if (ImageOf(service) == models::s3::kProxyImage && env.contains("PROBE_INTERVAL_MS")) {
    fakes::ServiceSpec spec;
    spec.environment = env;
    if (!models::s3::ProxyProbeInterval(spec, std::chrono::seconds(1))) {
      Fail(table.get("PROBE_INTERVAL_MS"),
           fmt::format("{}env: PROBE_INTERVAL_MS is milliseconds, 1 to {}", where,
                       models::s3::kMaxProbeIntervalMs));
    }
  }
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

// The proxy's BACKENDS, "kuri-1:7001,kuri-2:7002": each a node of the
// topology and a port. The proxy would skip a malformed one and probe a
// missing one forever; either is a mistake in the file.
void Reader::CheckBackends(const toml::node& at, const std::string& backends,
                           const std::string& where) const {
  std::size_t start = 0;
  for (std::size_t item = 0; start < backends.size() && item < backends.size(); ++item) {
    const std::size_t end = std::min(backends.find(',', start), backends.size());
    const std::string backend = backends.substr(start, end - start);
    if (backend.empty()) {  // "a,,b" or a trailing comma: the proxy skips it.
      start = end + 1;
      continue;
    }
    const std::size_t colon = backend.find(':');
    const std::string host = backend.substr(0, colon);
    const std::string port = colon == std::string::npos ? "" : backend.substr(colon + 1);
    if (host.empty() || models::s3::ParsePort(port) == 0) {  // As the proxy reads a port.
      Fail(&at, fmt::format("{}env: BACKENDS is 'node:port' items, comma-separated "
                            "(\"kuri-1:7001,kuri-2:7002\"), not '{}'",
                            where, backend));
    }
    if (ImageOf(host) != models::s3::kNodeImage) {
      Fail(&at, fmt::format("{}env: BACKENDS names {}, which is not a node of this topology", where,
                            host));
    }
    start = end + 1;
  }
}

// A depends_on cycle would leave `up` waiting forever: refused at the
// depends_on of the first [[service]] on the cycle. So would waiting for a
// service without a health check to be healthy.
void Reader::CheckNoDependencyCycle(const toml::node& services, const Scenario& scenario) const {
  // After ReadServices: an array of tables, a change each.
  FL_ASSERT(services.is_array() && services.as_array()->size() == scenario.services.size());
  const fakes::ComposeSpec spec = ComposeSpecOf(scenario);
  for (const ServiceOverride& change : scenario.services) {
    if (!change.depends_on) continue;
    for (const auto& entry : *change.depends_on) {
      // Named, not a structured binding: clang 14 (the fuzzers' compiler)
      // cannot capture one in the lambda below.
      const std::string& dependency = entry.first;
      const fakes::DependencyCondition condition = entry.second;
      const auto target = std::find_if(spec.services.begin(), spec.services.end(),
                                       [&](const auto& s) { return s.name == dependency; });
      if (condition == fakes::DependencyCondition::kHealthy && target != spec.services.end() &&
          !target->healthcheck) {
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
    FL_ASSERT(item.is_table());
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
const toml::node* Reader::DependsOnOf(const toml::node& services, const std::string& name) {
  for (const toml::node& item : *services.as_array()) {
    const toml::table& table = *item.as_table();
    if (table["name"].value<std::string>() == name && table.contains("depends_on")) {
      return table.get("depends_on");
    }
  }
  return &services;
}

}  // namespace faultline::scenarios::file
