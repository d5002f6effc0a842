#include "scenarios/harness/cluster.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

#include "models/migrate/safe_runner.h"
#include "models/s3/seed_images.h"
#include "scenarios/checkers/checkers.h"
#include "scenarios/checkers/expectations.h"
#include "scenarios/core/topology.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/steps/steps.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

// The image's runner, with its settings (golang-migrate's driver options).
// A runner of the cluster's own (ClusterOptions::runners) comes first.
std::shared_ptr<models::migrate::MigrationRunner> RunnerOf(
    const ImageSpec& image, const std::vector<CustomRunner>& custom) {
  for (const CustomRunner& runner : custom) {
    if (runner.name != image.runner) continue;
    FL_ASSERT_MSG(runner.make != nullptr, "runner {} has no factory", runner.name);
    std::shared_ptr<models::migrate::MigrationRunner> made = runner.make();
    FL_ASSERT_MSG(made != nullptr, "runner {}'s factory made nothing", runner.name);
    return made;
  }
  if (image.runner == "golang-migrate") {
    return std::make_shared<models::migrate::GolangMigrateRunner>(image.golang_migrate);
  }
  FL_ASSERT_MSG(image.golang_migrate == models::migrate::CassandraDriver::Options(),
                "image {}: golang-migrate settings on runner {} (refused when read)", image.version,
                image.runner);
  std::shared_ptr<models::migrate::MigrationRunner> runner =
      models::migrate::MakeRunner(image.runner);
  FL_ASSERT_MSG(runner != nullptr,
                "image {} {}: no runner named {} (golang-migrate, safe, db-init, or one of "
                "ClusterOptions::runners)",
                image.service, image.version, image.runner);
  return runner;
}

// A scenario's own image version, on the runtime. The files were checked
// when the scenario was read.
void RegisterImage(World& world, const ImageSpec& image, const std::vector<CustomRunner>& runners) {
  sim::Result<models::migrate::MigrationSource> source =
      models::migrate::MigrationSource::FromFiles(image.files);
  FL_ASSERT_MSG(source.ok(), "image {} {}: {}", image.service, image.version,
                source.status().ToString());
  if (image.service == "proxy") {
    world.images.insert_or_assign(
        {models::s3::kProxyImage, image.version},
        World::ImageFacts{.migrations = *source,
                          .reads_node_id = image.reads_node_id,
                          .version_table = image.golang_migrate.migrations_table,
                          .startup_retry = image.retry});
    models::s3::ProxyImage proxy;
    proxy.migrations = std::move(source).value();
    proxy.reads_node_id = image.reads_node_id;
    proxy.runner = RunnerOf(image, runners);
    proxy.startup_retry = image.retry;
    FL_ASSERT(proxy.runner != nullptr);
    world.runtime.RegisterImage(models::s3::kProxyImage, image.version,
                                models::s3::ProxyEntryPoint(std::move(proxy)));
    return;
  }
  world.images.insert_or_assign(
      {models::s3::kNodeImage, image.version},
      World::ImageFacts{.migrations = *source,
                        .version_table = image.golang_migrate.migrations_table,
                        .startup_retry = image.retry});
  models::s3::NodeImage node;
  node.migrations = std::move(source).value();
  node.writes_node_id = image.writes_node_id;
  node.runner = RunnerOf(image, runners);
  node.startup_retry = image.retry;
  FL_ASSERT(node.runner != nullptr);
  world.runtime.RegisterImage(models::s3::kNodeImage, image.version,
                              models::s3::NodeEntryPoint(std::move(node)));
}

// What a [[fault]] makes its hit do.
sim::FaultDecision DecisionOf(const FaultSpec& fault) {
  FL_ASSERT_MSG(fault.action != sim::FaultAction::kNone, "a [[fault]] at {} does nothing",
                fault.site);
  sim::FaultDecision decision{.action = fault.action,
                              .delay = fault.delay,
                              .message = fault.message,
                              .survivors = fault.survivors};
  if (fault.action == sim::FaultAction::kError) {
    const auto kind = std::find_if(FaultErrors().begin(), FaultErrors().end(),
                                   [&](const FaultError& e) { return e.name == fault.error; });
    FL_ASSERT_MSG(kind != FaultErrors().end(), "fault error {} (checked when read)", fault.error);
    decision.error = kind->code;
    if (decision.message.empty()) decision.message = kind->text;
  }
  return decision;
}

// The fields `step`'s kind needs, checked before it is played: a step
// built in code has no reader to check it.
void CheckRequiredFields(const Step& step, const StepKind& kind) {
  for (const StepFieldUse& use : kind.fields) {
    const StepFieldSpec& field = FieldSpecOf(use.field);
    FL_ASSERT_MSG(!use.required || field.has(step),
                  "a '{}' step needs {} (scenarios/steps/fields.h)", kind.name, field.key);
  }
}

Step MakeStep(Step::Kind kind) {
  Step step;
  step.kind = kind;
  return step;
}

Step S3Step(std::string method, std::string path, std::string body, std::string node) {
  Step step = MakeStep(Step::Kind::kS3);
  step.method = std::move(method);
  step.path = std::move(path);
  step.body = std::move(body);
  step.service = std::move(node);
  return step;
}

Step OnService(Step::Kind kind, std::string service) {
  Step step = MakeStep(kind);
  step.service = std::move(service);
  return step;
}

}  // namespace

std::shared_ptr<sim::ExplicitFaultPlan> FaultPlanOf(const ScenarioSetting& scenario) {
  auto plan = std::make_shared<sim::ExplicitFaultPlan>();
  if (!scenario.crash_site.empty()) plan->CrashAt(scenario.crash_site, scenario.crash_hit);
  for (const FaultSpec& fault : scenario.faults) {
    FL_ASSERT(fault.hit >= 1);
    const std::string site =
        fault.service.empty() ? fault.site : sim::ScopedSite(fault.service, fault.site);
    plan->DecideAt(site, fault.hit, DecisionOf(fault));
  }
  return plan;
}

Cluster::Cluster(const Scenario& topology, ClusterOptions options)
    : topology_{static_cast<const ScenarioSetting&>(topology), {}},
      options_(std::move(options)),
      seed_(options_.seed.value_or(topology_.seed)) {
  FL_ASSERT_MSG(topology_.nodes >= 1 && topology_.nodes <= 16,
                "a topology has 1 to 16 nodes, not {}", topology_.nodes);
  sim::SimulationOptions simulation{.seed = seed_};
  simulation.sinks = options_.sinks;  // From the first event on.
  if (options_.checkers) {
    checkers_ = std::make_unique<Checkers>();  // Watches for schema statements; never emits.
    simulation.sinks.push_back(checkers_.get());
  }
  // Always a plan, so CrashAt can add to it; an empty one decides nothing.
  plan_ = FaultPlanOf(topology_);
  simulation.fault_plan = plan_;
  world_ = std::make_unique<World>(std::move(simulation));
  for (const ImageSpec& image : topology_.images) RegisterImage(*world_, image, options_.runners);
  for (const CustomImage& image : options_.images) {
    FL_ASSERT_MSG(image.entry != nullptr, "image {}:{} has no entry point", image.image,
                  image.version);
    world_->runtime.RegisterImage(image.image, image.version, image.entry);
  }
  world_->spec = ComposeSpecOf(topology_);
  for (const fakes::ServiceSpec& service : options_.services) {
    for (const fakes::ServiceSpec& existing : world_->spec.services) {
      FL_ASSERT_MSG(existing.name != service.name, "service {} is in the cluster twice",
                    service.name);
    }
    world_->spec.services.push_back(service);
  }
  const sim::Status compose = world_->runtime.Validate(world_->spec);
  FL_ASSERT_MSG(compose.ok(), "the cluster's compose file: {}", compose.message());
  world_->served = ServedServices(world_->spec);
  world_->SetBudget(topology_.budget);
  fault_sites_ = ReachableFaultSites();  // Asked at every CrashAt: worked out once.
}

Cluster::~Cluster() = default;

const StepResult& Cluster::Play(Step step) {
  // Stored first and performed in place: what the step's tasks read of it
  // (a multipart's parts) lives as long as the cluster.
  return PlayStored(owned_steps_.emplace_back(std::move(step)));
}

const StepResult& Cluster::PlayBorrowed(const Step& step) { return PlayStored(step); }

const StepResult& Cluster::PlayStored(const Step& step) {
  story_.push_back(&step);
  const StepKind& kind = StepKindOf(step);
  CheckRequiredFields(step, kind);
  constexpr std::size_t kMaxSteps = 1'000'000;  // A bound: a harness run is a story, not a soak.
  FL_ASSERT_MSG(played_.size() < kMaxSteps, "more than {} steps on one cluster", kMaxSteps);
  played_after_settle_ = played_after_settle_ || settled_;
  StepResult result;
  result.action = kind.show(step);
  result.narration = step.narration;
  if (!stopped().empty()) {
    // A run past its budget plays nothing more; what the step expected did
    // not happen.
    result.outcome = "(not played: " + stopped() + ")";
    result.ok = false;
    result.checks.assign(step.expect.size(),
                         CheckResult{.what = "expected", .held = false, .actual = result.outcome});
  } else {
    StepOutcome outcome = kind.perform(*world_, step);
    if (step.kind == Step::Kind::kUp) up_ = outcome.ok;
    if (step.kind == Step::Kind::kDown) up_ = false;
    for (const Expectation& expectation : step.expect) {
      result.checks.push_back(CheckExpectation(*world_, expectation, outcome));
    }
    result.outcome = std::move(outcome.text);
    result.ok = outcome.ok;
    result.status = outcome.status;
    result.body = std::move(outcome.body);
  }
  result.at = world_->simulation.Now();
  if (checkers_ != nullptr && stopped().empty()) checkers_->After(*world_);
  FL_ASSERT(story_.size() == played_.size() + 1);
  return played_.emplace_back(std::move(result));
}

const StepResult& Cluster::Up() { return Play(MakeStep(Step::Kind::kUp)); }

const StepResult& Cluster::Down(bool volumes) {
  Step step = MakeStep(Step::Kind::kDown);
  step.number = volumes ? 1 : 0;
  return Play(std::move(step));
}

const StepResult& Cluster::Clean() { return Play(MakeStep(Step::Kind::kClean)); }

const StepResult& Cluster::Put(const std::string& path, const std::string& body,
                               const std::string& node) {
  return Play(S3Step("PUT", path, body, node));
}

const StepResult& Cluster::Get(const std::string& path, const std::string& node) {
  return Play(S3Step("GET", path, "", node));
}

const StepResult& Cluster::Delete(const std::string& path, const std::string& node) {
  return Play(S3Step("DELETE", path, "", node));
}

std::vector<std::string> Cluster::Services() const {
  std::vector<std::string> names;
  for (const fakes::ServiceSpec& service : world_->spec.services) names.push_back(service.name);
  return names;
}

std::vector<std::string> Cluster::VersionsOf(const std::string& service) const {
  const auto spec = std::find_if(world_->spec.services.begin(), world_->spec.services.end(),
                                 [&](const fakes::ServiceSpec& s) { return s.name == service; });
  if (spec == world_->spec.services.end()) return {};
  const bool node = spec->image == models::s3::kNodeImage;
  if (!node && spec->image != models::s3::kProxyImage) return {};
  std::vector<std::string> versions = models::s3::SeedImageVersions(spec->image);
  for (const ImageSpec& own : topology_.images) {
    if ((own.service == "node") == node) versions.push_back(own.version);
  }
  return versions;
}

std::vector<std::string> Cluster::ReachableFaultSites() const {
  // Every version a node or the proxy may be upgraded to may run later: the
  // topology as if a set-image step named each, so FaultSitesOf counts their
  // runners' sites too.
  Scenario reachable = topology_;
  for (const ServiceImage& service : ServicesOf(topology_)) {
    for (const std::string& version : VersionsOf(service.name)) {
      Step set_image = OnService(Step::Kind::kSetImage, service.name);
      set_image.version = version;
      reachable.steps.push_back(std::move(set_image));
    }
  }
  std::vector<std::string> sites = FaultSitesOf(reachable);
  for (const ImageSpec& image : topology_.images) {
    for (const CustomRunner& runner : options_.runners) {
      if (runner.name != image.runner || runner.make == nullptr) continue;
      std::shared_ptr<models::migrate::MigrationRunner> made = runner.make();
      for (const ServedService& served : world_->served) {
        if (served.keyspace.empty()) continue;
        for (std::string& site : made->FaultSites(served.keyspace))
          sites.push_back(std::move(site));
      }
    }
  }
  std::sort(sites.begin(), sites.end());
  sites.erase(std::unique(sites.begin(), sites.end()), sites.end());
  return sites;
}

void Cluster::CheckService(const std::string& service) const {
  const std::vector<std::string> names = Services();
  FL_ASSERT_MSG(std::find(names.begin(), names.end(), service) != names.end(),
                "no service '{}' in this cluster (its services: {})", service,
                fmt::join(names, ", "));
}

const StepResult& Cluster::Kill(const std::string& service) {
  CheckService(service);
  return Play(OnService(Step::Kind::kKill, service));
}

const StepResult& Cluster::Restart(const std::string& service) {
  CheckService(service);
  return Play(OnService(Step::Kind::kRestart, service));
}

const StepResult& Cluster::Stop(const std::string& service) {
  CheckService(service);
  return Play(OnService(Step::Kind::kStop, service));
}

const StepResult& Cluster::Upgrade(const std::string& service, const std::string& version) {
  CheckService(service);
  const auto spec = std::find_if(world_->spec.services.begin(), world_->spec.services.end(),
                                 [&](const fakes::ServiceSpec& s) { return s.name == service; });
  FL_ASSERT_MSG(world_->runtime.HasImage(spec->image, version),
                "Upgrade({}, {}): no image {}:{} (a seed version, an ImageSpec of the topology, "
                "or a CustomImage)",
                service, version, spec->image, version);
  Step set_image = OnService(Step::Kind::kSetImage, service);
  set_image.version = version;
  Play(std::move(set_image));
  return Up();
}

const StepResult& Cluster::Partition(const std::string& service, const std::string& peer) {
  CheckService(service);
  if (!peer.empty()) CheckService(peer);
  Step step = OnService(Step::Kind::kPartition, service);
  step.peer = peer;
  return Play(std::move(step));
}

const StepResult& Cluster::Heal() { return Play(MakeStep(Step::Kind::kHeal)); }

const StepResult& Cluster::PowerLoss(const std::string& service, sim::Survivors survivors) {
  CheckService(service);
  Step step = OnService(Step::Kind::kPowerLoss, service);
  step.survivors = survivors;
  step.duration = StepKindOf(step).default_duration;
  return Play(std::move(step));
}

const StepResult& Cluster::Cql(const std::string& statement) {
  Step step = MakeStep(Step::Kind::kCql);
  step.statement = statement;
  return Play(std::move(step));
}

const StepResult& Cluster::Wait(sim::Duration duration) {
  Step step = MakeStep(Step::Kind::kWait);
  step.duration = duration;
  return Play(std::move(step));
}

void Cluster::CrashAt(const std::string& site, std::uint64_t nth) {
  FL_ASSERT_MSG(nth >= 1, "CrashAt({}, {}): the first pass from now is 1", site, nth);
  FL_ASSERT_MSG(std::binary_search(fault_sites_.begin(), fault_sites_.end(), site),
                "CrashAt: no fault site '{}' in this cluster (Cluster::FaultSites() lists them)",
                site);
  FL_ASSERT_MSG(!settled_, "CrashAt({}) after Settle(): no fault fires once settled", site);
  constexpr std::size_t kMaxArmed = 1000;  // The plan's own bound is 4096 rules in all.
  FL_ASSERT_MSG(armed_.size() < kMaxArmed, "more than {} crashes armed on one cluster", kMaxArmed);
  const std::uint64_t hit = world_->simulation.faults().Hits(site) + nth;
  plan_->CrashAt(site, hit);
  armed_.push_back(FaultSpec{.site = site, .hit = hit});
}

void Cluster::Settle() {
  // Faults stop (fault points, partitions, clogs, loss, a link's own
  // latency, disk errors and full disks); a network-wide latency stays: it
  // is the network's.
  World& world = *world_;
  settled_ = true;
  world.simulation.faults().StopFaults();
  if (world.network.HasBlockedOrClogged()) world.network.Heal();
  if (world.network.options().loss_probability > 0) world.network.SetLoss(0);
  if (world.network.HasLinkModels()) world.network.ClearLinkModels();
  world.runtime.RepairDisks();
  world.Advance(kLivenessBound, [&world, served = world.served] {
    return world.runtime.idle() && std::all_of(served.begin(), served.end(),
                                               [&](const auto& s) { return IsServing(world, s); });
  });
}

std::vector<CheckResult> Cluster::Verdicts() {
  if (checkers_ == nullptr || !stopped().empty()) return {};
  return checkers_->Verdicts(*world_);
}

std::vector<std::string> Cluster::Logs(const std::string& service) const {
  if (!world_->runtime.HasContainer(service)) return {};
  return world_->runtime.Logs(service);
}

bool Cluster::Serving(const std::string& service) const { return IsServing(*world_, service); }

const std::string& Cluster::stopped() const { return world_->budget_spent(); }

sim::Result<Scenario> Cluster::AsScenario() const {
  if (!options_.runners.empty() || !options_.images.empty() || !options_.services.empty()) {
    return sim::Status::InvalidArgument(
        "this cluster runs code of your own (ClusterOptions runners, images or services): a "
        "scenario file cannot name it");
  }
  if (played_after_settle_) {
    return sim::Status::InvalidArgument(
        "steps were played after Settle(): a scenario file settles only at its end");
  }
  Scenario scenario = topology_;
  scenario.seed = seed_;
  scenario.steps.reserve(story_.size());
  for (const Step* step : story_) scenario.steps.push_back(*step);
  for (const FaultSpec& fault : armed_) scenario.faults.push_back(fault);
  // What a file can say: read back, it must be this scenario.
  if (scenario.name.empty()) scenario.name = "cluster";
  if (scenario.title.empty()) scenario.title = "A story played on the cluster harness";
  std::variant<Scenario, FileError> read = ParseScenario(ToToml(scenario), scenario.name + ".toml");
  if (const FileError* error = std::get_if<FileError>(&read)) {
    return sim::Status::InvalidArgument("a scenario file cannot say this story: " + error->message);
  }
  const Scenario& again = std::get<Scenario>(read);
  for (std::size_t i = 0; i < scenario.steps.size(); ++i) {
    if (i >= again.steps.size() || !(again.steps[i] == scenario.steps[i])) {
      return sim::Status::InvalidArgument(fmt::format(
          "step {} ({}) does not survive a scenario file (a field its kind does not take, or "
          "a duration finer than a millisecond)",
          i + 1, StepKindOf(scenario.steps[i]).show(scenario.steps[i])));
    }
  }
  if (!(again == scenario)) {
    return sim::Status::InvalidArgument("the topology does not survive a scenario file");
  }
  return scenario;
}

}  // namespace faultline::scenarios
