#include "scenarios/world/world.h"

#include "scenarios/core/duration.h"

#include "models/cql/server.h"
#include "models/s3/kuri_node.h"
#include "models/s3/s3.h"
#include "models/s3/s3_proxy.h"
#include "sim/assert.h"
#include "sim/fnv.h"

#include <algorithm>

namespace faultline::scenarios {

World::World(sim::SimulationOptions options)
    : fakes::Environment(std::move(options)), op(simulation, runtime) {
  models::s3::RegisterSeedImages(runtime);
  for (auto& [version, image] : models::s3::SeedNodeImages()) {
    images.emplace(std::pair(models::s3::kNodeImage, version),
                   ImageFacts{.migrations = std::move(image.migrations),
                              .node_code = image.code,
                              .startup_retry = image.startup_retry});
  }
  for (auto& [version, image] : models::s3::SeedProxyImages()) {
    images.emplace(std::pair(models::s3::kProxyImage, version),
                   ImageFacts{.migrations = std::move(image.migrations),
                              .reads_node_id = image.reads_node_id,
                              .startup_retry = image.startup_retry});
  }
}

World::Acknowledged World::Acknowledged::Of(std::string_view bytes) {
  const Acknowledged acknowledged{sim::Fnv1a64(bytes), bytes.size()};
  FL_ASSERT(acknowledged.size == bytes.size());
  return acknowledged;
}

bool World::Acknowledged::Matches(std::string_view bytes) const {
  return bytes.size() == size && sim::Fnv1a64(bytes) == hash;
}

void World::Indeterminate::Put(std::string_view bytes) {
  if (any_bytes || Matches(bytes)) return;
  if (puts.size() == kMaxPuts) {
    any_bytes = true;
    puts.clear();
    return;
  }
  puts.push_back(Acknowledged::Of(bytes));
}

bool World::Indeterminate::Matches(std::string_view bytes) const {
  return any_bytes || std::any_of(puts.begin(), puts.end(),
                                  [&](const Acknowledged& put) { return put.Matches(bytes); });
}

sim::Process& World::Host(const std::string& name) {
  auto found = hosts_.find(name);
  if (found == hosts_.end()) {
    // A bound: the runner uses a handful of hosts, whatever the scenario's length.
    constexpr std::size_t kMaxHosts = 64;
    FL_ASSERT_MSG(hosts_.size() < kMaxHosts, "more than {} helper hosts", kMaxHosts);
    found = hosts_.emplace(name, &simulation.AddProcess(name)).first;
  }
  sim::Process& process = *found->second;
  // New, or crashed by a fault at a site its command passed (the migrate
  // CLI passes golang-migrate's): the operator's next command runs in a new
  // process, as a shell starts a new one.
  if (!process.running()) {
    process.Start([this]() -> sim::Awaitable<int> {
      co_await hosts_never_set_.Wait();
      FL_PANIC("a helper host's main task was woken");
    });
  }
  return process;
}

StepOutcome World::RunProcess(
    const std::string& host,
    std::function<sim::Awaitable<StepOutcome>(models::cql::CqlSession&)> body) {
  auto output = std::make_shared<std::optional<StepOutcome>>();
  sim::Process& process = Host(host);
  FL_ASSERT(process.running());
  process.Spawn(host, [this, body = std::move(body), output]() -> sim::Awaitable<void> {
    models::cql::CqlSession session(network);
    *output = co_await body(session);
  });
  Advance(std::chrono::minutes(1), [output] { return output->has_value(); });
  if (!budget_spent_.empty() && !output->has_value()) {
    return StepOutcome::Failed("(not run: " + budget_spent_ + ")");
  }
  if (!output->has_value()) return StepOutcome::Failed("(no answer within a virtual minute)");
  return std::move(output->value());
}

void World::SetBudget(const Budget& budget) {
  budget_ = budget;
  FL_ASSERT(budget.steps > 0 && budget.virtual_time > sim::Duration::zero());
  budget_deadline_ = simulation.Now() + budget.virtual_time;
  steps_spent_ = 0;
  budget_spent_.clear();
}

bool World::Advance(sim::Duration bound, const std::function<bool()>& done) {
  FL_ASSERT(bound >= sim::Duration::zero());
  if (!budget_spent_.empty()) return done && done();
  const sim::TimePoint now = simulation.Now();
  const bool clipped = budget_deadline_ - now < bound;
  const sim::TimePoint until = clipped ? budget_deadline_ : now + bound;
  FL_ASSERT(steps_spent_ <= budget_.steps);
  const sim::RunResult result =
      simulation.Run(sim::RunBudget{budget_.steps - steps_spent_, until, done});
  steps_spent_ += result.steps;
  FL_ASSERT(steps_spent_ <= budget_.steps);
  const bool held = done && done();
  // Spent only when the scheduler stopped for it with more to run: a budget
  // used up exactly, by a run that then had nothing more to do, is not.
  // (The last step of the budget may also be the one that made `done` hold:
  // the budget is spent all the same, and nothing more may run.)
  if (result.reason == sim::StopReason::kStepBudgetUsed) {
    budget_spent_ = fmt::format(
        "the run spent its budget of {} scheduler steps at {} (raise it with [budget] steps)",
        budget_.steps, sim::FormatTime(simulation.Now()));
    return held;
  }
  if (held) return true;
  if (clipped && simulation.Now() >= budget_deadline_) {
    budget_spent_ =
        fmt::format("the run spent its budget of {} of virtual time (raise it with [budget] time)",
                    DurationText(budget_.virtual_time));
  }
  return false;
}

std::optional<ServedService> AsServed(const fakes::ServiceSpec& service) {
  if (service.image == models::cql::kStoreImage) {
    return ServedService{service.name, service.image,
                         fakes::Endpoint(service.name, models::cql::kCqlPort), ""};
  }
  if (service.image == models::s3::kNodeImage) {
    return ServedService{service.name, service.image,
                         fakes::Endpoint(service.name, models::s3::NodePort(service)),
                         models::s3::NodeKeyspace(service)};
  }
  if (service.image == models::s3::kProxyImage) {
    return ServedService{service.name, service.image,
                         fakes::Endpoint(service.name, models::s3::kProxyPort),
                         models::s3::kIndexKeyspace};
  }
  return std::nullopt;
}

std::vector<ServedService> ServedServices(const fakes::ComposeSpec& spec) {
  std::vector<ServedService> served;
  for (const fakes::ServiceSpec& service : spec.services) {
    if (std::optional<ServedService> one = AsServed(service)) served.push_back(std::move(*one));
  }
  for (const ServedService& service : served) {
    // The reader refuses a PORT that is not one, so every endpoint has a port.
    FL_ASSERT_MSG(service.endpoint.port != 0, "{} serves on no port", service.name);
    FL_ASSERT(service.endpoint.host == service.name);
  }
  FL_ASSERT(served.size() <= spec.services.size());
  return served;
}

bool IsServing(const World& world, const ServedService& service) {
  return world.runtime.HasContainer(service.name) &&
         world.runtime.state(service.name) == fakes::ContainerState::kRunning &&
         world.runtime.ready(service.name) && world.network.IsListening(service.endpoint);
}

bool IsServing(const World& world, const std::string& service) {
  for (const fakes::ServiceSpec& spec : world.spec.services) {
    if (spec.name != service) continue;
    const std::optional<ServedService> served = AsServed(spec);
    return served && IsServing(world, *served);
  }
  return false;
}

const fakes::Volume* StoreVolume(World& world) {
  for (const ServedService& service : world.served) {
    if (service.image == models::cql::kStoreImage) {
      return MountedVolume(world, service.name, models::cql::kStoreDataDirectory);
    }
  }
  return nullptr;
}

sim::Result<models::cql::StoreSnapshot*> ObserveStore(World& world) {
  const fakes::Volume* volume = StoreVolume(world);
  if (volume == nullptr) {
    return sim::Status::NotFound("the compose file has no store with a data volume");
  }
  const std::int64_t now_unix_ms =
      fakes::SqliteVfs::kEpochUnixMs + std::chrono::duration_cast<std::chrono::milliseconds>(
                                           world.simulation.Now().time_since_epoch())
                                           .count();
  World::ObservedStore& kept = world.observed_store;
  // A retired volume is never freed (fakes::Runtime), so the pointer and
  // the count of changes name the bytes the kept snapshot reads.
  if (kept.snapshot != nullptr && kept.volume == volume && kept.changes == volume->changes()) {
    kept.snapshot->SetNow(now_unix_ms);
    return kept.snapshot.get();
  }
  // The bytes moved on: the same connection reads them, its parsed schema
  // kept while SQLite's schema is the same (StoreSnapshot::Refresh).
  if (kept.snapshot != nullptr && kept.volume == volume &&
      kept.snapshot->Refresh(*volume, now_unix_ms)) {
    kept.changes = volume->changes();
    return kept.snapshot.get();
  }
  kept = {};
  sim::Result<std::unique_ptr<models::cql::StoreSnapshot>> opened =
      models::cql::StoreSnapshot::Open(*volume, now_unix_ms);
  if (!opened.ok()) return opened.status();
  kept = {volume, volume->changes(), std::move(opened).value()};
  FL_ASSERT(kept.snapshot != nullptr);
  return kept.snapshot.get();
}

const fakes::Volume* MountedVolume(World& world, const std::string& service,
                                   const std::string& target) {
  for (const fakes::ServiceSpec& spec : world.spec.services) {
    if (spec.name != service) continue;
    for (const fakes::MountSpec& mount : spec.mounts) {
      if (mount.target == target) return world.runtime.FindVolume(mount.source, mount.kind);
    }
  }
  return nullptr;
}

// A keyspace's schema_migrations as the store holds it, observed: each row
// as "<version> dirty|clean", in version order; "none" without rows or table.
std::string RecordedVersions(World& world, const std::string& keyspace) {
  sim::Result<models::cql::StoreSnapshot*> store = ObserveStore(world);
  if (!store.ok())
    return store.status().code() == sim::StatusCode::kNotFound ? "none" : store.status().message();
  if ((*store)->catalog().FindTable(keyspace, "schema_migrations") == nullptr) return "none";
  models::cql::Outcome rows =
      (*store)->Read(fmt::format("SELECT version, dirty FROM {}.schema_migrations", keyspace));
  if (const auto* error = std::get_if<models::cql::CqlError>(&rows)) return error->message;
  std::string text;
  for (const models::cql::Row& row : std::get<models::cql::QueryResult>(rows).rows) {
    FL_ASSERT(row.size() == 2);
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", row[0].integer,
                        row[1].integer != 0 ? "dirty" : "clean");
  }
  return text.empty() ? "none" : text;
}

}  // namespace faultline::scenarios
