// The risks a runner's own design brings to every folder, told apart from
// what a folder's content does (check_migrations.h, RunnerRisks): one
// table, one entry a risk. A finding is the runner's when the outcome is
// the design's and the folder's content made no part of it: the usual
// recovery (force the version before, and the file runs again) works, or
// the files ran again from the first without an error.
#include <algorithm>

#include "scenarios/check_migrations/check_migrations.h"
#include "scenarios/check_migrations/statements.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

using models::migrate::MigrationSource;

// The version `file` (an up file's name) migrates to; none for the folder.
std::optional<std::uint64_t> VersionOf(const MigrationSource& source, const std::string& file) {
  for (const auto& [version, migration] : source.migrations()) {
    if (migration.up_name == file) return version;
  }
  return std::nullopt;
}

// A dirty version whose way out is `migrate force` to the version before
// it: the file then runs again, whole, and runs without an error. Forced
// to the file's own version instead, the file could not run twice: the
// folder's doing (its statements), said per file.
bool ForcedToTheVersionBefore(const DynamicFinding& finding, const MigrationSource& source,
                              std::optional<std::uint64_t> /*rows_from*/) {
  const std::optional<std::uint64_t> version = VersionOf(source, finding.file);
  if (!version) return false;
  const std::optional<std::uint64_t> before = source.Prev(*version);
  return finding.force_to == (before ? std::to_string(*before) : "-1");
}

// A lost version after which every file ran again from the first without
// an error (no way out needed), or whose way out is the version before
// the lost file's: the lost file itself runs again, and what kept it down
// is an earlier file that cannot run twice, judged in its own findings (or
// history, with --since). Forced to the lost file's own version instead,
// the lost file could not run again: the folder's.
// A file that writes rows (INSERT, UPDATE, DELETE) and runs again makes
// the rerun the folder's concern: the rows it writes again overwrite what
// changed since. Only the files up to the lost one run again.
bool RanAgainOrTheFileItselfCan(const DynamicFinding& finding, const MigrationSource& source,
                                std::optional<std::uint64_t> rows_from) {
  const std::optional<std::uint64_t> version = VersionOf(source, finding.file);
  if (rows_from && (!version || *version >= *rows_from)) return false;
  return finding.force_to.empty() || ForcedToTheVersionBefore(finding, source, rows_from);
}

bool Always(const DynamicFinding&, const MigrationSource&, std::optional<std::uint64_t>) {
  return true;
}

}  // namespace

const std::vector<RunnerRisk>& RunnerRisks() {
  // golang-migrate v4 (migrate.go runMigrations; database/cassandra's
  // SetVersion and Lock), as models/migrate models it and
  // shared/reference/golang-migrate.md describes it.
  static const std::vector<RunnerRisk> kRisks = {
      {"golang-migrate/dirty-until-forced", "golang-migrate", "crash", Verdict::kNeedsForce,
       &ForcedToTheVersionBefore,
       "a crash mid-file leaves the version dirty until someone forces it",
       "a crash between SetVersion(dirty) and SetVersion(clean) leaves the version dirty: the "
       "service stays down until an operator runs `migrate force` to the version before and "
       "restarts it (golang-migrate records no progress inside a file, so it cannot resume "
       "one)"},
      {"golang-migrate/lost-version", "golang-migrate", "crash", Verdict::kLostVersion,
       &RanAgainOrTheFileItselfCan, "a crash inside SetVersion empties the version table",
       "SetVersion deletes the version row, then inserts the new one, with nothing to make the "
       "two one write: a crash between them empties the version table, and the next start runs "
       "every file again from the first (an earlier file that cannot run twice then keeps it "
       "down until `migrate force` to the version before the lost one)"},
      {"golang-migrate/rollback-needs-force", "golang-migrate", "rollback", Verdict::kNeedsForce,
       &Always, "an older image does not start on a newer version until forced",
       "an image whose folder lacks the database's newest version does not start (`no migration "
       "found for version N`): a release that adds a file is rolled back only with `migrate "
       "force`, or with `migrate down` run by the newer image first"},
  };
  return kRisks;
}

const RunnerRisk* RiskOf(const DynamicFinding& finding, const MigrationSource& source,
                         std::optional<std::uint64_t> rows_from) {
  for (const RunnerRisk& risk : RunnerRisks()) {
    if (risk.runner == finding.runner && risk.check == finding.check &&
        risk.verdict == finding.verdict && risk.applies(finding, source, rows_from)) {
      FL_ASSERT_MSG(InfoOf(risk.verdict).unsafe, "runner risk {} of a safe verdict", risk.id);
      return &risk;
    }
  }
  return nullptr;
}

const RunnerRisk& RunnerRiskNamed(std::string_view id) {
  const auto& risks = RunnerRisks();
  const auto it = std::find_if(risks.begin(), risks.end(),
                               [&](const RunnerRisk& risk) { return risk.id == id; });
  FL_ASSERT_MSG(it != risks.end(), "no runner risk {}", id);
  return *it;
}

}  // namespace faultline::scenarios
