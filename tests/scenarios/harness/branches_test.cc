// Branching runs (scenarios/harness/branches.h): a future forked at a
// fault site's pass has the trace of the same run played from an empty
// world with that fault; the results are the same whatever the pool; and
// no future outlives a parent that is killed.
#include "scenarios/harness/branches.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <tuple>

#include "fakes/runtime.h"
#include "models/cql/store_snapshot.h"
#include "scenarios/catalogue/catalogue.h"
#include "scenarios/world/world.h"

namespace faultline::scenarios {
namespace {

// A catalogue story without its own faults: the trunk every future of the
// test branches from.
Scenario Trunk(std::string_view story) {
  const Scenario* found = FindScenario(story);
  EXPECT_NE(found, nullptr) << story;
  Scenario trunk = found != nullptr ? *found : Scenario();
  trunk.faults.clear();
  trunk.crash_site.clear();
  return trunk;
}

// Every pass of every fault site in the trunk's run, as a crash there (of a
// site outside the migration runner, whose passes are mostly the store's
// disk writes, the first `other_passes`).
std::vector<BranchPoint> EveryPass(const Scenario& trunk, std::uint64_t other_passes = UINT64_MAX) {
  std::vector<sim::SiteCoverage> coverage;
  RunOptions options{.checkers = false};
  options.observe = [&](std::size_t step, World& world) {
    if (step == trunk.steps.size()) coverage = world.simulation.faults().Coverage();
  };
  RunScenario(trunk, options);
  std::vector<BranchPoint> points;
  for (const sim::SiteCoverage& site : coverage) {
    const bool migration = site.site.starts_with("migrate.");
    for (std::uint64_t hit = 1; hit <= site.hits && (migration || hit <= other_passes); ++hit) {
      points.push_back({.key = points.size(), .site = site.site, .hit = hit});
    }
  }
  return points;
}

std::string HashOf(const BranchPoint&, const ScenarioResult& result) {
  return sim::FormatHash(result.trace_hash);
}

// Each future's trace hash is that of the same run played from an empty
// world with its crash; a pass no future forked at (a crash of the root's
// own code, or a pass in the liveness phase, where faults stop) is one the
// same fault never fires at when played from empty either.
void ExpectEachFutureHasTheTraceFromEmpty(const Scenario& trunk,
                                          const std::vector<BranchPoint>& points) {
  const RunOptions options{.checkers = false};
  const BranchedRun branched = RunBranched(trunk, options, points, HashOf);
  EXPECT_EQ(branched.trunk.trace_hash, RunScenario(trunk, options).trace_hash);
  EXPECT_GE(branched.futures.size(), points.size() / 2);
  for (const BranchPoint& point : points) {
    Scenario with_fault = trunk;
    with_fault.faults.push_back({.site = point.site, .hit = point.hit});
    const std::string from_empty = sim::FormatHash(RunScenario(with_fault, options).trace_hash);
    const auto future = branched.futures.find(point.key);
    const std::string expected = future != branched.futures.end()
                                     ? future->second
                                     : sim::FormatHash(branched.trunk.trace_hash);
    EXPECT_EQ(from_empty, expected) << "crash at " << point.site << " pass " << point.hit;
  }
}

// Over every pass of a migration story's migration sites, and the first
// two passes of every other site (the store's ~1,000 disk writes, each a
// run from empty, are the soak label's: below).
TEST(BranchesTest, AFutureHasTheTraceOfTheSameRunPlayedFromEmpty) {
  const Scenario trunk = Trunk("crash-after-set-dirty");
  const std::vector<BranchPoint> points = EveryPass(trunk, 2);
  ASSERT_GE(points.size(), 20u);
  ExpectEachFutureHasTheTraceFromEmpty(trunk, points);
}

// The soak label's (tests/CMakeLists.txt): every pass of every fault site
// of a catalogue story, the store's disk writes included.
TEST(BranchesTest, SoakEveryPassOfEverySiteHasTheTraceFromEmpty) {
  const Scenario trunk = Trunk("crash-after-set-dirty");
  const std::vector<BranchPoint> points = EveryPass(trunk);
  ASSERT_GE(points.size(), 500u);
  ExpectEachFutureHasTheTraceFromEmpty(trunk, points);
}

// The end of a run as a user could tell it apart: the store's content,
// each service's state, restarts and last log line.
std::string EndOf(World& world) {
  std::string end;
  if (auto store = ObserveStore(world); store.ok()) {
    end += sim::FormatHash((*store)->ContentHash());
  }
  for (const fakes::ServiceSpec& service : world.spec.services) {
    if (!world.runtime.HasContainer(service.name)) continue;
    const std::vector<std::string> logs = world.runtime.Logs(service.name);
    end += fmt::format("\n{} {} {} {}", service.name,
                       fakes::ContainerStateName(world.runtime.state(service.name)),
                       world.runtime.restart_count(service.name), logs.empty() ? "" : logs.back());
  }
  return end;
}

// A crash at a pass that nothing but the crashed process's own work
// separates from the point before it shares that point's future
// (share_quiet_points): played from empty, it ends as that future does.
// Over every pass of a migration story's migration sites: a pass with a
// statement, a version write or a log line between is not quiet.
TEST(BranchesTest, AQuietPointEndsAsTheFutureItShares) {
  const Scenario trunk = Trunk("crash-after-set-dirty");
  const std::vector<BranchPoint> points = EveryPass(trunk, 0);
  ASSERT_GE(points.size(), 10u);
  std::string end;
  RunOptions options;
  options.observe = [&](std::size_t step, World& world) {
    if (step == trunk.steps.size()) end = EndOf(world);
  };
  const auto with_end = [&](const BranchPoint&, const ScenarioResult& result) {
    std::string checkers;
    for (const CheckResult& checker : result.checkers) checkers += "\n" + checker.what;
    return end + checkers;
  };
  const BranchedRun branched =
      RunBranched(trunk, options, points, with_end, {.share_quiet_points = true});
  ASSERT_FALSE(branched.shares.empty());
  EXPECT_LT(branched.futures.size() + branched.shares.size(), points.size() + 1);
  for (const BranchPoint& point : points) {
    const auto shared = branched.shares.find(point.key);
    if (shared == branched.shares.end()) continue;
    ASSERT_TRUE(branched.futures.contains(shared->second)) << point.site << " " << point.hit;
    EXPECT_FALSE(branched.shares.contains(shared->second));
    Scenario with_fault = trunk;
    with_fault.faults.push_back({.site = point.site, .hit = point.hit});
    end.clear();
    const ScenarioResult from_empty = RunScenario(with_fault, options);
    EXPECT_EQ(with_end(point, from_empty), branched.futures.at(shared->second))
        << "crash at " << point.site << " pass " << point.hit;
  }
}

// before_fork runs in the parent, once before each fork and never in a
// child: each future sees the count as it was when it forked.
TEST(BranchesTest, BeforeForkRunsInTheParentOnceBeforeEachFork) {
  const Scenario trunk = Trunk("crash-after-set-dirty");
  const std::vector<BranchPoint> points = EveryPass(trunk, 0);
  ASSERT_GE(points.size(), 3u);
  int calls = 0;
  BranchCallbacks callbacks;
  callbacks.before_fork = [&] { ++calls; };
  const auto seen = [&](const BranchPoint&, const ScenarioResult&) {
    return std::to_string(calls);
  };
  const BranchedRun branched = RunBranched(trunk, {}, points, seen, callbacks);
  EXPECT_EQ(static_cast<std::size_t>(calls), branched.futures.size());
  std::set<std::string> counts;
  for (const auto& [key, text] : branched.futures) counts.insert(text);
  EXPECT_EQ(counts.size(), branched.futures.size());  // One call between two forks.
  EXPECT_TRUE(counts.contains(std::to_string(calls)));
  EXPECT_TRUE(counts.contains("1"));
}

// A site that two processes pass in `trunk`'s run, and those two.
std::tuple<std::string, std::string, std::string> ASiteTwoProcessesPass(const Scenario& trunk) {
  std::map<std::string, std::set<std::string>> passed_by;
  RunOptions options{.checkers = false};
  options.at_fault_pass = [&](const sim::FaultPass& pass) -> std::optional<sim::FaultDecision> {
    if (!pass.process.empty()) passed_by[std::string(pass.site)].insert(std::string(pass.process));
    return std::nullopt;
  };
  RunScenario(trunk, options);
  for (const auto& [site, processes] : passed_by) {
    if (processes.size() >= 2) return {site, *processes.begin(), *std::next(processes.begin())};
  }
  return {};
}

// A point that names a process counts that process's passes alone, as a
// fault with a service does.
TEST(BranchesTest, AProcesssOwnPassIsTheOneAServicesFaultNames) {
  const Scenario trunk = Trunk("shared-version-table");
  const auto [site, first, second] = ASiteTwoProcessesPass(trunk);
  ASSERT_FALSE(site.empty());
  const std::vector<BranchPoint> points = {{.key = 0, .site = site, .process = first, .hit = 1},
                                           {.key = 1, .site = site, .process = second, .hit = 1}};
  const RunOptions options{.checkers = false};
  const BranchedRun branched = RunBranched(trunk, options, points, HashOf);
  ASSERT_EQ(branched.futures.size(), 2u) << site;
  EXPECT_NE(branched.futures.at(0), branched.futures.at(1));
  for (const BranchPoint& point : points) {
    Scenario with_fault = trunk;
    with_fault.faults.push_back({.site = point.site, .hit = 1, .service = point.process});
    EXPECT_EQ(sim::FormatHash(RunScenario(with_fault, options).trace_hash),
              branched.futures.at(point.key))
        << point.process << " at " << site;
  }
}

TEST(BranchesTest, TheFuturesAreTheSameWhateverThePool) {
  const Scenario trunk = Trunk("dirty-migration");
  std::vector<BranchPoint> points = EveryPass(trunk);
  if (points.size() > 10) points.resize(10);  // A fork under ASan costs ~0.1 s.
  const RunOptions options{.checkers = false};
  const BranchedRun one_core = RunBranched(trunk, options, points, HashOf, {.max_beside = 0});
  const BranchedRun pool = RunBranched(trunk, options, points, HashOf, {.max_beside = 3});
  EXPECT_EQ(one_core.futures, pool.futures);
  EXPECT_EQ(one_core.trunk.trace_hash, pool.trunk.trace_hash);
}

// The test becomes the subreaper of what it forks, so a future orphaned by
// its parent's death comes back to it to be reaped: each must have been
// killed, none may still run.
TEST(BranchesTest, NoFutureOutlivesAKilledParent) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t parent = fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    close(fds[0]);
    Branches branches(/*max_beside=*/3, 3);
    for (std::uint64_t key = 0; key < 3; ++key) {
      if (branches.Fork(key)) {
        const pid_t self = getpid();
        if (write(fds[1], &self, sizeof self) != sizeof self) _exit(5);
        for (;;) pause();  // A future that never ends.
      }
    }
    for (;;) pause();
  }
  close(fds[1]);
  std::set<pid_t> futures;
  for (int i = 0; i < 3; ++i) {
    pid_t pid = 0;
    ASSERT_EQ(read(fds[0], &pid, sizeof pid), static_cast<ssize_t>(sizeof pid));
    futures.insert(pid);
  }
  close(fds[0]);
  ASSERT_EQ(kill(parent, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(parent, &status, 0), parent);
  // Bounded: the death signal is immediate; ten seconds is a hang.
  for (int tries = 0; !futures.empty() && tries < 1000; ++tries) {
    const pid_t reaped = waitpid(-1, &status, WNOHANG);
    if (reaped > 0) {
      EXPECT_TRUE(futures.contains(reaped));
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << reaped;
      futures.erase(reaped);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  EXPECT_TRUE(futures.empty()) << futures.size() << " futures outlived their parent";
  for (const pid_t pid : futures) kill(pid, SIGKILL);
  prctl(PR_SET_CHILD_SUBREAPER, 0);
}

}  // namespace
}  // namespace faultline::scenarios
