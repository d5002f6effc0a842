// check-migrations' crash trunk, read before it branches (internal to
// scenarios/check_migrations/): what the store holds at each version the
// runner records clean.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "scenarios/core/scenario.h"
#include "sim/clock.h"

namespace faultline::scenarios {
struct World;
}

namespace faultline::scenarios::check {

// The store's content (StoreSnapshot::ContentHash) at each pass of
// `clean_site` by kuri-1 in `trunk`'s run (its steps): the store at each
// version the runner records clean, each with the virtual time from there
// to the last such pass. A run that reaches one of them there runs the
// trunk's statements on the trunk's store (Checker::StopAtTheCleanRun).
std::map<std::uint64_t, sim::Duration> CleanContents(const Scenario& trunk, std::uint64_t seed,
                                                     const std::string& clean_site);

// The store's content now (StoreSnapshot::ContentHash); none when there is
// no store database to read. Reads, never acts.
std::optional<std::uint64_t> StoreContent(World& world);

}  // namespace faultline::scenarios::check
