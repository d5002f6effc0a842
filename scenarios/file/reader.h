// The scenario file reader's own parts (internal to file/; not installed):
// one Reader reads one file, each section in a file of its own
// (read_cluster.cc, read_images.cc, read_faults.cc, read_steps.cc). Every
// mistake is thrown as Located, with its place, and caught in ParseScenario.
#pragma once

#include <fmt/format.h>
#include <toml++/toml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fakes/compose.h"
#include "models/migrate/source.h"
#include "models/s3/s3.h"
#include "scenarios/core/limits.h"
#include "scenarios/core/scenario.h"
#include "scenarios/core/topology.h"
#include "scenarios/steps/steps.h"
#include "sim/names.h"

namespace faultline::scenarios::file {

// A located error on its way out of the nested reading.
struct Located {
  std::string message;
};

class Reader {
 public:
  Reader(std::string_view source, const InputLimits& limits) : source_(source), limits_(limits) {}

  // The whole file (reader.cc).
  Scenario Read(const toml::table& root) const;

  // ---- Shared by every section (reader.cc) ----

  [[noreturn]] void Fail(const toml::node* node, std::string_view what) const;

  [[noreturn]] void FailAt(const toml::source_position& at, std::string_view what) const;

  // Only `allowed` keys may appear in `table`.
  void OnlyKeys(const toml::table& table, const std::set<std::string_view>& allowed,
                std::string_view where) const;

  std::string String(const toml::table& table, std::string_view key, std::string_view where,
                     bool required) const;

  std::optional<std::int64_t> Integer(const toml::table& table, std::string_view key,
                                      std::string_view where) const;

  // A required text that must say something: an empty one would be written
  // back as missing (and means nothing).
  std::string NonEmpty(const toml::table& table, std::string_view key,
                       const std::string& where) const;

  // A service of the seed's compose file, named under `key`; with
  // `pattern`, also "kuri-*": any service whose name starts so.
  std::string ServiceName(const toml::table& table, std::string_view key, std::string_view where,
                          bool pattern = false) const;

  // `version` of `service`'s image: a built-in one, or an [[image]] of the
  // scenario (read before the topology and the steps).
  void CheckVersion(const toml::node* at, const std::string& service, const std::string& version,
                    const Scenario& scenario, std::string_view where) const;

  // The image `service` runs in this cluster; empty when there is none.
  std::string ImageOf(std::string_view service) const;

  static std::string ImageOfSpec(const ImageSpec& image);

  // The value of `key` named as `names` name them, or nullopt when absent;
  // another name is an error that lists them ("'restart' is no, always or
  // on-failure").
  template <typename E, std::size_t N>
  std::optional<E> Choice(const toml::table& table, std::string_view key, std::string_view where,
                          const sim::Named<E> (&names)[N]) const {
    if (!table.contains(key)) return std::nullopt;
    const std::optional<E> value = sim::ValueNamed(names, String(table, key, where, true));
    if (!value) Fail(table.get(key), fmt::format("{}'{}' is {}", where, key, sim::NamesOf(names)));
    return value;
  }

  // ---- [topology], [budget], [checkers], [[service]] (read_cluster.cc) ----

  void ReadTopology(const toml::node& node, Scenario& scenario) const;

  // The service whose image a [topology] key sets (kuri-2 runs kuri-1's).
  static std::string ServiceOfTopologyKey(std::string_view key);

  // [budget] time = "48h", steps = 100000000: what one run may spend.
  void ReadBudget(const toml::node& node, Scenario& scenario) const;
  void ReadRecorded(const toml::node& node, Scenario& scenario) const;

  // [checkers] acknowledged-writes = false: the checkers this story breaks.
  void ReadCheckers(const toml::node& node, Scenario& scenario) const;

  // [[service]]: changes to one service of the seed compose file.
  void ReadServices(const toml::node& node, Scenario& scenario) const;

  std::vector<std::pair<std::string, fakes::DependencyCondition>> ReadDependsOn(
      const toml::node& node, const std::string& service, const std::string& where) const;

  // env = { KEYSPACE = "..." }: only what the service's image reads.
  std::map<std::string, std::string> ReadEnv(const toml::node& node, const std::string& service,
                                             const std::string& where) const;

  // The values a node reads as numbers must be ones it accepts.
  void CheckBackends(const toml::node& at, const std::string& backends,
                     const std::string& where) const;
  void CheckEnvValues(const toml::table& table, const std::string& service,
                      const std::map<std::string, std::string>& env,
                      const std::string& where) const;

  // A depends_on cycle would leave `up` waiting forever: refused at the
  // depends_on of the first [[service]] on the cycle. So would waiting for a
  // service without a health check to be healthy.
  void CheckNoDependencyCycle(const toml::node& services, const Scenario& scenario) const;

  // The depends_on of the [[service]] that changes `name`.
  static const toml::node* DependsOnOf(const toml::node& services, const std::string& name);

  // ---- [[image]] (read_images.cc) ----

  // [[image]]: an image version with its own migrations, inline
  // ([[image.file]] name/body) or a folder relative to the scenario file.
  void ReadImages(const toml::node& node, Scenario& scenario) const;

  // golang-migrate's driver options (its URL's x-multi-statement and
  // x-migrations-table, and gocql's ClusterConfig.Keyspace) and the
  // gateway's start-up retry.
  void ReadRunnerSettings(const toml::table& table, const std::string& where,
                          ImageSpec& image) const;

  void ReadRetry(const toml::node& node, const std::string& where,
                 models::s3::RetryPolicy& retry) const;

  void ReadFiles(const toml::node& node, const std::string& where, ImageSpec& image) const;

  // The migration files of a folder (relative to the scenario file), read
  // as models/migrate/folder.h reads one; any problem is an error at the
  // folder's line.
  std::vector<models::migrate::MigrationFile> ReadFolder(const std::string& folder,
                                                         const toml::node* at,
                                                         const std::string& where) const;

  // ---- [crash], [[fault]] (read_faults.cc) ----

  void ReadCrash(const toml::node& node, Scenario& scenario) const;

  // The crash's site must be one a run of this cluster can pass (read last:
  // the steps' set-image and migrate steps add sites).
  void CheckCrashSite(const toml::table& crash, const Scenario& scenario) const;

  void CheckSite(const toml::node* at, const std::string& site, const Scenario& scenario,
                 const std::string& where) const;

  // [[fault]]: site, hit, action (crash, error, delay), and for an error its
  // kind and text, for a delay its length, and which service's hits count.
  void ReadFaults(const toml::node& node, Scenario& scenario) const;

  // The disk sites where data moves, so where a power loss drops some.
  static bool IsDataIoSite(std::string_view site);

  // A power loss's model (sim::SurvivorsNamed), the same in a step and a fault.
  sim::Survivors ReadSurvivors(const toml::table& table, std::string_view key,
                               const std::string& where) const;

  // What an error or a delay needs, and nothing an action does not use.
  void ReadFaultDetails(const toml::table& table, const std::string& where, FaultSpec& fault) const;

  // ---- [[step]] and its expectations (read_steps.cc) ----

  // A step: its kind (steps.h) says which fields it takes; each is read
  // and checked as its field says, and a field of another kind is refused.
  Step ReadStep(const toml::node& node, std::size_t number, const Scenario& scenario) const;

  // Only do, say, expect and the kind's own fields; a field another kind
  // takes is named as such (a person wrote it, and it would do nothing).
  void CheckStepKeys(const toml::table& table, const StepKind& kind,
                     const std::string& where) const;

  // A disk step's service mounts a volume, and its `volume` is one of them.
  void CheckVolume(const toml::table& table, const Step& step, const Scenario& scenario,
                   const std::string& where) const;

  std::vector<Expectation> ReadExpectations(const toml::node& node, const Scenario& scenario,
                                            const std::string& where) const;

  // One expectation checks one thing: its first key (checkers/expectations.h's
  // table) says what, and only that form's own keys may come with it.
  Expectation ReadExpectation(const toml::table& table, const Scenario& scenario,
                              const std::string& where) const;

  const std::string& source() const { return source_; }
  const InputLimits& limits() const { return limits_; }

 private:
  std::string source_;
  const InputLimits& limits_;
  // The cluster's services, from [topology] (read before anything names one);
  // before it, the seed's.
  mutable std::vector<ServiceImage> services_ = ServicesOf(Scenario{});
};

}  // namespace faultline::scenarios::file
