// check-migrations: is this migration folder safe to ship? The folder is
// read by the static rules (models/migrate/lint.h) and then run in the
// simulated cluster as a node image of its own, with each runner asked for:
//
//   clean       the folder on an empty keyspace, no fault (a statement the
//               store refuses, a schema other than the files define);
//   crash       a crash at every fault site the runner passes (each
//               statement, each step of SetVersion), then a restart;
//   upgrade     from each older version of the folder (or --from) on a kept
//               volume;
//   rollback    back to the image before the newest file, on a kept volume;
//   concurrent  several replicas starting together on one keyspace, on
//               YCQL and on the Cassandra store;
//   down-up     up, down -all, up again (when every file has a down).
//
// Each outcome is classified (Verdicts()); cases with the same check,
// runner, store, file, verdict and version to force are one finding, and an unsafe finding's
// first case is shrunk (explore.h's Shrink, steps kept) to a scenario file
// `faultline run` replays, whose last step states what a user sees.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/migrate/lint.h"
#include "models/migrate/source.h"
#include "scenarios/check_migrations/ignores.h"
#include "scenarios/core/scenario.h"
#include "scenarios/shrink/shrink.h"

namespace faultline::scenarios {

enum class Verdict : unsigned char {
  kSafe,         // Nothing to repair: the run ends as the folder defines, from a clean state.
  kRecovers,     // The state left was half-way, and a restart finishes it.
  kNeedsForce,   // The service stays down until an operator forces a version (which, said).
  kNeedsRepair,  // Forcing is not enough: statements must be run or undone by hand.
  kSilentDrift,  // It serves, but the keyspace's schema differs from the folder's.
  kLostVersion,  // The version table ends empty: the runner starts again from the first file.
};
struct VerdictInfo {
  Verdict verdict;
  std::string_view name;  // "needs-force": what reports and SARIF rule ids say.
  bool unsafe;
  std::string_view meaning;  // One line.
};
const std::vector<VerdictInfo>& Verdicts();
const VerdictInfo& InfoOf(Verdict verdict);

struct DynamicFinding;

// A risk a runner's own design brings to every folder, whatever the folder
// holds: said once per run with kRunnerRiskFix, not per file, and not
// counted against the folder unless asked (fail_on_runner_risks). One
// table (runner_risks.cc), one entry a risk.
struct RunnerRisk {
  std::string_view id;  // "golang-migrate/dirty-until-forced": reports and SARIF say it.
  std::string_view runner;
  std::string_view check;
  Verdict verdict;
  // Whether a finding of that runner, check and verdict is this risk and no
  // more: the folder's content made no part of it. `rows_from`: the
  // folder's FirstVersionWritingRows (statements.h).
  bool (*applies)(const DynamicFinding& finding, const models::migrate::MigrationSource& source,
                  std::optional<std::uint64_t> rows_from);
  std::string_view brief;  // A few words, for the short report.
  std::string_view says;   // What it is and why, once.
};
const std::vector<RunnerRisk>& RunnerRisks();
// The risk `finding` is; nullptr: the folder's own finding.
const RunnerRisk* RiskOf(const DynamicFinding& finding,
                         const models::migrate::MigrationSource& source,
                         std::optional<std::uint64_t> rows_from);
const RunnerRisk& RunnerRiskNamed(std::string_view id);
inline constexpr std::string_view kRunnerRiskFix =
    "a runner with a lock and per-statement progress is free of them (`--runner safe`)";

// The checks, in the order they run and reports list them.
inline constexpr std::string_view kChecks[] = {"clean",    "crash",      "upgrade",
                                               "rollback", "concurrent", "down-up"};

struct MigrationCheckOptions {
  std::vector<models::migrate::MigrationFile> files;  // The folder (ReadMigrationFolder).
  std::string keyspace;                               // The keyspace it migrates.
  std::vector<std::string> runners = {"golang-migrate"};
  int replicas = 2;  // Concurrent starts, 2 to kMaxNodes.
  // Store versions ("2.20", "cassandra"): the first runs every check; the
  // concurrent check runs on each.
  std::vector<std::string> stores = {"2.20", "cassandra"};
  // The folder as an older release shipped it (--from DIR), or the version
  // of this folder a deployed database is at (--from VERSION); neither:
  // upgrades start from each older version of this folder.
  std::optional<std::vector<models::migrate::MigrationFile>> older;
  std::string older_name;  // Its path, for findings about it.
  std::optional<std::uint64_t> from_version;
  // The files up to this version are history (--since): applied first,
  // never judged (no finding about them, no crash in them); upgrades start
  // from each of their versions. The new files are judged.
  std::optional<std::uint64_t> since;
  // What the team leaves out, with why (ignores.h): from the files'
  // comments and the config file.
  std::vector<Ignore> ignores;
  // The gate: whether the runner's own risks (RunnerRisks) make the folder
  // unsafe too; by default only the folder's own findings do.
  bool fail_on_runner_risks = false;
  const models::migrate::SumFile* sum = nullptr;
  std::string sum_name;
  std::uint64_t seed = 1;
  int race_seeds = 5;  // Seeds per store for the concurrent check (races are drawn).
  std::function<void(std::string_view check, int runs)> on_progress;
  // Crash cases as futures of one run (scenarios/harness/branches.h), each
  // forked at its crash's pass, and crash repros made from what the cases
  // saw (findings.cc); false: each case and each repro's tries played from
  // an empty world (the same report, more runs, slower: for comparing).
  bool branch = true;
  // Which cases PlayShard plays: case c when c % count == index (every
  // shard plays the clean runs it needs; shard 0 counts them).
  struct Shard {
    std::uint64_t index = 0;
    std::uint64_t count = 1;
  } shard;
};

// Cases with one check, runner, store, file and verdict.
struct DynamicFinding {
  std::string check;   // One of kChecks.
  std::string runner;  // golang-migrate, safe, db-init
  std::string store;   // 2.20, cassandra
  std::string file;    // The migration file it is about; empty: the folder.
  Verdict verdict = Verdict::kSafe;
  std::vector<std::string> cases;  // "crash at migrate.app.statement.after, hit 2"
  std::string detail;              // What happened and, when unsafe, what an operator must do.
  std::string force_to;            // kNeedsForce: the version `migrate force` must be given.
  std::string error;               // The line the service's log ends with: what a user sees.
  // The runner's own risk it is (RunnerRisk::id); empty: the folder's.
  std::string runner_risk;
  // Unsafe findings of the folder's, and the first of each runner risk:
  // the first case, shrunk.
  std::optional<Scenario> repro;
  std::vector<ShrinkStep> shrink_log;
  std::uint64_t seed = 0;  // The repro's seed.
};

struct MigrationCheckReport {
  std::vector<std::string> files;    // The folder's, in its order (up, then down, by version).
  std::vector<std::string> history;  // Of those, the ones --since left unjudged.
  std::string keyspace;
  std::vector<std::string> runners;
  std::vector<models::migrate::LintFinding> lint;
  std::vector<DynamicFinding> dynamic;  // By check, then runner, then file.
  std::vector<std::string> notes;       // Checks skipped and why.
  int runs = 0;                         // Simulated runs played.
  bool fail_on_runner_risks = false;    // MigrationCheckOptions'.
  // The gate: a lint error, or an unsafe finding of the folder's own (or
  // of the runner's, with fail_on_runner_risks).
  bool Unsafe() const;
  // Whether the finding counts against the folder at this gate.
  bool Fails(const DynamicFinding& finding) const;
};

// Reads and runs the folder: ReportOf(options, {PlayShard(options)}).
// REQUIRES: options.files make a source, every runner is one of
// models::migrate::kRunnerNames, 1 <= replicas <= 16, one shard.
MigrationCheckReport CheckMigrations(const MigrationCheckOptions& options);

// What a crash case's run saw, kept with the case so that a finding's
// repro is made without playing it again (findings.cc): a crash case is
// one run, and a repro is its case, or another of the check's cases.
struct CrashSeen {
  std::string site;  // The crash: the hit-th pass of site by kuri-1.
  std::uint64_t hit = 0;
  std::optional<Signature> signature;  // None: every whole-run checker held.
  std::string versions_at_crash;       // schema_migrations just after the crash.
  // kuri-1 at the end: serving or not, its log's last line, the versions.
  bool serving_at_end = false;
  std::string last_line_at_end;
  std::string versions_at_end;
  friend bool operator==(const CrashSeen&, const CrashSeen&) = default;
};

// A case played and judged, before cases are grouped: what a worker
// process sends back (ShardToJson).
struct JudgedCase {
  std::uint64_t index = 0;  // In the order every shard counts the cases.
  std::string check;
  std::string runner;
  std::string store;
  std::string file;
  std::string label;
  Verdict verdict = Verdict::kSafe;
  std::string detail;
  std::string error;
  std::string force_to;
  std::optional<std::size_t> ran;  // Statements of `file` that had run, when known.
  std::uint64_t seed = 0;
  Scenario scenario;  // Only a shard's first case of each group carries it (else empty).
  // The images of `scenario` kept without their files, which are the
  // checked folder's: by index, the version they go up to (up and down
  // files, in version order), or none for the folder as it was read. A
  // check keeps a scenario per group of findings, and a 1,000-file folder
  // makes 3,000 groups: with the folder in each, 2.9 GB.
  std::map<std::size_t, std::optional<std::uint64_t>> folder_images;
  std::optional<CrashSeen> crash_seen;  // Crash cases.
  // A crash case that shares the run of case `shares` (a crash at the pass
  // just after that case's, nothing run between: BranchCallbacks::
  // share_quiet_points): judged as that run ended, and saw what it saw
  // (crash_seen, but for the crash); no run of its own.
  std::optional<std::uint64_t> shares;
  // Sharded: the case it shares is another shard's, so it is judged when
  // the shards' answers are merged (crash_seen names its crash alone).
  bool awaits_share = false;
};
struct PlayedShard {
  std::vector<JudgedCase> cases;
  std::vector<std::pair<std::uint64_t, std::string>> notes;  // (case index when said, note)
  std::vector<models::migrate::LintFinding> refused;         // The clean runs' store-refuses.
  // Each runner's run without a crash, which its crash cases branch from:
  // its signature (none: every checker held), for shrinking their repros.
  std::map<std::string, std::optional<Signature>> trunk_signatures;
  int runs = 0;
  // Which shard it was, and how many cases it counted in all (every shard
  // counts the same cases; it plays its own): for checking the answers.
  std::uint64_t shard_index = 0;
  std::uint64_t shard_count = 1;
  std::uint64_t total_cases = 0;
};
// What is wrong with the shards' answers as one check (not one answer per
// shard, case counts that differ, a case played twice or by another shard);
// nullopt when they make one.
std::optional<std::string> ShardsDisagree(const std::vector<PlayedShard>& shards);
// The cases of options.shard, played and judged.
PlayedShard PlayShard(const MigrationCheckOptions& options);
// The report from every shard's cases: the static rules, the cases grouped
// in their order, each unsafe group's first case shrunk. The same report
// whatever the shards, as long as together they played every case once.
// With `made`, the repros are those MakeRepros made (all of them,
// elsewhere: worker processes); without, they are made here.
struct ReproMade {
  std::uint64_t group = 0;  // Among the unsafe findings, in report order.
  Scenario scenario;
  std::vector<ShrinkStep> log;
  int runs = 0;
};
MigrationCheckReport ReportOf(const MigrationCheckOptions& options,
                              const std::vector<PlayedShard>& shards,
                              const std::vector<ReproMade>* made = nullptr);
// The repros of every shard.count-th unsafe finding from shard.index.
std::vector<ReproMade> MakeRepros(const MigrationCheckOptions& options,
                                  const std::vector<PlayedShard>& shards,
                                  MigrationCheckOptions::Shard shard);
std::string ReprosToJson(const std::vector<ReproMade>& made);
std::optional<std::vector<ReproMade>> ReprosFromJson(std::string_view text);
// A shard's answer as text and back (nullopt: not one).
std::string ShardToJson(const PlayedShard& shard);
std::optional<PlayedShard> ShardFromJson(std::string_view text);

// The store as the command line names it: "yugabyte" for "2.20".
std::string_view StoreName(std::string_view store_version);

// The keyspaces the simulated cluster uses itself, which a folder cannot
// be checked in; empty when `keyspace` is usable, else why not.
std::string KeyspaceProblem(std::string_view keyspace);

}  // namespace faultline::scenarios
