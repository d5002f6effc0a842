// Cases grouped into findings, and each unsafe finding's repro: its first
// case shrunk with its steps kept, ending in what a user sees (checker.h).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "models/migrate/runner.h"
#include "models/migrate/schema_check.h"
#include "models/s3/seed_images.h"
#include "scenarios/check_migrations/checker.h"
#include "scenarios/check_migrations/statements.h"
#include "scenarios/harness/runner.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios::check {

void Checker::Group(Case c) {
  FL_ASSERT(!c.label.empty());
  const Key key = KeyOf(c);
  auto found = groups_.find(key);
  if (found == groups_.end()) {
    FL_ASSERT_MSG(!c.scenario.steps.empty(),
                  "case {}, the first of its group, came without "
                  "its scenario",
                  c.index);
    order_.push_back(key);
    DynamicFinding finding{.check = c.check,
                           .runner = c.runner,
                           .store = c.store,
                           .file = c.file,
                           .verdict = c.verdict};
    finding.detail = c.detail;
    finding.force_to = c.force_to;
    finding.error = c.error;
    finding.seed = c.seed;
    if (const RunnerRisk* risk = RiskOf(finding, source_, rows_from_))
      finding.runner_risk = risk->id;
    std::string label = c.label;
    found = groups_.emplace(key, std::make_pair(std::move(finding), std::move(c))).first;
    found->second.first.cases.push_back(std::move(label));
    return;
  }
  found->second.first.cases.push_back(c.label);
}

std::vector<Checker::Key> Checker::ReproGroups() const {
  std::vector<Key> keys;
  std::set<std::string> risks_shown;
  for (const Key& key : order_) {
    const DynamicFinding& finding = groups_.at(key).first;
    if (!InfoOf(finding.verdict).unsafe) continue;
    if (!finding.runner_risk.empty() && !risks_shown.insert(finding.runner_risk).second) continue;
    keys.push_back(key);
  }
  return keys;
}

// Each unsafe finding's first case, shrunk with its steps kept, and a
// last step that says what a user sees.
void Checker::Finish(const std::vector<ReproMade>* made) {
  current_check_ = kShrinkingPhase;
  const std::vector<Key> repro_groups = ReproGroups();
  for (const auto& key : order_) {
    auto& [finding, first] = groups_.at(key);
    const auto shown = std::find(repro_groups.begin(), repro_groups.end(), key);
    if (shown != repro_groups.end()) {
      const auto group = static_cast<std::uint64_t>(shown - repro_groups.begin());
      if (made == nullptr) {
        PutTheFolderBack(first);
        Repro(finding, first);
      } else {
        const auto it = std::find_if(made->begin(), made->end(),
                                     [&](const ReproMade& m) { return m.group == group; });
        FL_ASSERT_MSG(it != made->end(), "no repro made for unsafe group {}", group);
        finding.repro = it->scenario;
        finding.shrink_log = it->log;
        report_.runs += it->runs;
      }
    }
    report_.dynamic.push_back(std::move(finding));
  }
}

// A crash finding's repro is made from what its cases' runs saw: the
// signature, and the end, of the first case or of the case the shrinker
// keeps (another crash case of the check); only a candidate no case
// played is played. Other findings play theirs, as every finding does
// with options.branch off (the reference: the same repro, more runs).
void Checker::Repro(DynamicFinding& finding, const Case& first_case) {
  Scenario scenario = first_case.scenario;
  scenario.name =
      fmt::format("{}-{}-{}", finding.check, finding.runner, InfoOf(finding.verdict).name);
  scenario.title =
      fmt::format("check-migrations: {}: {}", finding.cases.front(), InfoOf(finding.verdict).name);
  scenario.story = finding.detail;
  scenario.lesson = std::string(InfoOf(finding.verdict).meaning);
  const bool crash = finding.check == "crash";  // Moment::kCrashed: just after the crash.
  const CrashSeen* seen =
      options_.branch && first_case.crash_seen ? &*first_case.crash_seen : nullptr;
  FL_ASSERT(seen == nullptr || crash);
  FL_ASSERT(first_case.seed == finding.seed);
  // Played here (no case's run says): the run of the repro as it stands,
  // which gives its signature, and what its last step saw.
  std::optional<Played> played;
  const auto play = [&](const Scenario& candidate) {
    Case again = first_case;
    again.scenario = candidate;
    return PlayToJudge(again);
  };
  std::optional<Signature> signature;
  if (seen) {
    signature = seen->signature;
  } else {
    played = play(scenario);
    signature = SignatureOf(scenario, played->result);
  }
  // A simpler case is kept only if it is judged the same: the same
  // verdict, file and version to force, not only the same failed checker.
  const auto same_verdict = [&](const Scenario& candidate, const Played& run) {
    Case again = first_case;
    again.scenario = candidate;
    return JudgePlayed(again, run) && again.verdict == first_case.verdict &&
           again.file == first_case.file && again.force_to == first_case.force_to;
  };
  if (signature) {
    // Its images are the folder, read when the check began, and its
    // own releases' (the same files, fewer).
    ShrinkOptions shrinking{.max_runs = 100, .keep_steps = true, .images_read = true};
    if (seen) {
      shrinking.known = [&](const Scenario& candidate) {
        return KnownCrashCandidate(first_case, *signature, candidate);
      };
      shrinking.also_holds = [&](const Scenario& candidate) {
        return same_verdict(candidate, play(candidate));
      };
    } else {
      // One run answers a try: its signature, then its verdict (the
      // shrinker would play it, and judging it would play it again).
      shrinking.known = [&](const Scenario& candidate) -> std::optional<bool> {
        Played run = play(candidate);
        const std::optional<Signature> found = SignatureOf(candidate, run.result);
        if (!found || !SameFailure(*found, *signature) || !same_verdict(candidate, run)) {
          return false;
        }
        played = std::move(run);  // Kept: the repro is this candidate now.
        return true;
      };
    }
    Shrunk shrunk = Shrink(scenario, finding.seed, *signature, shrinking);
    report_.runs += shrunk.runs;
    scenario = std::move(shrunk.scenario);
    finding.shrink_log = std::move(shrunk.log);
  }
  // What the end looks like, as expectations of the last step: as the
  // case that is the repro saw it, or played.
  if (const Case* played_case = seen ? CrashCase(first_case.runner, scenario) : nullptr) {
    const CrashSeen& end = *played_case->crash_seen;
    ExpectWhatItSaw(scenario, true,
                    {Observed{.serving = end.serving_at_end,
                              .versions = end.versions_at_end,
                              .last_line = end.last_line_at_end}},
                    end.versions_at_crash);
  } else {
    // The repro's own run: the first case's, or the last try kept (a
    // crash repro the shrinker played is played here).
    if (!played) {
      FL_ASSERT(seen != nullptr);
      played = play(scenario);
    }
    const std::size_t last = scenario.steps.size() - 1;
    ExpectWhatItSaw(scenario, crash, played->seen.at(last),
                    crash ? played->seen.at(Moment::kCrashed).front().versions : "");
  }
  finding.repro = std::move(scenario);
}

void Checker::ExpectWhatItSaw(Scenario& scenario, bool crash, const std::vector<Observed>& end,
                              const std::string& versions_at_crash) const {
  FL_ASSERT(!end.empty() && end.size() <= static_cast<std::size_t>(scenario.nodes));
  if (crash) {
    scenario.steps[Moment::kCrashed].expect.push_back({.kind = Expectation::Kind::kSchemaMigrations,
                                                       .service = options_.keyspace,
                                                       .text = versions_at_crash});
  }
  Step& step = scenario.steps.back();
  for (std::size_t i = 0; i < end.size(); ++i) {
    const std::string service = NodeName(static_cast<int>(i) + 1);
    Expectation serving{
        .kind = end[i].serving ? Expectation::Kind::kServing : Expectation::Kind::kNotServing,
        .service = service};
    step.expect.push_back(serving);
    if (!end[i].serving && !end[i].last_line.empty()) {
      step.expect.push_back(
          {.kind = Expectation::Kind::kLogContains, .service = service, .text = end[i].last_line});
    }
  }
  step.expect.push_back({.kind = Expectation::Kind::kSchemaMigrations,
                         .service = options_.keyspace,
                         .text = end.front().versions});
}

const Case* Checker::CrashCase(const std::string& runner, const Scenario& scenario) const {
  if (scenario.faults.size() != 1 || scenario.faults.front().service != kSubject ||
      scenario.faults.front().action != sim::FaultAction::kCrash) {
    return nullptr;
  }
  const FaultSpec& crash = scenario.faults.front();
  const auto found = crash_cases_.find(std::make_tuple(runner, crash.site, crash.hit));
  return found == crash_cases_.end() ? nullptr : &found->second;
}

// The shrinker changes only a crash case's fault (keep_steps: the steps
// stay; its one node stays): the candidate is the case of another crash,
// or the run without one, which every crash case branched from.
std::optional<bool> Checker::KnownCrashCandidate(const Case& first_case, const Signature& signature,
                                                 const Scenario& candidate) const {
  const Scenario& original = first_case.scenario;
  if (candidate.nodes != original.nodes || candidate.steps.size() != original.steps.size() ||
      !candidate.crash_site.empty() || candidate.images != original.images ||
      candidate.services != original.services) {
    return std::nullopt;
  }
  if (candidate.faults.empty()) {
    const auto trunk = trunk_signatures_.find(first_case.runner);
    // A run without a crash that failed the same way would need judging.
    if (trunk == trunk_signatures_.end() ||
        (trunk->second && SameFailure(*trunk->second, signature))) {
      return std::nullopt;
    }
    return false;
  }
  const Case* played = CrashCase(first_case.runner, candidate);
  if (played == nullptr) return std::nullopt;
  const std::optional<Signature>& found = played->crash_seen->signature;
  return found.has_value() && SameFailure(*found, signature) &&
         played->verdict == first_case.verdict && played->file == first_case.file &&
         played->force_to == first_case.force_to;
}

}  // namespace faultline::scenarios::check
