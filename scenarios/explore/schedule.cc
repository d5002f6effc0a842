// A run's fault schedule, drawn from its seed (DrawSchedule, explore.h):
// the event kinds switched on for the run (swarm testing), then a few
// events of those kinds, each a [[fault]] or steps put between the
// workload's (explore/event_kinds.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

#include "scenarios/checkers/checkers.h"
#include "scenarios/explore/event_kinds.h"
#include "scenarios/explore/explore.h"
#include "scenarios/steps/steps.h"
#include "sim/assert.h"
#include "sim/random.h"

namespace faultline::scenarios {
namespace {

// The kinds on for a whole run: each kind `chosen` allows (empty: every
// kind) with probability one half, and one at least. With every kind
// allowed the draws are those made before kinds could be chosen, so a
// seed keeps its schedule.
std::vector<const EventKind*> SwarmOf(sim::Rng& random, const std::vector<std::string>& chosen) {
  std::vector<const EventKind*> allowed;
  for (const EventKind& kind : EventKinds()) {
    if (chosen.empty() || std::find(chosen.begin(), chosen.end(), kind.name) != chosen.end()) {
      allowed.push_back(&kind);
    }
  }
  FL_ASSERT_MSG(!allowed.empty(), "no event kind among the chosen: {}", fmt::join(chosen, ","));
  std::vector<const EventKind*> on;
  for (const EventKind* kind : allowed) {
    if (random.Bernoulli(0.5)) on.push_back(kind);
  }
  if (on.empty()) on.push_back(allowed[random.Uniform(allowed.size())]);
  FL_ASSERT(!on.empty() && on.size() <= allowed.size());
  return on;
}

// The schedule as it is drawn: the workload with the events so far, what
// they are in words, and what they count against the bounds.
class Schedule {
 public:
  explicit Schedule(const Scenario& workload)
      : drawn_(workload), glued_(workload.steps.size(), false) {}

  // Whether one more event of `kind` stays within `bounds`.
  bool Allows(const EventKind& kind, const ExploreBounds& bounds) const {
    if (kind.crash && crashes_ >= bounds.max_crashes) return false;
    return !(kind.power_loss && power_losses_ >= bounds.max_power_losses);
  }

  void AddFault(const EventKind& kind, FaultSpec fault) {
    said_.push_back(DescribeFault(fault));
    drawn_.faults.push_back(std::move(fault));
    Count(kind);
  }

  // The event's steps between two of the schedule's, at a place drawn.
  void AddSteps(const EventKind& kind, std::vector<Step> steps, sim::Rng& random) {
    FL_ASSERT(!steps.empty());
    FL_ASSERT(StepKindOf(steps.front()).fault);
    std::size_t before = DrawPlace(random);
    said_.push_back(fmt::format("{} before step {}", StepKindOf(steps.front()).show(steps.front()),
                                before + 1));
    ExemptCheckers(steps.front());
    drawn_.steps.insert(drawn_.steps.begin() + static_cast<std::ptrdiff_t>(before), steps.begin(),
                        steps.end());
    std::vector<bool> joined(steps.size(), true);
    joined.front() = false;
    glued_.insert(glued_.begin() + static_cast<std::ptrdiff_t>(before), joined.begin(),
                  joined.end());
    FL_ASSERT(glued_.size() == drawn_.steps.size());
    Count(kind);
  }

  Scenario Finish(std::uint64_t seed) && {
    drawn_.story =
        fmt::format("Drawn by faultline explore from seed {}: {}.", seed, fmt::join(said_, "; "));
    return std::move(drawn_);
  }

 private:
  void Count(const EventKind& kind) {
    crashes_ += kind.crash ? 1 : 0;
    power_losses_ += kind.power_loss ? 1 : 0;
  }

  // Where an event's steps go: between two steps, after the first (the
  // workload's `up`), and never inside an event of two steps (an upgrade's
  // set-image and its up); or inside a wait, at a time drawn from it, the
  // wait split in two.
  std::size_t DrawPlace(sim::Rng& random) {
    std::vector<std::size_t> places;
    for (std::size_t at = 1; at <= drawn_.steps.size(); ++at) {
      if (at == drawn_.steps.size() || !glued_[at]) places.push_back(at);
    }
    FL_ASSERT(!places.empty());
    std::size_t before = places[random.Uniform(places.size())];
    if (before < drawn_.steps.size() && drawn_.steps[before].kind == Step::Kind::kWait &&
        drawn_.steps[before].duration > std::chrono::seconds(1) && random.Bernoulli(0.5)) {
      SplitWait(before, random);
      ++before;
    }
    FL_ASSERT(before >= 1 && before <= drawn_.steps.size());
    return before;
  }

  void SplitWait(std::size_t at, sim::Rng& random) {
    Step& wait = drawn_.steps[at];
    const auto whole = std::chrono::duration_cast<std::chrono::milliseconds>(wait.duration);
    FL_ASSERT(whole.count() > 1);
    const std::chrono::milliseconds first(
        1 + random.Uniform(static_cast<std::uint64_t>(whole.count() - 1)));
    Step rest = wait;
    rest.narration.clear();
    rest.expect.clear();  // The wait's expectations stay with its end.
    std::swap(rest.expect, wait.expect);
    rest.duration = wait.duration - first;
    wait.duration = first;
    FL_ASSERT(rest.duration > sim::Duration::zero());
    drawn_.steps.insert(drawn_.steps.begin() + static_cast<std::ptrdiff_t>(at) + 1, rest);
    glued_.insert(glued_.begin() + static_cast<std::ptrdiff_t>(at) + 1, false);
  }

  // Data gone by an operator's own action is no failure: a down -v or a
  // clean exempts the data checkers for this run (checkers.h).
  void ExemptCheckers(const Step& first) {
    for (const CheckerSpec& checker : WholeRunCheckers()) {
      if (ExemptedBy(checker, StepKindOf(first).name)) {
        drawn_.checkers[std::string(checker.name)] = false;
      }
    }
  }

  Scenario drawn_;
  std::vector<bool> glued_;  // glued_[i]: step i belongs to the event of step i - 1.
  std::vector<std::string> said_;
  int crashes_ = 0;
  int power_losses_ = 0;
};

}  // namespace

Scenario DrawSchedule(const Scenario& workload, std::uint64_t seed, const ExploreBounds& bounds) {
  FL_ASSERT(bounds.max_events >= 1);
  sim::Rng random = sim::Rng(seed).Fork("explore");
  const std::vector<const EventKind*> on = SwarmOf(random, bounds.kinds);
  const DrawContext cluster = DrawContextOf(workload);
  const int events =
      1 + static_cast<int>(random.Uniform(static_cast<std::uint64_t>(bounds.max_events)));
  Schedule schedule(workload);
  // A bound on tries: a kind may not apply to this cluster, or be over its
  // bound, so some draws make no event.
  for (int tries = 0, made = 0; made < events && tries < 8 * events; ++tries) {
    const EventKind& kind = *on[random.Uniform(on.size())];
    if (!schedule.Allows(kind, bounds)) continue;
    DrawnEvent event = kind.draw(cluster, random);
    FL_ASSERT(!event.fault || event.steps.empty());
    if (event.fault) {
      schedule.AddFault(kind, std::move(*event.fault));
    } else if (!event.steps.empty()) {
      schedule.AddSteps(kind, std::move(event.steps), random);
    } else {
      continue;  // Nothing in this cluster it applies to: no event.
    }
    ++made;
  }
  Scenario drawn = std::move(schedule).Finish(seed);
  FL_ASSERT(FaultEventCount(drawn) >= FaultEventCount(workload));
  FL_ASSERT(FaultEventCount(drawn) <=
            FaultEventCount(workload) + static_cast<std::size_t>(bounds.max_events));
  return drawn;
}

}  // namespace faultline::scenarios
