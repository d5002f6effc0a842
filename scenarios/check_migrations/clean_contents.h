// check-migrations' crash trunk, read before it branches
// (internal to scenarios/check_migrations/): the store's bytes at each
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

// The crash trunk's run, read: the store's bytes (StoreBytes) at each
// pass of `clean_site` by kuri-1 (the store at each version the runner
// records clean), each with the virtual time from there to the last such
// pass; and how the run ends. A run whose store has one of those bytes
// there runs the trunk's statements on the trunk's store
// (Checker::StopAtTheCleanRun, Checker::JoinsTheCleanRun).
//
// Bytes, not content (StoreSnapshot::ContentHash): reading the content
// opens the whole store, so at every version it cost the folder's length
// squared; and a run that took another path to the same content (other
// bytes) is rare (one case in a hundred on the N-file folders) and only
// plays on to its end instead of stopping early: the same verdict.
struct CleanTrunk {
  std::map<std::uint64_t, sim::Duration> bytes;
  ScenarioResult result;  // With its checkers' verdicts.
  Observed end;           // kuri-1 after the step `end_step`.
};
CleanTrunk CleanContents(const Scenario& trunk, std::uint64_t seed, const std::string& clean_site,
                         const std::string& keyspace, std::size_t end_step);

// A hash of the store's database file, byte for byte (none: no file): two
// equal say the same bytes, so the same content, at a fraction of the cost
// of reading it (the reads open a snapshot, whose schema SQLite parses
// whole). Never written to a trace or report: only compared within one run
// of faultline, so std::hash's speed, not a stable value.
std::optional<std::uint64_t> StoreBytes(World& world);

}  // namespace faultline::scenarios::check
