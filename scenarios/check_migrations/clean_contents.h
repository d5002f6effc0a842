// check-migrations' crash trunk, read before it branches
// (internal to scenarios/check_migrations/): what the store holds at each
// version the runner records clean, and how the trunk ends.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "scenarios/check_migrations/observe.h"
#include "scenarios/core/results.h"
#include "scenarios/core/scenario.h"
#include "sim/clock.h"

namespace faultline::scenarios {
struct World;
}

namespace faultline::scenarios::check {

// The crash trunk's run, read: the store's content
// (StoreSnapshot::ContentHash) at each pass of `clean_site` by kuri-1 (the
// store at each version the runner records clean), each with the virtual
// time from there to the last such pass; and how the run ends. A run that
// reaches one of those contents there runs the trunk's statements on the
// trunk's store (Checker::StopAtTheCleanRun, Checker::JoinTheCleanRun).
struct CleanTrunk {
  std::map<std::uint64_t, sim::Duration> contents;
  ScenarioResult result;  // With its checkers' verdicts.
  Observed end;           // kuri-1 after the step `end_step`.
};
CleanTrunk CleanContents(const Scenario& trunk, std::uint64_t seed, const std::string& clean_site,
                         const std::string& keyspace, std::size_t end_step);

// The store's content now (StoreSnapshot::ContentHash); none when there is
// no store database to read. Reads, never acts.
std::optional<std::uint64_t> StoreContent(World& world);

}  // namespace faultline::scenarios::check
