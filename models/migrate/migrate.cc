#include "models/migrate/migrate.h"

#include "models/migrate/migration_trace.h"

#include <fmt/format.h>

#include <limits>

#include "sim/assert.h"

namespace faultline::models::migrate {

std::string DirtyText(std::int64_t version) {
  return fmt::format("Dirty database version {}. Fix and force version.", version);
}

std::string GoDuration(sim::Duration duration) {
  FL_ASSERT(duration >= sim::Duration::zero());
  const std::int64_t ns = duration.count();
  // A number of `unit`s with up to `digits` decimals, trailing zeros dropped.
  const auto decimal = [](std::int64_t value, std::int64_t unit, int digits) {
    std::string text = fmt::format("{}", value / unit);
    std::string fraction = fmt::format("{:0{}}", value % unit, digits);
    while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
    return fraction.empty() ? text : text + "." + fraction;
  };
  if (ns == 0) return "0s";
  if (ns < 1'000) return fmt::format("{}ns", ns);
  if (ns < 1'000'000) return decimal(ns, 1'000, 3) + "\u00b5s";
  if (ns < 1'000'000'000) return decimal(ns, 1'000'000, 6) + "ms";
  std::string text;
  const std::int64_t hours = ns / 3'600'000'000'000;
  const std::int64_t minutes = ns / 60'000'000'000 % 60;
  if (hours > 0) text += fmt::format("{}h", hours);
  if (hours > 0 || minutes > 0) text += fmt::format("{}m", minutes);
  return text + decimal(ns % 60'000'000'000, 1'000'000'000, 9) + "s";
}

sim::Status Migrate::VersionExists(std::int64_t version) const {
  if (version < 0 || source_.Find(static_cast<std::uint64_t>(version)) != nullptr) {
    return sim::Status::Ok();
  }
  // What golang-migrate's file source answers for a version it lacks.
  return sim::Status::NotFound(
      fmt::format("no migration found for version {}: read down for version {} .: file does "
                  "not exist",
                  version, version));
}

namespace {
// What golang-migrate's file source says when there is no such file.
sim::Status FileDoesNotExist() { return sim::Status::NotFound("file does not exist"); }

// Whether a plan's steps all go one way, each migration's version strictly
// past the one before: ascending for up steps, descending for down steps.
template <typename Steps>
bool GoesOneWay(const Steps& steps) {
  for (std::size_t i = 1; i < steps.size(); ++i) {
    if (steps[i].up != steps[0].up) return false;
    const std::uint64_t before = steps[i - 1].migration->version;
    const std::uint64_t after = steps[i].migration->version;
    if (steps[0].up ? after <= before : after >= before) return false;
  }
  return true;
}

// Whether every step's version is one a recorded (int64) version can name:
// a larger one reads back negative, as nil, and planning starts over.
template <typename Steps>
bool RecordableVersions(const Steps& steps) {
  for (const auto& step : steps) {
    if (step.migration->version >
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return false;
  }
  return true;
}
}  // namespace

// migrate.go's readUp: migrations are planned one by one, and an error met
// on the way (a short limit) comes after the ones planned before it.
Migrate::Plan Migrate::PlanUp(std::int64_t from, int limit) const {
  Plan plan;
  if (sim::Status exists = VersionExists(from); !exists.ok()) return Plan{{}, exists};
  if (limit == 0) return Plan{{}, sim::Status::NotFound(kNoChange)};
  int count = 0;
  while ((limit == -1 || count < limit) && plan.steps.size() < kMaxSteps) {
    std::optional<std::uint64_t> next;
    if (from < 0) {
      next = source_.First();
      if (!next) return Plan{{}, sim::Status::NotFound("first .: file does not exist")};
    } else {
      next = source_.Next(static_cast<std::uint64_t>(from));
    }
    if (!next) {
      if (limit == -1 && count == 0) plan.error = sim::Status::NotFound(kNoChange);
      if (limit > 0 && count == 0) plan.error = FileDoesNotExist();
      if (limit > 0 && count > 0 && count < limit) {
        plan.error = sim::Status::NotFound(fmt::format("limit {} short", limit - count));
      }
      return plan;
    }
    const Migration* migration = source_.Find(*next);
    FL_ASSERT_MSG(migration != nullptr, "the source's next version {} is not in it", *next);
    FL_ASSERT(from < 0 || *next > static_cast<std::uint64_t>(from));
    plan.steps.push_back(Step::Up(*migration));
    from = static_cast<std::int64_t>(*next);
    ++count;
  }
  return plan;
}

// migrate.go's readDown.
Migrate::Plan Migrate::PlanDown(std::int64_t from, int limit) const {
  Plan plan;
  if (sim::Status exists = VersionExists(from); !exists.ok()) return Plan{{}, exists};
  if (limit == 0 || (from == kNilVersion && limit == -1)) {
    return Plan{{}, sim::Status::NotFound(kNoChange)};
  }
  int count = 0;
  while ((limit == -1 || count < limit) && plan.steps.size() < kMaxSteps) {
    if (from == kNilVersion) {
      if (limit > 0 && count == 0) plan.error = FileDoesNotExist();
      if (limit > 0 && count > 0 && count < limit) {
        plan.error = sim::Status::NotFound(fmt::format("limit {} short", limit - count));
      }
      return plan;
    }
    const auto current = static_cast<std::uint64_t>(from);
    const Migration& migration = *source_.Find(current);
    const std::optional<std::uint64_t> previous = source_.Prev(current);
    FL_ASSERT(!previous || *previous < current);
    from = previous ? static_cast<std::int64_t>(*previous) : kNilVersion;
    plan.steps.push_back(Step::Down(migration, from));
    ++count;
  }
  return plan;
}

// migrate.go's read (for Goto): both ends must exist, then up or down.
Migrate::Plan Migrate::PlanBetween(std::int64_t from, std::int64_t to) const {
  if (sim::Status exists = VersionExists(from); !exists.ok()) return Plan{{}, exists};
  if (sim::Status exists = VersionExists(to); !exists.ok()) return Plan{{}, exists};
  if (from == to) return Plan{{}, sim::Status::NotFound(kNoChange)};
  Plan plan;
  if (from < to) {
    while (from < to && plan.steps.size() < kMaxSteps) {
      const std::optional<std::uint64_t> next =
          from < 0 ? source_.First() : source_.Next(static_cast<std::uint64_t>(from));
      if (!next) return Plan{std::move(plan.steps), FileDoesNotExist()};
      const Migration* migration = source_.Find(*next);
      FL_ASSERT_MSG(migration != nullptr, "the source's next version {} is not in it", *next);
      plan.steps.push_back(Step::Up(*migration));
      from = static_cast<std::int64_t>(*next);
    }
    return plan;
  }
  while (from > to && from >= 0 && plan.steps.size() < kMaxSteps) {
    const auto current = static_cast<std::uint64_t>(from);
    const Migration& migration = *source_.Find(current);
    const std::optional<std::uint64_t> previous = source_.Prev(current);
    FL_ASSERT(!previous || *previous < current);
    from = previous ? static_cast<std::int64_t>(*previous) : kNilVersion;
    plan.steps.push_back(Step::Down(migration, from));
  }
  return plan;
}

// migrate.go's runMigrations: every migration is recorded dirty, run (when
// it has a body), and recorded clean.
sim::Awaitable<sim::Status> Migrate::RunPlan(Plan plan) {
  FL_ASSERT(plan.steps.size() < static_cast<std::size_t>(kMaxSteps));
  const sim::Executor self = co_await sim::asio::this_coro::executor;
  for (const Step& step : plan.steps) {
    const Migration& migration = *step.migration;
    TraceMigrationBegin(driver_.session(), step.up ? "golang-migrate up" : "golang-migrate down",
                        driver_.keyspace(), migration.version,
                        step.up ? migration.up_name : migration.down_name);
    const sim::TimePoint began = self.scheduler().Now();
    sim::Status status = co_await RunStep(step);
    TraceMigrationEnd(driver_.session(), driver_.keyspace(), migration.version, status);
    if (!status.ok()) co_return status;
    // migrate.go runMigrations: LogString (the title empty when that
    // direction has no file), then the time it took.
    if (log_) {
      const bool has_file = step.body != nullptr;
      log_(fmt::format("{}/{} {} ({})\n", migration.version, step.up ? "u" : "d",
                       has_file ? migration.title : "",
                       GoDuration(self.scheduler().Now() - began)));
    }
  }
  co_return plan.error.value_or(sim::Status::Ok());
}

sim::Awaitable<sim::Status> Migrate::RunStep(const Step& step) {
  FL_ASSERT(step.migration != nullptr);
  // A step runs its direction's file exactly when the migration has one.
  FL_ASSERT((step.body != nullptr) ==
            (step.up ? step.migration->up.has_value() : step.migration->down.has_value()));
  FL_ASSERT(!step.up || step.target == static_cast<std::int64_t>(step.migration->version));
  if (sim::Status fault = co_await sim::FaultPoint(driver_.Site("before_set_dirty")); !fault.ok()) {
    co_return fault;
  }
  if (sim::Status status = co_await driver_.SetVersion(step.target, true); !status.ok()) {
    co_return status;
  }
  if (sim::Status fault = co_await sim::FaultPoint(driver_.Site("after_set_dirty")); !fault.ok()) {
    co_return fault;
  }
  if (step.body != nullptr) {
    if (sim::Status status = co_await driver_.Run(*step.body); !status.ok()) co_return status;
  }
  if (sim::Status fault = co_await sim::FaultPoint(driver_.Site("before_set_clean")); !fault.ok()) {
    co_return fault;
  }
  if (sim::Status status = co_await driver_.SetVersion(step.target, false); !status.ok()) {
    co_return status;
  }
  co_return co_await sim::FaultPoint(driver_.Site("after_set_clean"));
}

sim::Awaitable<sim::Status> Migrate::RunCommand(Command command, int limit, std::int64_t to) {
  FL_ASSERT_MSG(limit >= -1, "limit {}", limit);
  if (sim::Status locked = driver_.Lock(); !locked.ok()) co_return locked;
  sim::Status outcome = sim::Status::Ok();
  sim::Result<VersionState> version = co_await driver_.Version();
  if (!version.ok()) {
    outcome = version.status();
  } else if (version->dirty) {
    outcome = sim::Status::Internal(DirtyText(version->version));
  } else {
    const std::int64_t from = version->version;
    Plan plan = command == Command::kUp     ? PlanUp(from, limit)
                : command == Command::kDown ? PlanDown(from, limit)
                                            : PlanBetween(from, to);
    FL_ASSERT(plan.steps.size() <= static_cast<std::size_t>(kMaxSteps));
    FL_ASSERT(!RecordableVersions(plan.steps) || GoesOneWay(plan.steps));
    FL_ASSERT(command != Command::kUp || plan.steps.empty() || plan.steps.front().up);
    FL_ASSERT(command != Command::kDown || plan.steps.empty() || !plan.steps.front().up);
    if (plan.steps.size() >= static_cast<std::size_t>(kMaxSteps)) {
      // The bound, reached: say so rather than stop quietly part-way.
      outcome = sim::Status::InvalidArgument(fmt::format(
          "{} or more migrations in one command, the bound; run it in parts", kMaxSteps));
    } else {
      outcome = co_await RunPlan(std::move(plan));
    }
  }
  (void)driver_.Unlock();
  co_return outcome;
}

sim::Awaitable<sim::Status> Migrate::Up() { co_return co_await RunCommand(Command::kUp, -1, 0); }

sim::Awaitable<sim::Status> Migrate::Down() {
  co_return co_await RunCommand(Command::kDown, -1, 0);
}

sim::Awaitable<sim::Status> Migrate::Steps(int n) {
  if (n == 0) co_return sim::Status::NotFound(kNoChange);
  co_return co_await RunCommand(n > 0 ? Command::kUp : Command::kDown, n > 0 ? n : -n, 0);
}

sim::Awaitable<sim::Status> Migrate::Goto(std::uint64_t version) {
  co_return co_await RunCommand(Command::kGoto, -1, static_cast<std::int64_t>(version));
}

sim::Awaitable<sim::Status> Migrate::Force(std::int64_t version) {
  if (version < kNilVersion) co_return sim::Status::InvalidArgument("version must be >= -1");
  if (sim::Status locked = driver_.Lock(); !locked.ok()) co_return locked;
  sim::Status status = co_await driver_.SetVersion(version, false);
  (void)driver_.Unlock();
  co_return status;
}

sim::Awaitable<sim::Result<VersionState>> Migrate::Version() {
  sim::Result<VersionState> version = co_await driver_.Version();
  if (version.ok() && version->version == kNilVersion) {
    co_return sim::Status::NotFound(kNilVersionText);
  }
  co_return version;
}

}  // namespace faultline::models::migrate
