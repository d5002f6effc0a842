// The checker's shard and merging: which cases a shard plays, every shard's
// cases merged in one order, and the checks' table (checker.h).
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "models/migrate/runner.h"
#include "models/migrate/schema_check.h"
#include "models/s3/seed_images.h"
#include "scenarios/check_migrations/checker.h"
#include "scenarios/check_migrations/statements.h"
#include "scenarios/harness/runner.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios::check {

Case NewCase(std::uint64_t index, std::string check, std::string runner, std::string store) {
  Case c;
  c.index = index;
  c.check = std::move(check);
  c.runner = std::move(runner);
  c.store = std::move(store);
  return c;
}

Checker::Checker(const MigrationCheckOptions& options) : options_(options) {
  sim::Result<MigrationSource> source = MigrationSource::FromFiles(options.files);
  FL_ASSERT_MSG(source.ok(), "a folder checked when read: {}", source.status().ToString());
  source_ = std::move(source).value();
  FL_ASSERT_MSG(!source_.empty(), "an empty folder is refused when read");
  schema_every_ = std::max<std::size_t>(
      schema_every_, (source_.migrations().size() + kSchemaMarks - 1) / kSchemaMarks);
  SchemaModel schema;
  std::size_t read = 0;
  for (const auto& [version, migration] : source_.migrations()) {
    ApplyUp(migration, schema);
    if (++read % schema_every_ == 0) schema_marks_.emplace(version, schema);
    if (migration.up) version_of_file_.emplace(migration.up_name, version);
  }
  FL_ASSERT(schema_marks_.size() <= kSchemaMarks);
  expected_ = std::move(schema);
  passes_.emplace(source_);
  rows_from_ = FirstVersionWritingRows(source_);
  FL_ASSERT(options.replicas >= 1 && options.replicas <= models::s3::kMaxNodes);
  FL_ASSERT(!options.stores.empty());
  dialect_ = models::s3::StoreDialect(options.stores.front());
  FL_ASSERT(KeyspaceProblem(options.keyspace).empty());
}

// The shard's part: the clean runs (every shard plays them; only shard
// 0 counts them), then the cases the shard owns, judged.
PlayedShard Checker::PlayShard() {
  bool golang_migrate_applies = false;
  bool nothing_new = false;
  if (options_.since) {
    const auto& migrations = source_.migrations();
    const auto shipped = static_cast<std::size_t>(
        std::count_if(migrations.begin(), migrations.end(),
                      [&](const auto& m) { return m.first <= *options_.since; }));
    Note(fmt::format("--since {}: {} of {} file(s) are history, applied first and not judged",
                     *options_.since, shipped, migrations.size()));
    nothing_new = shipped == migrations.size();
    if (nothing_new) {
      Note(fmt::format("no file after version {}: nothing new to judge", *options_.since));
    }
  }
  // A statement the parser refuses fails every runner but db-init (which
  // would skip it and serve without it): nothing to learn by running. A
  // down file's too: the down-up check runs it, and the docs promise that
  // any parse-error stops the run.
  const auto parses_text = [this](const std::optional<std::string>& text) {
    return !text || !models::migrate::FindSyntaxError(*text, dialect_);
  };
  const bool parses =
      std::all_of(source_.migrations().begin(), source_.migrations().end(), [&](const auto& entry) {
        return parses_text(entry.second.up) && parses_text(entry.second.down);
      });
  if (!parses && !options_.runners.empty()) {
    Note(
        "the folder has statements the store's CQL parser refuses (parse-error): no runner was "
        "run; fix them first");
  }
  const bool play = parses && !nothing_new;
  for (const std::string& runner : play ? options_.runners : std::vector<std::string>{}) {
    if (!CleanRun(runner)) continue;  // A folder the store refuses has nothing more to show.
    golang_migrate_applies |= runner == "golang-migrate";
    for (const CheckEntry& check : Checks()) {
      if (check.per_runner && check.play != nullptr) (this->*check.play)(runner);
    }
  }
  // down-up is golang-migrate's CLI: asked for only with that runner,
  // and only when the folder applies at all.
  for (const CheckEntry& check : Checks()) {
    if (!check.per_runner && golang_migrate_applies) (this->*check.play)("golang-migrate");
  }
  played_.shard_index = options_.shard.index;
  played_.shard_count = options_.shard.count;
  played_.total_cases = next_case_;
  return std::move(played_);
}

// The report from every shard's cases, in the order they were counted
// (so the same whatever the shards): grouped, the unsafe ones shrunk
// here, or taken from `made` (MakeRepros, elsewhere).
MigrationCheckReport Checker::ReportOf(const std::vector<PlayedShard>& shards,
                                       const std::vector<ReproMade>* made) {
  Merge(shards);
  Finish(made);
  report_.runs += played_.runs;  // The shrinker's own runs, here.
  return std::move(report_);
}

// The repros of the unsafe groups (numbered in report order) that `shard`
// owns.
std::vector<ReproMade> Checker::MakeRepros(const std::vector<PlayedShard>& shards,
                                           MigrationCheckOptions::Shard shard) {
  Merge(shards);
  // A worker's own progress line names the phase as one process would.
  current_check_ = kShrinkingPhase;
  std::vector<ReproMade> made;
  const std::vector<Key> repro_groups = ReproGroups();
  for (std::uint64_t group = 0; group < repro_groups.size(); ++group) {
    if (group % shard.count != shard.index) continue;
    auto& [finding, first] = groups_.at(repro_groups[group]);
    PutTheFolderBack(first);
    const int runs_before = report_.runs + played_.runs;
    Repro(finding, first);
    made.push_back({group, std::move(*finding.repro), std::move(finding.shrink_log),
                    report_.runs + played_.runs - runs_before});
  }
  return made;
}

// The crash cases that share a run another shard played
// (JudgedCase::awaits_share), judged from that shard's case (none when it
// had no finding), and taken out of `cases`.
std::deque<JudgedCase> Checker::JudgedFromOtherShards(std::vector<const JudgedCase*>& cases) {
  std::map<std::uint64_t, const JudgedCase*> played;
  for (const JudgedCase* c : cases) {
    if (!c->awaits_share) played.emplace(c->index, c);
  }
  std::deque<JudgedCase> judged;
  for (const JudgedCase* waits : cases) {
    if (!waits->awaits_share) continue;
    FL_ASSERT(waits->shares && waits->crash_seen);
    const auto it = played.find(*waits->shares);
    if (it == played.end()) continue;  // That case had no finding (or is history's).
    // (A case played alone counts its run in played_.)
    std::optional<Case> copy = JudgedFromShared(
        CrashCaseOf(waits->index, waits->runner, waits->crash_seen->site, waits->crash_seen->hit),
        *it->second);
    if (copy && !History(copy->file)) judged.push_back(std::move(*copy));
  }
  std::erase_if(cases, [](const JudgedCase* c) { return c->awaits_share; });
  return judged;
}

// Every shard's cases, grouped in their order; the static rules; the
// notes and store-refuses findings each shard said once.
void Checker::Merge(const std::vector<PlayedShard>& shards) {
  for (const auto& [version, migration] : source_.migrations()) {
    if (migration.up) report_.files.push_back(migration.up_name);
    if (migration.down) report_.files.push_back(migration.down_name);
    for (const std::string& name : {migration.up_name, migration.down_name}) {
      if (!name.empty() && History(name)) report_.history.push_back(name);
    }
  }
  report_.keyspace = options_.keyspace;
  report_.fail_on_runner_risks = options_.fail_on_runner_risks;
  report_.runners = options_.runners;
  report_.lint = models::migrate::LintFolder({.files = options_.files,
                                              .keyspace = options_.keyspace,
                                              .older = options_.older ? &*options_.older : nullptr,
                                              .older_name = options_.older_name,
                                              .sum = options_.sum,
                                              .sum_name = options_.sum_name,
                                              .dialect = dialect_});
  // --since: a shipped file's content is not judged again; what speaks of
  // a change to it, or keeps the folder from running, is.
  std::erase_if(report_.lint, [&](const models::migrate::LintFinding& finding) {
    return finding.in_folder && History(finding.file) &&
           !models::migrate::RuleOf(finding.rule).judges_history;
  });
  std::vector<const JudgedCase*> cases;
  std::vector<std::pair<std::uint64_t, std::string>> notes;
  for (const PlayedShard& shard : shards) {
    report_.runs += shard.runs;
    trunk_signatures_.insert(shard.trunk_signatures.begin(), shard.trunk_signatures.end());
    for (const JudgedCase& judged : shard.cases) cases.push_back(&judged);
    notes.insert(notes.end(), shard.notes.begin(), shard.notes.end());
    for (const models::migrate::LintFinding& refused : shard.refused) {
      // Every shard plays the clean runs: each says the same.
      if (std::find(report_.lint.begin(), report_.lint.end(), refused) == report_.lint.end()) {
        report_.lint.push_back(refused);
      }
    }
  }
  std::deque<JudgedCase> shared = JudgedFromOtherShards(cases);
  for (const JudgedCase& judged : shared) cases.push_back(&judged);
  std::sort(cases.begin(), cases.end(),
            [](const JudgedCase* a, const JudgedCase* b) { return a->index < b->index; });
  for (std::size_t i = 1; i < cases.size(); ++i) {
    FL_ASSERT_MSG(cases[i - 1]->index != cases[i]->index, "case {} played twice", cases[i]->index);
  }
  for (const JudgedCase* judged : cases) {
    if (judged->crash_seen) {
      Case kept = *judged;
      kept.scenario = Scenario();
      kept.folder_images.clear();
      crash_cases_.emplace(
          std::make_tuple(judged->runner, judged->crash_seen->site, judged->crash_seen->hit),
          std::move(kept));
    }
    Group(*judged);
  }
  std::stable_sort(notes.begin(), notes.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [key, note] : notes) {
    if (std::find(report_.notes.begin(), report_.notes.end(), note) == report_.notes.end()) {
      report_.notes.push_back(std::move(note));
    }
  }
  LeaveOutIgnored();
}

// What the folder's ignores cover leaves the report (and its repros), and
// the report says so: what, where, why, how many; or that one matched
// nothing.
void Checker::LeaveOutIgnored() {
  for (const Ignore& ignore : options_.ignores) {
    const auto covers = [&](const std::string& file, std::string_view rule) {
      return (ignore.file.empty() || ignore.file == file) && ignore.rule == rule;
    };
    const std::size_t lint_before = report_.lint.size();
    std::erase_if(report_.lint, [&](const models::migrate::LintFinding& finding) {
      return finding.in_folder && covers(finding.file, finding.rule);
    });
    std::size_t left_out = lint_before - report_.lint.size();
    std::erase_if(order_, [&](const Key& key) {
      const DynamicFinding& finding = groups_.at(key).first;
      // A verdict's name covers the folder's findings; a runner's risk is
      // covered by its own id only.
      const bool covered =
          InfoOf(finding.verdict).unsafe &&
          (finding.runner_risk.empty() ? covers(finding.file, InfoOf(finding.verdict).name)
                                       : covers(finding.file, finding.runner_risk));
      if (covered) left_out += 1;
      return covered;
    });
    const std::string what = ignore.file.empty() ? "the folder" : ignore.file;
    report_.notes.push_back(
        left_out == 0 ? fmt::format("{}: faultline:ignore {} matched nothing in {}", ignore.where,
                                    ignore.rule, what)
                      : fmt::format("ignored {} in {} ({}: {}): {} finding(s)", ignore.rule, what,
                                    ignore.where, ignore.reason, left_out));
  }
}

// The next case's index; whether this shard plays it.
std::uint64_t Checker::TakeIndex() { return next_case_++; }

bool Checker::Mine(std::uint64_t index) const {
  return index % options_.shard.count == options_.shard.index;
}

// A note every shard says (before the next case), and one only the shard
// that plays a case says: keyed so that their order is the same whatever
// the shards.
void Checker::Note(std::string note) {
  played_.notes.emplace_back(2 * next_case_, std::move(note));
}

void Checker::NoteOf(const Case& c, std::string note) {
  played_.notes.emplace_back(2 * c.index + 1, std::move(note));
}

// A judged case, kept for the report. Only a group's first case is
// shrunk: the others travel without their scenario (each holds the whole
// folder). A group's first case overall is the first of its shard,
// whichever shard plays it.
void Checker::Judged(const Case& c) {
  if (History(c.file)) return;  // --since: applied first, not judged (a race in a shipped file).
  JudgedCase judged = c;
  if (!first_of_group_.insert(KeyOf(c)).second) {
    judged.scenario = Scenario();
  } else {
    LeaveOutTheFolder(judged);
  }
  played_.cases.push_back(std::move(judged));
}

Checker::Key Checker::KeyOf(const Case& c) {
  return std::make_tuple(c.check, c.runner, c.store, c.file, c.verdict, c.force_to);
}

// The checks, one entry each, in the order they run and reports list them
// (kChecks names them for the reports). The clean run plays first, for
// every runner: the gate the others need (CleanRun); the others make and
// play their cases for each runner whose clean run applied, or once for
// the folder.
const std::vector<Checker::CheckEntry>& Checker::Checks() {
  static const std::vector<CheckEntry> kEntries = [] {
    std::vector<CheckEntry> entries = {
        {"clean", true, nullptr, {Moment::kStarted}, &Checker::JudgeClean},
        {"crash",
         true,
         &Checker::CrashCheck,
         {Moment::kCrashed, Moment::kRestarted},
         &Checker::JudgeCrashPlayed},
        {"upgrade",
         true,
         &Checker::UpgradeCheck,
         {Moment::kFirstImageServes, Moment::kSecondImageStarted},
         &Checker::JudgeUpgradeFromEmpty},
        {"rollback",
         true,
         &Checker::RollbackCheck,
         {Moment::kSecondImageStarted},
         &Checker::JudgeRollback},
        {"concurrent",
         true,
         &Checker::ConcurrentCheck,
         {Moment::kStarted},
         &Checker::JudgeConcurrentPlayed},
        // golang-migrate's CLI: once, when that runner applies the folder.
        {"down-up",
         false,
         &Checker::DownUpCheck,
         {Moment::kAllDown, Moment::kUpAgain},
         &Checker::JudgeDownUp},
    };
    FL_ASSERT(entries.size() == std::size(kChecks));
    for (std::size_t i = 0; i < entries.size(); ++i) {
      FL_ASSERT_MSG(entries[i].name == kChecks[i], "check {} is not kChecks' {}", entries[i].name,
                    kChecks[i]);
      FL_ASSERT(entries[i].judge != nullptr && !entries[i].moments.empty());
      FL_ASSERT(entries[i].play != nullptr || entries[i].name == "clean");
    }
    return entries;
  }();
  return kEntries;
}

bool Checker::Judge(Case& c) { return JudgePlayed(c, PlayToJudge(c)); }

// Every check's case reads its last step (the shrinker's repro takes what
// it saw there for its expectations: Repro).
Played Checker::PlayToJudge(const Case& c) {
  const CheckEntry& check = CheckOf(c);
  FL_ASSERT_MSG(check.moments.contains(c.scenario.steps.size() - 1),
                "check {} does not read case {}'s last step", c.check, c.index);
  return Play(c.scenario, c.seed, check.moments, c.scenario.nodes);
}

bool Checker::JudgePlayed(Case& c, const Played& played) {
  return (this->*CheckOf(c).judge)(c, played);
}

const Checker::CheckEntry& Checker::CheckOf(const Case& c) {
  for (const CheckEntry& check : Checks()) {
    if (check.name == c.check) return check;
  }
  FL_PANIC("no check {}", c.check);
}

}  // namespace faultline::scenarios::check
