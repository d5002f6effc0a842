#include "scenarios/shrink/shrink.h"

#include <fmt/format.h>

#include <optional>
#include <variant>

#include "models/s3/seed_images.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/harness/runner.h"
#include "scenarios/steps/steps.h"
#include "sim/assert.h"
#include "sim/clock.h"

namespace faultline::scenarios {

namespace {

// One shrinking: the smallest scenario so far, the log of what was tried,
// and the runs spent. Each pass tries changes of one kind; a change stays
// only while the failure does.
class Shrinker {
 public:
  Shrinker(const Scenario& failing, std::uint64_t seed, const Signature& signature,
           const ShrinkOptions& options)
      : shrunk_{failing, {}},
        seed_(seed),
        signature_(signature),
        options_(options),
        statements_read_back_(options.images_read || StatementsReadBack(failing)) {
    FL_ASSERT(options_.max_runs >= 0);
  }

  // 1. Fault events: each [[fault]], the [crash].
  void DropFaults() {
    for (std::size_t i = shrunk_.scenario.faults.size(); i-- > 0;) {
      Scenario candidate = shrunk_.scenario;
      candidate.faults.erase(candidate.faults.begin() + static_cast<std::ptrdiff_t>(i));
      Attempt(fmt::format("drop fault {} ({})", i + 1, DescribeFault(shrunk_.scenario.faults[i])),
              std::move(candidate));
    }
    if (!shrunk_.scenario.crash_site.empty()) {
      Scenario candidate = shrunk_.scenario;
      candidate.crash_site.clear();
      Attempt("drop the [crash]", std::move(candidate));
    }
  }

  // 2. Steps, fault steps first, then the workload's, from the last. An
  // `up` stays (without it a cluster that is down fails for no fault), and
  // a `down` goes with the `up` after it.
  void DropSteps() {
    for (const bool fault_steps : {true, false}) {
      for (std::size_t i = shrunk_.scenario.steps.size(); i-- > 0;) {
        FL_ASSERT(i < shrunk_.scenario.steps.size());
        const Step& step = shrunk_.scenario.steps[i];
        if (StepKindOf(step).fault != fault_steps || step.kind == Step::Kind::kUp) continue;
        const std::vector<Step>& steps = shrunk_.scenario.steps;
        const std::size_t count = step.kind == Step::Kind::kDown && i + 1 < steps.size() &&
                                          steps[i + 1].kind == Step::Kind::kUp
                                      ? 2
                                      : 1;
        Scenario candidate = shrunk_.scenario;
        candidate.steps.erase(candidate.steps.begin() + static_cast<std::ptrdiff_t>(i),
                              candidate.steps.begin() + static_cast<std::ptrdiff_t>(i + count));
        Attempt(fmt::format("drop step {} ({}){}", i + 1, StepKindOf(step).show(step),
                            count == 2 ? " and the up after it" : ""),
                std::move(candidate));
      }
    }
  }

  // 3. What remains, simpler: the first hit, half the delay.
  void SimplifyFaults() {
    for (std::size_t i = 0; i < shrunk_.scenario.faults.size(); ++i) {
      if (shrunk_.scenario.faults[i].hit > 1) {
        Scenario candidate = shrunk_.scenario;
        candidate.faults[i].hit = 1;
        Attempt(fmt::format("fault {}: hit {} -> 1", i + 1, shrunk_.scenario.faults[i].hit),
                std::move(candidate));
      }
      constexpr int kMaxHalvings = 8;
      for (int halving = 0; halving < kMaxHalvings; ++halving) {
        const FaultSpec& fault = shrunk_.scenario.faults[i];
        if (fault.action != sim::FaultAction::kDelay || fault.delay < std::chrono::seconds(2)) {
          break;
        }
        Scenario candidate = shrunk_.scenario;
        candidate.faults[i].delay = fault.delay / 2;
        if (!Attempt(
                fmt::format("fault {}: delay {} -> {}", i + 1, sim::FormatDuration(fault.delay),
                            sim::FormatDuration(fault.delay / 2)),
                std::move(candidate))) {
          break;
        }
      }
    }
  }

  // 4. Fewer nodes, while nothing names the last one (its service or its
  // keyspace) and the failure stays.
  void FewerNodes() {
    constexpr int kMaxNodeTries = models::s3::kMaxNodes;
    for (int tries = 0; tries < kMaxNodeTries && shrunk_.scenario.nodes > 1; ++tries) {
      const int last = shrunk_.scenario.nodes;
      Scenario candidate = shrunk_.scenario;
      candidate.nodes = last - 1;
      const std::string service = models::s3::NodeServiceName(last);
      const std::string keyspace = fmt::format("filecoingw_kuri{}", last);
      // Expectations are no oracle here (unless asked): those about the node go.
      if (!options_.expectations) {
        for (Step& step : candidate.steps) {
          std::erase_if(step.expect, [&](const Expectation& e) {
            return e.service == service || e.service == keyspace;
          });
        }
      }
      if (NamesNode(candidate, service, keyspace)) break;
      if (!Attempt(fmt::format("nodes {} -> {}", last, last - 1), std::move(candidate))) break;
    }
  }

  Shrunk Take() && { return std::move(shrunk_); }

 private:
  // Whether what `scenario` does names the node, not what its story says.
  static bool NamesNode(const Scenario& scenario, const std::string& service,
                        const std::string& keyspace) {
    Scenario unworded = scenario;
    unworded.title = unworded.story = unworded.lesson = "";
    for (Step& each : unworded.steps) each.narration.clear();
    const std::string text = ToToml(unworded);
    return text.find(service) != std::string::npos || text.find(keyspace) != std::string::npos;
  }

  static bool ReadsBack(const Scenario& scenario) {
    return std::holds_alternative<Scenario>(ParseScenario(ToToml(scenario), "candidate.toml"));
  }

  // A repro is a file that reads back: a change that leaves, say, a fault
  // at a site no step reaches any more is no repro. A candidate's images
  // are the failing scenario's (no change here touches them): once their
  // statements are known to read back, a candidate is read without them,
  // which would make each try cost as much as the folder is long
  // (check-migrations shrinks a repro per finding, each holding the whole
  // folder); else each is read whole.
  bool CandidateReadsBack(const Scenario& candidate) const {
    if (!statements_read_back_) return ReadsBack(candidate);
    const std::vector<ImageSpec>& images = shrunk_.scenario.images;
    FL_ASSERT(candidate.images.size() == images.size());
    Scenario without_statements = candidate;
    for (std::size_t i = 0; i < images.size(); ++i) {
      FL_ASSERT(candidate.images[i].files.size() == images[i].files.size());
      for (models::migrate::MigrationFile& file : without_statements.images[i].files) {
        file.contents.clear();
      }
    }
    return ReadsBack(without_statements);
  }

  // Whether the failing scenario's image statements read back: it does,
  // without what a change may take away (its faults, the [crash], the
  // steps' expectations), which may be what keeps it from reading back.
  static bool StatementsReadBack(const Scenario& failing) {
    Scenario images_only = failing;
    images_only.faults.clear();
    images_only.crash_site.clear();
    for (Step& step : images_only.steps) step.expect.clear();
    return ReadsBack(images_only);
  }

  // Whether `candidate` still fails the same way (the checker and the kind
  // of violation; its faults are fewer, so its full signature differs).
  bool StillFails(const Scenario& candidate) {
    if (runs_ >= options_.max_runs) return false;
    if (!CandidateReadsBack(candidate)) return false;
    ++runs_;
    if (options_.known) {
      if (const std::optional<bool> answer = options_.known(candidate)) return *answer;
    }
    ++shrunk_.runs;
    const ScenarioResult result = RunScenario(candidate, {.seed = seed_});
    const std::optional<Signature> found = SignatureOf(candidate, result, options_.expectations);
    return found.has_value() && SameFailure(*found, signature_) &&
           (!options_.also_holds || options_.also_holds(candidate));
  }

  // Tries `candidate`; keeps it when it still fails. Whether it was kept.
  bool Attempt(std::string what, Scenario candidate) {
    const bool kept = StillFails(candidate);
    if (kept) shrunk_.scenario = std::move(candidate);
    shrunk_.log.push_back(ShrinkStep{std::move(what), kept});
    FL_ASSERT(runs_ <= options_.max_runs);
    if (options_.on_try) options_.on_try(static_cast<int>(shrunk_.log.size()));
    return kept;
  }

  Shrunk shrunk_;
  std::uint64_t seed_;
  const Signature& signature_;
  const ShrinkOptions& options_;
  bool statements_read_back_;  // StatementsReadBack of the failing scenario.
  int runs_ = 0;               // Tries, played or answered.
};

}  // namespace

Shrunk Shrink(const Scenario& failing, std::uint64_t seed, const Signature& signature,
              const ShrinkOptions& options) {
  Shrinker shrinker(failing, seed, signature, options);
  shrinker.DropFaults();
  if (!options.keep_steps) shrinker.DropSteps();
  shrinker.SimplifyFaults();
  shrinker.FewerNodes();
  Shrunk shrunk = std::move(shrinker).Take();
  FL_ASSERT_MSG(FaultEventCount(shrunk.scenario) <= FaultEventCount(failing),
                "shrinking added fault events: {} -> {}", FaultEventCount(failing),
                FaultEventCount(shrunk.scenario));
  FL_ASSERT(!options.keep_steps || shrunk.scenario.steps.size() == failing.steps.size());
  FL_ASSERT(shrunk.runs >= 0 && shrunk.runs <= static_cast<int>(shrunk.log.size()));
  return shrunk;
}

}  // namespace faultline::scenarios
