#include "scenarios/check_migrations/clean_contents.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "fakes/block_digest.h"
#include "models/cql/store_snapshot.h"
#include "scenarios/check_migrations/observe.h"
#include "scenarios/harness/cluster.h"
#include "scenarios/harness/runner.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios::check {

std::optional<std::uint64_t> StoreBytes(World& world) {
  // SQLite's header counts the transactions that changed the file (its
  // "file change counter", offset 24, and the "version-valid-for number",
  // offset 92, a copy: sqlite.org/fileformat2.html, 1.3): a run that made
  // the same pages in more transactions (a crashed runner's again) has
  // other counts and the same database, so they are left out: the file's
  // digest (kept at the cost of what was written since it was last asked,
  // not of the database's size) with its first block's term taken again
  // without them.
  constexpr std::size_t kChangeCounter = 24;
  constexpr std::size_t kVersionValidFor = 92;
  constexpr std::size_t kCount = 4;
  const fakes::Volume* volume = StoreVolume(world);
  const fakes::SimFile* file =
      volume == nullptr ? nullptr : volume->Find(models::cql::kStoreDatabaseFile);
  if (file == nullptr || file->size() == 0) return std::nullopt;
  const std::string_view first =
      std::string_view(file->contents()).substr(0, fakes::BlockDigest::kBlock);
  std::string header(first);
  for (const std::size_t at : {kChangeCounter, kVersionValidFor}) {
    if (header.size() >= at + kCount) std::fill_n(header.begin() + at, kCount, '\0');
  }
  return file->Digest() - fakes::BlockDigest::Term(0, first) + fakes::BlockDigest::Term(0, header);
}

CleanTrunk CleanContents(const Scenario& trunk, std::uint64_t seed, const std::string& clean_site,
                         const std::string& keyspace, std::size_t end_step) {
  constexpr std::size_t kMaxVersions = 1'000'000;
  std::vector<std::pair<std::uint64_t, sim::TimePoint>> clean;  // Bytes, when.
  CleanTrunk read;
  bool ended = false;
  // The run RunBranched's trunk is (the same options but for the readers,
  // which read and never act), with its world at hand to read the store.
  World* world = nullptr;
  RunOptions run{.seed = seed};
  run.play_on_as = [&](std::size_t, Cluster& cluster) -> const Scenario* {
    world = &cluster.world();
    return nullptr;  // It plays on as itself.
  };
  run.at_fault_pass = [&](const sim::FaultPass& pass) -> std::optional<sim::FaultDecision> {
    if (pass.process != kSubject || pass.site != clean_site) return std::nullopt;
    FL_ASSERT(world != nullptr);
    FL_ASSERT_MSG(clean.size() < kMaxVersions, "more than {} clean versions", kMaxVersions);
    if (const std::optional<std::uint64_t> bytes = StoreBytes(*world)) {
      clean.emplace_back(*bytes, world->simulation.Now());
    }
    return std::nullopt;
  };
  run.observe = [&](std::size_t step, World& at) {
    if (step != end_step) return;
    read.end = Observe(at, kSubject, keyspace);
    ended = true;
  };
  read.result = RunScenario(trunk, run);
  FL_ASSERT_MSG(ended, "the crash trunk never reached step {}", end_step);
  for (const auto& [bytes, when] : clean) {
    const sim::Duration left = clean.back().second - when;
    auto [kept, added] = read.bytes.try_emplace(bytes, left);
    if (!added) kept->second = std::max(kept->second, left);
  }
  return read;
}

}  // namespace faultline::scenarios::check
