#include "scenarios/check_migrations/check_migrations.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "models/migrate/runner.h"
#include "models/migrate/schema_check.h"
#include "models/s3/seed_images.h"
#include "scenarios/check_migrations/observe.h"
#include "scenarios/check_migrations/statements.h"
#include "scenarios/harness/runner.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

using models::migrate::MigrationFile;
using models::migrate::MigrationSource;
using models::migrate::SchemaModel;
namespace cql = models::cql;
using namespace check;  // NOLINT: this file's own helpers.

constexpr const char* kChecked = "checked";  // The folder's image version.
constexpr const char* kShipped = "shipped";  // An older release's, for upgrades and rollbacks.
// Long enough for the gateway's start-up retry (30 attempts, 2 s doubling
// to 15 s: about 7 minutes) to give up, so the log ends with its last word.
constexpr sim::Duration kRetriesGiveUp = std::chrono::minutes(10);
constexpr sim::Duration kSettle = std::chrono::minutes(1);
constexpr std::size_t kMaxCrashCases = 20'000;  // Per runner: beyond, the rest is said skipped.

class Checker;

// One case: its run, verdict and words, as a shard reports it. How it is
// judged follows from its check (JudgeOf), and the folder the subject ends
// on from its scenario (ImageAtEnd): nothing of it is stored twice.
using Case = JudgedCase;

Case NewCase(std::uint64_t index, std::string check, std::string runner, std::string store) {
  Case c;
  c.index = index;
  c.check = std::move(check);
  c.runner = std::move(runner);
  c.store = std::move(store);
  return c;
}

class Checker {
 public:
  explicit Checker(const MigrationCheckOptions& options) : options_(options) {
    sim::Result<MigrationSource> source = MigrationSource::FromFiles(options.files);
    FL_ASSERT_MSG(source.ok(), "a folder checked when read: {}", source.status().ToString());
    source_ = std::move(source).value();
    FL_ASSERT_MSG(!source_.empty(), "an empty folder is refused when read");
    SchemaModel schema;
    for (const auto& [version, migration] : source_.migrations()) {
      if (migration.up) {
        for (const auto& statement : models::migrate::StatementsOf(*migration.up)) {
          models::migrate::ApplyStatement(statement.statement, options.keyspace, schema);
        }
      }
      schema_at_.emplace(version, schema);
    }
    expected_ = schema_at_.rbegin()->second;
    FL_ASSERT(options.replicas >= 1 && options.replicas <= models::s3::kMaxNodes);
    FL_ASSERT(!options.stores.empty());
    FL_ASSERT(KeyspaceProblem(options.keyspace).empty());
  }

  // The shard's part: the clean runs (every shard plays them; only shard
  // 0 counts them), then the cases the shard owns, judged.
  PlayedShard PlayShard() {
    bool golang_migrate_applies = false;
    // A statement the parser refuses fails every runner but db-init (which
    // would skip it and serve without it): nothing to learn by running.
    const bool parses = std::all_of(
        source_.migrations().begin(), source_.migrations().end(), [](const auto& entry) {
          return !entry.second.up || !models::migrate::FindSyntaxError(*entry.second.up);
        });
    if (!parses && !options_.runners.empty()) {
      Note(
          "the folder has statements the store's CQL parser refuses (parse-error): no runner was "
          "run; fix them first");
    }
    for (const std::string& runner : parses ? options_.runners : std::vector<std::string>{}) {
      if (!CleanRun(runner)) continue;  // A folder the store refuses has nothing more to show.
      golang_migrate_applies |= runner == "golang-migrate";
      CrashCheck(runner);
      UpgradeCheck(runner);
      RollbackCheck(runner);
      ConcurrentCheck(runner);
    }
    // down-up is golang-migrate's CLI: asked for only with that runner,
    // and only when the folder applies at all.
    if (golang_migrate_applies) DownUpCheck();
    played_.shard_index = options_.shard.index;
    played_.shard_count = options_.shard.count;
    played_.total_cases = next_case_;
    return std::move(played_);
  }

  // The report from every shard's cases, in the order they were counted
  // (so the same whatever the shards): grouped, the unsafe ones shrunk
  // here, or taken from `made` (MakeRepros, elsewhere).
  MigrationCheckReport ReportOf(const std::vector<PlayedShard>& shards,
                                const std::vector<ReproMade>* made) {
    Merge(shards);
    Finish(made);
    report_.runs += played_.runs;  // The shrinker's own runs, here.
    return std::move(report_);
  }

  // The repros of the unsafe groups (numbered in report order) that `shard`
  // owns.
  std::vector<ReproMade> MakeRepros(const std::vector<PlayedShard>& shards,
                                    MigrationCheckOptions::Shard shard) {
    Merge(shards);
    std::vector<ReproMade> made;
    std::uint64_t unsafe = 0;
    for (const auto& key : order_) {
      auto& [finding, first] = groups_.at(key);
      if (!InfoOf(finding.verdict).unsafe) continue;
      const std::uint64_t group = unsafe++;
      if (group % shard.count != shard.index) continue;
      const int runs_before = report_.runs + played_.runs;
      Repro(finding, first);
      made.push_back({group, std::move(*finding.repro), std::move(finding.shrink_log),
                      report_.runs + played_.runs - runs_before});
    }
    return made;
  }

 private:
  // Every shard's cases, grouped in their order; the static rules; the
  // notes and store-refuses findings each shard said once.
  void Merge(const std::vector<PlayedShard>& shards) {
    for (const auto& [version, migration] : source_.migrations()) {
      if (migration.up) report_.files.push_back(migration.up_name);
      if (migration.down) report_.files.push_back(migration.down_name);
    }
    report_.keyspace = options_.keyspace;
    report_.runners = options_.runners;
    report_.lint =
        models::migrate::LintFolder({.files = options_.files,
                                     .keyspace = options_.keyspace,
                                     .older = options_.older ? &*options_.older : nullptr,
                                     .older_name = options_.older_name,
                                     .sum = options_.sum,
                                     .sum_name = options_.sum_name});
    std::vector<const JudgedCase*> cases;
    std::vector<std::pair<std::uint64_t, std::string>> notes;
    for (const PlayedShard& shard : shards) {
      report_.runs += shard.runs;
      for (const JudgedCase& judged : shard.cases) cases.push_back(&judged);
      notes.insert(notes.end(), shard.notes.begin(), shard.notes.end());
      for (const models::migrate::LintFinding& refused : shard.refused) {
        // Every shard plays the clean runs: each says the same.
        if (std::find(report_.lint.begin(), report_.lint.end(), refused) == report_.lint.end()) {
          report_.lint.push_back(refused);
        }
      }
    }
    std::sort(cases.begin(), cases.end(),
              [](const JudgedCase* a, const JudgedCase* b) { return a->index < b->index; });
    for (std::size_t i = 1; i < cases.size(); ++i) {
      FL_ASSERT_MSG(cases[i - 1]->index != cases[i]->index, "case {} played twice",
                    cases[i]->index);
    }
    for (const JudgedCase* judged : cases) Group(*judged);
    std::stable_sort(notes.begin(), notes.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [key, note] : notes) {
      if (std::find(report_.notes.begin(), report_.notes.end(), note) == report_.notes.end()) {
        report_.notes.push_back(std::move(note));
      }
    }
  }

  // ---- Shards ----

  // The next case's index; whether this shard plays it.
  std::uint64_t TakeIndex() { return next_case_++; }
  bool Mine(std::uint64_t index) const {
    return index % options_.shard.count == options_.shard.index;
  }
  // A note every shard says (before the next case), and one only the shard
  // that plays a case says: keyed so that their order is the same whatever
  // the shards.
  void Note(std::string note) { played_.notes.emplace_back(2 * next_case_, std::move(note)); }
  void NoteOf(const Case& c, std::string note) {
    played_.notes.emplace_back(2 * c.index + 1, std::move(note));
  }

  // A judged case, kept for the report. Only a group's first case is
  // shrunk: the others travel without their scenario (each holds the whole
  // folder). A group's first case overall is the first of its shard,
  // whichever shard plays it.
  void Judged(const Case& c) {
    JudgedCase judged = c;
    if (!first_of_group_.insert(KeyOf(c)).second) judged.scenario = Scenario();
    played_.cases.push_back(std::move(judged));
  }

  using Key = std::tuple<std::string, std::string, std::string, std::string, Verdict, std::string>;
  static Key KeyOf(const Case& c) {
    return std::make_tuple(c.check, c.runner, c.store, c.file, c.verdict, c.force_to);
  }

  using JudgeFn = bool (*)(Checker&, Case&);
  static JudgeFn JudgeOf(std::string_view check) {
    static const std::pair<std::string_view, JudgeFn> kJudges[] = {
        {"clean", [](Checker& k, Case& c) { return k.JudgeClean(c); }},
        {"crash", [](Checker& k, Case& c) { return k.JudgeCrash(c); }},
        {"upgrade", [](Checker& k, Case& c) { return k.JudgeUpgrade(c); }},
        {"rollback", [](Checker& k, Case& c) { return k.JudgeRollback(c); }},
        {"concurrent", [](Checker& k, Case& c) { return k.JudgeConcurrent(c); }},
        {"down-up", [](Checker& k, Case& c) { return k.JudgeDownUp(c); }},
    };
    static_assert(std::size(kJudges) == std::size(kChecks));
    for (const auto& [name, judge] : kJudges) {
      if (name == check) return judge;
    }
    FL_PANIC("no check {}", check);
  }
  bool Judge(Case& c) { return JudgeOf(c.check)(*this, c); }

  // The folder the subject runs at the end of the case's run: the image
  // rolled back to, for a rollback; else the folder checked.
  MigrationSource ImageAtEnd(const Case& c) const {
    if (c.check != "rollback") return source_;
    for (const ImageSpec& image : c.scenario.images) {
      if (image.version != kShipped) continue;
      sim::Result<MigrationSource> source = MigrationSource::FromFiles(image.files);
      FL_ASSERT(source.ok());
      return std::move(source).value();
    }
    FL_PANIC("rollback case {} without the image it rolls back to", c.index);
  }

  // ---- Building the runs ----

  std::vector<MigrationFile> FilesUpTo(std::uint64_t version) const {
    return check::FilesUpTo(source_, version);
  }
  // The schema the files up to `version` define, worked out once per
  // version (a case asks for many; reading the prefix again each time
  // would cost in proportion to the folder).
  const SchemaModel& SchemaAt(std::optional<std::uint64_t> version) const {
    static const SchemaModel kEmpty;
    if (!version) return kEmpty;
    const auto found = schema_at_.find(*version);
    FL_ASSERT_MSG(found != schema_at_.end(), "no version {} in the folder", *version);
    return found->second;
  }

  ImageSpec Image(const std::string& version, const std::string& runner,
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
  Scenario Base(const std::string& name, const std::string& runner, const std::string& store,
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
  // `version`, up again, and time for the start-up retry. Steps 1 and 5 are
  // the moments to read.
  static std::vector<Step> ImageChange(std::string first, const std::string& version,
                                       std::string change) {
    Step set = ForService(Step::Kind::kSetImage, kSubject, std::move(change));
    set.version = version;
    return {Do(Step::Kind::kUp, std::move(first)),
            Wait(kSettle, "It migrates and serves."),
            Do(Step::Kind::kDown, "docker compose down: the store's volume is kept."),
            set,
            Do(Step::Kind::kUp, "docker compose up on the kept volume."),
            Wait(kRetriesGiveUp, "Let its start-up retry finish.")};
  }

  ServiceOverride& Service(Scenario& scenario, const std::string& name) const {
    for (ServiceOverride& change : scenario.services) {
      if (change.name == name) return change;
    }
    FL_PANIC("no service {} in the check's scenario", name);
  }

  Played Play(const Scenario& scenario, std::uint64_t seed, const std::set<std::size_t>& steps,
              int replicas) {
    ++played_.runs;
    if (options_.on_progress) options_.on_progress(current_check_, report_.runs + played_.runs);
    Played played;
    InFlight in_flight(options_.keyspace);
    RunOptions run{.seed = seed, .sinks = {&in_flight}};
    run.observe = [&](std::size_t step, World& world) {
      if (!steps.contains(step)) return;
      std::vector<Observed>& seen = played.seen[step];
      for (int node = 1; node <= replicas; ++node) {
        seen.push_back(Observe(world, NodeName(node), options_.keyspace));
      }
    };
    played.result = RunScenario(scenario, run);
    played.in_flight = in_flight.file();
    played.failures = in_flight.failures();
    // A check's run always plays to its end: its budget is the default's.
    FL_ASSERT_MSG(played.result.stopped.empty(), "check run {} stopped: {}", scenario.name,
                  played.result.stopped);
    for (const std::size_t step : steps) {
      FL_ASSERT_MSG(played.seen[step].size() == static_cast<std::size_t>(replicas),
                    "step {} of {} not observed", step, scenario.name);
    }
    return played;
  }

  // ---- Reading what was seen ----

  // Whether the state a crash left is one the folder defines: no version
  // and no table, or a clean version with exactly its files' schema (for a
  // runner that keeps no golang-migrate table: any version's schema).
  bool Consistent(const Observed& seen, const std::string& runner) const {
    if (seen.versions == "none") {
      if (seen.schema.empty()) return true;
      if (runner == "golang-migrate") return false;
      for (const auto& [version, migration] : source_.migrations()) {
        if (seen.schema == SchemaAt(version)) return true;
      }
      return false;
    }
    const auto one = OneVersion(seen.versions);
    return one && !one->second && one->first >= 0 &&
           seen.schema == SchemaAt(static_cast<std::uint64_t>(one->first));
  }

  bool AllServeTheFolder(const std::vector<Observed>& seen, bool compare_schema = true) const {
    return std::all_of(seen.begin(), seen.end(), [&](const Observed& s) {
      return s.serving && (!compare_schema || s.schema == expected_);
    });
  }

  // "1754293669 dirty, 1 of 2 tables": the version table and how much of
  // the folder's schema is there.
  std::string StateText(const Observed& seen, const std::string& runner = "golang-migrate") const {
    std::size_t present = 0;
    for (const auto& [table, columns] : expected_) present += seen.schema.contains(table) ? 1 : 0;
    const std::string tables =
        fmt::format("{} of the folder's {} table(s)", present, expected_.size());
    // Only golang-migrate keeps its version in schema_migrations.
    if (runner != "golang-migrate") return tables;
    return fmt::format("schema_migrations: {}; {}", seen.versions, tables);
  }

  static const Observed* FirstDown(const std::vector<Observed>& seen) {
    for (const Observed& s : seen) {
      if (!s.serving) return &s;
    }
    return nullptr;
  }

  std::string FileOf(std::int64_t version) const {
    const models::migrate::Migration* migration =
        version < 0 ? nullptr : source_.Find(static_cast<std::uint64_t>(version));
    return migration != nullptr ? migration->up_name : std::string();
  }

  // ---- The operator's way out ----

  // `migrate force X` then a restart of every replica, for each X an
  // operator would try after `versions`; the first that brings every
  // replica up (with the folder's schema, unless `any_schema`). With a
  // dirty version V: the one before it first (V runs again, whole), then V
  // itself (V counts as done), but V never when it is known that only part
  // of it ran: a schema can look complete while a data statement never
  // ran. A version the image's folder lacks (a rollback): its newest.
  std::optional<std::string> ForceThatWorks(const Case& c, const Observed& seen,
                                            const MigrationSource& image, int replicas,
                                            bool any_schema) {
    std::vector<std::string> candidates;
    if (const auto one = OneVersion(seen.versions)) {
      const auto [version, dirty] = *one;
      const models::migrate::Migration* migration =
          version >= 0 ? image.Find(static_cast<std::uint64_t>(version)) : nullptr;
      if (dirty && migration != nullptr) {
        const auto prev = image.Prev(static_cast<std::uint64_t>(version));
        candidates.push_back(prev ? std::to_string(*prev) : "-1");
        const bool whole = !c.ran || *c.ran == StatementCount(*migration);
        if (whole) candidates.push_back(std::to_string(version));
      } else if (dirty) {
        candidates.push_back(std::to_string(version));
      }
      if (migration == nullptr && !image.empty()) {
        candidates.push_back(std::to_string(image.migrations().rbegin()->first));
      }
    }
    const Scenario& failed = c.scenario;
    const std::uint64_t seed = c.seed;
    for (const std::string& to : candidates) {
      Scenario forced = failed;
      Step force = ForService(Step::Kind::kMigrate, kSubject,
                              fmt::format("The operator forces version {}.", to));
      force.keyspace = options_.keyspace;
      force.command = ForceCommand(to).substr(std::string_view("migrate ").size());
      forced.steps.push_back(force);
      for (int node = 1; node <= replicas; ++node) {
        forced.steps.push_back(ForService(Step::Kind::kRestart, NodeName(node), "Restart."));
      }
      forced.steps.push_back(Wait(kRetriesGiveUp, "Wait for it to come up."));
      const Played played = Play(forced, seed, {forced.steps.size() - 1}, replicas);
      const std::vector<Observed>& end = played.seen.at(forced.steps.size() - 1);
      if (AllServeTheFolder(end, !any_schema)) return to;
    }
    return std::nullopt;
  }

  // The verdict for replicas that do not all serve the folder at the end.
  void Unserved(Case& c, const std::vector<Observed>& end, int replicas, bool any_schema) {
    const MigrationSource image = ImageAtEnd(c);
    const Observed* down = FirstDown(end);
    if (down == nullptr) {
      c.verdict = Verdict::kSilentDrift;
      const auto diff = models::migrate::SchemaDiff(expected_, end.front().schema);
      c.detail =
          fmt::format("it serves, but {}", diff.empty() ? "the schema differs" : diff.front());
      c.error = end.front().last_line;
      return;
    }
    c.error = down->last_line;
    const auto one = OneVersion(down->versions);
    if (c.file.empty() && one) c.file = FileOf(one->first);
    // Only golang-migrate's version table is forced; another runner's
    // refusal is for its log to explain.
    const std::optional<std::string> to =
        c.runner == "golang-migrate" ? ForceThatWorks(c, *down, image, replicas, any_schema)
                                     : std::nullopt;
    if (to) {
      c.verdict = Verdict::kNeedsForce;
      c.force_to = *to;
      c.detail = fmt::format("it stays down ({}); `{}` on keyspace {} and a restart bring it up",
                             StateText(*down, c.runner), ForceCommand(*to), options_.keyspace);
      const bool forced_itself = one && *to == std::to_string(one->first);
      const models::migrate::Migration* migration =
          forced_itself ? image.Find(static_cast<std::uint64_t>(one->first)) : nullptr;
      if (migration != nullptr && migration->up && HasDataStatements(*migration->up)) {
        c.detail += "; the file also writes data: check that its rows are there";
      }
      return;
    }
    if (c.runner != "golang-migrate") {
      c.verdict = Verdict::kNeedsRepair;
      c.detail = fmt::format("it stays down ({}): its log says why", StateText(*down, c.runner));
      return;
    }
    c.verdict = Verdict::kNeedsRepair;
    if (c.check == "rollback") {
      // The way back is the new image's down files, before the old image
      // starts; or forward again.
      c.detail = fmt::format(
          "the previous image stays down on the newer keyspace ({}), and no force brings it up: "
          "run `migrate down 1` with the new image's folder before starting it, or roll forward",
          StateText(*down, c.runner));
      return;
    }
    c.detail = fmt::format(
        "it stays down ({}), and no force brings it up: {}", StateText(*down, c.runner),
        StatementsThatRan(source_, options_.keyspace, one ? one->first : -1, down->schema, c.ran));
  }

  // A lost version that keeps the service down: the version an operator
  // must write back is the one being recorded when the crash came (the
  // file in flight if it ran whole, else the one before), found by trying
  // it as for a dirty version.
  void LostVersionWayOut(Case& c, const Observed& restarted) {
    c.force_to = "none";
    const models::migrate::Migration* lost = nullptr;
    for (const auto& [version, migration] : source_.migrations()) {
      if (migration.up_name == c.file) lost = &migration;
    }
    if (lost == nullptr) return;
    Observed as_if_dirty = restarted;
    as_if_dirty.versions = fmt::format("{} dirty", lost->version);
    if (const auto to = ForceThatWorks(c, as_if_dirty, source_, 1, false)) {
      c.force_to = *to;
      c.detail += fmt::format("; `{}` on keyspace {} and a restart bring it up", ForceCommand(*to),
                              options_.keyspace);
    } else {
      c.detail += "; no force brings it up";
    }
  }

  // ---- The checks ----

  // The folder on an empty keyspace, no fault: every statement must be
  // accepted. Also counts the runner's passes through its fault sites.
  bool CleanRun(const std::string& runner) {
    current_check_ = fmt::format("clean with {}", runner);
    Scenario scenario = Base("clean", runner, options_.stores.front(), 1, kChecked);
    scenario.steps = {Do(Step::Kind::kUp, "The cluster starts; kuri-1 migrates the keyspace."),
                      Wait(kRetriesGiveUp, "Let its start-up retry finish.")};
    site_hits_.clear();
    Played played;
    {
      if (options_.shard.index == 0) ++played_.runs;  // Every shard plays it; one counts it.
      InFlight in_flight(options_.keyspace);
      RunOptions run{.seed = options_.seed, .sinks = {&in_flight}};
      run.observe = [&](std::size_t step, World& world) {
        if (step != 1) return;
        played.seen[step].push_back(Observe(world, kSubject, options_.keyspace));
        for (const sim::SiteCoverage& site : world.simulation.faults().Coverage()) {
          site_hits_[site.site] = site.hits;
        }
      };
      played.result = RunScenario(scenario, run);
      played.in_flight = in_flight.file();
      played.failures = in_flight.failures();
    }
    FL_ASSERT(played.seen.contains(1));
    const Observed& seen = played.seen.at(1).front();
    if (seen.serving && seen.schema == expected_) return true;
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
      words = OneLine(first.text, 400);
    }
    played_.refused.push_back(
        {"store-refuses", file, line, 1,
         fmt::format("with {}, on an empty keyspace, kuri-1 does not start: {}", runner, words)});
    Note(fmt::format("{}: the folder does not apply on an empty keyspace, so no other check ran",
                     runner));
    return false;
  }

  // The line of the version's file where the statement the failure quotes
  // starts (golang-migrate quotes the piece it sent); 1 when not found.
  int LineOfFailure(std::uint64_t version, const std::string& text) const {
    const models::migrate::Migration* migration = source_.Find(version);
    if (migration == nullptr || !migration->up) return 1;
    for (const auto& statement : models::migrate::StatementsOf(*migration->up)) {
      if (text.find(statement.text) != std::string::npos) return statement.line;
    }
    return 1;
  }

  bool JudgeClean(Case& c) {
    const Played played = Play(c.scenario, c.seed, {1}, 1);
    const Observed& seen = played.seen.at(1).front();
    if (!seen.serving || seen.schema == expected_) return false;
    c.verdict = Verdict::kSilentDrift;
    const auto diff = models::migrate::SchemaDiff(expected_, seen.schema);
    c.detail = fmt::format("it serves, but {}", diff.empty() ? "the schema differs" : diff.front());
    c.error = seen.last_line;
    return true;
  }

  void CrashCheck(const std::string& runner) {
    current_check_ = fmt::format("crash with {}", runner);
    const auto made = models::migrate::MakeRunner(runner);
    FL_ASSERT(made != nullptr);
    std::vector<std::pair<std::string, std::uint64_t>> cases;
    for (const std::string& site : made->FaultSites(options_.keyspace)) {
      const auto hits = site_hits_.find(site);
      if (hits == site_hits_.end()) continue;
      for (std::uint64_t hit = 1; hit <= hits->second; ++hit) cases.emplace_back(site, hit);
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
    for (const auto& [site, hit] : cases) CrashCase(runner, site, hit);
  }

  void CrashCase(const std::string& runner, const std::string& site, std::uint64_t hit) {
    const std::uint64_t index = TakeIndex();
    if (!Mine(index)) return;
    Case c = NewCase(index, "crash", runner, options_.stores.front());
    c.label = fmt::format("crash at {}, hit {}", site, hit);
    c.seed = options_.seed;
    c.scenario = Base("crash", runner, c.store, 1, kChecked);
    Service(c.scenario, kSubject).restart =
        fakes::RestartPolicy::kNo;  // Restarted by a step: two moments to read.
    FaultSpec crash;
    crash.site = site;
    crash.hit = hit;
    crash.service = kSubject;
    c.scenario.faults.push_back(crash);
    c.scenario.steps = {
        Do(Step::Kind::kUp, fmt::format("kuri-1 migrates and crashes at {} (pass {}).", site, hit)),
        Wait(kSettle, "It stays down (restart = no)."),
        ForService(Step::Kind::kRestart, kSubject, "kuri-1 starts again on what the crash left."),
        Wait(kRetriesGiveUp, "Let its start-up retry finish."),
    };
    if (Judge(c)) Judged(c);
  }

  bool JudgeCrash(Case& c) {
    const Played played = Play(c.scenario, c.seed, {1, 3}, 1);
    const Observed& crashed = played.seen.at(1).front();
    const Observed& restarted = played.seen.at(3).front();
    c.file = played.in_flight;
    c.ran.reset();
    if (c.runner == "golang-migrate") {
      const FaultSpec& crash = c.scenario.faults.front();
      if (const auto at = RanAtCrash(source_, options_.keyspace, crash.site, crash.hit);
          at && at->first == c.file) {
        c.ran = at->second;
      }
    }
    if (c.runner == "golang-migrate" && crashed.versions == "none" && !crashed.schema.empty()) {
      c.verdict = Verdict::kLostVersion;
      c.detail = fmt::format(
          "the crash left schema_migrations empty with {} table(s) in the keyspace; the restart "
          "runs every file again from the first{}",
          crashed.schema.size(), restarted.serving ? ", and they happened to succeed" : "");
      c.error = restarted.last_line;
      if (!restarted.serving) LostVersionWayOut(c, restarted);
    } else if (restarted.serving && restarted.schema == expected_) {
      const bool clean = Consistent(crashed, c.runner);
      c.verdict = clean ? Verdict::kSafe : Verdict::kRecovers;
      c.detail =
          clean ? fmt::format("the crash left a clean state ({})", StateText(crashed, c.runner))
                : fmt::format("the crash left it half-way ({}), and the restart finished it",
                              StateText(crashed, c.runner));
    } else {
      Unserved(c, played.seen.at(3), 1, false);
    }
    return true;
  }

  // Upgrades onto a kept volume: from an older release's folder (--from
  // DIR), from one version of this folder (--from VERSION), or from each.
  void UpgradeCheck(const std::string& runner) {
    current_check_ = fmt::format("upgrade with {}", runner);
    std::vector<std::pair<std::string, std::vector<MigrationFile>>> starts;
    if (options_.older) {
      starts.emplace_back("the older folder", *options_.older);
    } else if (options_.from_version == source_.migrations().rbegin()->first) {
      Note(fmt::format("{}: --from {} is the newest version: no upgrade to play", runner,
                       *options_.from_version));
    } else if (options_.from_version) {
      starts.emplace_back(fmt::format("version {}", *options_.from_version),
                          FilesUpTo(*options_.from_version));
    } else {
      for (const auto& [version, migration] : source_.migrations()) {
        if (version == source_.migrations().rbegin()->first) break;
        starts.emplace_back(fmt::format("version {}", version), FilesUpTo(version));
      }
    }
    for (auto& [from, files] : starts) UpgradeCase(runner, from, std::move(files));
  }

  void UpgradeCase(const std::string& runner, const std::string& from,
                   std::vector<MigrationFile> files) {
    const std::uint64_t index = TakeIndex();
    if (!Mine(index)) return;
    Case c = NewCase(index, "upgrade", runner, options_.stores.front());
    c.label = "upgrade from " + from;
    c.seed = options_.seed;
    c.scenario = Base("upgrade", runner, c.store, 1, kShipped);
    c.scenario.images.push_back(Image(kShipped, runner, std::move(files)));
    c.scenario.steps = ImageChange(fmt::format("The release before runs ({}).", from), kChecked,
                                   "The new image, with the folder checked.");
    if (Judge(c)) Judged(c);
  }

  bool JudgeUpgrade(Case& c) {
    const Played played = Play(c.scenario, c.seed, {1, 5}, 1);
    if (!played.seen.at(1).front().serving) {
      NoteOf(c, fmt::format("{}: {}: the release before does not start itself: {}", c.runner,
                            c.label, played.seen.at(1).front().last_line));
      return false;
    }
    const std::vector<Observed>& end = played.seen.at(5);
    if (AllServeTheFolder(end)) {
      c.verdict = Verdict::kSafe;
      c.detail = "the new files applied on the kept volume";
    } else {
      Unserved(c, end, 1, false);
    }
    return true;
  }

  // Back to the image before the newest file, on the volume the new one
  // migrated: golang-migrate finds a version its folder does not have.
  void RollbackCheck(const std::string& runner) {
    current_check_ = fmt::format("rollback with {}", runner);
    std::vector<MigrationFile> previous;
    std::string to;
    if (options_.older) {
      previous = *options_.older;
      to = "the older folder";
    } else {
      const auto newest = source_.migrations().rbegin()->first;
      const auto before = source_.Prev(newest);
      if (!before) return;
      previous = FilesUpTo(*before);
      to = fmt::format("version {}", *before);
    }
    const std::uint64_t index = TakeIndex();
    if (!Mine(index)) return;
    Case c = NewCase(index, "rollback", runner, options_.stores.front());
    c.label = "rollback to " + to;
    c.seed = options_.seed;
    c.file = source_.migrations().rbegin()->second.up_name;
    c.scenario = Base("rollback", runner, c.store, 1, kChecked);
    c.scenario.images.push_back(Image(kShipped, runner, previous));
    c.scenario.steps = ImageChange("The new image migrates and serves.", kShipped,
                                   fmt::format("Roll back to {}.", to));
    if (Judge(c)) Judged(c);
  }

  bool JudgeRollback(Case& c) {
    const Played played = Play(c.scenario, c.seed, {5}, 1);
    const std::vector<Observed>& end = played.seen.at(5);
    if (AllServeTheFolder(end, false)) {
      c.verdict = Verdict::kSafe;
      c.detail = "the previous image starts on the newer schema";
    } else {
      Unserved(c, end, 1, true);
    }
    return true;
  }

  void ConcurrentCheck(const std::string& runner) {
    current_check_ = fmt::format("concurrent with {}", runner);
    if (options_.replicas < 2) {
      Note(fmt::format("{}: --replicas 1: no replicas race", runner));
      return;
    }
    for (const std::string& store : options_.stores) {
      for (int i = 0; i < options_.race_seeds; ++i) {
        const std::uint64_t index = TakeIndex();
        if (!Mine(index)) continue;
        Case c = NewCase(index, "concurrent", runner, store);
        c.seed = options_.seed + static_cast<std::uint64_t>(i);
        c.label = fmt::format("{} replicas on {}, seed {}", options_.replicas, store, c.seed);
        c.scenario = Base("concurrent", runner, store, options_.replicas, kChecked);
        c.scenario.steps = {
            Do(Step::Kind::kUp,
               fmt::format("{} replicas start together on one keyspace.", options_.replicas)),
            Wait(kRetriesGiveUp, "Let their start-up retries finish (the policy restarts them)."),
        };
        if (Judge(c)) Judged(c);
      }
    }
  }

  bool JudgeConcurrent(Case& c) {
    const int replicas = c.scenario.nodes;
    const Played played = Play(c.scenario, c.seed, {1}, replicas);
    const std::vector<Observed>& end = played.seen.at(1);
    if (AllServeTheFolder(end)) {
      const bool restarted =
          std::any_of(end.begin(), end.end(), [](const Observed& s) { return s.restarts > 0; });
      const bool failed = restarted || !played.failures.empty();
      c.verdict = failed ? Verdict::kRecovers : Verdict::kSafe;
      c.detail = failed ? "a replica failed, and its restart or start-up retry finished the "
                          "migration"
                        : "every replica came up";
      if (!played.failures.empty()) {
        const InFlight::Failure& first = played.failures.front();
        c.file = FileOf(static_cast<std::int64_t>(first.version));
        c.error = first.process + ": " + FirstLine(first.text);
        c.detail = fmt::format("{}'s migration of {} failed ({}), and its retry found it done",
                               first.process, first.version, FirstLine(first.text));
        if (c.runner == "golang-migrate") {
          // A loser's dirty flag is gone only because the winner's
          // SetVersion, later, replaced every row: a slower winner leaves
          // it dirty (needs-force).
          c.detail += ": it came up because the winner's SetVersion overwrote its dirty flag";
        }
      }
    } else {
      Unserved(c, end, replicas, false);
    }
    return true;
  }

  // up, down -all, up again, with golang-migrate's CLI, when every file
  // has a down.
  void DownUpCheck() {
    current_check_ = "down-up with golang-migrate";
    for (const auto& [version, migration] : source_.migrations()) {
      if (!migration.down || !migration.up) return;
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
    if (Judge(c)) Judged(c);
  }

  bool JudgeDownUp(Case& c) {
    const Played played = Play(c.scenario, c.seed, {2, 3}, 1);
    const Observed& undone = played.seen.at(2).front();
    const Observed& again = played.seen.at(3).front();
    const std::string newest = std::to_string(source_.migrations().rbegin()->first) + " clean";
    if (!undone.schema.empty()) {
      c.verdict = Verdict::kNeedsRepair;
      std::vector<std::string> left;
      for (const auto& [table, columns] : undone.schema) left.push_back(table);
      c.detail = fmt::format(
          "down -all leaves {} table(s) ({}) and schema_migrations at {}: the "
          "down files that failed or that dropped too little are to fix",
          left.size(), Joined(left), undone.versions);
      c.error = FirstLine(played.result.steps[2].outcome);
    } else if (again.schema != expected_ || again.versions != newest) {
      c.verdict = Verdict::kNeedsRepair;
      c.detail = fmt::format("up after down -all ends at {}", again.versions);
      c.error = FirstLine(played.result.steps[3].outcome);
    } else {
      c.verdict = Verdict::kSafe;
      c.detail = "down -all empties the keyspace and up rebuilds it";
    }
    return true;
  }

  // ---- Findings ----

  void Group(Case c) {
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
  void Finish(const std::vector<ReproMade>* made) {
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

  void Repro(DynamicFinding& finding, const Case& first_case) {
    Scenario scenario = first_case.scenario;
    scenario.name =
        fmt::format("{}-{}-{}", finding.check, finding.runner, InfoOf(finding.verdict).name);
    scenario.title = fmt::format("check-migrations: {}: {}", finding.cases.front(),
                                 InfoOf(finding.verdict).name);
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
    const bool crash = finding.check == "crash";  // Step 1 is the moment after the crash.
    const Played played =
        Play(scenario, finding.seed,
             crash ? std::set<std::size_t>{1, last} : std::set<std::size_t>{last}, scenario.nodes);
    if (crash) {
      scenario.steps[1].expect.push_back({.kind = Expectation::Kind::kSchemaMigrations,
                                          .service = options_.keyspace,
                                          .text = played.seen.at(1).front().versions});
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
        step.expect.push_back({.kind = Expectation::Kind::kLogContains,
                               .service = service,
                               .text = end[i].last_line});
      }
    }
    step.expect.push_back({.kind = Expectation::Kind::kSchemaMigrations,
                           .service = options_.keyspace,
                           .text = end.front().versions});
    finding.repro = std::move(scenario);
  }

  const MigrationCheckOptions& options_;
  PlayedShard played_;
  std::uint64_t next_case_ = 0;
  MigrationSource source_;
  SchemaModel expected_;
  std::map<std::uint64_t, SchemaModel> schema_at_;  // After each version's files.
  MigrationCheckReport report_;
  std::map<std::string, std::uint64_t> site_hits_;  // From the clean run.
  std::string current_check_;
  std::set<Key> first_of_group_;  // Of this shard's cases.
  std::map<Key, std::pair<DynamicFinding, Case>> groups_;
  std::vector<Key> order_;
};

}  // namespace

PlayedShard PlayShard(const MigrationCheckOptions& options) {
  for (const std::string& runner : options.runners) {
    FL_ASSERT_MSG(models::migrate::MakeRunner(runner) != nullptr, "runner {}", runner);
  }
  FL_ASSERT(options.shard.count >= 1 && options.shard.index < options.shard.count);
  return Checker(options).PlayShard();
}

MigrationCheckReport ReportOf(const MigrationCheckOptions& options,
                              const std::vector<PlayedShard>& shards,
                              const std::vector<ReproMade>* made) {
  return Checker(options).ReportOf(shards, made);
}

std::vector<ReproMade> MakeRepros(const MigrationCheckOptions& options,
                                  const std::vector<PlayedShard>& shards,
                                  MigrationCheckOptions::Shard shard) {
  FL_ASSERT(shard.count >= 1 && shard.index < shard.count);
  return Checker(options).MakeRepros(shards, shard);
}

MigrationCheckReport CheckMigrations(const MigrationCheckOptions& options) {
  FL_ASSERT(options.shard.count == 1);
  return ReportOf(options, {PlayShard(options)}, nullptr);
}

}  // namespace faultline::scenarios
