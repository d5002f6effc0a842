// Each check's verdict on a case, and the operator's way out: the
// `migrate force` that brings a replica back, tried in the simulation
// (checker.h).
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
#include "scenarios/shrink/signature.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios::check {

bool Checker::JudgeClean(Case& c, const Played& played) {
  const Observed& seen = played.seen.at(Moment::kStarted).front();
  if (!seen.serving || HasTheFoldersSchema(seen)) return false;
  c.verdict = Verdict::kSilentDrift;
  const auto diff = models::migrate::SchemaDiff(expected_, seen.schema());
  c.detail = fmt::format("it serves, but {}", diff.empty() ? "the schema differs" : diff.front());
  c.error = seen.last_line;
  return true;
}

// How many statements of its file had run at a golang-migrate crash case's
// crash (kept unknown when the crash is in another file).
void Checker::RanAt(Case& c) const {
  c.ran.reset();
  if (c.runner != "golang-migrate" || c.scenario.faults.empty()) return;
  const FaultSpec& crash = c.scenario.faults.front();
  if (const auto at = passes_->RanAtCrash(options_.keyspace, crash.site, crash.hit);
      at && at->first == c.file) {
    c.ran = at->second;
  }
}

bool Checker::JudgeCrashPlayed(Case& c, const Played& played) {
  const Observed& crashed = played.seen.at(Moment::kCrashed).front();
  const Observed& restarted = played.seen.at(Moment::kRestarted).front();
  c.file = played.in_flight;
  c.ran.reset();
  c.crash_seen.reset();
  // A case has its crash; a shrinking try may have none (the shrinker
  // drops faults first), and is judged here too.
  FL_ASSERT(c.scenario.faults.size() <= 1);
  const bool has_crash = !c.scenario.faults.empty();
  if (has_crash) {
    c.crash_seen = CrashSeen{.site = c.scenario.faults.front().site,
                             .hit = c.scenario.faults.front().hit,
                             .signature = SignatureOf(c.scenario, played.result),
                             .versions_at_crash = crashed.versions,
                             .serving_at_end = restarted.serving,
                             .last_line_at_end = restarted.last_line,
                             .versions_at_end = restarted.versions};
  }
  RanAt(c);
  if (c.runner == "golang-migrate" && crashed.versions == "none" && !crashed.schema().empty()) {
    c.verdict = Verdict::kLostVersion;
    c.detail = fmt::format(
        "the crash left schema_migrations empty with {} table(s) in the keyspace; the restart "
        "runs every file again from the first{}",
        crashed.schema().size(), restarted.serving ? ", and they happened to succeed" : "");
    // (A restart that failed may have run none.)
    // (The finding's risk, said of each of its cases: a crash in the lost
    // file's dirty SetVersion comes before its body runs, one in its clean
    // SetVersion after, and the restart runs it again.)
    const auto version = version_of_file_.find(c.file);
    const bool reruns_rows =
        rows_from_ && (version == version_of_file_.end() || version->second >= *rows_from_);
    if (restarted.serving && reruns_rows) {
      c.detail +=
          "; a lost version here makes the restart run the data statements (INSERT, UPDATE, "
          "DELETE) of the files up to this one again, writing back rows as they were when they "
          "first ran";
    }
    c.error = restarted.serving ? "" : restarted.last_line;  // Serving: no error to show.
    if (!restarted.serving) LostVersionWayOut(c, restarted);
  } else if (restarted.serving && HasTheFoldersSchema(restarted)) {
    const bool clean = Consistent(crashed, c.runner);
    c.verdict = clean ? Verdict::kSafe : Verdict::kRecovers;
    c.detail = clean
                   ? fmt::format("the crash left a clean state ({})", StateText(crashed, c.runner))
                   : fmt::format("the crash left it half-way ({}), and the restart finished it",
                                 StateText(crashed, c.runner));
  } else {
    Unserved(c, played.seen.at(Moment::kRestarted), 1, false);
  }
  return true;
}

bool Checker::JudgeUpgradeFromEmpty(Case& c, const Played& played) {
  return JudgeUpgradePlayed(c, played, true);
}

bool Checker::JudgeUpgradePlayed(Case& c, const Played& played, bool first_image_seen) {
  if (first_image_seen) {
    const Observed& before = played.seen.at(Moment::kFirstImageServes).front();
    if (!before.serving) {
      NoteOf(c, fmt::format("{}: {}: the release before does not start itself: {}", c.runner,
                            c.label, before.last_line));
      return false;
    }
  }
  const std::vector<Observed>& end = played.seen.at(Moment::kSecondImageStarted);
  if (AllServeTheFolder(end)) {
    c.verdict = Verdict::kSafe;
    c.detail = "the new files applied on the kept volume";
  } else {
    Unserved(c, end, 1, false);
  }
  return true;
}

bool Checker::JudgeRollback(Case& c, const Played& played) {
  const std::vector<Observed>& end = played.seen.at(Moment::kSecondImageStarted);
  if (AllServeTheFolder(end, false)) {
    c.verdict = Verdict::kSafe;
    c.detail = "the previous image starts on the newer schema";
  } else {
    Unserved(c, end, 1, true);
  }
  return true;
}

bool Checker::JudgeConcurrentPlayed(Case& c, const Played& played) {
  // A pause the run never reached makes no schedule of its own (a replica
  // failed, or waited for the lock, before it).
  if (!c.scenario.faults.empty() && !played.fault_fired) return false;
  const int replicas = c.scenario.nodes;
  const std::vector<Observed>& end = played.seen.at(Moment::kStarted);
  if (AllServeTheFolder(end)) {
    const bool restarted =
        std::any_of(end.begin(), end.end(), [](const Observed& s) { return s.restarts > 0; });
    const bool failed = restarted || !played.failures.empty();
    c.verdict = failed ? Verdict::kRecovers : Verdict::kSafe;
    c.detail = failed ? "a replica failed, and its restart or start-up retry finished the "
                        "migration"
                      : fmt::format("every replica came up in each schedule tried: {}",
                                    RaceBound(c.runner));
    if (!played.failures.empty()) {
      const InFlight::Failure& first = played.failures.front();
      c.file = FileOf(static_cast<std::int64_t>(first.version));
      c.error = first.process + ": " + FailureWords(first.text);
      c.detail = fmt::format("{}'s migration of {} failed ({}), and its retry found it done",
                             first.process, first.version, FailureWords(first.text));
      if (c.runner == "golang-migrate") {
        // A loser's dirty flag is gone only because the winner's
        // SetVersion, later, replaced every row: a slower winner leaves
        // it dirty (needs-force).
        c.detail += ": it came up because the winner's SetVersion overwrote its dirty flag";
      }
    }
  } else {
    // With --since, a race is the file's whose migration failed first
    // (the version table two replicas wrote may name none): a shipped
    // file's race is history, not judged.
    if (options_.since && c.file.empty() && !played.failures.empty()) {
      c.file = FileOf(static_cast<std::int64_t>(played.failures.front().version));
    }
    Unserved(c, end, replicas, false);
  }
  return true;
}

bool Checker::JudgeDownUp(Case& c, const Played& played) {
  const Observed& undone = played.seen.at(Moment::kAllDown).front();
  const Observed& again = played.seen.at(Moment::kUpAgain).front();
  const std::string newest = std::to_string(source_.migrations().rbegin()->first) + " clean";
  if (!undone.schema().empty()) {
    c.verdict = Verdict::kNeedsRepair;
    std::vector<std::string> left;
    for (const auto& [table, columns] : undone.schema()) left.push_back(table);
    c.detail = fmt::format(
        "down -all leaves {} table(s) ({}) and schema_migrations at {}: the "
        "down files that failed or that dropped too little are to fix",
        left.size(), Joined(left), undone.versions);
    c.error = FirstLine(played.result.steps[Moment::kAllDown].outcome);
  } else if (again.schema() != expected_ || again.versions != newest) {
    c.verdict = Verdict::kNeedsRepair;
    c.detail = fmt::format("up after down -all ends at {}", again.versions);
    c.error = FirstLine(played.result.steps[Moment::kUpAgain].outcome);
  } else {
    c.verdict = Verdict::kSafe;
    c.detail = "down -all empties the keyspace and up rebuilds it";
  }
  return true;
}

// The verdict for replicas that do not all serve the folder at the end.
void Checker::Unserved(Case& c, const std::vector<Observed>& end, int replicas, bool any_schema) {
  std::optional<MigrationSource> rollback_image;
  const MigrationSource& image = ImageAtEnd(c, rollback_image);
  const Observed* down = FirstDown(end);
  if (down == nullptr) {
    c.verdict = Verdict::kSilentDrift;
    const auto diff = models::migrate::SchemaDiff(expected_, end.front().schema());
    c.detail = fmt::format("it serves, but {}", diff.empty() ? "the schema differs" : diff.front());
    c.error = end.front().last_line;
    return;
  }
  c.error = down->last_line;
  const auto one = OneVersion(down->versions);
  if (c.file.empty() && one) c.file = FileOf(one->first);
  // Only golang-migrate's version table is forced; another runner's
  // refusal is for its log to explain.
  const std::optional<std::string> to = c.runner == "golang-migrate"
                                            ? ForceThatWorks(c, *down, image, replicas, any_schema)
                                            : std::nullopt;
  if (to) {
    c.verdict = Verdict::kNeedsForce;
    c.force_to = *to;
    c.detail = fmt::format("it stays down ({}); `{}` on keyspace {} and a restart bring it up",
                           StateText(*down, c.runner), ForceCommand(*to), options_.keyspace);
    const bool forced_itself = one && *to == std::to_string(one->first);
    const models::migrate::Migration* migration =
        forced_itself ? image.Find(static_cast<std::uint64_t>(one->first)) : nullptr;
    if (migration != nullptr && one->second) {
      // The usual way out, the version before, was tried first and failed.
      const auto before = image.Prev(static_cast<std::uint64_t>(one->first));
      c.detail += fmt::format(
          "; the usual way out, `{}` so that the file runs again, fails: the file cannot run "
          "twice",
          ForceCommand(before ? std::to_string(*before) : "-1"));
    }
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
      StatementsThatRan(source_, options_.keyspace, one ? one->first : -1, down->schema(), c.ran));
}

// `migrate force X` then a restart of every replica, for each X an
// operator would try after `versions`; the first that brings every
// replica up (with the folder's schema, unless `any_schema`). With a
// dirty version V: the one before it first (V runs again, whole), then V
// itself (V counts as done), but V never when it is known that only part
// of it ran: a schema can look complete while a data statement never
// ran. A version the image's folder lacks (a rollback): its newest.
std::optional<std::string> Checker::ForceThatWorks(const Case& c, const Observed& seen,
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
  } else {
    // Several rows (replicas' SetVersions interleaved: golang-migrate's
    // Cassandra driver reads one of them, LIMIT 1): `migrate force V`
    // leaves the one row V, clean. Each recorded version, newest first.
    for (const std::int64_t version : RecordedVersionNumbers(seen.versions)) {
      candidates.push_back(std::to_string(version));
    }
  }
  // A race: another replica may have applied every file before the
  // loser's SetVersion wrote its own version over the winner's.
  if (c.check == "concurrent" && !image.empty()) {
    const std::string newest = std::to_string(image.migrations().rbegin()->first);
    if (std::find(candidates.begin(), candidates.end(), newest) == candidates.end()) {
      candidates.push_back(newest);
    }
  }
  for (const std::string& to : candidates) {
    if (ForcedServes(c, to, replicas, any_schema)) return to;
  }
  return std::nullopt;
}

std::vector<Step> Checker::ForceSteps(const std::string& to, int replicas) const {
  Step force = ForService(Step::Kind::kMigrate, kSubject,
                          fmt::format("The operator forces version {}.", to));
  force.keyspace = options_.keyspace;
  force.command = ForceCommand(to).substr(std::string_view("migrate ").size());
  std::vector<Step> steps = {force};
  for (int node = 1; node <= replicas; ++node) {
    steps.push_back(ForService(Step::Kind::kRestart, NodeName(node), "Restart."));
  }
  steps.push_back(Wait(kRetriesGiveUp, "Wait for it to come up."));
  return steps;
}

// The failed case played again with the force steps after it: from the
// case's held end in a forked case (one replica), else from empty.
bool Checker::ForcedServes(const Case& c, const std::string& to, int replicas, bool any_schema) {
  if (case_end_ != nullptr) {
    CountRun();
    const std::string answer = case_end_->Ask(to);
    FL_ASSERT_MSG(answer.size() == 2, "a held case's answer is '{}'", answer);
    return answer[any_schema ? 1 : 0] == '1';
  }
  Scenario forced = c.scenario;
  for (Step& step : ForceSteps(to, replicas)) forced.steps.push_back(std::move(step));
  const Played played = Play(forced, c.seed, {forced.steps.size() - 1}, replicas);
  return AllServeTheFolder(played.seen.at(forced.steps.size() - 1), !any_schema);
}

// A lost version that keeps the service down: the version an operator
// must write back is the one being recorded when the crash came (the
// file in flight if it ran whole, else the one before), found by trying
// it as for a dirty version.
void Checker::LostVersionWayOut(Case& c, const Observed& restarted) {
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

}  // namespace faultline::scenarios::check
