#include "scenarios/check_migrations/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "models/migrate/folder.h"
#include "scenarios/check_migrations/report_parts.h"
#include "scenarios/file/scenario_file.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

using models::migrate::LintFinding;
using models::migrate::RuleOf;
using models::migrate::Severity;
using models::migrate::SeverityName;
using Json = nlohmann::ordered_json;
using namespace reporting;  // NOLINT: the shared parts, named as before.

constexpr const char* kToolName = "faultline check-migrations";
constexpr const char* kToolVersion = "0.1.0";
constexpr const char* kInformationUri =
    "https://github.com/faultline/faultline/blob/main/docs/check-migrations.md";

// A JSON text that is valid whatever bytes the findings hold: bytes that
// are not UTF-8 become U+FFFD, never pass through.
std::string Dumped(const Json& json) {
  return json.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

// A path as a URI reference (RFC 3986): unreserved bytes and '/' as they
// are, every other byte as %XX; an absolute path as a file:// URI.
std::string UriOf(std::string_view path) {
  std::string uri = path.starts_with('/') ? "file://" : "";
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                            (byte >= '0' && byte <= '9') || byte == '-' || byte == '.' ||
                            byte == '_' || byte == '~' || byte == '/';
    uri += unreserved ? std::string(1, c) : fmt::format("%{:02X}", byte);
  }
  return uri;
}

// --- Text ------------------------------------------------------------------

// Cases per runner and verdict: the summary table.
std::string SummaryTable(const MigrationCheckReport& report) {
  std::string text = fmt::format("  {:<16}", "cases");
  for (const VerdictInfo& info : Verdicts()) text += fmt::format(" {:>12}", info.name);
  text += "\n";
  for (const std::string& runner : report.runners) {
    text += fmt::format("  {:<16}", runner);
    for (const VerdictInfo& info : Verdicts()) {
      std::size_t cases = 0;
      for (const DynamicFinding& finding : report.dynamic) {
        if (finding.runner == runner && finding.verdict == info.verdict) {
          cases += finding.cases.size();
        }
      }
      text += fmt::format(" {:>12}", cases);
    }
    text += "\n";
  }
  return text;
}

void DynamicText(std::string& text, const DynamicFinding& finding, const std::string& repro,
                 const ReportContext& context) {
  const VerdictInfo& info = InfoOf(finding.verdict);
  const char* says = !info.unsafe ? "ok" : finding.runner_risk.empty() ? "unsafe" : "risk";
  text += fmt::format("  {:<8} {:<26} {} with {} on {}: {}\n", says, info.name, finding.check,
                      finding.runner, StoreName(finding.store),
                      Plural(static_cast<int>(finding.cases.size()), "case"));
  text += fmt::format("           {}\n", CasesText(finding, finding.cases.size()));
  text += fmt::format("           {}\n", finding.detail);
  if (!finding.error.empty()) text += fmt::format("           log: {}\n", finding.error);
  if (!repro.empty()) {
    text += fmt::format("           repro: {}{}\n", repro,
                        context.repro_written ? "" : " (--out DIR writes it)");
  }
}

// Each runner's own risks, once (the per-file sections leave them out).
void RunnerRisksText(std::string& text, const MigrationCheckReport& report,
                     const ReportContext& context) {
  for (const std::string& runner : report.runners) {
    const std::vector<RiskMet> met = RisksMet(report, context, runner);
    if (met.empty()) continue;
    text += fmt::format(
        "\n{}'s own risks: every folder meets them with it, whatever the folder holds ({})\n",
        runner,
        report.fail_on_runner_risks ? "counted against the folder: --fail-on-runner-risks"
                                    : "not counted against the folder; --fail-on-runner-risks "
                                      "counts them");
    for (const RiskMet& one : met) {
      text +=
          fmt::format("  {:<8} {:<26} {} in {}\n", "risk", one.risk->id.substr(runner.size() + 1),
                      Plural(static_cast<int>(one.cases), "case"),
                      Plural(static_cast<int>(one.files.size()), "file"));
      text += fmt::format("           {}\n", one.risk->says);
      if (!one.repro.empty()) {
        text += fmt::format("           repro: {}{}\n", one.repro,
                            context.repro_written ? "" : " (--out DIR writes it)");
      }
    }
    text += fmt::format("  fix: {}\n", kRunnerRiskFix);
  }
}

}  // namespace

std::vector<std::string> ReproFileNames(const MigrationCheckReport& report) {
  std::vector<std::string> names;
  int number = 0;
  for (const DynamicFinding& finding : report.dynamic) {
    if (!finding.repro) {
      names.emplace_back();
      continue;
    }
    names.push_back(fmt::format("repro/{:02}-{}-{}-{}.toml", ++number, finding.check,
                                finding.runner, InfoOf(finding.verdict).name));
  }
  FL_ASSERT(names.size() == report.dynamic.size());
  return names;
}

std::string TextReport(const MigrationCheckReport& report, const ReportContext& context) {
  if (!context.verbose) return ShortTextReport(report, context);
  std::string text =
      fmt::format("check-migrations {} (keyspace {}; runners ", context.folder, report.keyspace);
  for (std::size_t i = 0; i < report.runners.size(); ++i) {
    text += (i == 0 ? "" : ", ") + report.runners[i];
  }
  if (report.runners.empty()) text += "none: static rules only";
  text += fmt::format("): {} simulated runs\n\n", report.runs);
  text += fmt::format("static: {}, {}, {}\n", Plural(CountLint(report, Severity::kError), "error"),
                      Plural(CountLint(report, Severity::kWarning), "warning"),
                      Plural(CountLint(report, Severity::kNote), "note"));
  text += SummaryTable(report);
  for (const std::string& file : FilesInOrder(report)) {
    text += "\n" + file + "\n";
    // Errors, unsafe verdicts, warnings, notes, then what held.
    const auto lint_of = [&](Severity severity) {
      for (const LintFinding& f : report.lint) {
        if (FileOf(f) == file && RuleOf(f.rule).severity == severity) {
          text += fmt::format("  {:<8} {:<26} {}:{} {}\n", SeverityName(severity), f.rule, f.line,
                              f.column, f.message);
        }
      }
    };
    lint_of(Severity::kError);
    for (std::size_t i = 0; i < report.dynamic.size(); ++i) {
      const DynamicFinding& f = report.dynamic[i];
      if (FileOf(f) == file && InfoOf(f.verdict).unsafe && f.runner_risk.empty()) {
        DynamicText(text, f, context.repro_files.at(i), context);
      }
    }
    for (std::size_t i = 0; i < report.dynamic.size(); ++i) {  // The runner's risks here.
      const DynamicFinding& f = report.dynamic[i];
      if (FileOf(f) == file && !f.runner_risk.empty()) {
        DynamicText(text, f, context.repro_files.at(i), context);
      }
    }
    lint_of(Severity::kWarning);
    lint_of(Severity::kNote);
    for (std::size_t i = 0; i < report.dynamic.size(); ++i) {
      const DynamicFinding& f = report.dynamic[i];
      if (FileOf(f) == file && !InfoOf(f.verdict).unsafe) {
        DynamicText(text, f, context.repro_files.at(i), context);
      }
    }
  }
  RunnerRisksText(text, report, context);
  if (!report.notes.empty()) {
    text += "\nnotes\n";
    for (const std::string& note : report.notes) text += "  " + note + "\n";
  }
  const int errors = CountLint(report, Severity::kError);
  const int unsafe = CountUnsafe(report);
  const bool runner_risks =
      std::any_of(report.dynamic.begin(), report.dynamic.end(),
                  [](const DynamicFinding& f) { return !f.runner_risk.empty(); });
  const char* of_whom = report.fail_on_runner_risks || !runner_risks ? "" : " of the folder's own";
  text += report.Unsafe()
              ? fmt::format("\nUNSAFE: {} and {}{}\n", Plural(errors, "static error"),
                            Plural(unsafe, "unsafe dynamic finding"), of_whom)
              : fmt::format("\nSAFE: no static error, no unsafe outcome{}{}\n", of_whom,
                            runner_risks ? " (the runner's own risks are said above)" : "");
  return text;
}

std::string JsonReport(const MigrationCheckReport& report, const ReportContext& context) {
  Json json;
  json["tool"] = kToolName;
  json["version"] = kToolVersion;
  json["folder"] = context.folder;
  json["keyspace"] = report.keyspace;
  json["runners"] = report.runners;
  json["unsafe"] = report.Unsafe();
  json["runs"] = report.runs;
  Json summary = Json::object();  // Cases per runner and verdict, as the text's table.
  for (const std::string& runner : report.runners) {
    Json counts = Json::object();
    for (const VerdictInfo& info : Verdicts()) {
      std::size_t cases = 0;
      for (const DynamicFinding& f : report.dynamic) {
        if (f.runner == runner && f.verdict == info.verdict) cases += f.cases.size();
      }
      counts[std::string(info.name)] = cases;
    }
    summary[runner] = std::move(counts);
  }
  json["summary"] = std::move(summary);
  json["files"] = report.files;
  json["history"] = report.history;
  Json lint = Json::array();
  for (const LintFinding& f : report.lint) {
    lint.push_back({{"rule", f.rule},
                    {"severity", SeverityName(RuleOf(f.rule).severity)},
                    {"file", f.file},
                    {"line", f.line},
                    {"column", f.column},
                    {"message", f.message}});
  }
  json["static"] = std::move(lint);
  Json dynamic = Json::array();
  for (std::size_t i = 0; i < report.dynamic.size(); ++i) {
    const DynamicFinding& f = report.dynamic[i];
    Json item = {{"check", f.check},
                 {"runner", f.runner},
                 {"store", StoreName(f.store)},
                 {"file", f.file},
                 {"verdict", InfoOf(f.verdict).name},
                 {"unsafe", InfoOf(f.verdict).unsafe},
                 {"runner_risk", f.runner_risk},
                 {"fails", report.Fails(f)},
                 {"cases", f.cases},
                 {"detail", f.detail},
                 {"force_to", f.force_to},
                 {"error", f.error}};
    if (f.repro) {
      item["repro_file"] = context.repro_files.at(i);
      item["repro_seed"] = f.seed;
      item["repro"] = ToToml(*f.repro);
    }
    dynamic.push_back(std::move(item));
  }
  json["dynamic"] = std::move(dynamic);
  json["fail_on_runner_risks"] = report.fail_on_runner_risks;
  Json risks = Json::array();
  for (const std::string& runner : report.runners) {
    for (const RiskMet& one : RisksMet(report, context, runner)) {
      risks.push_back({{"id", one.risk->id},
                       {"runner", runner},
                       {"says", one.risk->says},
                       {"cases", one.cases},
                       {"files", one.files},
                       {"repro_file", one.repro}});
    }
  }
  json["runner_risks"] = std::move(risks);
  json["runner_risk_fix"] = kRunnerRiskFix;
  json["notes"] = report.notes;
  return Dumped(json);
}

std::string SarifReport(const MigrationCheckReport& report, const ReportContext& context) {
  // One rule per static rule and per unsafe verdict: a dashboard groups by
  // rule id.
  Json rules = Json::array();
  std::map<std::string, std::size_t> index;
  const auto add_rule = [&](std::string_view id, std::string_view summary, std::string_view help,
                            std::string_view level) {
    index.emplace(std::string(id), rules.size());
    rules.push_back({{"id", id},
                     {"shortDescription", {{"text", summary}}},
                     {"help", {{"text", help}}},
                     {"helpUri", fmt::format("{}#{}", kInformationUri, id)},
                     {"defaultConfiguration", {{"level", level}}}});
  };
  for (const models::migrate::LintRule& rule : models::migrate::LintRules()) {
    add_rule(rule.id, rule.summary, rule.fix, SeverityName(rule.severity));
  }
  for (const VerdictInfo& info : Verdicts()) {
    if (info.unsafe) add_rule(info.name, info.meaning, "see the finding's repro scenario", "error");
  }
  // The runner's own risks: warnings unless they fail the gate.
  const std::string_view risk_level = report.fail_on_runner_risks ? "error" : "warning";
  for (const RunnerRisk& risk : RunnerRisks()) {
    add_rule(risk.id, risk.says, kRunnerRiskFix, risk_level);
  }
  const auto location = [&](const std::string& path, int line, int column) {
    Json region = {{"startLine", std::max(line, 1)}, {"startColumn", std::max(column, 1)}};
    return Json::array(
        {{{"physicalLocation",
           {{"artifactLocation", {{"uri", UriOf(path)}}}, {"region", std::move(region)}}}}});
  };
  Json results = Json::array();
  for (const LintFinding& f : report.lint) {
    results.push_back(
        {{"ruleId", f.rule},
         {"ruleIndex", index.at(f.rule)},
         {"level", SeverityName(RuleOf(f.rule).severity)},
         {"message", {{"text", f.message}}},
         {"locations", location(PathOf(context, f.file, f.in_folder), f.line, f.column)}});
  }
  for (std::size_t i = 0; i < report.dynamic.size(); ++i) {
    const DynamicFinding& f = report.dynamic[i];
    const VerdictInfo& info = InfoOf(f.verdict);
    if (!info.unsafe) continue;
    std::string message = fmt::format("{} with {} on {} ({}): {}", f.check, f.runner,
                                      StoreName(f.store), CasesText(f), f.detail);
    if (!f.error.empty()) message += ". The log ends: " + f.error;
    if (!context.repro_files.at(i).empty()) message += ". Repro: " + context.repro_files.at(i);
    const std::string rule = f.runner_risk.empty() ? std::string(info.name) : f.runner_risk;
    results.push_back({{"ruleId", rule},
                       {"ruleIndex", index.at(rule)},
                       {"level", report.Fails(f) ? "error" : "warning"},
                       {"message", {{"text", message}}},
                       {"locations", location(PathOf(context, f.file), 1, 1)}});
  }
  Json sarif = {{"version", "2.1.0"},
                {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                {"runs", Json::array({{{"tool",
                                        {{"driver",
                                          {{"name", kToolName},
                                           {"version", kToolVersion},
                                           {"informationUri", kInformationUri},
                                           {"rules", std::move(rules)}}}}},
                                       {"results", std::move(results)}}})}};
  return Dumped(sarif);
}

namespace {

// `text` for XML: the five special characters as entities, and every byte
// that XML 1.0 cannot carry (control bytes, bytes that are not UTF-8) as a
// visible \xNN.
std::string Xml(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '&':
        out += "&amp;";
        continue;
      case '<':
        out += "&lt;";
        continue;
      case '>':
        out += "&gt;";
        continue;
      case '"':
        out += "&quot;";
        continue;
      case '\'':
        out += "&apos;";
        continue;
      default:
        break;
    }
    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
      out += fmt::format("\\x{:02x}", c);
      continue;
    }
    if (c < 0x80) {
      out += static_cast<char>(c);
      continue;
    }
    // One well-formed UTF-8 sequence passes whole; any other byte is shown.
    const std::size_t length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    const std::string_view sequence = text.substr(i, std::min(length, text.size() - i));
    if (sequence.size() == length && !models::migrate::FindNotText(sequence)) {
      out += sequence;
      i += length - 1;
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out;
}

}  // namespace

namespace {

// A JUnit test suite: its cases' XML, how many, how many failed.
struct JunitSuite {
  std::string cases;
  int tests = 0;
  int failures = 0;
};

// The static rules' suite: a test case per file; an error is a failure.
JunitSuite StaticSuite(const MigrationCheckReport& report, const ReportContext& context) {
  JunitSuite suite;
  for (const std::string& file : FilesInOrder(report, true)) {
    std::string failed;
    std::string out;
    for (const LintFinding& f : report.lint) {
      if (FileOf(f) != file) continue;
      const std::string line =
          fmt::format("{}:{}:{}: {}: {}: {}\n", PathOf(context, f.file, f.in_folder), f.line,
                      f.column, SeverityName(RuleOf(f.rule).severity), f.rule, f.message);
      (RuleOf(f.rule).severity == Severity::kError ? failed : out) += line;
    }
    ++suite.tests;
    suite.cases += fmt::format("    <testcase classname=\"check-migrations.static\" name=\"{}\">\n",
                               Xml(file));
    if (!failed.empty()) {
      ++suite.failures;
      suite.cases +=
          fmt::format("      <failure message=\"static errors\">{}</failure>\n", Xml(failed));
    }
    if (!out.empty()) suite.cases += fmt::format("      <system-out>{}</system-out>\n", Xml(out));
    suite.cases += "    </testcase>\n";
  }
  FL_ASSERT(suite.failures <= suite.tests);
  return suite;
}

// One dynamic check's suite: a test case per finding; an unsafe verdict
// is a failure.
JunitSuite CheckSuite(const MigrationCheckReport& report, const ReportContext& context,
                      std::string_view check) {
  JunitSuite suite;
  for (std::size_t i = 0; i < report.dynamic.size(); ++i) {
    const DynamicFinding& f = report.dynamic[i];
    if (f.check != check) continue;
    ++suite.tests;
    const VerdictInfo& info = InfoOf(f.verdict);
    suite.cases +=
        fmt::format("    <testcase classname=\"check-migrations.{}\" name=\"{} {} {} {}{}\">\n",
                    check, f.runner, StoreName(f.store), Xml(FileOf(f)), info.name,
                    f.force_to.empty() ? "" : " " + Xml(ForceText(f.force_to)));
    if (info.unsafe && !report.Fails(f)) {
      suite.cases += fmt::format("      <system-out>{}</system-out>\n",
                                 Xml(fmt::format("{}: {}\n{}\n", f.runner_risk,
                                                 RunnerRiskNamed(f.runner_risk).says, f.detail)));
    } else if (info.unsafe) {
      ++suite.failures;
      std::string body = f.detail + "\n" + CasesText(f) + "\n";
      if (!f.error.empty()) body += "log: " + f.error + "\n";
      if (!context.repro_files.at(i).empty()) body += "repro: " + context.repro_files.at(i) + "\n";
      suite.cases +=
          fmt::format("      <failure message=\"{}\">{}</failure>\n", Xml(info.name), Xml(body));
    }
    suite.cases += "    </testcase>\n";
  }
  FL_ASSERT(suite.failures <= suite.tests);
  return suite;
}

}  // namespace

std::string JunitReport(const MigrationCheckReport& report, const ReportContext& context) {
  // One suite for the static rules and one per dynamic check with findings.
  std::string suites;
  int total_tests = 0;
  int total_failures = 0;
  const auto add = [&](std::string_view name, const JunitSuite& suite) {
    suites +=
        fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">\n{}  </testsuite>\n",
                    Xml(std::string(name)), suite.tests, suite.failures, suite.cases);
    total_tests += suite.tests;
    total_failures += suite.failures;
  };
  add("static", StaticSuite(report, context));
  for (const std::string_view check : kChecks) {
    const JunitSuite suite = CheckSuite(report, context, check);
    if (suite.tests > 0) add(check, suite);
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"check-migrations\" "
      "tests=\"{}\" failures=\"{}\">\n{}</testsuites>\n",
      total_tests, total_failures, suites);
}

const std::vector<ReportFormat>& ReportFormats() {
  static const std::vector<ReportFormat> kFormats = {
      {"text", "report.txt", &TextReport},
      {"json", "report.json", &JsonReport},
      {"sarif", "report.sarif", &SarifReport},
      {"junit", "report.junit.xml", &JunitReport},
      {"github", "report.github.txt", &GithubReport},
  };
  return kFormats;
}

}  // namespace faultline::scenarios
