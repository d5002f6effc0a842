// A scenario: a failure story as data. A topology (the seed cluster's
// services at given image versions), an optional crash to inject, and
// ordered steps, each an action with what is expected of its outcome. The
// runner (runner.h) plays it on a simulation from a seed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "fakes/compose.h"
#include "fakes/network.h"
#include "fakes/volume.h"
#include "models/migrate/cassandra_driver.h"
#include "models/migrate/source.h"
#include "models/s3/s3.h"
#include "sim/clock.h"
#include "sim/fault.h"

namespace faultline::scenarios {

struct Expectation {
  enum class Kind : unsigned char {
    kStatus,            // The S3 response's status is `number`.
    kOutputContains,    // The step's output (body, CQL result, operator answer) contains `text`.
    kOutputLacks,       // ... does not contain `text`.
    kLogContains,       // `service`'s log contains `text`.
    kRestarted,         // `service` has been restarted by its policy at least `number` times.
    kServing,           // `service` answers its health check.
    kState,             // `service`'s container is in state `text` (running, restarting, exited).
    kExitCode,          // `service`'s last exit code was `number`.
    kLogLacks,          // No line of `service`'s log contains `text`.
    kStatusIn,          // The S3 response's status is one of `numbers`.
    kRows,              // The CQL result has `number` rows.
    kRowWith,           // A row of the CQL result has a cell that is `text`.
    kSchemaMigrations,  // Keyspace `service`'s schema_migrations holds `text` ("1754293669 dirty").
    kNotServing,        // `service` does not answer its health check.
  };
  Kind kind = Kind::kOutputContains;
  std::string service;  // Or, for kSchemaMigrations, the keyspace.
  std::string text;
  std::int64_t number = 0;
  std::vector<std::int64_t> numbers;  // kStatusIn.
  friend bool operator==(const Expectation&, const Expectation&) = default;
};

// The most parts a multipart step may upload (S3's own bound).
inline constexpr std::size_t kMaxParts = 10'000;

struct Step {
  enum class Kind : unsigned char {
    kUp,                // compose up (the topology, with any image changes so far)
    kDown,              // compose down; `number` 1: down -v
    kClean,             // wipe the host data directories (the seed's --clean)
    kSetImage,          // `service` will run `version` from its next start
    kRestart,           // restart `service`
    kWait,              // let `duration` of virtual time pass
    kS3,                // an S3 request through the proxy: `method` `path` [`body`] [`query`]
    kCql,               // a statement at the ycqlsh prompt
    kMigrateVersion,    // migrate version on `keyspace`
    kMigrateForce,      // migrate force `number` on `keyspace`
    kRecreateKeyspace,  // drop every table and `keyspace`, then create it again
    kWaitFor,           // wait until `service` is in state `state` (at most `duration`)
    kMultipart,         // a whole multipart upload of `parts` to `path`: initiate, parts, complete
    kKill,              // crash `service` (its restart policy applies)
    kStop,              // stop `service` gracefully (it stays stopped)
    kPartition,         // block the links between `service` and `peer` (or every other host)
    kHeal,              // unblock every link, unclog every clog
    kClog,              // hold messages between `service` and `peer` for `duration`
    kLatency,           // every message takes `duration` plus an extra of mean `extra`
    kLoss,              // every message is dropped with `probability`
    kPowerLoss,         // `service`'s machine loses power: killed, its volumes keep `survivors`
    kDiskFull,          // `service`'s volumes (or `volume`) cannot grow any more
    kDiskErrors,        // `service`'s volumes fail the `io` named with EIO (`persistent` or once)
    kDiskOk,            // `service`'s volumes have room again and fail nothing
    kMigrate,           // the migrate CLI's `command` on `keyspace`, -path: `service`'s folder
  };
  Kind kind = Kind::kWait;
  std::string narration;  // What this step means in the story.
  std::string service;
  std::string version;
  std::string method;
  std::string path;
  std::string body;
  std::string query;
  std::string statement;
  std::string keyspace;
  std::string state;               // kWaitFor: created, running, restarting, exited
  std::vector<std::string> parts;  // kMultipart: each part's bytes
  std::string peer;                // kPartition, kClog: the other side (none: every other host)
  bool one_way = false;            // kPartition, kClog: from `service` to `peer` only
  // kLatency: how the extra is drawn; none said: exponential.
  std::optional<fakes::NetworkOptions::Latency> distribution;
  sim::Duration extra{};   // kLatency: the mean extra over `duration` (the base)
  double probability = 0;  // kLoss: of each message being dropped
  sim::Survivors survivors = sim::Survivors::kNothingUnsynced;  // kPowerLoss
  std::string volume;           // Disk steps: one of the service's volumes (none: all)
  std::vector<std::string> io;  // kDiskErrors: "read", "write", "sync"
  bool persistent = false;      // kDiskErrors: every such I/O fails, not just the next
  std::string command;          // kMigrate: "up", "goto 3", "down -all", ...
  // kCql as a driver sends it (live mode records these): the session's
  // keyspace (`keyspace`, as its USE left it), rows per page (`number`, 0:
  // all) and where the previous page stopped.
  std::string paging_state;
  std::int64_t number = 0;
  sim::Duration duration{};
  std::vector<Expectation> expect;
  friend bool operator==(const Step&, const Step&) = default;
};

// An image version a scenario defines: a node or proxy image with its own
// migration folder and runner, and the runner's settings.
struct ImageSpec {
  std::string service;  // "node" (kuri) or "proxy" (s3-proxy)
  std::string version;
  std::string runner = "golang-migrate";  // or "safe", "db-init"
  bool writes_node_id = true;             // node images: whether the code writes node_id
  bool reads_node_id = true;              // proxy images: whether the code routes by node_id
  // golang-migrate's driver: multi-statement mode, the version table's
  // name, whether the session is bound to the keyspace.
  models::migrate::CassandraDriver::Options golang_migrate;
  models::s3::RetryPolicy retry;  // The gateway's start-up retry (retryCQLStartup).
  std::vector<models::migrate::MigrationFile> files;
  friend bool operator==(const ImageSpec& a, const ImageSpec& b) {
    auto key = [](const ImageSpec& i) {
      return std::tie(i.service, i.version, i.runner, i.writes_node_id, i.reads_node_id,
                      i.golang_migrate, i.retry);
    };
    if (key(a) != key(b) || a.files.size() != b.files.size()) return false;
    for (std::size_t i = 0; i < a.files.size(); ++i) {
      if (a.files[i].name != b.files[i].name || a.files[i].contents != b.files[i].contents) {
        return false;
      }
    }
    return true;
  }
};

// Changes to one service of the scenario's compose file (topology.h).
struct ServiceOverride {
  std::string name;                             // "kuri-1", "s3-proxy", ...
  std::optional<fakes::RestartPolicy> restart;  // None: unchanged.
  // depends_on, replacing the file's: (service, condition).
  std::optional<std::vector<std::pair<std::string, fakes::DependencyCondition>>> depends_on;
  // Where its data mount lives, a host directory or a named volume; none:
  // unchanged.
  std::optional<fakes::VolumeKind> data;
  // Environment variables set (or replaced): what its image's code reads.
  std::map<std::string, std::string> env;
  friend bool operator==(const ServiceOverride&, const ServiceOverride&) = default;
};

// A fault a file names ([[fault]]): the `hit`-th pass through `site` (of
// `service`'s processes only, when one is named, counted on their own)
// crashes the process, fails with an error, or waits.
struct FaultSpec {
  std::string site;
  std::uint64_t hit = 1;
  // What it does (sim/fault.h's actions, named as the file names them);
  // never kNone.
  sim::FaultAction action = sim::FaultAction::kCrash;
  std::string error;      // kError: a kind of FaultErrors() ("server", "timeout", ...).
  std::string message;    // kError: the text that comes back; empty: the kind's own.
  sim::Duration delay{};  // kDelay.
  sim::Survivors survivors = sim::Survivors::kNothingUnsynced;  // kPowerLoss (disk sites).
  std::string service;                                          // Empty: any process.
  friend bool operator==(const FaultSpec&, const FaultSpec&) = default;
};

// The errors a [[fault]] can make come back, each with the status code the
// code under test sees and the text a real client would print.
struct FaultError {
  std::string_view name;
  sim::StatusCode code;
  std::string_view text;
};
const std::vector<FaultError>& FaultErrors();

// What one run may spend before it is stopped: virtual time and scheduler
// steps (simulated events). The defaults fit every story in a fraction of
// their bound; a scenario that needs more raises them ([budget]).
struct Budget {
  static constexpr sim::Duration kDefaultVirtualTime = std::chrono::hours(24 * 30);
  static constexpr std::uint64_t kDefaultSteps = 50'000'000;
  static constexpr std::uint64_t kMaxSteps = 10'000'000'000;
  sim::Duration virtual_time = kDefaultVirtualTime;
  std::uint64_t steps = kDefaultSteps;
  friend bool operator==(const Budget&, const Budget&) = default;
};

// A failure as a signature names it (shrink/signature.h): the failing
// checker ("expectation" for a step's) and its first violation's kind.
struct RecordedFailure {
  std::string checker;
  std::string violation;
  // The faultline build that recorded it (its GNU build id), if said: a
  // replay by another build that fails otherwise may differ by the build.
  std::string build;
  friend bool operator==(const RecordedFailure&, const RecordedFailure&) = default;
};

// Everything of a scenario but its steps: the cluster and what is expected
// of a whole run. The cluster harness copies this much of a scenario, so a
// long story's steps are never copied to build its cluster.
struct ScenarioSetting {
  std::string name;    // "stale-schema"
  std::string title;   // One line.
  std::string story;   // What happened in the seed, a paragraph.
  std::string lesson;  // What to take away, a paragraph.
  // Its failure class (scenarios/failure_classes.h), or empty: `class` in
  // a file; the catalogue groups its stories by it.
  std::string failure_class;
  // The images the compose file starts with (see models/s3/seed_images.h).
  std::string node_version = "v2";
  std::string proxy_version = "v2";
  std::string db_init_version = "v1";
  std::string store_version = "2.20";  // "cassandra": Cassandra's schema agreement.
  int nodes = 2;                       // kuri-1 .. kuri-N (1 to 16).
  bool shared_node_keyspace = false;   // All nodes migrate filecoingw_kuri.
  std::vector<ImageSpec> images;       // Extra image versions, usable in the topology.
  std::vector<ServiceOverride> services;
  // A crash to inject: the `crash_hit`-th pass through fault site `crash_site`.
  std::uint64_t seed = 1;  // The default seed (`run --seed` overrides it).
  std::string crash_site;
  std::uint64_t crash_hit = 0;
  std::vector<FaultSpec> faults;  // [[fault]]: any number, beside [crash].
  Budget budget;
  // The whole-run checkers (checkers.h) expected to fail; the others must hold.
  std::map<std::string, bool> checkers;
  // A repro's failure as it was found (`recorded = { checker = ...,
  // violation = ... }`): `run` says whether a replay failed the same way
  // (the checker and the kind of its first violation) or otherwise.
  std::optional<RecordedFailure> recorded;
  friend bool operator==(const ScenarioSetting&, const ScenarioSetting&) = default;
};

struct Scenario : ScenarioSetting {
  std::vector<Step> steps;
  friend bool operator==(const Scenario&, const Scenario&) = default;
};

}  // namespace faultline::scenarios
