// check-migrations' report for GitHub Actions (--format github): a
// workflow command per finding, which the Actions log turns into an
// annotation on the file and line of the pull request, then the short text
// report for the log itself. The commands' syntax and escaping are
// GitHub's "Workflow commands for GitHub Actions" (::error file=F,line=L,
// col=C,title=T::MESSAGE; '%', CR and LF escaped in the message, ':' and
// ',' too in a property).
#include <fmt/format.h>

#include "scenarios/check_migrations/report_parts.h"

namespace faultline::scenarios {
namespace {

using models::migrate::LintFinding;
using models::migrate::RuleOf;
using models::migrate::Severity;

std::string Escaped(std::string_view text, bool property) {
  std::string out;
  for (const char c : text) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else if (property && c == ':') {
      out += "%3A";
    } else if (property && c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
  }
  return out;
}

// "error", "warning" or "notice" (GitHub's three; a note is a notice).
std::string_view CommandOf(Severity severity) {
  return severity == Severity::kNote ? "notice" : models::migrate::SeverityName(severity);
}

void Command(std::string& text, std::string_view command, const std::string& path, int line,
             int column, std::string_view title, std::string_view message) {
  text += fmt::format("::{} file={},line={},col={},title={}::{}\n", command, Escaped(path, true),
                      std::max(line, 1), std::max(column, 1), Escaped(title, true),
                      Escaped(message, false));
}

}  // namespace

std::string GithubReport(const MigrationCheckReport& report, const ReportContext& context) {
  std::string text;
  for (const LintFinding& f : report.lint) {
    Command(text, CommandOf(RuleOf(f.rule).severity),
            reporting::PathOf(context, f.file, f.in_folder), f.line, f.column, f.rule, f.message);
  }
  for (const DynamicFinding& f : report.dynamic) {
    if (!report.Fails(f)) continue;
    Command(text, "error", reporting::PathOf(context, f.file), 1, 1,
            fmt::format("{} ({} with {})",
                        f.runner_risk.empty() ? InfoOf(f.verdict).name : f.runner_risk, f.check,
                        f.runner),
            fmt::format("{}: {}", reporting::CasesText(f), f.detail));
  }
  // The runner's own risks: once each, at the first file (by name) it was
  // met in; with --fail-on-runner-risks each of their findings is an error
  // above.
  if (report.fail_on_runner_risks) return text + ShortTextReport(report, context);
  for (const std::string& runner : report.runners) {
    for (const reporting::RiskMet& one : reporting::RisksMet(report, context, runner)) {
      Command(text, "warning", reporting::PathOf(context, *one.files.begin()), 1, 1, one.risk->id,
              fmt::format("{} ({}): {}. Fix: {}", one.risk->brief,
                          reporting::Plural(static_cast<int>(one.cases), "case"), one.risk->says,
                          kRunnerRiskFix));
    }
  }
  return text + ShortTextReport(report, context);
}

}  // namespace faultline::scenarios
