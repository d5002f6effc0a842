// check-migrations' checker (internal to check_migrations/; not
// installed): one Checker plays a shard's cases and makes the report, its
// parts each in a file of their own:
//   checker.cc   the shard's part, merging every shard's cases, the checks' table
//   cases.cc     the cluster each case runs on and the steps it plays
//   judging.cc   each check's verdict, and the operator's way out (force)
//   reading.cc   what the folder defines, and what was seen of it
//   findings.cc  cases grouped into findings, and each unsafe one's repro
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "models/migrate/schema_model.h"
#include "models/migrate/source.h"
#include "scenarios/check_migrations/check_migrations.h"
#include "scenarios/check_migrations/clean_contents.h"
#include "scenarios/check_migrations/observe.h"
#include "scenarios/check_migrations/statements.h"
#include "scenarios/harness/branches.h"
#include "scenarios/harness/runner.h"
#include "sim/clock.h"

namespace faultline::scenarios::check {

using models::migrate::MigrationFile;
using models::migrate::MigrationSource;
using models::migrate::SchemaModel;

inline constexpr const char* kChecked = "checked";  // The folder's image version.
inline constexpr const char* kShipped =
    "shipped";  // An older release's, for upgrades and rollbacks.
// Long enough for the gateway's start-up retry (30 attempts, 2 s doubling
// to 15 s: about 7 minutes) to give up, so the log ends with its last word.
inline constexpr sim::Duration kRetriesGiveUp = std::chrono::minutes(10);
inline constexpr sim::Duration kSettle = std::chrono::minutes(1);
// How often the check's proxy probes the nodes (Checker::Base).
inline constexpr std::int64_t kProxyProbeIntervalMs = 10'000;
inline constexpr std::size_t kMaxCrashCases =
    20'000;  // Per runner: beyond, the rest is said skipped.
// The concurrent check's pauses: one replica paused this long at one pass
// of a fault site, so that the others run ahead of it (shorter than the
// safe runner's 30 s lease: a pause longer than a lease is another
// failure, a lock lost to a stalled holder); at most this many per store.
inline constexpr sim::Duration kRacePause = std::chrono::seconds(5);
inline constexpr std::size_t kMaxRacePauses = 48;

// The moments each check reads, as indices of the steps its cases play.
// The builders in cases.cc make the steps and assert that they match.
struct Moment {
  // clean and concurrent: up, then a wait for the start-up retry.
  static constexpr std::size_t kStarted = 1;
  // crash: up (it crashes), a wait, a restart, a wait.
  static constexpr std::size_t kCrashed = 1;
  static constexpr std::size_t kRestarted = 3;
  // upgrade and rollback (ImageChange): up on the first image, a wait,
  // down, set-image, up on the second, a wait.
  static constexpr std::size_t kFirstImageServes = 1;
  static constexpr std::size_t kSecondImageStarted = 5;
  // down-up: up, a wait, migrate down -all, migrate up.
  static constexpr std::size_t kAllDown = 2;
  static constexpr std::size_t kUpAgain = 3;
};

// One case: its run, verdict and words, as a shard reports it. How it is
// judged follows from its check (JudgeOf), and the folder the subject ends
// on from its scenario (ImageAtEnd): nothing of it is stored twice.
using Case = JudgedCase;
Case NewCase(std::uint64_t index, std::string check, std::string runner, std::string store);

class Checker {
 public:
  explicit Checker(const MigrationCheckOptions& options);
  // passes_ points into source_: a copy would point into another's.
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  // The shard's part: the clean runs (every shard plays them; only shard
  // 0 counts them), then the cases the shard owns, judged.
  PlayedShard PlayShard();

  // The report from every shard's cases, in the order they were counted
  // (so the same whatever the shards): grouped, the unsafe ones shrunk
  // here, or taken from `made` (MakeRepros, elsewhere).
  MigrationCheckReport ReportOf(const std::vector<PlayedShard>& shards,
                                const std::vector<ReproMade>* made);

  // The repros of the unsafe groups (numbered in report order) that `shard`
  // owns.
  std::vector<ReproMade> MakeRepros(const std::vector<PlayedShard>& shards,
                                    MigrationCheckOptions::Shard shard);

 private:
  using Key = std::tuple<std::string, std::string, std::string, std::string, Verdict, std::string>;
  struct CheckEntry {
    std::string_view name;                             // One of kChecks.
    bool per_runner;                                   // For each runner, or once for the folder.
    void (Checker::*play)(const std::string& runner);  // Makes and plays its cases.
    std::set<std::size_t> moments;                     // The steps its judge reads (Moment).
    // Judges one from its run, played from empty; false: no finding.
    bool (Checker::*judge)(Case& c, const Played& played);
  };
  static const std::vector<CheckEntry>& Checks();
  static const CheckEntry& CheckOf(const Case& c);

  // ---- Shards and merging (checker.cc) ----

  // Every shard's cases, grouped in their order; the static rules; the
  // notes and store-refuses findings each shard said once.
  void Merge(const std::vector<PlayedShard>& shards);

  // What options_.ignores cover leaves the grouped findings and the static
  // rules' (so no repro is made of it); each ignore said as a note.
  void LeaveOutIgnored();

  // The next case's index; whether this shard plays it.
  std::uint64_t TakeIndex();

  bool Mine(std::uint64_t index) const;
  std::deque<JudgedCase> JudgedFromOtherShards(std::vector<const JudgedCase*>& cases);

  // A note every shard says (before the next case), and one only the shard
  // that plays a case says: keyed so that their order is the same whatever
  // the shards.
  void Note(std::string note);

  void NoteOf(const Case& c, std::string note);

  // A judged case, kept for the report. Only a group's first case is
  // shrunk: the others travel without their scenario (each holds the whole
  // folder). A group's first case overall is the first of its shard,
  // whichever shard plays it.
  void Judged(const Case& c);

  static Key KeyOf(const Case& c);

  // Plays `c` from an empty world, as its check reads it, and judges it.
  bool Judge(Case& c);
  // The same from its run, played with PlayToJudge (the shrinker's tries).
  Played PlayToJudge(const Case& c);
  bool JudgePlayed(Case& c, const Played& played);

  // ---- Reading (reading.cc) ----

  // The folder the subject runs at the end of the case's run: the image
  // rolled back to, for a rollback; else the folder checked.
  // (`kept` holds a rollback's: the shipped image's folder, made for it.)
  const MigrationSource& ImageAtEnd(const Case& c, std::optional<MigrationSource>& kept) const;

  std::vector<MigrationFile> FilesUpTo(std::uint64_t version) const;
  // A kept case's images whose files are the folder's, left without them
  // (JudgedCase::folder_images), and put back before its scenario is played.
  void LeaveOutTheFolder(Case& c) const;
  void PutTheFolderBack(Case& c) const;

  // The schema the files up to `version` define, worked out once per
  // version (a case asks for many; reading the prefix again each time
  // would cost in proportion to the folder).
  const SchemaModel& SchemaAt(std::optional<std::uint64_t> version) const;
  // The schema `migration`'s up file makes of `schema`.
  void ApplyUp(const models::migrate::Migration& migration, SchemaModel& schema) const;

  // Whether the state a crash left is one the folder defines: no version
  // and no table, or a clean version with exactly its files' schema (for a
  // runner that keeps no golang-migrate table: any version's schema).
  bool Consistent(const Observed& seen, const std::string& runner) const;

  bool AllServeTheFolder(const std::vector<Observed>& seen, bool compare_schema = true) const;
  // Whether `seen`'s schema is the folder's (expected_). A compare walks
  // every table; the reading every joined case shares (the clean trunk's
  // end) is compared once, in the parent, not again in each case.
  bool HasTheFoldersSchema(const Observed& seen) const;

  // "1754293669 dirty, 1 of 2 tables": the version table and how much of
  // the folder's schema is there.
  std::string StateText(const Observed& seen, const std::string& runner = "golang-migrate") const;

  static const Observed* FirstDown(const std::vector<Observed>& seen);

  std::string FileOf(std::int64_t version) const;

  // Whether `file` (an up or down file's name) is history (--since):
  // applied first, not judged.
  bool History(const std::string& file) const;

  // The line of the version's file where the statement the failure quotes
  // starts (golang-migrate quotes the piece it sent); 1 when not found.
  int LineOfFailure(std::uint64_t version, const std::string& text) const;

  // ---- Building and playing the cases (cases.cc) ----

  ImageSpec Image(const std::string& version, const std::string& runner,
                  std::vector<MigrationFile> files) const;

  // The cluster: `nodes` nodes sharing the keyspace, each running
  // `node_version`; db-init creates the keyspace, as the seed's does.
  Scenario Base(const std::string& name, const std::string& runner, const std::string& store,
                int nodes, const std::string& node_version) const;

  // An image change on a kept volume: up on the first image (`first`), its
  // migration done, down (the store's volume stays), kuri-1 set to
  // `version`, up again, and time for the start-up retry. Steps 1 and 5 are
  // the moments to read.
  static std::vector<Step> ImageChange(std::string first, const std::string& version,
                                       std::string change);

  ServiceOverride& Service(Scenario& scenario, const std::string& name) const;

  Played Play(const Scenario& scenario, std::uint64_t seed, const std::set<std::size_t>& steps,
              int replicas);

  // A run's options that observe `steps` of its first `replicas` nodes into
  // `played`, and its trace into `in_flight`; and, after it, the rest of
  // `played` from them.
  RunOptions Observing(Played& played, InFlight& in_flight, std::uint64_t seed,
                       const std::set<std::size_t>& steps, int replicas) const;
  void Finished(Played& played, const InFlight& in_flight, const Scenario& scenario,
                const std::set<std::size_t>& steps, int replicas) const;

  // One more run played (and the progress line, but not in a future).
  void CountRun();
  // In a future, before it judges its case: played_ empty, the shard's
  // cases so far (the parent's) set aside, not freed.
  void SetAsideTheParentsCases();

  // The folder on an empty keyspace, no fault: every statement must be
  // accepted. Also counts the runner's passes through its fault sites.
  bool CleanRun(const std::string& runner);

  void CrashCheck(const std::string& runner);

  Case CrashCaseOf(std::uint64_t index, const std::string& runner, const std::string& site,
                   std::uint64_t hit) const;

  void HoldCaseEnd(Cluster& cluster, int replicas);
  void StopAtTheCleanRun(Cluster& cluster, HeldRun& held, bool may_join);
  // In a crash case's future, at a pass of kuri-1's after its restart:
  // whether the run has joined the clean run (JoinTheCleanRun's comment).
  bool BeforeTheCrashedFile(const InFlight& in_flight) const;
  // A future that joins the clean run from step `from` on ends there
  // (held_ends.cc).
  void EndWhereItJoins(RunOptions& run, BranchCallbacks& callbacks, std::size_t from,
                       std::function<bool()> may_read, std::function<std::string()> joined);
  bool JoinsTheCleanRun(World& world, sim::TimePoint restarted, const sim::FaultPass& pass,
                        int& reads) const;
  // The store's volume as kuri-1 last saw it change: its count of changes
  // and since when (none yet); and how long still says stuck (StuckAfter).
  struct StillStore {
    std::uint64_t changes = 0;
    std::optional<sim::TimePoint> since;
    std::optional<sim::Duration> stuck_after;
  };
  bool StuckOnAStillStore(World& world, const sim::FaultPass& pass, StillStore& still) const;
  static std::optional<sim::Duration> StuckAfter(const World& world);

  // The site where `runner` has recorded a version clean (empty: none);
  // clean_site_ and clean_trunk_ for `runner`, read once per runner.
  std::string CleanSiteOf(const std::string& runner) const;
  void ReadCleanTrunk(const std::string& runner);
  // A future's text (its part of the shard) taken into this shard's; the
  // case's scenario made again only where it is kept.
  void JudgedFromFuture(std::uint64_t key, const std::string& text,
                        const std::function<Scenario()>& scenario_of);

  void CrashCasesBranched(const std::string& runner,
                          const std::vector<std::pair<std::string, std::uint64_t>>& cases);
  // A crash case judged as the run it shares ends (JudgedCase::shares).
  std::optional<Case> JudgedFromShared(Case c, const Case& played);
  void SharedCase(Case c, std::uint64_t shares,
                  const std::map<std::uint64_t, std::string>& futures);

  // Upgrades onto a kept volume: from an older release's folder (--from
  // DIR), from one version of this folder (--from VERSION), or from each.
  void UpgradeCheck(const std::string& runner);

  Case UpgradeCaseOf(std::uint64_t index, const std::string& runner, const std::string& from,
                     std::vector<MigrationFile> files) const;
  void UpgradeCase(const std::string& runner, const std::string& from,
                   std::vector<MigrationFile> files);
  // Each upgrade from one of `versions` as a future of one run (upgrades.cc).
  void UpgradesBranched(const std::string& runner, const std::vector<std::uint64_t>& versions);
  std::map<std::uint64_t, std::string> UpgradeFutures(
      const std::string& runner, const std::vector<BranchPoint>& points,
      const std::map<std::uint64_t, std::uint64_t>& version_of);

  // Back to the image before the newest file, on the volume the new one
  // migrated: golang-migrate finds a version its folder does not have.
  void RollbackCheck(const std::string& runner);

  // ---- The concurrent check (races.cc) ----

  void ConcurrentCheck(const std::string& runner);
  Case ConcurrentCaseOf(std::uint64_t index, const std::string& runner, const std::string& store,
                        std::uint64_t seed, const std::optional<FaultSpec>& pause) const;
  // (`cut`: set when kMaxRacePauses left some out.)
  std::vector<FaultSpec> PausePoints(const std::string& runner, bool* cut = nullptr) const;
  std::string RaceBound(const std::string& runner) const;
  void PauseSchedules(const std::string& runner, const std::string& store);
  BranchedRun PausedFutures(const std::string& runner, const std::string& store,
                            const std::vector<BranchPoint>& points,
                            const std::vector<std::pair<std::uint64_t, FaultSpec>>& planned);

  // up, down -all, up again, with golang-migrate's CLI, when every file
  // has a down.
  void DownUpCheck(const std::string& runner);

  // ---- Judging (judging.cc) ----

  // Each check's judge (CheckEntry), from the case's run.
  bool JudgeClean(Case& c, const Played& played);
  bool JudgeCrashPlayed(Case& c, const Played& played);
  bool JudgeConcurrentPlayed(Case& c, const Played& played);
  void RanAt(Case& c) const;
  bool JudgeUpgradeFromEmpty(Case& c, const Played& played);
  // (`first_image_seen` false: a future paused the release before, so its
  // moment is not read: UpgradesBranched.)
  bool JudgeUpgradePlayed(Case& c, const Played& played, bool first_image_seen);
  bool JudgeRollback(Case& c, const Played& played);
  bool JudgeDownUp(Case& c, const Played& played);

  // The verdict for replicas that do not all serve the folder at the end.
  void Unserved(Case& c, const std::vector<Observed>& end, int replicas, bool any_schema);

  // `migrate force X` then a restart of every replica, for each X an
  // operator would try after `versions`; the first that brings every
  // replica up (with the folder's schema, unless `any_schema`). With a
  // dirty version V: the one before it first (V runs again, whole), then V
  // itself (V counts as done), but V never when it is known that only part
  // of it ran: a schema can look complete while a data statement never
  // ran. A version the image's folder lacks (a rollback): its newest.
  std::optional<std::string> ForceThatWorks(const Case& c, const Observed& seen,
                                            const MigrationSource& image, int replicas,
                                            bool any_schema);

  // The steps after a failed case: `migrate force TO`, a restart of each
  // replica, and time for them to come up.
  std::vector<Step> ForceSteps(const std::string& to, int replicas) const;

  // Whether every replica serves the folder after ForceSteps(to).
  bool ForcedServes(const Case& c, const std::string& to, int replicas, bool any_schema);

  // A lost version that keeps the service down: the version an operator
  // must write back is the one being recorded when the crash came (the
  // file in flight if it ran whole, else the one before), found by trying
  // it as for a dirty version.
  void LostVersionWayOut(Case& c, const Observed& restarted);

  // ---- Findings (findings.cc) ----

  void Group(Case c);

  // The groups that get a repro, in report order (their index numbers
  // them): every unsafe finding of the folder's, and the first finding of
  // each runner risk (said once).
  std::vector<Key> ReproGroups() const;

  // Each unsafe finding's first case, shrunk with its steps kept, and a
  // last step that says what a user sees.
  void Finish(const std::vector<ReproMade>* made);

  void Repro(DynamicFinding& finding, const Case& first_case);
  // A crash case of the check, by runner and crash (site, hit): what
  // its run saw; none when no case played that crash.
  const Case* CrashCase(const std::string& runner, const Scenario& scenario) const;
  // Whether a shrinking candidate of a crash finding's repro fails as
  // `first_case` does, known from the case that played it, or from the
  // run without a crash; nullopt: play it.
  std::optional<bool> KnownCrashCandidate(const Case& first_case, const Signature& signature,
                                          const Scenario& candidate) const;
  // The repro's end, as expectations of its crash and last steps.
  void ExpectWhatItSaw(Scenario& scenario, bool crash, const std::vector<Observed>& end,
                       const std::string& versions_at_crash) const;

  const MigrationCheckOptions& options_;
  PlayedShard played_;
  PlayedShard parents_;  // In a future: the parent's played_ (SetAsideTheParentsCases).
  std::uint64_t next_case_ = 0;
  MigrationSource source_;
  SchemaModel expected_;
  // A reading known to be expected_ (HasTheFoldersSchema); held, so that
  // no other reading is ever made at its address.
  std::shared_ptr<const SchemaModel> known_folders_schema_;
  std::optional<FolderPasses> passes_;      // Of source_: where a crash's pass falls.
  std::optional<std::uint64_t> rows_from_;  // FirstVersionWritingRows(source_).
  models::cql::Dialect dialect_ = models::cql::Dialect::kYcql;  // The checked store's (the first).
  // The schema after every schema_every_-th version's files, from which
  // SchemaAt works out the others; the last one it worked out. Every 32nd,
  // or at most kSchemaMarks of them: every fork copies the page tables of
  // what the parent holds, and a mark per 32 versions of a 1,000-file
  // folder held 31 schemas of up to 3,000 tables (half its heap).
  static constexpr std::size_t kSchemaMarks = 8;
  std::size_t schema_every_ = 32;
  std::map<std::string, std::uint64_t, std::less<>> version_of_file_;  // Each up file's.
  std::map<std::uint64_t, SchemaModel> schema_marks_;
  mutable std::optional<std::pair<std::uint64_t, SchemaModel>> schema_at_;
  MigrationCheckReport report_;
  std::map<std::string, std::uint64_t> site_hits_;  // From the clean run.
  // With --since: each site's passes in the clean run before the first new
  // file began (the history's).
  std::map<std::string, std::uint64_t, std::less<>> history_hits_;
  std::string current_check_;  // What the progress lines name.
  static constexpr std::string_view kShrinkingPhase = "shrinking the unsafe findings";
  std::unique_ptr<HeldRun> case_end_;  // In a forked case: its world at its last step.
  std::string clean_site_;  // The crash check's runner's, where it has recorded a version clean.
  CleanTrunk clean_trunk_;  // CleanContents (clean_contents.h); its bytes empty: none.
  std::string clean_trunk_runner_;  // Whose clean_site_ and clean_trunk_ are read.
  bool in_future_ = false;          // In a forked child that judges one case.
  std::set<Key> first_of_group_;    // Of this shard's cases.
  std::map<Key, std::pair<DynamicFinding, Case>> groups_;
  std::vector<Key> order_;
  // Every shard's crash cases (Merge), by runner, site and hit, each
  // without its scenario.
  std::map<std::tuple<std::string, std::string, std::uint64_t>, Case> crash_cases_;
  // Each runner's run without a crash (PlayedShard::trunk_signatures).
  std::map<std::string, std::optional<Signature>> trunk_signatures_;
};

}  // namespace faultline::scenarios::check
