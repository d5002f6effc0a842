// The parts of check-migrations' reports that several formats share
// (internal to check_migrations/): where a finding is, how many, the
// runner's risks the run met, and their words.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "models/migrate/lint.h"
#include "scenarios/check_migrations/check_migrations.h"
#include "scenarios/check_migrations/report.h"

namespace faultline::scenarios::reporting {

inline constexpr const char* kFolderItself = "(folder)";

// The file a finding is about; kFolderItself for the folder.
std::string FileOf(const DynamicFinding& finding);
std::string FileOf(const models::migrate::LintFinding& finding);

// The files findings name, in the folder's order; then any other path they
// name (the sum file); the folder itself last. With `every_file`, each file
// of the folder, findings or not.
std::vector<std::string> FilesInOrder(const MigrationCheckReport& report, bool every_file = false);

// Where a finding is, as a path: a file of the folder under the folder's
// path, the folder itself, or a path given as it is (the sum file).
std::string PathOf(const ReportContext& context, const std::string& file, bool in_folder = true);

int CountLint(const MigrationCheckReport& report, models::migrate::Severity severity);

// The unsafe findings that fail the gate.
int CountUnsafe(const MigrationCheckReport& report);

// The runner's own risks that the run met, each once: how many cases in
// how many files, and the first finding's repro.
struct RiskMet {
  const RunnerRisk* risk = nullptr;
  std::size_t cases = 0;
  std::set<std::string> files;
  std::string repro;
};
std::vector<RiskMet> RisksMet(const MigrationCheckReport& report, const ReportContext& context,
                              std::string_view runner);

// "force 3", "force -- -1", "no force works".
std::string ForceText(const std::string& to);
// "1 case", "3 cases".
std::string Plural(int n, std::string_view word);
// A finding's first `shown` cases, "and N more".
std::string CasesText(const DynamicFinding& finding, std::size_t shown = 3);

}  // namespace faultline::scenarios::reporting
