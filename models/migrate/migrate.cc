#include "models/migrate/migrate.h"

#include <fmt/format.h>

namespace faultline::models::migrate {

std::string DirtyText(std::int64_t version) {
  return fmt::format("Dirty database version {}. Fix and force version.", version);
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

sim::Result<std::vector<Migrate::Step>> Migrate::PlanUp(std::int64_t from, int limit,
                                                        std::optional<std::uint64_t> until) const {
  if (sim::Status exists = VersionExists(from); !exists.ok()) return exists;
  std::vector<Step> steps;
  std::optional<std::uint64_t> next =
      from < 0 ? source_.First() : source_.Next(static_cast<std::uint64_t>(from));
  if (until && from >= 0 && static_cast<std::uint64_t>(from) >= *until) next.reset();
  while (next && (limit < 0 || static_cast<int>(steps.size()) < limit) &&
         steps.size() < kMaxSteps) {
    const Migration& migration = *source_.Find(*next);
    steps.push_back(
        Step{migration.up ? &*migration.up : nullptr, static_cast<std::int64_t>(*next)});
    if (until && *next >= *until) break;
    next = source_.Next(*next);
  }
  if (limit > 0 && static_cast<int>(steps.size()) < limit) {
    return sim::Status::NotFound(fmt::format("limit {} short", limit - steps.size()));
  }
  return steps;
}

sim::Result<std::vector<Migrate::Step>> Migrate::PlanDown(
    std::int64_t from, int limit, std::optional<std::uint64_t> until) const {
  if (sim::Status exists = VersionExists(from); !exists.ok()) return exists;
  std::vector<Step> steps;
  std::optional<std::uint64_t> current;
  if (from >= 0) current = static_cast<std::uint64_t>(from);
  while (current && (!until || *current > *until) &&
         (limit < 0 || static_cast<int>(steps.size()) < limit) && steps.size() < kMaxSteps) {
    const Migration& migration = *source_.Find(*current);
    const std::optional<std::uint64_t> previous = source_.Prev(*current);
    steps.push_back(Step{migration.down ? &*migration.down : nullptr,
                         previous ? static_cast<std::int64_t>(*previous) : kNilVersion});
    current = previous;
  }
  if (limit > 0 && static_cast<int>(steps.size()) < limit) {
    return sim::Status::NotFound(fmt::format("limit {} short", limit - steps.size()));
  }
  return steps;
}

sim::Awaitable<sim::Status> Migrate::RunSteps(std::vector<Step> steps) {
  if (steps.empty()) co_return sim::Status::NotFound(kNoChange);
  for (const Step& step : steps) {
    if (step.body != nullptr) {
      if (sim::Status fault = co_await sim::FaultPoint("migrate.before_set_dirty"); !fault.ok()) {
        co_return fault;
      }
      if (sim::Status status = co_await driver_.SetVersion(step.target, true); !status.ok()) {
        co_return status;
      }
      if (sim::Status fault = co_await sim::FaultPoint("migrate.after_set_dirty"); !fault.ok()) {
        co_return fault;
      }
      if (sim::Status status = co_await driver_.Run(*step.body); !status.ok()) co_return status;
    }
    if (sim::Status fault = co_await sim::FaultPoint("migrate.before_set_clean"); !fault.ok()) {
      co_return fault;
    }
    if (sim::Status status = co_await driver_.SetVersion(step.target, false); !status.ok()) {
      co_return status;
    }
    if (sim::Status fault = co_await sim::FaultPoint("migrate.after_set_clean"); !fault.ok()) {
      co_return fault;
    }
  }
  co_return sim::Status::Ok();
}

sim::Awaitable<sim::Status> Migrate::RunCommand(Direction direction, int limit,
                                                std::optional<std::uint64_t> until) {
  if (sim::Status locked = driver_.Lock(); !locked.ok()) co_return locked;
  sim::Status outcome = sim::Status::Ok();
  sim::Result<VersionState> version = co_await driver_.Version();
  if (!version.ok()) {
    outcome = version.status();
  } else if (version->dirty) {
    outcome = sim::Status::Internal(DirtyText(version->version));
  } else {
    sim::Result<std::vector<Step>> plan = direction == Direction::kUp
                                              ? PlanUp(version->version, limit, until)
                                              : PlanDown(version->version, limit, until);
    // Not a ?: with co_await in one arm: GCC 12 destroys the other arm's
    // temporary wrongly there.
    if (plan.ok()) {
      outcome = co_await RunSteps(std::move(plan).value());
    } else {
      outcome = plan.status();
    }
  }
  (void)driver_.Unlock();
  co_return outcome;
}

sim::Awaitable<sim::Status> Migrate::Up() { co_return co_await RunCommand(Direction::kUp, -1, {}); }

sim::Awaitable<sim::Status> Migrate::Down() {
  co_return co_await RunCommand(Direction::kDown, -1, {});
}

sim::Awaitable<sim::Status> Migrate::Steps(int n) {
  if (n == 0) co_return sim::Status::NotFound(kNoChange);
  co_return co_await RunCommand(n > 0 ? Direction::kUp : Direction::kDown, n > 0 ? n : -n, {});
}

sim::Awaitable<sim::Status> Migrate::Goto(std::uint64_t version) {
  if (source_.Find(version) == nullptr) {
    co_return VersionExists(static_cast<std::int64_t>(version));
  }
  if (sim::Status locked = driver_.Lock(); !locked.ok()) co_return locked;
  sim::Result<VersionState> current = co_await driver_.Version();
  (void)driver_.Unlock();
  if (!current.ok()) co_return current.status();
  const Direction direction =
      current->version < static_cast<std::int64_t>(version) ? Direction::kUp : Direction::kDown;
  co_return co_await RunCommand(direction, -1, version);
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
