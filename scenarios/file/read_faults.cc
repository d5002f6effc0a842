// A scenario file's [crash] and [[fault]]s (file/reader.h).
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
#include "scenarios/core/closest_name.h"
#include "scenarios/core/duration.h"
#include "scenarios/core/failure_classes.h"
#include "scenarios/file/reader.h"
#include "sim/assert.h"

namespace faultline::scenarios::file {

void Reader::ReadCrash(const toml::node& node, Scenario& scenario) const {
  const toml::table* table = node.as_table();
  if (table == nullptr) Fail(&node, "[crash] must be a table");
  OnlyKeys(*table, {"site", "hit"}, "crash: ");
  scenario.crash_site = String(*table, "site", "crash: ", true);
  const std::optional<std::int64_t> hit = Integer(*table, "hit", "crash: ");
  // At the value when there is one (a new user's `hit = 0` was pointed at
  // the [crash] header); at the table when it is missing.
  if (!hit || *hit < 1) {
    const toml::node* value = table->get("hit");
    Fail(value != nullptr ? value : table, "crash: 'hit' must be a positive integer");
  }
  scenario.crash_hit = static_cast<std::uint64_t>(*hit);
}

// The crash's site must be one a run of this cluster can pass (read last:
// the steps' set-image and migrate steps add sites).
void Reader::CheckCrashSite(const toml::table& crash, const Scenario& scenario) const {
  CheckSite(crash.get("site"), scenario.crash_site, scenario, "crash: ");
}

void Reader::CheckSite(const toml::node* at, const std::string& site, const Scenario& scenario,
                       const std::string& where) const {
  const std::vector<std::string> sites = FaultSitesOf(scenario);
  FL_ASSERT(std::is_sorted(sites.begin(), sites.end()));  // For the binary search.
  if (std::binary_search(sites.begin(), sites.end(), site)) return;
  Fail(at, fmt::format("{}no runner of this cluster has a fault site '{}'{}; its sites:{}", where,
                       site, DidYouMean(site, sites), GroupedNames(sites)));
}

// [[fault]]: site, hit, action (crash, error, delay), and for an error its
// kind and text, for a delay its length, and which service's hits count.
void Reader::ReadFaults(const toml::node& node, Scenario& scenario) const {
  const toml::array* list = node.as_array();
  if (list == nullptr) Fail(&node, "'fault' must be an array of tables: write [[fault]]");
  if (list->size() > limits_.faults) {
    Fail(&node,
         fmt::format("{} [[fault]]s: {}", list->size(), OverLimit(limits_, &InputLimits::faults)));
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
    const std::optional<sim::FaultAction> named = sim::FaultActionNamed(action);
    if (!named || *named == sim::FaultAction::kNone) {
      Fail(table->get("action"), where + "'action' is crash, error, delay or power-loss");
    }
    fault.action = *named;
    // A power loss drops unsynced writes: only where data is written.
    if (fault.action == sim::FaultAction::kPowerLoss && !IsDataIoSite(fault.site)) {
      Fail(table->get("site"),
           where +
               "a power-loss is at a disk I/O site: disk.read, disk.write, disk.sync or "
               "disk.truncate");
    }
    ReadFaultDetails(*table, where, fault);
    if (table->contains("service")) fault.service = ServiceName(*table, "service", where);
    // What the writer writes of it reads back: only its action's own details.
    FL_ASSERT(fault.action == sim::FaultAction::kDelay || fault.delay == sim::Duration{});
    scenario.faults.push_back(std::move(fault));
  }
  FL_ASSERT(scenario.faults.size() <= limits_.faults);
}

// The disk sites where data moves, so where a power loss drops some.
bool Reader::IsDataIoSite(std::string_view site) {
  for (const std::string_view io : {fakes::SqliteVfs::kSiteRead, fakes::SqliteVfs::kSiteWrite,
                                    fakes::SqliteVfs::kSiteSync, fakes::SqliteVfs::kSiteTruncate}) {
    if (site == io) return true;
  }
  return false;
}

// A power loss's model (sim::SurvivorsNamed), the same in a step and a fault.
sim::Survivors Reader::ReadSurvivors(const toml::table& table, std::string_view key,
                                     const std::string& where) const {
  const std::optional<sim::Survivors> survivors =
      sim::SurvivorsNamed(String(table, key, where, true));
  if (!survivors) {
    Fail(table.get(key), where + "'survives' is nothing-unsynced, in-order-prefix or torn-blocks");
  }
  return *survivors;
}

// What an error or a delay needs, and nothing an action does not use.
void Reader::ReadFaultDetails(const toml::table& table, const std::string& where,
                              FaultSpec& fault) const {
  FL_ASSERT(fault.action != sim::FaultAction::kNone);  // Refused by ReadFaults.
  const bool error = fault.action == sim::FaultAction::kError;
  const bool delay = fault.action == sim::FaultAction::kDelay;
  for (const char* key : {"error", "message"}) {
    if (table.contains(key) && !error)
      Fail(table.get(key), fmt::format("{}'{}' is for an error", where, key));
  }
  if (table.contains("for") && !delay) Fail(table.get("for"), where + "'for' is for a delay");
  const bool power_loss = fault.action == sim::FaultAction::kPowerLoss;
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

}  // namespace faultline::scenarios::file
