// The operator's steps: a statement at the ycqlsh prompt, golang-migrate's
// CLI, and re-creating a keyspace by hand (steps/perform.h).
#include <fmt/format.h>

#include "models/cql/client.h"
#include "models/operator/operator.h"
#include "scenarios/steps/perform.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

using sim::Awaitable;

StepOutcome FromAnswer(const models::ops::Answer& answer) {
  return StepOutcome::Output(answer.output, answer.ok);
}

// The folder the CLI's -path names: the migrations of the image version
// `service` runs (or, without one, of the service that migrates the
// keyspace), as its image ships them.
const models::migrate::MigrationSource& MigrateCliFolder(World& world, const Step& step) {
  static const models::migrate::MigrationSource kNone;
  for (const ServedService& served : world.served) {
    const bool chosen =
        step.service.empty() ? served.keyspace == step.keyspace : served.name == step.service;
    if (!chosen || !world.runtime.HasContainer(served.name)) continue;
    // The version its container runs (or, not started yet, will run).
    std::string version = world.runtime.running_version(served.name);
    if (version.empty()) version = world.runtime.container_spec(served.name).version;
    const auto image = world.images.find({served.image, version});
    if (image != world.images.end()) return image->second.migrations;
  }
  return kNone;
}

}  // namespace

StepOutcome PerformCql(World& world, const Step& step) {
  FL_ASSERT(!step.statement.empty());
  FL_ASSERT(step.number >= 0);  // page-size: the reader checks.
  auto result = std::make_shared<models::cql::ClientResult>();
  StepOutcome out = world.RunProcess(
      kShellHost, [&world, &step, result](models::cql::CqlSession& s) -> Awaitable<StepOutcome> {
        // A driver's request (live mode) runs in its session's keyspace.
        if (!step.keyspace.empty()) {
          if (sim::Status connected = co_await s.Connect(step.keyspace); !connected.ok()) {
            result->status = connected;
            co_return StepOutcome::Output(connected.message(), false);
          }
        }
        const models::ops::Answer answer = co_await world.op.Cql(
            s, step.statement,
            models::cql::PageRequest(static_cast<std::int32_t>(step.number), step.paging_state),
            result.get());
        co_return FromAnswer(answer);
      });
  world.last_answer.cql = std::move(*result);
  return out;
}

StepOutcome PerformMigrateVersion(World& world, const Step& step) {
  FL_ASSERT(!step.keyspace.empty());
  return world.RunProcess(
      kMigrateHost, [&world, &step](models::cql::CqlSession& s) -> Awaitable<StepOutcome> {
        const models::ops::Answer answer = co_await world.op.MigrateVersion(s, step.keyspace);
        co_return FromAnswer(answer);
      });
}

StepOutcome PerformMigrateForce(World& world, const Step& step) {
  FL_ASSERT(!step.keyspace.empty());
  FL_ASSERT(step.number >= -1);  // A version, or -1 for none (the reader checks).
  return world.RunProcess(kMigrateHost,
                          [&world, &step](models::cql::CqlSession& s) -> Awaitable<StepOutcome> {
                            const models::ops::Answer answer =
                                co_await world.op.MigrateForce(s, step.keyspace, step.number);
                            co_return FromAnswer(answer);
                          });
}

StepOutcome PerformMigrate(World& world, const Step& step) {
  FL_ASSERT(!step.keyspace.empty() && !step.command.empty());
  const models::migrate::MigrationSource& folder = MigrateCliFolder(world, step);
  return world.RunProcess(
      kMigrateHost, [&world, &step, &folder](models::cql::CqlSession& s) -> Awaitable<StepOutcome> {
        const models::ops::MigrateCliOutcome outcome =
            co_await world.op.MigrateCli(s, step.keyspace, folder, step.command);
        std::string text = outcome.output;
        if (!text.empty() && text.back() == '\n') text.pop_back();
        if (outcome.exit_code != 0) text += fmt::format("\n(exit status {})", outcome.exit_code);
        if (text.empty()) text = "(no output, exit status 0)";
        co_return StepOutcome::Output(std::move(text), outcome.exit_code == 0);
      });
}

StepOutcome PerformRecreateKeyspace(World& world, const Step& step) {
  FL_ASSERT(!step.keyspace.empty());
  return world.RunProcess(
      kShellHost, [&world, &step](models::cql::CqlSession& s) -> Awaitable<StepOutcome> {
        const models::ops::Answer answer = co_await world.op.RecreateKeyspace(s, step.keyspace);
        co_return FromAnswer(answer);
      });
}

}  // namespace faultline::scenarios
