// A forked case's end held for the force search, and the force runs
// played from it, which stop once their answer is known: joined the clean
// run (it comes up) or stuck on a still store (it does not) (checker.h).
#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/s3/kuri_node.h"
#include "scenarios/check_migrations/checker.h"
#include "scenarios/check_migrations/clean_contents.h"
#include "scenarios/harness/branches.h"
#include "scenarios/harness/cluster.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios::check {

// In a forked case, at its last step: the world held for the force search.
// Each answer is whether kuri-1 serves the folder after `migrate force TO`
// and a restart: with the folder's schema, and with any schema.
// (`replicas` nodes are forced and restarted; a run joins the clean run
// only with one, StopAtTheCleanRun's kuri-1.)
void Checker::HoldCaseEnd(Cluster& cluster, int replicas) {
  FL_ASSERT(in_future_ && case_end_ == nullptr);
  FL_ASSERT(replicas >= 1);
  // (The holder forks while HeldRun is made: in its children case_end_ is
  // not set yet, so the answer goes through `held`.)
  case_end_ =
      std::make_unique<HeldRun>([this, &cluster, replicas](const std::string& to, HeldRun& held) {
        StopAtTheCleanRun(cluster, held, replicas == 1);
        for (const Step& step : ForceSteps(to, replicas)) {
          cluster.Play(step);
          FL_ASSERT_MSG(cluster.stopped().empty(), "the force run stopped: {}", cluster.stopped());
        }
        std::vector<Observed> end;
        for (int node = 1; node <= replicas; ++node) {
          end.push_back(Observe(cluster.world(), NodeName(node), options_.keyspace));
        }
        return std::string{AllServeTheFolder(end, true) ? '1' : '0',
                           AllServeTheFolder(end, false) ? '1' : '0'};
      });
}

// In a held case's answering child: the force's run stops where kuri-1
// has recorded a version clean on a store the trunk had at that version
// (CleanContents, clean_contents.h). From there kuri-1 runs the trunk's
// statements on the trunk's store, which the trunk's kuri-1 ran to serve
// the folder (CleanRun), so the answer is that it serves, when the trunk's
// time from there fits well inside the force's wait. Not the trunk's world
// to the bit: its virtual time and the scheduler's draws differ, and so
// may how the other services' work interleaves with kuri-1's; one node
// migrating alone does not race, and the corpus and the N-file folders
// give the same reports as every force played to its end.
// Only its first few clean versions are read: a force whose store
// differs there stays different.
// It also stops where kuri-1 is stuck (StuckOnAStillStore): then it does
// not come up; only that with replicas (`may_join` false): kuri-1 joining
// the clean run says nothing of the others.
void Checker::StopAtTheCleanRun(Cluster& cluster, HeldRun& held, bool may_join) {
  const sim::TimePoint asked = cluster.world().simulation.Now();
  cluster.world().simulation.faults().SetPassOverride(
      [this, &cluster, &held, asked, may_join, reads = 0,
       still = StillStore{.stuck_after = StuckAfter(cluster.world())}](
          const sim::FaultPass& pass) mutable -> std::optional<sim::FaultDecision> {
        // (No clean site, or never passed: clean_trunk_ has no bytes.)
        if (may_join && !clean_trunk_.bytes.empty() &&
            JoinsTheCleanRun(cluster.world(), asked, pass, reads)) {
          held.AnswerNow("11");
        }
        if (StuckOnAStillStore(cluster.world(), pass, still)) held.AnswerNow("00");
        return std::nullopt;
      });
}

// Whether kuri-1, passing a site, is stuck: not serving, on a store whose
// volume has not changed for longer than two of its longest waits between
// start-up attempts (its retry policy's cap) and a margin. Then at least
// one whole attempt of each node ran on that store (the others' alike:
// every node has the same policy) and wrote nothing, kuri-1's failed, and
// each later attempt runs on the same store and does the same (db-init
// is done, the proxy's migrations long over; a write would restart the
// count), until the retries give up: kuri-1 does not come up. `still`
// keeps the volume's count of changes and since when.
bool Checker::StuckOnAStillStore(World& world, const sim::FaultPass& pass,
                                 StillStore& still) const {
  if (pass.process != kSubject || !still.stuck_after) return false;
  const fakes::Volume* volume = StoreVolume(world);
  if (volume == nullptr) return false;
  const sim::TimePoint now = world.simulation.Now();
  if (!still.since || volume->changes() != still.changes) {
    still.changes = volume->changes();
    still.since = now;
    return false;
  }
  return now - *still.since > *still.stuck_after && !IsServing(world, kSubject);
}

// How long a still store takes to say kuri-1 is stuck (StuckOnAStillStore):
// two of its longest waits between attempts and a margin; none when its
// policy is malformed (it never starts).
std::optional<sim::Duration> Checker::StuckAfter(const World& world) {
  const auto node =
      std::find_if(world.spec.services.begin(), world.spec.services.end(),
                   [](const fakes::ServiceSpec& spec) { return spec.name == kSubject; });
  FL_ASSERT(node != world.spec.services.end());
  // Every seed node image keeps the default policy; its environment may
  // change it.
  const std::optional<models::s3::RetryPolicy> policy =
      models::s3::NodeRetryPolicy(*node, models::s3::RetryPolicy{});
  if (!policy) return std::nullopt;
  constexpr sim::Duration kMargin = std::chrono::seconds(10);
  return 2 * policy->cap + kMargin;
}

// A future that, from step `from` on, joins the clean run
// (JoinsTheCleanRun) at a pass `may_read` lets it read (none: any) ends
// there, with the text `joined` gives.
void Checker::EndWhereItJoins(RunOptions& run, BranchCallbacks& callbacks, std::size_t from,
                              std::function<bool()> may_read, std::function<std::string()> joined) {
  struct Watch {
    World* world = nullptr;  // The run's, from its first step to its result.
    sim::TimePoint since{};  // Step `from` began (after a moment was read).
    int reads = 0;
  };
  auto watch = std::make_shared<Watch>();
  run.observe = [watch, observe = std::move(run.observe)](std::size_t step, World& at) {
    watch->world = &at;
    if (observe) observe(step, at);
  };
  run.play_on_as = [watch, play_on_as = std::move(run.play_on_as)](
                       std::size_t step, Cluster& cluster) -> const Scenario* {
    watch->world = &cluster.world();
    return play_on_as ? play_on_as(step, cluster) : nullptr;
  };
  // The world is taken apart after its result: nothing reads it after.
  run.with_result = [watch, with_result = std::move(run.with_result)](const ScenarioResult& r) {
    watch->world = nullptr;
    if (with_result) with_result(r);
  };
  // A join reads the store's digest (StoreBytes), kept at the cost of the
  // writes since it was last asked: asked in the trunk before each fork,
  // a future pays for its own writes, not for the whole database (which
  // grows with the folder) again in every child. (Not its snapshot too:
  // opened in the trunk at each fork, its pages copied in every child
  // that reads it, d100 took 1.25x the time.)
  FL_ASSERT(callbacks.before_fork == nullptr);
  callbacks.before_fork = [watch] {
    if (watch->world != nullptr) (void)StoreBytes(*watch->world);
  };
  run.before_step = [watch, before = std::move(run.before_step), from](std::size_t step) {
    if (before) before(step);
    if (step == from && watch->world != nullptr) watch->since = watch->world->simulation.Now();
  };
  const bool can_join = !clean_trunk_.bytes.empty() && clean_trunk_.end.serving;
  callbacks.end_at_pass =
      [this, watch, can_join, may_read = std::move(may_read),
       joined = std::move(joined)](const sim::FaultPass& pass) -> std::optional<std::string> {
    // Most passes are no clean record of kuri-1's: they are let go first,
    // as this is asked at every pass of every process.
    if (!can_join || watch->since == sim::TimePoint{} || pass.process != kSubject ||
        pass.site != clean_site_ || (may_read && !may_read()) ||
        !JoinsTheCleanRun(*watch->world, watch->since, pass, watch->reads)) {
      return std::nullopt;
    }
    return joined();
  };
}

// Whether kuri-1, passing its clean site at most `kReads` times since
// `since` (counted in `reads`), has recorded a version clean on a store the
// crash trunk had at that version, early enough that the trunk's time from
// there fits well inside the wait that follows.
bool Checker::JoinsTheCleanRun(World& world, sim::TimePoint since, const sim::FaultPass& pass,
                               int& reads) const {
  constexpr int kReads = 2;
  if (pass.process != kSubject || pass.site != clean_site_ || reads >= kReads) return false;
  ++reads;
  const std::optional<std::uint64_t> bytes = StoreBytes(world);
  const auto trunk = bytes ? clean_trunk_.bytes.find(*bytes) : clean_trunk_.bytes.end();
  if (trunk == clean_trunk_.bytes.end()) return false;
  const sim::Duration spent = world.simulation.Now() - since;
  return spent + trunk->second < kRetriesGiveUp / 2;
}

}  // namespace faultline::scenarios::check
