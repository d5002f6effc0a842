// The simulated cluster a scenario runs on, and what the runner and the
// checkers share: the helper processes the runner acts through, and the
// observations the checkers make without acting. A library user reaches it
// through Cluster::world() (cluster.h), to observe: act through the
// Cluster's verbs, which keep the story a scenario file can replay.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fakes/environment.h"
#include "models/cql/client.h"
#include "models/cql/store_snapshot.h"
#include "models/migrate/schema_model.h"
#include "models/migrate/source.h"
#include "models/operator/operator.h"
#include "models/s3/kuri_node.h"
#include "models/s3/seed_images.h"
#include "scenarios/core/results.h"
#include "scenarios/core/scenario.h"
#include "sim/sim.h"

namespace faultline::scenarios {

// A service of the compose file that answers requests: where, and the
// keyspace its image's migrations are for (empty for the store).
struct ServedService {
  std::string name;
  std::string image;
  fakes::Endpoint endpoint;
  std::string keyspace;
};

// The runner's helper hosts: the S3 client, the ycqlsh shell and the
// migrate CLI each act from a host of its own name.
inline constexpr const char* kClientHost = "client";
inline constexpr const char* kShellHost = "ycqlsh";
inline constexpr const char* kMigrateHost = "migrate";
inline constexpr const char* kHelperHosts[] = {kClientHost, kShellHost, kMigrateHost};

// The cluster for one run.
// The machine room (simulation, network, disks, runtime) comes first, from
// fakes::Environment, which owns the order they are built in.
struct World : fakes::Environment {
  explicit World(sim::SimulationOptions options);

  // Runs `body` as a task of the helper process `host` ("client", "ycqlsh",
  // started on first use and kept) until it finishes, or a virtual minute
  // passes; returns what it did, or that it never finished. One process per
  // host, not per call: a long scenario makes no more processes than a
  // short one.
  StepOutcome RunProcess(const std::string& host,
                         std::function<sim::Awaitable<StepOutcome>(models::cql::CqlSession&)> body);

  // Runs the simulation until `done()` holds (asked before every scheduler
  // step, so it only reads; null: never) or `bound` of virtual time passes,
  // within the run's budget; says whether `done()` held.
  bool Advance(sim::Duration bound, const std::function<bool()>& done);
  // Starts the budget now. Once spent, Advance runs nothing more.
  void SetBudget(const Budget& budget);
  // Which budget the run spent, in words; empty while it has not.
  const std::string& budget_spent() const { return budget_spent_; }

  models::ops::Operator op;
  fakes::ComposeSpec spec;
  // Objects the cluster acknowledged (PUT answered 200) and did not delete
  // since, by path: what the acknowledged-writes checker reads back. A hash
  // and a size, not a copy: a long run keeps no second copy of its data.
  struct Acknowledged {
    std::uint64_t hash = 0;  // sim::Fnv1a64 of the bytes.
    std::size_t size = 0;
    static Acknowledged Of(std::string_view bytes);
    bool Matches(std::string_view bytes) const;
  };
  std::map<std::string, Acknowledged> acknowledged;
  // The PUTs and DELETEs of a path whose outcome is unknown (a 500 or 502,
  // no answer, or sent straight to a node): each may take effect at any time
  // after it was sent, even after a later acknowledged PUT, as Jepsen counts
  // an indeterminate operation. So a GET may also read their bytes, or, after
  // such a DELETE, no object. Kept for the whole run, bounded per path.
  struct Indeterminate {
    // Past it, any bytes may be read (16 bytes each: 64 KiB per path at most).
    static constexpr std::size_t kMaxPuts = 4096;
    std::vector<Acknowledged> puts;
    bool any_bytes = false;
    bool maybe_deleted = false;
    void Put(std::string_view bytes);
    bool Matches(std::string_view bytes) const;
  };
  std::map<std::string, Indeterminate> indeterminate;
  // The last s3 or cql step's whole answer, for live mode, which hands it
  // to a real client: the S3 response's headers, the store's rows or error.
  struct LastAnswer {
    fakes::Headers headers;
    std::optional<models::cql::ClientResult> cql;
  };
  LastAnswer last_answer;
  // ServedServices(spec), worked out once the topology is set: which
  // services serve does not change with their image versions.
  std::vector<ServedService> served;
  // What the checkers need to know of every node and proxy image version,
  // by (image, version): its migration folder (schema-matches-image compares
  // a serving service with it) and how its code finds an object.
  struct ImageFacts {
    models::migrate::MigrationSource migrations;
    bool reads_node_id = true;  // Proxy images: routes by the index's node_id.
    std::string version_table = "schema_migrations";  // golang-migrate's, as the image names it.
    models::s3::NodeCode node_code;         // Node images: how a GET serves the object's file.
    models::s3::RetryPolicy startup_retry;  // Before its environment changes it.
    // What `migrations` make of a keyspace (models::migrate::ExpectedSchema,
    // which parses every file), by keyspace, worked out when first asked:
    // the schema checker asks after every step.
    mutable std::map<std::string, models::migrate::SchemaModel> expected_schemas;
  };
  std::map<std::pair<std::string, std::string>, ImageFacts> images;

  // The store's database as ObserveStore last opened it, kept while its
  // volume does not change, and refreshed in place when it does: checkers
  // and reports observe it several times at one moment and after every
  // step, and reopening it parses its whole schema each time.
  struct ObservedStore {
    const fakes::Volume* volume = nullptr;
    std::uint64_t changes = 0;  // The volume's changes() when it was opened.
    std::unique_ptr<models::cql::StoreSnapshot> snapshot;
  };
  ObservedStore observed_store;

 private:
  sim::Process& Host(const std::string& name);

  std::map<std::string, sim::Process*> hosts_;
  Budget budget_;
  sim::TimePoint budget_deadline_ = sim::TimePoint::max();
  std::uint64_t steps_spent_ = 0;
  std::string budget_spent_;
  sim::Event hosts_never_set_;  // The helper processes' main tasks wait on it forever.
};

// The service as served, when it is the store, a node or the proxy.
std::optional<ServedService> AsServed(const fakes::ServiceSpec& service);
// The store, the nodes and the proxy of `spec`, in its order.
std::vector<ServedService> ServedServices(const fakes::ComposeSpec& spec);

// Whether `service` would answer now, observed without a request: its
// container runs, a live process listens on its port, and the service says
// it is ready (what its /healthz would answer: the proxy only with a healthy
// backend). No process starts, no message is sent, the trace is untouched.
bool IsServing(const World& world, const std::string& service);
bool IsServing(const World& world, const ServedService& service);

// The store's database as its volume holds it now (models/cql/store_snapshot.h),
// for observers; NotFound when there is no store or it never wrote one. The
// world owns it: read it now, and do not keep it past the next step.
sim::Result<models::cql::StoreSnapshot*> ObserveStore(World& world);
// The store's data volume (nullptr: the compose file has none), whose
// count of changes tells that its bytes did or did not change.
const fakes::Volume* StoreVolume(World& world);

// The volume the compose file mounts at `target` in `service` (whether or
// not its container exists now), or nullptr when there is none yet.
const fakes::Volume* MountedVolume(World& world, const std::string& service,
                                   const std::string& target);

// A keyspace's schema_migrations as the store holds it, observed (no query
// sent): each row as "<version> dirty|clean", in version order; "none"
// without rows or table.
std::string RecordedVersions(World& world, const std::string& keyspace);

}  // namespace faultline::scenarios
