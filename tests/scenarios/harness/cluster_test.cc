// The cluster harness (scenarios/cluster.h): what it builds, what its verbs
// do, a service of the user's own on a kept volume, and a story written out
// by AsScenario replaying to the same trace.
#include "scenarios/harness/cluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <string>

#include "fakes/volume.h"
#include "models/migrate/safe_runner.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/harness/runner.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"
#include "sim/ops.h"
#include "tests/scenarios/harness/cluster_fixture.h"

namespace faultline::scenarios {
namespace {

using std::chrono::seconds;

// A service of the test's own: at each start it reads a counter from its
// volume, adds one, writes it back and syncs, logs "start N", and serves
// until stopped.
fakes::EntryPoint CountingService() {
  return [](fakes::ContainerContext& context) -> sim::Awaitable<int> {
    fakes::Volume* volume = context.VolumeAt("/data");
    FL_ASSERT(volume != nullptr);
    fakes::SimFile& file = volume->OpenOrCreate("starts");
    const std::string& before = file.contents();
    int starts = 0;
    std::from_chars(before.data(), before.data() + before.size(), starts);
    const std::string after = std::to_string(starts + 1);
    // Same width or wider each time: no truncate needed.
    FL_ASSERT(volume->Write(file, 0, after).ok());
    FL_ASSERT(volume->Sync(file).ok());
    context.Log("start " + after);
    context.SetReady(true);
    co_await context.StopRequested();
    co_return 0;
  };
}

// How often the plan fired at `site` in `cluster`'s run.
std::uint64_t Fired(Cluster& cluster, const std::string& site) {
  for (const sim::SiteCoverage& coverage : cluster.world().simulation.faults().Coverage()) {
    if (coverage.site == site) return coverage.fires;
  }
  return 0;
}

ClusterOptions WithCountingService() {
  fakes::ServiceSpec counter;
  counter.name = "counter";
  counter.image = "counter";
  counter.version = "1";
  counter.mounts = {fakes::MountSpec{"counter-data", "/data", fakes::VolumeKind::kNamedVolume}};
  return ClusterOptions{.images = {CustomImage{"counter", "1", CountingService()}},
                        .services = {counter}};
}

TEST(ClusterTest, AServiceOfYourOwnKeepsItsStateOnAKeptVolumeAcrossAKillAndARestart) {
  Cluster cluster(Scenario{}, WithCountingService());
  cluster.Up();
  EXPECT_EQ(cluster.Logs("counter").back(), "counter  | start 1");
  cluster.Kill("counter");
  EXPECT_EQ(cluster.world().runtime.state("counter"), fakes::ContainerState::kExited);
  cluster.Restart("counter");
  cluster.Wait(seconds(1));  // Restart returns once the container runs; its program logs after.
  EXPECT_EQ(cluster.Logs("counter").back(), "counter  | start 2");
  cluster.Down();  // Volumes kept.
  cluster.Up();
  EXPECT_EQ(cluster.Logs("counter").back(), "counter  | start 3");
  cluster.Down(/*volumes=*/true);
  cluster.Up();
  EXPECT_EQ(cluster.Logs("counter").back(), "counter  | start 1")
      << "down -v removes the named volume";
  EXPECT_FALSE(cluster.AsScenario().ok()) << "a file cannot name a service of your own";
}

TEST(ClusterTest, APutThroughTheProxyIsAcknowledgedAndReadBack) {
  Cluster cluster(Scenario{}, {.seed = 3});
  EXPECT_EQ(cluster.Up().outcome, "compose up");
  EXPECT_EQ(cluster.Put("/b/k", "bytes").outcome, "200 ");
  EXPECT_EQ(cluster.Get("/b/k").outcome, "200 bytes");
  EXPECT_TRUE(cluster.world().acknowledged.contains("/b/k"));
  cluster.Settle();
  for (const CheckResult& verdict : cluster.Verdicts()) {
    EXPECT_TRUE(verdict.held) << verdict.what << ": " << verdict.actual;
  }
}

// A step's result is data: whether it took place, the S3 status and body,
// and the words made from them; nothing need read the words back.
TEST(ClusterTest, AVerbsResultCarriesItsStatusBodyAndWhetherItTookPlace) {
  Cluster cluster(Scenario{}, {.seed = 3});
  const StepResult& restart = cluster.Restart("kuri-1");  // No container before `up`.
  EXPECT_FALSE(restart.ok);
  EXPECT_EQ(restart.status, 0);
  EXPECT_NE(restart.outcome.find("no such container"), std::string::npos) << restart.outcome;
  EXPECT_TRUE(cluster.Up().ok);
  const StepResult& put = cluster.Put("/b/k", "meow");
  EXPECT_TRUE(put.ok);
  EXPECT_EQ(put.status, 200);
  const StepResult& get = cluster.Get("/b/k");
  EXPECT_EQ(get.status, 200);
  EXPECT_EQ(get.body, "meow");
  EXPECT_EQ(get.outcome, "200 meow");
  const StepResult& missing = cluster.Get("/b/none");
  EXPECT_FALSE(missing.ok);
  EXPECT_EQ(missing.status, 404);
  const StepResult& query = cluster.Cql("SELECT nope FROM filecoingw_s3.s3objects");
  EXPECT_FALSE(query.ok) << query.outcome;
  EXPECT_EQ(query.body, query.outcome);
  EXPECT_TRUE(cluster.Cql("SELECT bucket FROM filecoingw_s3.s3objects").ok);
}

// A node's own 200 puts nothing in the proxy's index, so it is not an
// acknowledgement acknowledged-writes should read back.
TEST(ClusterTest, APutStraightToANodeIsServedButNotAcknowledged) {
  Cluster cluster(Scenario{});
  cluster.Up();
  EXPECT_EQ(cluster.Put("/b/direct", "bytes", "kuri-1").action, "PUT /b/direct (to kuri-1)");
  EXPECT_TRUE(cluster.played().back().outcome.starts_with("200"))
      << cluster.played().back().outcome;
  EXPECT_FALSE(cluster.world().acknowledged.contains("/b/direct"));
  EXPECT_EQ(cluster.Get("/b/k", "yugabyte").outcome,
            "no S3 endpoint named yugabyte (the proxy or a node)");
}

TEST(ClusterTest, ACrashArmedMidRunFiresAtThePassItNames) {
  Cluster cluster(UpgradeTopology("golang-migrate"));
  cluster.Up();
  cluster.CrashAt("migrate.filecoingw_kuri1.statement.after", 1);
  cluster.Upgrade("kuri-1", "next");
  cluster.Wait(seconds(30));
  EXPECT_EQ(Fired(cluster, "migrate.filecoingw_kuri1.statement.after"), 1u);
  EXPECT_FALSE(cluster.Serving("kuri-1"));
  EXPECT_EQ(RecordedVersions(cluster.world(), "filecoingw_kuri1"), "1765000000 dirty");
  EXPECT_TRUE(cluster.Serving("kuri-2"));
}

// Observing keeps the store's snapshot while its volume does not change
// (the checkers look several times at one moment, and opening it parses the
// whole schema), and opens it again once the store wrote: a table and a
// column an upgrade adds after the first look are in the next one.
TEST(ClusterTest, AnObservedStoreIsKeptUntilItsVolumeChanges) {
  Cluster cluster(UpgradeTopology("golang-migrate"));
  cluster.Up();
  cluster.Settle();
  const auto table = [&cluster](const std::string& name) -> std::string {
    sim::Result<models::cql::StoreSnapshot*> store = ObserveStore(cluster.world());
    if (!store.ok()) return store.status().message();
    models::cql::Outcome described = (*store)->Read("DESCRIBE TABLE filecoingw_kuri1." + name);
    const auto* result = std::get_if<models::cql::QueryResult>(&described);
    return result == nullptr ? "not there" : result->text;
  };
  EXPECT_EQ(table("objecttags"), "not there");
  EXPECT_EQ(table("cidgroups").find("created_at"), std::string::npos);
  sim::Result<models::cql::StoreSnapshot*> first = ObserveStore(cluster.world());
  sim::Result<models::cql::StoreSnapshot*> again = ObserveStore(cluster.world());
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_EQ(*first, *again);  // Nothing changed in between: the same snapshot.
  cluster.Upgrade("kuri-1", "next");
  cluster.Settle();
  EXPECT_NE(table("objecttags").find("CREATE TABLE filecoingw_kuri1.objecttags"),
            std::string::npos);
  EXPECT_NE(table("cidgroups").find("created_at timestamp"), std::string::npos);
}

TEST(ClusterTest, TheSafeRunnerFinishesTheSameUpgradeAfterTheSameCrash) {
  Cluster cluster(UpgradeTopology("safe"));
  cluster.Up();
  cluster.CrashAt("safe.filecoingw_kuri1.statement.after", 1);
  cluster.Upgrade("kuri-1", "next");
  cluster.Settle();
  EXPECT_EQ(Fired(cluster, "safe.filecoingw_kuri1.statement.after"), 1u);
  EXPECT_TRUE(cluster.Serving("kuri-1"));
  for (const CheckResult& verdict : cluster.Verdicts()) {
    EXPECT_TRUE(verdict.held) << verdict.what << ": " << verdict.actual;
  }
}

// Everything a cluster did, written as a file and played by the runner,
// is the same run: the same trace hash from the same seed.
TEST(ClusterTest, AsScenarioReplaysToTheSameTraceHash) {
  Cluster cluster(UpgradeTopology("golang-migrate"), {.seed = 11});
  cluster.Up();
  cluster.Put("/b/k", "bytes");
  cluster.CrashAt("migrate.filecoingw_kuri1.statement.after", 2);
  cluster.Upgrade("kuri-1", "next");
  cluster.Partition("kuri-2");
  cluster.Heal();
  cluster.Settle();
  sim::Result<Scenario> scenario = cluster.AsScenario();
  ASSERT_TRUE(scenario.ok()) << scenario.status().ToString();
  ASSERT_EQ(scenario->faults.size(), 1u);
  EXPECT_GT(scenario->faults[0].hit, 2u) << "the absolute pass: the first run already passed it";
  auto parsed = ParseScenario(ToToml(*scenario), "written.toml");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  const ScenarioResult replayed = RunScenario(std::get<Scenario>(parsed), {.seed = 11});
  EXPECT_EQ(replayed.trace_hash, cluster.world().simulation.trace().hash());
  EXPECT_FALSE(replayed.passed) << "converges fails: kuri-1 is dirty";
}

// A story with a Settle() before its end cannot be a file (a file settles
// only at its end), nor can a duration a file cannot write.
TEST(ClusterTest, AsScenarioRefusesWhatAFileCannotSay) {
  Cluster settled(Scenario{});
  settled.Up();
  settled.Settle();
  settled.Wait(seconds(1));
  EXPECT_FALSE(settled.AsScenario().ok());
  Cluster fine(Scenario{});
  fine.Up();
  fine.Wait(std::chrono::microseconds(1500));
  const sim::Result<Scenario> scenario = fine.AsScenario();
  ASSERT_FALSE(scenario.ok());
  EXPECT_NE(scenario.status().message().find("step 2 (wait"), std::string::npos)
      << scenario.status().message();
}

// A write sent straight to a node may overwrite what the index points at;
// it is no acknowledgement, and no fault of the system's either. A PUT to
// a path that is no object is not remembered at all.
TEST(ClusterTest, AWriteStraightToANodeWidensWhatMayBeReadBack) {
  Cluster cluster(Scenario{});
  cluster.Up();
  ASSERT_EQ(cluster.Put("/b/k", "acknowledged").outcome, "200 ");
  for (const std::string node : {"kuri-1", "kuri-2"}) cluster.Put("/b/k", "direct", node);
  cluster.Put("/healthz", "not an object");
  cluster.Settle();
  for (const CheckResult& verdict : cluster.Verdicts()) {
    EXPECT_TRUE(verdict.held) << verdict.what << ": " << verdict.actual;
  }
  EXPECT_FALSE(cluster.world().acknowledged.contains("/healthz"));
}

// A runner of the user's own: a fault point of its own before the safe
// runner's work, so a crash can land there.
class GuardedRunner final : public models::migrate::MigrationRunner {
 public:
  std::string_view name() const override { return "guarded"; }
  sim::Awaitable<sim::Status> Migrate(models::cql::CqlSession& session, const std::string& keyspace,
                                      const models::migrate::MigrationSource& source,
                                      const std::string& owner,
                                      models::migrate::LogSink log) override {
    const std::string site = Site(keyspace);
    if (sim::Status fault = co_await sim::FaultPoint(site); !fault.ok()) co_return fault;
    co_return co_await safe_.Migrate(session, keyspace, source, owner, std::move(log));
  }
  std::vector<std::string> FaultSites(const std::string& keyspace) const override {
    return {Site(keyspace)};
  }

 private:
  static std::string Site(const std::string& keyspace) { return "guarded." + keyspace + ".begin"; }
  models::migrate::SafeRunner safe_;
};

TEST(ClusterTest, ARunnerOfYourOwnRunsItsSitesAreOfferedAndACrashThereIsSurvived) {
  Scenario topology = UpgradeTopology("guarded");
  Cluster cluster(
      topology,
      {.runners = {CustomRunner{"guarded", [] { return std::make_shared<GuardedRunner>(); }}}});
  const std::vector<std::string> sites = cluster.FaultSites();
  EXPECT_TRUE(std::binary_search(sites.begin(), sites.end(), "guarded.filecoingw_kuri1.begin"));
  cluster.Up();
  EXPECT_TRUE(cluster.Serving("kuri-1"));
  cluster.CrashAt("guarded.filecoingw_kuri1.begin");
  cluster.Upgrade("kuri-1", "next");
  cluster.Settle();
  EXPECT_EQ(Fired(cluster, "guarded.filecoingw_kuri1.begin"), 1u);
  EXPECT_TRUE(cluster.Serving("kuri-1"));
  EXPECT_FALSE(cluster.AsScenario().ok()) << "a file cannot name a runner of your own";
}

// A write that certainly did nothing (never delivered, or answered 4xx or
// 503 before anything was written) widens nothing: a DELETE sent while the
// proxy is down must not blind acknowledged-writes to a later loss.
TEST(ClusterTest, AWriteThatCertainlyDidNothingLeavesTheCheckerAsStrict) {
  Scenario topology;
  topology.services.push_back(
      ServiceOverride{.name = "s3-proxy", .restart = fakes::RestartPolicy::kNo});
  Cluster cluster(topology);
  cluster.Up();
  ASSERT_EQ(cluster.Put("/b/k", "bytes").outcome, "200 ");
  cluster.Stop("s3-proxy");
  EXPECT_NE(cluster.Delete("/b/k").outcome.find("connection refused"), std::string::npos);
  EXPECT_FALSE(cluster.world().indeterminate.contains("/b/k"));
  cluster.Put("/b/missing", "x", "kuri-1");  // Straight to a node: unknown to the proxy.
  EXPECT_TRUE(cluster.world().indeterminate.contains("/b/missing"));
}

TEST(ClusterTest, AStepBuiltInCodeWithoutARequiredFieldIsRefusedByName) {
  Cluster cluster(Scenario{});
  Step kill;
  kill.kind = Step::Kind::kKill;
  EXPECT_DEATH(cluster.Play(kill), "a 'kill' step needs service");
}

TEST(ClusterTest, AServiceAVersionOrASiteTheClusterLacksIsRefusedByName) {
  Cluster cluster(Scenario{});
  EXPECT_DEATH(cluster.Kill("kuri-9"), "no service 'kuri-9' in this cluster");
  EXPECT_DEATH(cluster.Upgrade("kuri-1", "v9"), "no image kuri:v9");
  EXPECT_DEATH(cluster.CrashAt("migrate.nowhere.statement.after"), "no fault site");
}

// The proxy's probes of a node that is down, in a run with a long wait.
int ProbesOfKuri1(const std::string& proxy_env) {
  std::variant<Scenario, FileError> parsed = ParseScenario(
      "name = \"probes\"\ntitle = \"t\"\n[[service]]\nname = \"kuri-1\"\nrestart = \"no\"\n" +
          proxy_env +
          "[[step]]\ndo = \"up\"\n[[step]]\ndo = \"kill\"\nservice = \"kuri-1\"\n"
          "[[step]]\ndo = \"wait\"\nfor = \"100s\"\n",
      "probes.toml");
  EXPECT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<FileError>(parsed).message;
  sim::RecordingSink events(1'000'000);
  RunScenario(std::get<Scenario>(parsed), {.seed = 1, .sinks = {&events}, .checkers = false});
  int probes = 0;
  for (const sim::TraceEvent& event : events.events()) {
    probes += event.name == "net.refused" && event.FieldText("from") == "s3-proxy" &&
              event.FieldText("to").starts_with("kuri-1:");
  }
  return probes;
}

// PROBE_INTERVAL_MS sets how often the proxy probes each backend.
TEST(ClusterTest, TheProxyProbesAsOftenAsItsEnvironmentSays) {
  const int every_second = ProbesOfKuri1("");
  const int every_ten =
      ProbesOfKuri1("[[service]]\nname = \"s3-proxy\"\nenv = { PROBE_INTERVAL_MS = \"10000\" }\n");
  EXPECT_GE(every_second, 100);
  EXPECT_GE(every_ten, 10);
  EXPECT_LE(every_ten, 12);
}

}  // namespace
}  // namespace faultline::scenarios
