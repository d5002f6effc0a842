#include "sim/fault.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/sim.h"

namespace faultline::sim {
namespace {

using std::chrono::milliseconds;

// Starts `process` passing `site` `hits` times, recording each status and
// the virtual time it came back at.
struct SiteRunner {
  std::vector<Status> statuses;
  std::vector<TimePoint> times;

  void Start(Simulation& sim, Process& process, std::string site, int hits) {
    process.Start([this, &sim, site, hits]() -> Awaitable<int> {
      for (int i = 0; i < hits; ++i) {
        Status status = co_await FaultPoint(site);
        times.push_back(sim.Now());
        statuses.push_back(std::move(status));
      }
      co_return 0;
    });
  }
};

TEST(FaultTest, ExplicitPlanCrashesAtTheNthHitAndNothingAfterRuns) {
  auto plan = std::make_shared<ExplicitFaultPlan>();
  plan->CrashAt("migrate.after_set_dirty", 3);
  Simulation sim({.fault_plan = plan});
  Process& node = sim.AddProcess("kuri-1");
  SiteRunner runner;
  runner.Start(sim, node, "migrate.after_set_dirty", 5);
  sim.RunUntilIdle();
  EXPECT_EQ(runner.statuses.size(), 2u);
  EXPECT_EQ(node.state(), ProcessState::kKilled);
  const std::vector<SiteCoverage> coverage = sim.faults().Coverage();
  ASSERT_EQ(coverage.size(), 1u);
  EXPECT_EQ(coverage[0].site, "migrate.after_set_dirty");
  EXPECT_EQ(coverage[0].hits, 3u);
  EXPECT_EQ(coverage[0].fires, 1u);
}

TEST(FaultTest, ErrorAndDelayDecisionsReachTheCaller) {
  auto plan = std::make_shared<ExplicitFaultPlan>();
  plan->FailAt("disk.write", 2, StatusCode::kIoError).DelayAt("disk.write", 3, milliseconds(40));
  Simulation sim({.fault_plan = plan});
  Process& node = sim.AddProcess("node");
  SiteRunner runner;
  runner.Start(sim, node, "disk.write", 3);
  sim.RunUntilIdle();
  ASSERT_EQ(runner.statuses.size(), 3u);
  EXPECT_TRUE(runner.statuses[0].ok());
  EXPECT_TRUE(runner.statuses[1].IsIoError());
  EXPECT_EQ(runner.statuses[1].message(), "injected fault at disk.write");
  EXPECT_TRUE(runner.statuses[2].ok());
  EXPECT_EQ(runner.times[2], kTimeZero + milliseconds(40));
  EXPECT_EQ(node.exits().back().code, 0);
}

// A plan can name one process's view of a site (ScopedSite): only that
// process's hits count towards its hit number, and the error says what the
// plan says.
TEST(FaultTest, AScopedSiteCountsOneProcessesHitsOnly) {
  auto plan = std::make_shared<ExplicitFaultPlan>();
  plan->FailAt(ScopedSite("kuri-2", "disk.write"), 2, StatusCode::kTimedOut, "timed out");
  Simulation sim({.fault_plan = plan});
  EXPECT_EQ(sim.faults().OnHit("disk.write", true, "kuri-1").decision.action, FaultAction::kNone);
  EXPECT_EQ(sim.faults().OnHit("disk.write", true, "kuri-2").decision.action, FaultAction::kNone);
  EXPECT_EQ(sim.faults().OnHit("disk.write", true, "kuri-1").decision.action, FaultAction::kNone);
  const FaultDecision second = sim.faults().OnHit("disk.write", true, "kuri-2").decision;
  EXPECT_EQ(second.action, FaultAction::kError);  // kuri-2's 2nd hit, the site's 4th.
  EXPECT_EQ(second.error, StatusCode::kTimedOut);
  EXPECT_EQ(second.message, "timed out");
  EXPECT_EQ(sim.faults().OnHit("disk.write", true, "kuri-2").decision.action, FaultAction::kNone);
  ASSERT_EQ(sim.faults().Coverage().size(), 1u);
  EXPECT_EQ(sim.faults().Coverage()[0].hits, 5u);
  EXPECT_EQ(sim.faults().Coverage()[0].fires, 1u);
}

TEST(FaultTest, ProbabilityPlanExtremes) {
  auto plan = std::make_shared<ProbabilityFaultPlan>();
  plan->Site("never", 0.0, {FaultAction::kError})
      .Site("always", 1.0, {FaultAction::kError, Duration{}, StatusCode::kUnavailable});
  Simulation sim({.fault_plan = plan});
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(sim.faults().OnHit("never").decision.action, FaultAction::kNone);
    EXPECT_EQ(sim.faults().OnHit("always").decision.error, StatusCode::kUnavailable);
    EXPECT_EQ(sim.faults().OnHit("unlisted").decision.action, FaultAction::kNone);
  }
}

TEST(FaultTest, ProbabilityPlanFiresAboutAsOftenAsAsked) {
  auto plan = std::make_shared<ProbabilityFaultPlan>();
  plan->Site("net.send", 0.25, {FaultAction::kDelay, milliseconds(1)});
  Simulation sim({.fault_plan = plan});
  int fired = 0;
  for (int i = 0; i < 10'000; ++i)
    fired += sim.faults().OnHit("net.send").decision.action != FaultAction::kNone;
  EXPECT_NEAR(fired, 2500, 200);
}

std::map<std::string, std::uint64_t> SwarmFires(std::uint64_t seed,
                                                const std::vector<std::string>& order) {
  SwarmOptions options;
  options.enable_probability = 0.5;
  options.fire_probability = 0.5;
  Simulation sim({.seed = seed, .fault_plan = std::make_shared<SwarmFaultPlan>(options)});
  for (int round = 0; round < 50; ++round) {
    for (const std::string& site : order) (void)sim.faults().OnHit(site);
  }
  std::map<std::string, std::uint64_t> fires;
  for (const SiteCoverage& site : sim.faults().Coverage()) fires[site.site] = site.fires;
  return fires;
}

TEST(FaultTest, SwarmSwitchesWholeSitesOnOrOffFromTheSeed) {
  std::vector<std::string> sites;
  for (int i = 0; i < 40; ++i) sites.push_back("site." + std::to_string(i));
  const auto fires = SwarmFires(11, sites);
  int enabled = 0;
  for (const auto& [site, count] : fires) {
    // Off sites never fire; on sites fire about half their 50 hits.
    if (count > 0) {
      ++enabled;
      EXPECT_GT(count, 10u) << site;
    }
  }
  EXPECT_GT(enabled, 8);
  EXPECT_LT(enabled, 32);
  // The same seed decides the same, whatever order sites are first reached in.
  std::vector<std::string> reversed(sites.rbegin(), sites.rend());
  const auto again = SwarmFires(11, reversed);
  for (const auto& [site, count] : fires) EXPECT_EQ((count > 0), (again.at(site) > 0)) << site;
  EXPECT_NE(SwarmFires(12, sites), fires);
}

TEST(FaultTest, SwarmHonoursSitePrefixes) {
  SwarmOptions options;
  options.enable_probability = 1.0;
  options.fire_probability = 1.0;
  options.site_prefixes = {"migrate."};
  Simulation sim({.fault_plan = std::make_shared<SwarmFaultPlan>(options)});
  EXPECT_NE(sim.faults().OnHit("migrate.before_body").decision.action, FaultAction::kNone);
  EXPECT_EQ(sim.faults().OnHit("network.send").decision.action, FaultAction::kNone);
}

TEST(FaultTest, CoverageListsEverySiteReachedAndFired) {
  auto plan = std::make_shared<ExplicitFaultPlan>();
  plan->FailAt("b.site", 1);
  Simulation sim({.fault_plan = plan});
  (void)sim.faults().OnHit("b.site");
  (void)sim.faults().OnHit("a.site");
  (void)sim.faults().OnHit("a.site");
  const std::string report = sim.faults().FormatCoverage();
  EXPECT_LT(report.find("a.site"), report.find("b.site"));
  EXPECT_NE(report.find("hits=2 fired=0"), std::string::npos) << report;
  EXPECT_NE(report.find("hits=1 fired=1"), std::string::npos) << report;
  EXPECT_NE(plan->Describe().find("b.site@1=error IoError"), std::string::npos) << plan->Describe();
}

TEST(FaultTest, CrashDecisionsSpareTheRootProcess) {
  auto plan = std::make_shared<ProbabilityFaultPlan>();
  plan->Site("harness.step", 1.0, {FaultAction::kCrash});
  Simulation sim({.fault_plan = plan});
  std::vector<Status> statuses;
  sim.Spawn("harness",
            [&]() -> Awaitable<void> { statuses.push_back(co_await FaultPoint("harness.step")); });
  sim.RunUntilIdle();
  ASSERT_EQ(statuses.size(), 1u);
  EXPECT_TRUE(statuses[0].ok());
  EXPECT_EQ(sim.faults().Coverage().at(0).fires, 0u);
}

TEST(FaultTest, FiredFaultsAreTraced) {
  auto plan = std::make_shared<ExplicitFaultPlan>();
  plan->CrashAt("node.step", 1);
  Simulation sim({.fault_plan = plan});
  RingSink sink(50);
  sim.trace().AddSink(&sink);
  Process& node = sim.AddProcess("node");
  node.Start([]() -> Awaitable<int> {
    (void)co_await FaultPoint("node.step");
    co_return 0;
  });
  sim.RunUntilIdle();
  std::vector<std::string> names;
  for (const TraceEvent& event : sink.Events()) names.push_back(event.name);
  EXPECT_EQ(names, (std::vector<std::string>{"process.start", "fault.fire", "process.kill"}));
  const TraceEvent fire = sink.Events()[1];
  EXPECT_EQ(fire.process, "node");
  EXPECT_EQ(fire.Find("site")->AsString(), "node.step");
  EXPECT_EQ(fire.Find("action")->AsString(), "crash");
  sim.trace().RemoveSink(&sink);
}

}  // namespace
}  // namespace faultline::sim
