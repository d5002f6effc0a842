#include "scenarios/runner.h"

#include <fmt/format.h>

#include <algorithm>
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
#include "scenarios/topology.h"
#include "scenarios/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

using sim::Awaitable;

// A scenario's own image version, on the runtime. The files were checked
// when the scenario was read.
void RegisterImage(World& world, const ImageSpec& image) {
  sim::Result<models::migrate::MigrationSource> source =
      models::migrate::MigrationSource::FromFiles(image.files);
  FL_ASSERT_MSG(source.ok(), "image {} {}: {}", image.service, image.version,
                source.status().ToString());
  if (image.service == "proxy") {
    world.images.insert_or_assign({models::s3::kProxyImage, image.version},
                                  World::ImageFacts{*source, image.reads_node_id});
    models::s3::ProxyImage proxy;
    proxy.migrations = std::move(source).value();
    proxy.reads_node_id = image.reads_node_id;
    proxy.runner = models::migrate::MakeRunner(image.runner);
    FL_ASSERT(proxy.runner != nullptr);
    world.runtime.RegisterImage(models::s3::kProxyImage, image.version,
                                models::s3::ProxyEntryPoint(std::move(proxy)));
    return;
  }
  world.images.insert_or_assign({models::s3::kNodeImage, image.version},
                                World::ImageFacts{*source});
  models::s3::NodeImage node;
  node.migrations = std::move(source).value();
  node.writes_node_id = image.writes_node_id;
  node.runner = models::migrate::MakeRunner(image.runner);
  FL_ASSERT(node.runner != nullptr);
  world.runtime.RegisterImage(models::s3::kNodeImage, image.version,
                              models::s3::NodeEntryPoint(std::move(node)));
}

// Runs the simulation until `done()` holds or `bound` of virtual time has
// passed; says whether it held. `done` is asked before every scheduler step,
// so it only reads.
bool RunUntilDone(World& world, sim::Duration bound, const std::function<bool()>& done) {
  return world.Advance(bound, done);
}

// The served services of the compose file, each with whether it must serve
// for an operation on `only` (all, when empty) to count as complete.
std::function<bool()> ServingOrDown(World& world, const std::string& only) {
  std::vector<ServedService> services;
  for (const ServedService& service : world.served) {
    if (only.empty() || service.name == only) services.push_back(service);
  }
  return [&world, services = std::move(services)] {
    if (!world.runtime.idle()) return false;
    for (const ServedService& service : services) {
      // A container that exited or waits to restart has done what it will.
      const bool running = world.runtime.HasContainer(service.name) &&
                           world.runtime.state(service.name) == fakes::ContainerState::kRunning;
      if (running && !IsServing(world, service)) return false;
    }
    return true;
  };
}

// How long an operation may take before the step goes on without it.
constexpr sim::Duration kUpBound = std::chrono::seconds(5);
constexpr sim::Duration kRestartBound = std::chrono::seconds(2);
constexpr sim::Duration kStopBound = std::chrono::minutes(1);

std::string Unfinished(sim::Duration bound) {
  return fmt::format(" (not finished after {})", sim::FormatDuration(bound));
}

// Initiate, upload each part, complete: the whole upload as a client does
// it, through the proxy. The outcome is the complete's status and body.
std::string MultipartUpload(World& world, const Step& step, int& status) {
  auto code = std::make_shared<int>(0);
  std::string out = world.RunProcess(
      "client", [&world, &step, code](models::cql::CqlSession&) -> Awaitable<std::string> {
        const fakes::Endpoint proxy("s3-proxy", models::s3::kProxyPort);
        const auto timeout = std::chrono::seconds(30);
        sim::Result<fakes::Response> initiated = co_await world.network.Call(
            proxy, fakes::Request("POST", step.path, "", {}, "uploads"), timeout);
        if (!initiated.ok()) co_return "initiate: " + initiated.status().ToString();
        const std::string& body = initiated->body;
        const std::size_t open = body.find("<UploadId>");
        const std::size_t close = body.find("</UploadId>");
        if (initiated->status != 200 || open == std::string::npos || close == std::string::npos) {
          *code = initiated->status;
          co_return fmt::format("initiate: {} {}", initiated->status, body);
        }
        const std::string upload = body.substr(open + 10, close - open - 10);
        std::vector<std::pair<int, std::string>> etags;
        for (std::size_t i = 0; i < step.parts.size(); ++i) {
          const std::string query = fmt::format("partNumber={}&uploadId={}", i + 1, upload);
          sim::Result<fakes::Response> part = co_await world.network.Call(
              proxy, fakes::Request("PUT", step.path, step.parts[i], {}, query), timeout);
          if (!part.ok() || part->status != 200 || !part->headers.contains("ETag")) {
            *code = part.ok() ? part->status : 0;
            co_return fmt::format("part {}: {}", i + 1,
                                  part.ok() ? part->body : part.status().ToString());
          }
          const std::string& etag = part->headers.at("ETag");
          etags.emplace_back(static_cast<int>(i + 1), etag.substr(1, etag.size() - 2));
        }
        sim::Result<fakes::Response> completed = co_await world.network.Call(
            proxy,
            fakes::Request("POST", step.path, models::s3::CompleteBody(etags), {},
                           "uploadId=" + upload),
            timeout);
        if (!completed.ok()) co_return "complete: " + completed.status().ToString();
        *code = completed->status;
        co_return fmt::format("{} {}", completed->status, completed->body);
      });
  status = *code;
  if (status == 200) {
    std::string whole;
    for (const std::string& part : step.parts) whole += part;
    world.acknowledged[step.path] = whole;
  }
  return out;
}

std::string S3Request(World& world, const Step& step, int& status) {
  auto code = std::make_shared<int>(0);
  std::string out = world.RunProcess(
      "client", [&world, &step, code](models::cql::CqlSession&) -> Awaitable<std::string> {
        fakes::Request request(step.method, step.path, step.body, {}, step.query);
        sim::Result<fakes::Response> response =
            co_await world.network.Call(fakes::Endpoint("s3-proxy", models::s3::kProxyPort),
                                        std::move(request), std::chrono::seconds(30));
        if (!response.ok()) co_return response.status().ToString();
        *code = response->status;
        co_return fmt::format("{} {}", response->status, response->body);
      });
  status = *code;
  if (step.method == "PUT" && status == 200 && step.query.empty()) {
    world.acknowledged[step.path] = step.body;
  } else if (step.method == "DELETE" && status == 204) {
    world.acknowledged.erase(step.path);
  }
  return out;
}

// What docker says when there is no container to act on (before `up`, or
// after `down`).
std::string NoContainer(const std::string& service, std::string_view verb) {
  return fmt::format("cannot {} {}: no such container (is the cluster up?)", verb, service);
}

// Does the step; returns its outcome in words (and the S3 status, if any).
std::string Perform(World& world, const Step& step, int& status) {
  using Kind = Step::Kind;
  models::ops::Operator& op = world.op;
  switch (step.kind) {
    case Kind::kUp: {
      // As `docker compose up --wait`: done once every service has started
      // and those running serve (at most kUpBound).
      const sim::Status up = op.ComposeUp(world.spec);
      if (!up.ok()) return "compose up failed: " + up.message();
      const bool done = RunUntilDone(world, kUpBound, ServingOrDown(world, ""));
      return done ? "compose up" : "compose up" + Unfinished(kUpBound);
    }
    case Kind::kDown: {
      op.ComposeDown(step.number == 1);
      const bool done = RunUntilDone(world, kStopBound, [&world] { return world.runtime.idle(); });
      return std::string(step.number == 1 ? "compose down -v" : "compose down (volumes kept)") +
             (done ? "" : Unfinished(kStopBound));
    }
    case Kind::kClean:
      op.Clean();
      return "host data directories emptied; the named volume kept";
    case Kind::kSetImage:
      for (fakes::ServiceSpec& service : world.spec.services) {
        if (service.name == step.service) service.version = step.version;
      }
      // The compose file changes; the next `up` recreates the container.
      return fmt::format("the compose file now has {} at image version {}", step.service,
                         step.version);
    case Kind::kWaitFor: {
      world.Advance(step.duration, [&world, &step] {
        return world.runtime.HasContainer(step.service) &&
               fakes::ContainerStateName(world.runtime.state(step.service)) == step.state;
      });
      const std::string now =
          world.runtime.HasContainer(step.service)
              ? std::string(fakes::ContainerStateName(world.runtime.state(step.service)))
              : "absent";
      return fmt::format("{} is {} at {}", step.service, now,
                         sim::FormatTime(world.simulation.Now()));
    }
    case Kind::kMultipart:
      return MultipartUpload(world, step, status);
    case Kind::kKill:
      if (!world.runtime.HasContainer(step.service)) return NoContainer(step.service, "kill");
      world.runtime.Kill(step.service);
      // Done once the runtime has seen the exit (its restart policy then
      // takes over).
      RunUntilDone(world, kStopBound, [&world, &step] {
        return world.runtime.state(step.service) != fakes::ContainerState::kRunning;
      });
      return "killed " + step.service;
    case Kind::kStop:
      if (!world.runtime.HasContainer(step.service)) return NoContainer(step.service, "stop");
      world.runtime.Stop(step.service);
      return RunUntilDone(world, kStopBound, [&world] { return world.runtime.idle(); })
                 ? "stopped " + step.service
                 : "stopping " + step.service + Unfinished(kStopBound);
    case Kind::kRestart:
      if (!world.runtime.HasContainer(step.service)) return NoContainer(step.service, "restart");
      op.Restart(step.service);
      return RunUntilDone(world, kRestartBound, ServingOrDown(world, step.service))
                 ? "restarted " + step.service
                 : "restarted " + step.service + ", not serving yet";
    case Kind::kWait:
      world.Advance(step.duration, nullptr);
      return "waited " + sim::FormatDuration(step.duration);
    case Kind::kS3:
      return S3Request(world, step, status);
    case Kind::kCql:
      return world.RunProcess("ycqlsh",
                              [&op, &step](models::cql::CqlSession& s) -> Awaitable<std::string> {
                                co_return co_await op.Cql(s, step.statement);
                              });
    case Kind::kMigrateVersion:
      return world.RunProcess("migrate",
                              [&op, &step](models::cql::CqlSession& s) -> Awaitable<std::string> {
                                co_return co_await op.MigrateVersion(s, step.keyspace);
                              });
    case Kind::kMigrateForce:
      return world.RunProcess("migrate",
                              [&op, &step](models::cql::CqlSession& s) -> Awaitable<std::string> {
                                co_return co_await op.MigrateForce(s, step.keyspace, step.number);
                              });
    case Kind::kRecreateKeyspace:
      return world.RunProcess("ycqlsh",
                              [&op, &step](models::cql::CqlSession& s) -> Awaitable<std::string> {
                                co_return co_await op.RecreateKeyspace(s, step.keyspace);
                              });
  }
  return "";
}

std::string Action(const Step& step) {
  using Kind = Step::Kind;
  switch (step.kind) {
    case Kind::kUp:
      return "docker compose up";
    case Kind::kDown:
      return step.number == 1 ? "docker compose down -v" : "docker compose down";
    case Kind::kClean:
      return "clean the host data directories";
    case Kind::kSetImage:
      return fmt::format("edit the compose file: {} image {}", step.service, step.version);
    case Kind::kRestart:
      return "docker compose restart " + step.service;
    case Kind::kWaitFor:
      return fmt::format("wait until {} is {} (at most {})", step.service, step.state,
                         sim::FormatDuration(step.duration));
    case Kind::kMultipart:
      return fmt::format("multipart upload of {} parts to {}", step.parts.size(), step.path);
    case Kind::kKill:
      return "docker kill " + step.service;
    case Kind::kStop:
      return "docker compose stop " + step.service;
    case Kind::kWait:
      return "wait " + sim::FormatDuration(step.duration);
    case Kind::kS3:
      return fmt::format("{} {}{}{}", step.method, step.path, step.query.empty() ? "" : "?",
                         step.query);
    case Kind::kCql:
      return "ycqlsh -e \"" + step.statement + "\"";
    case Kind::kMigrateVersion:
      return "migrate version (" + step.keyspace + ")";
    case Kind::kMigrateForce:
      return fmt::format("migrate force {} ({})", step.number, step.keyspace);
    case Kind::kRecreateKeyspace:
      return "drop and re-create keyspace " + step.keyspace;
  }
  return "";
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
    case Kind::kLogContains: {
      check.what = fmt::format("{}'s log contains \"{}\"", expectation.service, expectation.text);
      std::vector<std::string> logs;  // Of every service the name matches.
      std::vector<ServiceImage> services;
      for (const fakes::ServiceSpec& spec : world.spec.services) {
        services.push_back({spec.name, spec.image});
      }
      for (const std::string& service : MatchingServices(expectation.service, services)) {
        if (!world.runtime.HasContainer(service)) continue;
        for (std::string& line : world.runtime.Logs(service)) logs.push_back(std::move(line));
      }
      for (const std::string& line : logs) {
        if (line.find(expectation.text) != std::string::npos) check.held = true;
      }
      check.actual = logs.empty() ? "(no log)" : OneLine(logs.back());
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
                                          ? world.runtime.exit_code(expectation.service)
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
  if (!scenario.crash_site.empty()) {
    auto plan = std::make_shared<sim::ExplicitFaultPlan>();
    plan->CrashAt(scenario.crash_site, scenario.crash_hit);
    simulation_options.fault_plan = plan;
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
    step_result.action = Action(step);
    step_result.narration = step.narration;
    step_result.outcome = Perform(world, step, status);
    step_result.at = world.simulation.Now();
    for (const Expectation& expectation : step.expect) {
      step_result.checks.push_back(Check(world, expectation, step_result.outcome, status));
      result.passed = result.passed && step_result.checks.back().held;
    }
    result.steps.push_back(std::move(step_result));
    if (!world.budget_spent().empty()) break;
    if (options.checkers) checkers.After(world);
  }
  // The liveness phase: faults stop, and the cluster has kLivenessBound to
  // converge (safety was checked after every step, under the faults).
  world.simulation.faults().StopFaults();
  RunUntilDone(world, kLivenessBound, [&world, served = world.served] {
    return world.runtime.idle() && std::all_of(served.begin(), served.end(),
                                               [&](const auto& s) { return IsServing(world, s); });
  });
  // A run stopped by its budget has no verdict: it did not finish.
  result.stopped = world.budget_spent();
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
  if (!scenario.crash_site.empty()) {
    std::uint64_t hits = 0;
    std::uint64_t fires = 0;
    for (const sim::SiteCoverage& site : world.simulation.faults().Coverage()) {
      if (site.site == scenario.crash_site) {
        hits = site.hits;
        fires = site.fires;
      }
    }
    if (fires == 0) {
      result.notes.push_back(fmt::format(
          "the crash at {} (hit {}) never happened: the run reached that site {} time{}",
          scenario.crash_site, scenario.crash_hit, hits, hits == 1 ? "" : "s"));
    }
  }
  result.trace_hash = world.simulation.trace().hash();
  result.virtual_time = world.simulation.Now();
  result.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start)
          .count();
  return result;
}

}  // namespace faultline::scenarios
