#include "scenarios/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <functional>
#include <memory>

#include "fakes/network.h"
#include "fakes/runtime.h"
#include "fakes/sqlite_vfs.h"
#include "models/cql/client.h"
#include "models/migrate/safe_runner.h"
#include "models/operator/operator.h"
#include "models/s3/multipart.h"
#include "models/s3/seed_images.h"
#include "scenarios/checkers.h"
#include "scenarios/steps.h"
#include "scenarios/topology.h"
#include "scenarios/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

using sim::Awaitable;

// The image's runner, with its settings (golang-migrate's driver options).
std::shared_ptr<models::migrate::MigrationRunner> RunnerOf(const ImageSpec& image) {
  if (image.runner == "golang-migrate") {
    return std::make_shared<models::migrate::GolangMigrateRunner>(image.golang_migrate);
  }
  FL_ASSERT_MSG(image.golang_migrate == models::migrate::CassandraDriver::Options(),
                "image {}: golang-migrate settings on runner {} (refused when read)", image.version,
                image.runner);
  return models::migrate::MakeRunner(image.runner);
}

// A scenario's own image version, on the runtime. The files were checked
// when the scenario was read.
void RegisterImage(World& world, const ImageSpec& image) {
  sim::Result<models::migrate::MigrationSource> source =
      models::migrate::MigrationSource::FromFiles(image.files);
  FL_ASSERT_MSG(source.ok(), "image {} {}: {}", image.service, image.version,
                source.status().ToString());
  if (image.service == "proxy") {
    world.images.insert_or_assign(
        {models::s3::kProxyImage, image.version},
        World::ImageFacts{*source, image.reads_node_id, image.golang_migrate.migrations_table});
    models::s3::ProxyImage proxy;
    proxy.migrations = std::move(source).value();
    proxy.reads_node_id = image.reads_node_id;
    proxy.runner = RunnerOf(image);
    proxy.startup_retry = image.retry;
    FL_ASSERT(proxy.runner != nullptr);
    world.runtime.RegisterImage(models::s3::kProxyImage, image.version,
                                models::s3::ProxyEntryPoint(std::move(proxy)));
    return;
  }
  world.images.insert_or_assign(
      {models::s3::kNodeImage, image.version},
      World::ImageFacts{*source, true, image.golang_migrate.migrations_table});
  models::s3::NodeImage node;
  node.migrations = std::move(source).value();
  node.writes_node_id = image.writes_node_id;
  node.runner = RunnerOf(image);
  node.startup_retry = image.retry;
  FL_ASSERT(node.runner != nullptr);
  world.runtime.RegisterImage(models::s3::kNodeImage, image.version,
                              models::s3::NodeEntryPoint(std::move(node)));
}

// The scenario's [crash] and [[fault]]s as one explicit plan; a fault of
// one service names its scoped site (that service's own hits).
std::shared_ptr<const sim::FaultPlan> FaultPlanOf(const Scenario& scenario) {
  auto plan = std::make_shared<sim::ExplicitFaultPlan>();
  if (!scenario.crash_site.empty()) plan->CrashAt(scenario.crash_site, scenario.crash_hit);
  for (const FaultSpec& fault : scenario.faults) {
    FL_ASSERT(fault.hit >= 1);
    const std::string site =
        fault.service.empty() ? fault.site : sim::ScopedSite(fault.service, fault.site);
    switch (fault.action) {
      case FaultSpec::Action::kCrash:
        plan->CrashAt(site, fault.hit);
        break;
      case FaultSpec::Action::kError: {
        const auto kind = std::find_if(FaultErrors().begin(), FaultErrors().end(),
                                       [&](const FaultError& e) { return e.name == fault.error; });
        FL_ASSERT_MSG(kind != FaultErrors().end(), "fault error {} (checked when read)",
                      fault.error);
        plan->FailAt(site, fault.hit, kind->code,
                     fault.message.empty() ? std::string(kind->text) : fault.message);
        break;
      }
      case FaultSpec::Action::kDelay:
        plan->DelayAt(site, fault.hit, fault.delay);
        break;
      case FaultSpec::Action::kPowerLoss:
        plan->PowerLossAt(site, fault.hit, fault.survivors);
        break;
    }
  }
  return plan;
}

// A [crash] or [[fault]] (of any process) that the run never reached often
// enough: said, since the story would not be the one written.
std::vector<std::string> FaultsThatNeverHappened(const Scenario& scenario, World& world) {
  struct Named {
    std::string what;  // "crash", "fault"
    std::string site;  // As the plan names it: scoped for one service's fault.
    std::uint64_t hit;
  };
  std::vector<Named> named;
  if (!scenario.crash_site.empty()) {
    named.push_back({"crash", scenario.crash_site, scenario.crash_hit});
  }
  for (const FaultSpec& fault : scenario.faults) {
    named.push_back(
        {"fault", fault.service.empty() ? fault.site : sim::ScopedSite(fault.service, fault.site),
         fault.hit});
  }
  const sim::FaultInjector& faults = world.simulation.faults();
  std::vector<std::string> notes;
  for (const Named& fault : named) {
    std::uint64_t hits = faults.ScopedHits(fault.site);
    for (const sim::SiteCoverage& coverage : faults.Coverage()) {
      if (coverage.site == fault.site) hits = coverage.hits;
    }
    if (hits >= fault.hit) continue;
    notes.push_back(
        fmt::format("the {} at {} (hit {}) never happened: the run reached that site {} time{}",
                    fault.what, fault.site, fault.hit, hits, hits == 1 ? "" : "s"));
  }
  return notes;
}

// "(3 rows)" at the end of a ycqlsh result: how many rows it has.
std::optional<std::size_t> ResultRows(const std::string& output) {
  const std::size_t open = output.rfind("\n(");
  if (open == std::string::npos) return std::nullopt;
  std::size_t rows = 0;
  const char* begin = output.data() + open + 2;
  const auto [end, error] = std::from_chars(begin, output.data() + output.size(), rows);
  if (error != std::errc() || std::string_view(end).rfind(" rows)", 0) != 0) return std::nullopt;
  return rows;
}

// Whether a row of a ycqlsh result (below its header and rule) has a cell
// that is `value`, spaces around it aside.
bool HasCell(const std::string& output, std::string_view value) {
  std::size_t line_start = 0;
  int line = 0;
  constexpr int kMaxLines = 1'000'000;
  while (line_start < output.size() && line < kMaxLines) {
    const std::size_t line_end = std::min(output.find('\n', line_start), output.size());
    const std::string_view text(output.data() + line_start, line_end - line_start);
    if (++line > 2 && !text.empty() && text.front() != '(') {
      for (std::size_t cell = 0; cell <= text.size();) {
        const std::size_t bar = std::min(text.find('|', cell), text.size());
        std::string_view content = text.substr(cell, bar - cell);
        while (!content.empty() && content.front() == ' ') content.remove_prefix(1);
        while (!content.empty() && content.back() == ' ') content.remove_suffix(1);
        if (content == value) return true;
        cell = bar + 1;
      }
    }
    line_start = line_end + 1;
  }
  return false;
}

CheckResult Check(World& world, const Expectation& expectation, const std::string& output,
                  int status) {
  using Kind = Expectation::Kind;
  CheckResult check;
  switch (expectation.kind) {
    case Kind::kStatus:
      check.what = fmt::format("status {}", expectation.number);
      check.held = status == expectation.number;
      check.actual = std::to_string(status);
      break;
    case Kind::kOutputContains:
      check.what = fmt::format("output contains \"{}\"", expectation.text);
      check.held = output.find(expectation.text) != std::string::npos;
      check.actual = OneLine(output);
      break;
    case Kind::kOutputLacks:
      check.what = fmt::format("output lacks \"{}\"", expectation.text);
      check.held = output.find(expectation.text) == std::string::npos;
      check.actual = OneLine(output);
      break;
    case Kind::kLogLacks:
    case Kind::kLogContains: {
      const bool contains = expectation.kind == Kind::kLogContains;
      check.what = fmt::format("{}'s log {} \"{}\"", expectation.service,
                               contains ? "contains" : "lacks", expectation.text);
      std::vector<std::string> logs;  // Of every service the name matches.
      std::vector<ServiceImage> services;
      for (const fakes::ServiceSpec& spec : world.spec.services) {
        services.push_back({spec.name, spec.image});
      }
      for (const std::string& service : MatchingServices(expectation.service, services)) {
        if (!world.runtime.HasContainer(service)) continue;
        for (std::string& line : world.runtime.Logs(service)) logs.push_back(std::move(line));
      }
      const auto found = std::find_if(logs.begin(), logs.end(), [&](const std::string& line) {
        return line.find(expectation.text) != std::string::npos;
      });
      check.held = (found != logs.end()) == contains;
      check.actual = found != logs.end() ? OneLine(*found)
                     : logs.empty()      ? "(no log)"
                                         : OneLine(logs.back());
      break;
    }
    case Kind::kStatusIn: {
      std::string list;
      for (const std::int64_t number : expectation.numbers) {
        list += (list.empty() ? "" : ", ") + std::to_string(number);
      }
      check.what = fmt::format("status one of {}", list);
      check.held = std::find(expectation.numbers.begin(), expectation.numbers.end(), status) !=
                   expectation.numbers.end();
      check.actual = std::to_string(status);
      break;
    }
    case Kind::kRows: {
      check.what = fmt::format("{} rows", expectation.number);
      const std::optional<std::size_t> rows = ResultRows(output);
      check.held = rows == static_cast<std::size_t>(expectation.number);
      check.actual = rows ? std::to_string(*rows) + " rows" : OneLine(output);
      break;
    }
    case Kind::kRowWith: {
      check.what = fmt::format("a row with \"{}\"", expectation.text);
      check.held = HasCell(output, expectation.text);
      check.actual = OneLine(output);
      break;
    }
    case Kind::kSchemaMigrations: {
      check.what =
          fmt::format("{}.schema_migrations holds {}", expectation.service, expectation.text);
      check.actual = RecordedVersions(world, expectation.service);
      check.held = check.actual == expectation.text;
      break;
    }
    case Kind::kRestarted: {
      check.what =
          fmt::format("{} restarted at least {} times", expectation.service, expectation.number);
      const int restarts = world.runtime.HasContainer(expectation.service)
                               ? world.runtime.restart_count(expectation.service)
                               : 0;
      check.held = restarts >= expectation.number;
      check.actual = std::to_string(restarts);
      break;
    }
    case Kind::kState: {
      check.what = fmt::format("{} is {}", expectation.service, expectation.text);
      check.actual =
          world.runtime.HasContainer(expectation.service)
              ? std::string(fakes::ContainerStateName(world.runtime.state(expectation.service)))
              : "absent";
      check.held = check.actual == expectation.text;
      break;
    }
    case Kind::kExitCode: {
      check.what = fmt::format("{} exited with {}", expectation.service, expectation.number);
      const std::optional<int> code = world.runtime.HasContainer(expectation.service)
                                          ? world.runtime.last_exit_code(expectation.service)
                                          : std::nullopt;
      check.held = code == expectation.number;
      check.actual = code ? std::to_string(*code) : "no exit";
      break;
    }
    case Kind::kServing: {
      check.what = fmt::format("{} is {}serving", expectation.service,
                               expectation.number == 1 ? "" : "not ");
      const bool serving = IsServing(world, expectation.service);
      check.held = serving == (expectation.number == 1);
      check.actual = serving ? "serving" : "not serving";
      break;
    }
  }
  return check;
}

}  // namespace

std::string OneLine(const std::string& text, std::size_t max) {
  std::string line;
  for (const char c : text) {
    if (line.size() >= max) {
      line += "...";
      break;
    }
    line += c == '\n' ? ' ' : c;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

ScenarioResult RunScenario(const Scenario& scenario, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  sim::SimulationOptions simulation_options{.seed = options.seed};
  simulation_options.sinks = options.sinks;  // From the first event on.
  Checkers checkers;  // Watches the trace for schema statements; never emits.
  if (options.checkers) simulation_options.sinks.push_back(&checkers);
  if (!scenario.crash_site.empty() || !scenario.faults.empty()) {
    simulation_options.fault_plan = FaultPlanOf(scenario);
  }
  World world(std::move(simulation_options));
  for (const ImageSpec& image : scenario.images) RegisterImage(world, image);
  world.spec = ComposeSpecOf(scenario);

  world.served = ServedServices(world.spec);

  ScenarioResult result;
  result.name = scenario.name;
  result.seed = options.seed;
  result.passed = true;
  world.SetBudget(scenario.budget);
  for (const Step& step : scenario.steps) {
    int status = 0;
    StepResult step_result;
    const StepKind& kind = StepKindOf(step);
    step_result.action = kind.show(step);
    step_result.narration = step.narration;
    step_result.outcome = kind.perform(world, step, status);
    step_result.at = world.simulation.Now();
    for (const Expectation& expectation : step.expect) {
      step_result.checks.push_back(Check(world, expectation, step_result.outcome, status));
      result.passed = result.passed && step_result.checks.back().held;
    }
    result.steps.push_back(std::move(step_result));
    if (!world.budget_spent().empty()) break;
    if (options.checkers) checkers.After(world);
    if (options.observe) options.observe(result.steps.size() - 1, world);
  }
  // The liveness phase: faults stop (fault points, partitions, clogs, loss,
  // a link's own latency, disk errors and full disks), and the cluster has
  // kLivenessBound to converge (safety was checked after every step, under
  // the faults). A network-wide latency stays: it is the network's.
  world.simulation.faults().StopFaults();
  if (world.network.HasBlockedOrClogged()) world.network.Heal();
  if (world.network.options().loss_probability > 0) world.network.SetLoss(0);
  if (world.network.HasLinkModels()) world.network.ClearLinkModels();
  world.runtime.RepairDisks();
  world.Advance(kLivenessBound, [&world, served = world.served] {
    return world.runtime.idle() && std::all_of(served.begin(), served.end(),
                                               [&](const auto& s) { return IsServing(world, s); });
  });
  // A run stopped by its budget has no verdict: it did not finish.
  result.stopped = world.budget_spent();
  if (options.observe && result.stopped.empty()) options.observe(scenario.steps.size(), world);
  FL_ASSERT(result.steps.size() <= scenario.steps.size());
  FL_ASSERT(!result.stopped.empty() || result.steps.size() == scenario.steps.size());
  if (!result.stopped.empty()) result.passed = false;
  // The checkers look at the whole run's end state; a scenario may expect
  // any of them to fail (that is its story).
  std::vector<CheckResult> verdicts;
  if (options.checkers && result.stopped.empty()) verdicts = checkers.Verdicts(world);
  for (CheckResult& verdict : verdicts) {
    const std::string name = verdict.what;
    auto expected = scenario.checkers.find(name);
    const bool expected_to_hold = expected == scenario.checkers.end() || expected->second;
    if (verdict.held != expected_to_hold) result.passed = false;
    verdict.what = fmt::format("checker {} {}", name, expected_to_hold ? "holds" : "fails");
    verdict.checker = name;
    verdict.expected_to_hold = expected_to_hold;
    verdict.held = verdict.held == expected_to_hold;
    result.checkers.push_back(std::move(verdict));
  }
  for (std::string& note : FaultsThatNeverHappened(scenario, world)) {
    result.notes.push_back(std::move(note));
  }
  result.trace_hash = world.simulation.trace().hash();
  result.virtual_time = world.simulation.Now();
  result.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start)
          .count();
  return result;
}

}  // namespace faultline::scenarios
