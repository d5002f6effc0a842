// The parts of check-migrations' reports that several formats share
// (report_parts.h).
#include "scenarios/check_migrations/report_parts.h"

#include <fmt/format.h>

#include <algorithm>

namespace faultline::scenarios::reporting {

using models::migrate::LintFinding;
using models::migrate::RuleOf;
using models::migrate::Severity;

std::string FileOf(const DynamicFinding& finding) {
  return finding.file.empty() ? kFolderItself : finding.file;
}

std::string FileOf(const LintFinding& finding) {
  return finding.file.empty() ? kFolderItself : finding.file;
}

// The files findings name, in the folder's order; then any other path they
// name (the sum file); the folder itself last. With `every_file`, each file
// of the folder, findings or not.
std::vector<std::string> FilesInOrder(const MigrationCheckReport& report, bool every_file) {
  std::vector<std::string> named;
  const auto add = [&](const std::string& file) {
    if (std::find(named.begin(), named.end(), file) == named.end()) named.push_back(file);
  };
  for (const LintFinding& finding : report.lint) add(FileOf(finding));
  for (const DynamicFinding& finding : report.dynamic) add(FileOf(finding));
  std::vector<std::string> files;
  for (const std::string& file : report.files) {
    const bool has = std::find(named.begin(), named.end(), file) != named.end();
    if (has || every_file) files.push_back(file);
  }
  for (const std::string& file : named) {
    const bool in_folder =
        std::find(report.files.begin(), report.files.end(), file) != report.files.end();
    if (!in_folder && file != kFolderItself) files.push_back(file);
  }
  if (std::find(named.begin(), named.end(), kFolderItself) != named.end()) {
    files.push_back(kFolderItself);
  }
  return files;
}

// Where a finding is, as a path: a file of the folder under the folder's
// path, the folder itself, or a path given as it is (the sum file).
std::string PathOf(const ReportContext& context, const std::string& file, bool in_folder) {
  if (!in_folder) return file;
  if (file.empty() || file == kFolderItself) return context.folder;
  return context.folder.empty() || context.folder.ends_with('/') ? context.folder + file
                                                                 : context.folder + "/" + file;
}

int CountLint(const MigrationCheckReport& report, Severity severity) {
  return static_cast<int>(std::count_if(report.lint.begin(), report.lint.end(), [&](const auto& f) {
    return RuleOf(f.rule).severity == severity;
  }));
}

// The unsafe findings that fail the gate.
int CountUnsafe(const MigrationCheckReport& report) {
  return static_cast<int>(std::count_if(report.dynamic.begin(), report.dynamic.end(),
                                        [&](const DynamicFinding& f) { return report.Fails(f); }));
}

// The runner's own risks that the run met, each once: how many cases in
// how many files, and the first finding's repro.
std::vector<RiskMet> RisksMet(const MigrationCheckReport& report, const ReportContext& context,
                              std::string_view runner) {
  std::vector<RiskMet> met;
  for (const RunnerRisk& risk : RunnerRisks()) {
    if (risk.runner != runner) continue;
    RiskMet one{.risk = &risk};
    for (std::size_t i = 0; i < report.dynamic.size(); ++i) {
      const DynamicFinding& f = report.dynamic[i];
      if (f.runner_risk != risk.id) continue;
      one.cases += f.cases.size();
      one.files.insert(FileOf(f));
      if (one.repro.empty()) one.repro = context.repro_files.at(i);
    }
    if (one.cases > 0) met.push_back(std::move(one));
  }
  return met;
}

std::string ForceText(const std::string& to) {
  if (to == "none") return "no force works";  // A lost version no force brings back.
  return to == "-1" ? "force -- -1" : "force " + to;
}

std::string Plural(int n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string CasesText(const DynamicFinding& finding, std::size_t shown) {
  std::string text;
  for (std::size_t i = 0; i < finding.cases.size() && i < shown; ++i) {
    text += (i == 0 ? "" : "; ") + finding.cases[i];
  }
  if (finding.cases.size() > shown)
    text += fmt::format("; and {} more", finding.cases.size() - shown);
  return text;
}

}  // namespace faultline::scenarios::reporting
