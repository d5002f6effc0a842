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
    std::string label = c.label;
    found = groups_.emplace(key, std::make_pair(std::move(finding), std::move(c))).first;
    found->second.first.cases.push_back(std::move(label));
    return;
  }
  found->second.first.cases.push_back(c.label);
}

// Each unsafe finding's first case, shrunk with its steps kept, and a
// last step that says what a user sees.
void Checker::Finish(const std::vector<ReproMade>* made) {
  current_check_ = "shrinking the unsafe findings";
  std::uint64_t unsafe = 0;
  for (const auto& key : order_) {
    auto& [finding, first] = groups_.at(key);
    if (InfoOf(finding.verdict).unsafe) {
      const std::uint64_t group = unsafe++;
      if (made == nullptr) {
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

void Checker::Repro(DynamicFinding& finding, const Case& first_case) {
  Scenario scenario = first_case.scenario;
  scenario.name =
      fmt::format("{}-{}-{}", finding.check, finding.runner, InfoOf(finding.verdict).name);
  scenario.title =
      fmt::format("check-migrations: {}: {}", finding.cases.front(), InfoOf(finding.verdict).name);
  scenario.story = finding.detail;
  scenario.lesson = std::string(InfoOf(finding.verdict).meaning);
  const ScenarioResult first = RunScenario(scenario, {.seed = finding.seed});
  ++report_.runs;
  // A simpler case is kept only if it is judged the same: the same
  // verdict, file and version to force, not only the same failed checker.
  const auto same_verdict = [&](const Scenario& candidate) {
    Case again = first_case;
    again.scenario = candidate;
    return Judge(again) && again.verdict == first_case.verdict && again.file == first_case.file &&
           again.force_to == first_case.force_to;
  };
  if (const std::optional<Signature> signature = SignatureOf(scenario, first)) {
    Shrunk shrunk = Shrink(scenario, finding.seed, *signature, false, 100, true, same_verdict);
    report_.runs += static_cast<int>(shrunk.log.size());
    scenario = std::move(shrunk.scenario);
    finding.shrink_log = std::move(shrunk.log);
  }
  // What the end looks like, as expectations of the last step.
  const std::size_t last = scenario.steps.size() - 1;
  const bool crash = finding.check == "crash";  // Moment::kCrashed: just after the crash.
  const Played played =
      Play(scenario, finding.seed,
           crash ? std::set<std::size_t>{Moment::kCrashed, last} : std::set<std::size_t>{last},
           scenario.nodes);
  if (crash) {
    scenario.steps[Moment::kCrashed].expect.push_back(
        {.kind = Expectation::Kind::kSchemaMigrations,
         .service = options_.keyspace,
         .text = played.seen.at(Moment::kCrashed).front().versions});
  }
  const std::vector<Observed>& end = played.seen.at(last);
  Step& step = scenario.steps[last];
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
  finding.repro = std::move(scenario);
}

}  // namespace faultline::scenarios::check
