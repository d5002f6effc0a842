// check-migrations' report, in each format it writes: text for a person
// (a summary table, then each file's findings by severity), JSON, SARIF
// 2.1.0 for code-scanning dashboards, and JUnit XML for CI systems. Every
// format is made from the same report and says the same findings.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scenarios/check_migrations/check_migrations.h"

namespace faultline::scenarios {

struct ReportContext {
  std::string folder;  // The folder as the user named it; file URIs start with it.
  // The repro file of each dynamic finding (same order), relative to the
  // results directory; empty where there is none.
  std::vector<std::string> repro_files;
  bool repro_written = false;  // Whether --out wrote them.
  // The text format: every case of every finding (TextReport's full
  // detail), not the short report a pull request reads (ShortTextReport).
  bool verbose = false;
};

// "repro/03-crash-golang-migrate-needs-force.toml" for each finding with a repro.
std::vector<std::string> ReproFileNames(const MigrationCheckReport& report);

// The text format: ShortTextReport, or with context.verbose every case.
std::string TextReport(const MigrationCheckReport& report, const ReportContext& context);
// Per file first, then what to fix, what is worth a look, each log line
// once, the runner's own risks once; at most 100 columns.
std::string ShortTextReport(const MigrationCheckReport& report, const ReportContext& context);
std::string JsonReport(const MigrationCheckReport& report, const ReportContext& context);
std::string SarifReport(const MigrationCheckReport& report, const ReportContext& context);
std::string JunitReport(const MigrationCheckReport& report, const ReportContext& context);
// GitHub Actions workflow commands (an annotation per finding), then the
// short text report.
std::string GithubReport(const MigrationCheckReport& report, const ReportContext& context);

// The formats by --format name, one table.
struct ReportFormat {
  std::string_view name;       // "text", "json", "sarif", "junit", "github"
  std::string_view file_name;  // In --out: "report.txt", ...
  std::string (*write)(const MigrationCheckReport&, const ReportContext&);
};
const std::vector<ReportFormat>& ReportFormats();

}  // namespace faultline::scenarios
