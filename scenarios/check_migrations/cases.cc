// The cluster each case of check-migrations runs on, the steps it plays,
// and playing it with its observers (checker.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "models/migrate/runner.h"
#include "models/migrate/schema_check.h"
#include "models/s3/seed_images.h"
#include "scenarios/check_migrations/checker.h"
#include "scenarios/check_migrations/clean_contents.h"
#include "scenarios/check_migrations/statements.h"
#include "scenarios/harness/branches.h"
#include "scenarios/harness/cluster.h"
#include "scenarios/harness/runner.h"
#include "scenarios/shrink/signature.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios::check {

ImageSpec Checker::Image(const std::string& version, const std::string& runner,
                         std::vector<MigrationFile> files) const {
  ImageSpec image;
  image.service = "node";
  image.version = version;
  image.runner = runner;
  image.files = std::move(files);
  return image;
}

// The cluster: `nodes` nodes sharing the keyspace, each running
// `node_version`; db-init creates the keyspace, as the seed's does.
Scenario Checker::Base(const std::string& name, const std::string& runner, const std::string& store,
                       int nodes, const std::string& node_version) const {
  Scenario scenario;
  scenario.name = name;
  scenario.title = fmt::format("check-migrations: {} with {}", name, runner);
  scenario.node_version = node_version;
  scenario.store_version = store;
  scenario.nodes = nodes;
  scenario.shared_node_keyspace = true;
  scenario.images.push_back(Image(kChecked, runner, options_.files));
  ServiceOverride db_init;
  db_init.name = "db-init";
  db_init.env["KEYSPACES"] = fmt::format("{},{}", models::s3::kIndexKeyspace, options_.keyspace);
  scenario.services.push_back(db_init);
  if (nodes == 1) {
    // Nothing a check judges reads the proxy (a node serves when it
    // listens, IsServing); its probes of a node that is down were three
    // quarters of a crash case's events, a probe a second for ten minutes.
    // Not with replicas: which one wins a race hangs on every event's
    // timing, the probes' too, and the races' reports stay as they were.
    ServiceOverride proxy;
    proxy.name = models::s3::kProxyService;
    proxy.env["PROBE_INTERVAL_MS"] = std::to_string(kProxyProbeIntervalMs);
    scenario.services.push_back(proxy);
  }
  for (int node = 1; node <= nodes; ++node) {
    ServiceOverride change;
    change.name = NodeName(node);
    change.env["KEYSPACE"] = options_.keyspace;
    scenario.services.push_back(change);
  }
  return scenario;
}

// An image change on a kept volume: up on the first image (`first`), its
// migration done, down (the store's volume stays), kuri-1 set to
// `version`, up again, and time for the start-up retry.
std::vector<Step> Checker::ImageChange(std::string first, const std::string& version,
                                       std::string change) {
  Step set = ForService(Step::Kind::kSetImage, kSubject, std::move(change));
  set.version = version;
  std::vector<Step> steps = {
      Do(Step::Kind::kUp, std::move(first)),
      Wait(kSettle, "It migrates and serves."),
      Do(Step::Kind::kDown, "docker compose down: the store's volume is kept."),
      set,
      Do(Step::Kind::kUp, "docker compose up on the kept volume."),
      Wait(kRetriesGiveUp, "Let its start-up retry finish.")};
  FL_ASSERT(steps.size() == Moment::kSecondImageStarted + 1);
  FL_ASSERT(steps[Moment::kFirstImageServes].kind == Step::Kind::kWait);
  return steps;
}

ServiceOverride& Checker::Service(Scenario& scenario, const std::string& name) const {
  for (ServiceOverride& change : scenario.services) {
    if (change.name == name) return change;
  }
  FL_PANIC("no service {} in the check's scenario", name);
}

RunOptions Checker::Observing(Played& played, InFlight& in_flight, std::uint64_t seed,
                              const std::set<std::size_t>& steps, int replicas) const {
  RunOptions run{.seed = seed, .sinks = {&in_flight}};
  run.observe = [&played, steps, replicas, this](std::size_t step, World& world) {
    if (!steps.contains(step)) return;
    std::vector<Observed>& seen = played.seen[step];
    for (int node = 1; node <= replicas; ++node) {
      seen.push_back(Observe(world, NodeName(node), options_.keyspace));
    }
  };
  return run;
}

void Checker::Finished(Played& played, const InFlight& in_flight, const Scenario& scenario,
                       const std::set<std::size_t>& steps, int replicas) const {
  played.in_flight = in_flight.file();
  played.failures = in_flight.failures();
  played.fault_fired = in_flight.any_fired();
  // A check's run always plays to its end: its budget is the default's.
  FL_ASSERT_MSG(played.result.stopped.empty(), "check run {} stopped: {}", scenario.name,
                played.result.stopped);
  for (const std::size_t step : steps) {
    FL_ASSERT_MSG(played.seen[step].size() == static_cast<std::size_t>(replicas),
                  "step {} of {} not observed", step, scenario.name);
  }
}

void Checker::CountRun() {
  ++played_.runs;
  if (options_.on_progress && !in_future_) {
    options_.on_progress(current_check_, report_.runs + played_.runs);
  }
}

// Freeing the parent's cases would write to every page they are on, so
// copy each (the child shares them with its parent until it writes): a
// cost in proportion to every case judged before. Moved, they are not
// touched; the child ends without freeing them (Branches::Return).
void Checker::SetAsideTheParentsCases() {
  FL_ASSERT(in_future_ && parents_.cases.empty());
  parents_ = std::move(played_);
  played_ = PlayedShard{};
}

Played Checker::Play(const Scenario& scenario, std::uint64_t seed,
                     const std::set<std::size_t>& steps, int replicas) {
  CountRun();
  Played played;
  InFlight in_flight(options_.keyspace);
  played.result = RunScenario(scenario, Observing(played, in_flight, seed, steps, replicas));
  Finished(played, in_flight, scenario, steps, replicas);
  return played;
}

// The folder on an empty keyspace, no fault: every statement must be
// accepted. Also counts the runner's passes through its fault sites.
bool Checker::CleanRun(const std::string& runner) {
  current_check_ = fmt::format("clean with {}", runner);
  Scenario scenario = Base("clean", runner, options_.stores.front(), 1, kChecked);
  scenario.steps = {Do(Step::Kind::kUp, "The cluster starts; kuri-1 migrates the keyspace."),
                    Wait(kRetriesGiveUp, "Let its start-up retry finish.")};
  FL_ASSERT(scenario.steps.size() == Moment::kStarted + 1);
  site_hits_.clear();
  history_hits_.clear();
  Played played;
  {
    if (options_.shard.index == 0) ++played_.runs;  // Every shard plays it; one counts it.
    InFlight in_flight(options_.keyspace);
    // With --since: each site's passes before kuri-1 begins the first new
    // file, the history's, which no crash case plays.
    std::map<std::string, std::uint64_t, std::less<>> passes;
    HistoryEnd history_end(options_.keyspace, [&](const std::string& file) {
      if (History(file)) return false;
      history_hits_ = passes;
      return true;
    });
    RunOptions run{.seed = options_.seed, .sinks = {&in_flight}};
    if (options_.since) {
      run.sinks.push_back(&history_end);
      // Reads each pass, decides nothing: the scenario's faults (none) do.
      run.at_fault_pass = [&](const sim::FaultPass& pass) -> std::optional<sim::FaultDecision> {
        passes.insert_or_assign(std::string(pass.site), pass.hit);
        return std::nullopt;
      };
    }
    run.observe = [&](std::size_t step, World& world) {
      if (step != Moment::kStarted) return;
      played.seen[step].push_back(Observe(world, kSubject, options_.keyspace));
      for (const sim::SiteCoverage& site : world.simulation.faults().Coverage()) {
        site_hits_[site.site] = site.hits;
      }
    };
    played.result = RunScenario(scenario, run);
    played.in_flight = in_flight.file();
    played.failures = in_flight.failures();
  }
  FL_ASSERT(played.seen.contains(Moment::kStarted));
  const Observed& seen = played.seen.at(Moment::kStarted).front();
  if (seen.serving && HasTheFoldersSchema(seen)) return true;
  if (seen.serving) {
    // It applies, and serves, but leaves another schema than its files
    // say (a CREATE ... IF NOT EXISTS of a table made before): drift from
    // the first run on, which every other check would only repeat.
    const std::uint64_t index = TakeIndex();
    Case c = NewCase(index, "clean", runner, options_.stores.front());
    c.label = "the folder on an empty keyspace";
    c.seed = options_.seed;
    c.scenario = scenario;
    if (Mine(index) && Judge(c)) Judged(c);
    Note(fmt::format(
        "{}: the folder leaves another schema than it defines on an empty keyspace, so no "
        "other check ran",
        runner));
    return false;
  }
  // The store refused a statement (or the runner never finished): a
  // finding at the file that failed, in the runner's own words (the
  // first failure: its retries only repeat it, or say the version is
  // dirty).
  std::string file = played.in_flight;
  std::string words = seen.last_line;
  int line = 1;
  if (!played.failures.empty()) {
    const InFlight::Failure& first = played.failures.front();
    if (const std::string failed = FileOf(static_cast<std::int64_t>(first.version));
        !failed.empty()) {
      file = failed;
      line = LineOfFailure(first.version, first.text);
    }
    words = FailureWords(first.text);
  }
  played_.refused.push_back(
      {"store-refuses", file, line, 1,
       fmt::format("with {}, on an empty keyspace, kuri-1 does not start: {}", runner, words)});
  Note(fmt::format("{}: the folder does not apply on an empty keyspace, so no other check ran",
                   runner));
  return false;
}

void Checker::CrashCheck(const std::string& runner) {
  current_check_ = fmt::format("crash with {}", runner);
  const auto made = models::migrate::MakeRunner(runner);
  FL_ASSERT(made != nullptr);
  std::vector<std::pair<std::string, std::uint64_t>> cases;
  for (const std::string& site : made->FaultSites(options_.keyspace)) {
    const auto hits = site_hits_.find(site);
    if (hits == site_hits_.end()) continue;
    // The history's passes (--since) come first; none is played.
    const auto history = history_hits_.find(site);
    const std::uint64_t first = history == history_hits_.end() ? 1 : history->second + 1;
    for (std::uint64_t hit = first; hit <= hits->second; ++hit) cases.emplace_back(site, hit);
  }
  if (options_.since && history_hits_.empty()) {
    // kuri-1 never began a new file (db-init marks no file's start; a new
    // version may have a down file only): no pass is known to be the new
    // files', so none is crashed in.
    cases.clear();
  }
  if (cases.empty()) {
    Note(fmt::format(
        "{}: it passes no fault site (a crash only makes it run every statement again)", runner));
    return;
  }
  if (cases.size() > kMaxCrashCases) {
    Note(fmt::format("{}: {} crash points, only the first {} tried", runner, cases.size(),
                     kMaxCrashCases));
    cases.resize(kMaxCrashCases);
  }
  if (options_.branch) {
    CrashCasesBranched(runner, cases);
    return;
  }
  for (const auto& [site, hit] : cases) {
    const std::uint64_t index = TakeIndex();
    if (!Mine(index)) continue;
    Case c = CrashCaseOf(index, runner, site, hit);
    if (Judge(c)) Judged(c);
  }
}

// The crash case: the clean run's cluster with kuri-1 not restarted by
// its policy (a step restarts it: two moments to read), crashing at the
// `hit`-th pass of `site` (no crash: empty `site`, the trunk the branched
// cases share).
Case Checker::CrashCaseOf(std::uint64_t index, const std::string& runner, const std::string& site,
                          std::uint64_t hit) const {
  Case c = NewCase(index, "crash", runner, options_.stores.front());
  c.label = fmt::format("crash at {}, hit {}", site, hit);
  c.seed = options_.seed;
  c.scenario = Base("crash", runner, c.store, 1, kChecked);
  Service(c.scenario, kSubject).restart = fakes::RestartPolicy::kNo;
  if (!site.empty()) {
    FaultSpec crash;
    crash.site = site;
    crash.hit = hit;
    crash.service = kSubject;
    c.scenario.faults.push_back(crash);
  }
  c.scenario.steps = {
      Do(Step::Kind::kUp, fmt::format("kuri-1 migrates and crashes at {} (pass {}).", site, hit)),
      Wait(kSettle, "It stays down (restart = no)."),
      ForService(Step::Kind::kRestart, kSubject, "kuri-1 starts again on what the crash left."),
      Wait(kRetriesGiveUp, "Let its start-up retry finish."),
  };
  FL_ASSERT(c.scenario.steps.size() == Moment::kRestarted + 1);
  return c;
}

// Every crash case of this shard as a future of one run (branches.h): the
// run without a crash plays once, and each case forks from it at its pass,
// so a case costs what follows its crash, not the migration before it.
// Each child judges its case and returns it (without its scenario, which
// the parent makes again: it holds the whole folder); the parent takes
// them in case order, so the report is the one CrashCase by CrashCase
// gives.
void Checker::CrashCasesBranched(const std::string& runner,
                                 const std::vector<std::pair<std::string, std::uint64_t>>& cases) {
  // Every case's point, another shard's too (passed, not forked), so that
  // which cases share a run is the same whatever the shards.
  std::vector<BranchPoint> points;
  for (const auto& [site, hit] : cases) {
    const std::uint64_t index = TakeIndex();
    points.push_back(
        {.key = index, .site = site, .process = kSubject, .hit = hit, .fork = Mine(index)});
  }
  // The run CleanContents reads: every shard with a case plays it, shard 0
  // counts it (with a case or not), so the count is the same for any --jobs.
  if (!CleanSiteOf(runner).empty() && options_.shard.index == 0) ++played_.runs;
  if (std::none_of(points.begin(), points.end(), [](const BranchPoint& p) { return p.fork; })) {
    return;
  }
  const std::set<std::size_t> moments = {Moment::kCrashed, Moment::kRestarted};
  const Case trunk = CrashCaseOf(points.front().key, runner, "", 0);
  ReadCleanTrunk(runner);
  Played played;
  InFlight in_flight(options_.keyspace);
  const auto judge_future = [&](const BranchPoint& point, const ScenarioResult& result) {
    played.result = result;
    Finished(played, in_flight, trunk.scenario, moments, 1);
    FL_ASSERT(in_future_);
    SetAsideTheParentsCases();
    CountRun();  // The case's own run.
    Case c = CrashCaseOf(point.key, runner, point.site, point.hit);
    if (JudgeCrashPlayed(c, played)) {
      c.scenario = Scenario();
      played_.cases.push_back(std::move(c));
    }
    case_end_.reset();
    return ShardToJson(played_);
  };
  // The runs so far, as if each case ended were counted (they are, after).
  const auto progress = [&](std::size_t ended) {
    if (options_.on_progress) {
      options_.on_progress(current_check_, report_.runs + played_.runs + static_cast<int>(ended));
    }
  };
  // A crash at the pass just after another's, with nothing run between,
  // is judged as that one's run ends (SharedCase).
  BranchCallbacks callbacks{.ended = progress, .share_quiet_points = true};
  const BranchPoint* taken = nullptr;  // In a future: its point.
  callbacks.in_child = [&](const BranchPoint& point) {
    in_future_ = true;
    taken = &point;
  };
  RunOptions run = Observing(played, in_flight, options_.seed, moments, 1);
  // A case whose restart migrates on from a version the crash trunk
  // recorded clean, on the store the trunk had there, runs the trunk's
  // statements on the trunk's store from then on: it ends as the trunk
  // ends (CleanContents read its end: kuri-1 serving the folder, the trunk's
  // checkers), so it stops there and is judged so, instead of migrating
  // every later file again. Not the trunk's world to the bit (its virtual
  // time and the scheduler's draws differ); one node migrating alone does
  // not race, and the corpus and the N-file folders give the reports of
  // every case played to its end (--replay-from-empty, and the suite).
  EndWhereItJoins(
      run, callbacks, Moment::kRestarted - 1, [&] { return !BeforeTheCrashedFile(in_flight); },
      [&] {
        FL_ASSERT(taken != nullptr && played.seen.contains(Moment::kCrashed));
        played.seen[Moment::kRestarted] = {clean_trunk_.end};
        return judge_future(*taken, clean_trunk_.result);
      });
  // A future holds its world at its last step: the force search plays
  // each version it tries from there, not from empty (ForceThatWorks).
  // Only a case that does not serve the folder after its restart may try
  // a force (Unserved, LostVersionWayOut): the others are not held.
  run.after_steps = [&](Cluster& cluster) {
    if (in_future_ && !AllServeTheFolder(played.seen.at(Moment::kRestarted))) {
      HoldCaseEnd(cluster, 1);
    }
  };
  const BranchedRun branched = RunBranched(trunk.scenario, run, points, judge_future, callbacks);
  case_end_.reset();
  played_.trunk_signatures[runner] = SignatureOf(trunk.scenario, branched.trunk);
  for (const BranchPoint& point : points) {
    if (!point.fork) continue;  // Another shard's.
    if (const auto shared = branched.shares.find(point.key); shared != branched.shares.end()) {
      SharedCase(CrashCaseOf(point.key, runner, point.site, point.hit), shared->second,
                 branched.futures);
      continue;
    }
    const auto future = branched.futures.find(point.key);
    if (future == branched.futures.end()) {
      // The trunk never forked there (a pass after the faults stopped, in
      // the liveness phase): the case is played from empty, where its crash
      // never fires either.
      Case c = CrashCaseOf(point.key, runner, point.site, point.hit);
      if (Judge(c)) Judged(c);
      continue;
    }
    JudgedFromFuture(point.key, future->second, [&] {
      return CrashCaseOf(point.key, runner, point.site, point.hit).scenario;
    });
  }
}

// The site where `runner` has recorded a version clean (golang-migrate's
// after_set_clean); empty when it has none.
std::string Checker::CleanSiteOf(const std::string& runner) const {
  std::string clean;
  for (const std::string& site :
       models::migrate::MakeRunner(runner)->FaultSites(options_.keyspace)) {
    if (site.ends_with(".after_set_clean")) clean = site;
  }
  return clean;
}

// clean_site_ and clean_trunk_ for `runner`: read from the crash trunk
// once per runner (the crash and upgrade checks' futures join it).
void Checker::ReadCleanTrunk(const std::string& runner) {
  if (clean_trunk_runner_ == runner) return;
  clean_trunk_runner_ = runner;
  clean_site_ = CleanSiteOf(runner);
  clean_trunk_ = CleanTrunk{};
  known_folders_schema_ = nullptr;
  if (clean_site_.empty()) return;
  clean_trunk_ = CleanContents(CrashCaseOf(0, runner, "", 0).scenario, options_.seed, clean_site_,
                               options_.keyspace, Moment::kRestarted);
  // Every case that joins the clean run is judged by this reading.
  if (clean_trunk_.end.schema() == expected_) known_folders_schema_ = clean_trunk_.end.schema_read;
}

// A future's text (its part of the shard: at most the one case `key`, and
// its runs and notes) taken into this shard's, the case with its scenario
// made again (the future sends none: it holds the whole folder) only
// where it is kept: its group's first case.
void Checker::JudgedFromFuture(std::uint64_t key, const std::string& text,
                               const std::function<Scenario()>& scenario_of) {
  std::optional<PlayedShard> part = ShardFromJson(text);
  FL_ASSERT_MSG(part.has_value() && part->cases.size() <= 1, "the future of case {} returned {}",
                key, text.substr(0, 200));
  for (int run = 0; run < part->runs; ++run) CountRun();
  for (auto& note : part->notes) played_.notes.push_back(std::move(note));
  for (Case& c : part->cases) {
    FL_ASSERT(c.index == key);
    if (!first_of_group_.contains(KeyOf(c))) c.scenario = scenario_of();
    Judged(c);
  }
}

// Whether kuri-1 migrates a file before the one it crashed in: a restart
// that runs those again (a lost version: every file from the first) has
// not the trunk's store there (it holds the later files' tables too), so
// JoinsTheCleanRun's few reads are kept for the crashed file and after.
bool Checker::BeforeTheCrashedFile(const InFlight& in_flight) const {
  const auto crashed = version_of_file_.find(in_flight.file());
  const auto now = version_of_file_.find(in_flight.latest_file());
  return crashed != version_of_file_.end() && now != version_of_file_.end() &&
         now->second < crashed->second;
}

// Case `c`, whose crash shares the run of case `shares` (nothing ran
// between their crashes: the same store, the same time, kuri-1's memory
// lost either way), judged as that run ended, with its own crash named;
// no run of its own.
void Checker::SharedCase(Case c, std::uint64_t shares,
                         const std::map<std::uint64_t, std::string>& futures) {
  const auto future = futures.find(shares);
  if (future == futures.end()) {
    // Another shard plays that run: the shards' merge judges this one
    // from that case (Merge, JudgedFromShared).
    Case waits = NewCase(c.index, "crash", c.runner, c.store);
    waits.label = std::move(c.label);
    waits.seed = c.seed;
    FL_ASSERT(c.scenario.faults.size() == 1);
    waits.crash_seen =
        CrashSeen{.site = c.scenario.faults.front().site, .hit = c.scenario.faults.front().hit};
    waits.shares = shares;
    waits.awaits_share = true;
    played_.cases.push_back(std::move(waits));
    return;
  }
  std::optional<PlayedShard> part = ShardFromJson(future->second);
  FL_ASSERT_MSG(part.has_value() && part->cases.size() <= 1, "the future of case {} returned {}",
                shares, future->second.substr(0, 200));
  if (part->cases.empty()) return;  // That case came out with no finding: so does this one.
  if (std::optional<Case> judged = JudgedFromShared(std::move(c), part->cases.front())) {
    Judged(*judged);
  }
}

// Case `c` judged as case `played`'s run ended, whose run it shares; its
// crash is its own. Played alone instead when it would have another count
// of the file's statements run (never seen: a statement's passes come in
// separate jobs). nullopt: no finding.
std::optional<Case> Checker::JudgedFromShared(Case c, const Case& played) {
  FL_ASSERT(played.check == "crash" && !played.shares && played.crash_seen.has_value());
  Case judged = played;
  judged.index = c.index;
  judged.label = c.label;
  judged.scenario = c.scenario;
  judged.folder_images = c.folder_images;  // Its scenario's, not the played one's.
  // What its run saw is the shared run's; its crash is its own.
  judged.crash_seen->site = judged.scenario.faults.front().site;
  judged.crash_seen->hit = judged.scenario.faults.front().hit;
  judged.shares = played.index;
  RanAt(judged);
  if (judged.ran == played.ran) return judged;
  if (!Judge(c)) return std::nullopt;
  return c;
}

// up, down -all, up again, with golang-migrate's CLI, when every file
// has a down.
void Checker::DownUpCheck(const std::string& runner) {
  FL_ASSERT(runner == "golang-migrate");
  current_check_ = "down-up with golang-migrate";
  for (const auto& [version, migration] : source_.migrations()) {
    if (!migration.down || !migration.up) return;
  }
  if (options_.since) {
    // down -all runs every down file, the history's too: nothing of it is
    // the new files' alone.
    Note(
        "--since: the down-up check (down -all, up) runs every down file, the shipped ones "
        "too, so it is not played");
    return;
  }
  const std::uint64_t index = TakeIndex();
  if (!Mine(index)) return;
  Case c = NewCase(index, "down-up", "golang-migrate", options_.stores.front());
  c.label = "up, down -all, up";
  c.seed = options_.seed;
  c.scenario = Base("down-up", "golang-migrate", c.store, 1, kChecked);
  Step down = ForService(Step::Kind::kMigrate, kSubject, "migrate down -all");
  down.keyspace = options_.keyspace;
  down.command = "down -all";
  Step up = down;
  up.narration = "migrate up";
  up.command = "up";
  c.scenario.steps = {Do(Step::Kind::kUp, "The cluster starts and migrates."),
                      Wait(kSettle, "It serves."), down, up};
  FL_ASSERT(c.scenario.steps.size() == Moment::kUpAgain + 1);
  FL_ASSERT(c.scenario.steps[Moment::kAllDown].command == "down -all");
  if (Judge(c)) Judged(c);
}

}  // namespace faultline::scenarios::check
