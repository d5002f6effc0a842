// Shrinking: a failing scenario made smaller while it still fails the same
// way (shrink/signature.h), to a repro with nothing left but what the
// failure needs. explore shrinks each group's first failure; check-migrations
// shrinks its unsafe findings with their steps kept.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/core/scenario.h"
#include "scenarios/shrink/signature.h"

namespace faultline::scenarios {

struct ShrinkStep {
  std::string tried;  // "drop fault 2", "drop step 4 (kill kuri-1)", "hit 3 -> 1"
  bool kept = false;  // It kept the signature, so the change stays.
};

struct Shrunk {
  Scenario scenario;
  std::vector<ShrinkStep> log;
  int runs = 0;  // Runs played: the log's tries, less those answered beforehand (`known`).
};

struct ShrinkOptions {
  bool expectations = false;  // A failed step expectation is a failure too.
  int max_runs = 500;
  // Every step stays (a protocol whose steps are the question, as
  // check-migrations' crash, restart and upgrade are).
  bool keep_steps = false;
  // A change stays only if this holds of it too (the same verdict).
  std::function<bool(const Scenario&)> also_holds;
  // Whether a candidate still fails the same way (also_holds included),
  // when the caller knows without a run: a run it already played
  // (check-migrations' other crash cases). nullopt: play it.
  std::function<std::optional<bool>(const Scenario&)> known;
  // The caller has read the images' statements itself (check-migrations
  // read its folder): the shrinker does not read them again to know that
  // a candidate without them stands for the whole.
  bool images_read = false;
  // After each candidate tried, how many have been (progress).
  std::function<void(int tried)> on_try;
};

// Drops fault events, then workload steps, then simplifies what remains
// (earlier hits, shorter delays, fewer nodes), keeping each change only if a run from
// `seed` still has `signature`. Never adds anything: the result has at most
// the fault events it started with. At most `options.max_runs` tries.
Shrunk Shrink(const Scenario& failing, std::uint64_t seed, const Signature& signature,
              const ShrinkOptions& options = {});

}  // namespace faultline::scenarios
