// check-migrations' text report as a person reads it on a pull request
// (the default; --verbose is TextReport's every case): the verdict per
// file first, then what to fix (the folder's unsafe findings and static
// errors), what is worth a look, each distinct log line once, the
// runner's own risks once, and the verdict. Lines wrap at 100 columns.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "scenarios/check_migrations/report_parts.h"

namespace faultline::scenarios {
namespace {

using models::migrate::LintFinding;
using models::migrate::RuleOf;
using models::migrate::Severity;
using reporting::FileOf;
using reporting::Plural;

constexpr std::size_t kWidth = 100;

// `body` after `first` on the first line and `indent` on the others,
// wrapped at spaces to kWidth columns (a word longer than a line stays
// whole).
void Wrapped(std::string& text, std::string_view first, std::string_view body, std::size_t indent) {
  std::string line(first);
  const std::string pad(indent, ' ');
  bool line_has_word = false;
  std::size_t at = 0;
  constexpr std::size_t kMaxWords = 100'000;
  for (std::size_t words = 0; at < body.size() && words < kMaxWords; ++words) {
    std::size_t end = body.find(' ', at);
    if (end == std::string_view::npos) end = body.size();
    const std::string_view word = body.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    if (line_has_word && line.size() + 1 + word.size() > kWidth) {
      text += line + "\n";
      line = pad;
      line_has_word = false;
    }
    if (line_has_word) line += ' ';
    line += word;
    line_has_word = true;
  }
  text += line + "\n";
}

// A log line's chain of causes cut to its last three: where it ended up
// is what a reader acts on (--verbose keeps the whole chain).
std::string LastCauses(const std::string& error) {
  constexpr int kKept = 3;
  std::size_t cut = error.size();
  for (int kept = 0; kept < kKept; ++kept) {
    const std::size_t colon = error.rfind(": ", cut == 0 ? 0 : cut - 1);
    if (colon == std::string::npos || colon == 0) return error;
    cut = colon;
  }
  const std::size_t bar = error.find(" | ");  // "kuri-1  | ERROR ...": keep who said it.
  const std::string who = bar != std::string::npos && bar < cut ? error.substr(0, bar) : "";
  return (who.empty() ? "" : who.substr(0, who.find_last_not_of(' ') + 1) + ": ") + "... " +
         error.substr(cut + 2);
}

// Whether a finding that passes is still worth a look: a race a replica
// lost and only its retry hid (one timing away from needs-force).
bool WorthALook(const DynamicFinding& finding) {
  return finding.verdict == Verdict::kRecovers && finding.check == "concurrent";
}

struct FileLine {
  std::string file;
  std::string_view verdict;  // "unsafe", "warning"
  std::vector<std::string> why;
};

// One line per file with something to say; the rest counted.
void FilesSummary(std::string& text, const MigrationCheckReport& report) {
  std::vector<FileLine> lines;
  std::size_t quiet = 0;
  for (const std::string& file : reporting::FilesInOrder(report, true)) {
    std::vector<std::string> unsafe;    // Why it fails, each once.
    std::vector<std::string> warnings;  // What else to look at, each once.
    const auto add = [](std::vector<std::string>& to, std::string_view why) {
      if (std::find(to.begin(), to.end(), why) == to.end()) to.emplace_back(why);
    };
    for (const DynamicFinding& f : report.dynamic) {
      if (FileOf(f) != file) continue;
      if (report.Fails(f)) add(unsafe, InfoOf(f.verdict).name);
      if (WorthALook(f)) add(warnings, "a race its retry hid");
    }
    for (const LintFinding& f : report.lint) {
      const Severity severity = RuleOf(f.rule).severity;
      if (FileOf(f) != file || severity == Severity::kNote) continue;
      add(severity == Severity::kError ? unsafe : warnings, f.rule);
    }
    // An unsafe file's line says why it fails; its warnings are below.
    if (!unsafe.empty()) {
      lines.push_back({file, "unsafe", std::move(unsafe)});
    } else if (!warnings.empty()) {
      lines.push_back({file, "warning", std::move(warnings)});
    } else if (file != reporting::kFolderItself &&
               std::find(report.history.begin(), report.history.end(), file) ==
                   report.history.end()) {
      ++quiet;
    }
  }
  for (const FileLine& line : lines) {
    std::string why;
    for (const std::string& one : line.why) why += (why.empty() ? "" : ", ") + one;
    Wrapped(text, fmt::format("  {:<8} {}: ", line.verdict, line.file), why, 13);
  }
  if (!report.history.empty()) {
    text += fmt::format("  {:<8} {} shipped before (--since), applied first and not judged\n",
                        "history", Plural(static_cast<int>(report.history.size()), "file"));
  }
  if (quiet > 0) {
    text += fmt::format("  {:<8} {}{} with nothing unsafe and no warning\n", "ok",
                        lines.empty() ? "" : "the other ", Plural(static_cast<int>(quiet), "file"));
  }
}

// The number of each distinct log line, in the order first met.
class Logs {
 public:
  std::string Ref(const std::string& error) {
    if (error.empty()) return "";
    auto [it, added] = numbers_.emplace(LastCauses(error), numbers_.size() + 1);
    if (added) order_.push_back(it->first);
    return fmt::format(" [log {}]", it->second);
  }
  void Write(std::string& text) const {
    if (order_.empty()) return;
    text += "\nlogs (each once; --verbose shows each finding's whole line)\n";
    for (const std::string& line : order_) {
      Wrapped(text, fmt::format("  [{}] ", numbers_.at(line)), line, 6);
    }
  }

 private:
  std::map<std::string, std::size_t> numbers_;
  std::vector<std::string> order_;
};

// A race a retry hid, in one sentence: the detail repeats the log line.
std::string RaceText(const DynamicFinding& f) {
  if (f.runner != "golang-migrate") return f.detail;
  return fmt::format(
      "a replica lost the race ({}) and came up only because the winner's SetVersion overwrote "
      "its dirty flag: one timing away from needs-force",
      f.error.substr(0, f.error.find(':')));
}

std::string Where(const DynamicFinding& f) {
  return fmt::format("{}, {}{}", f.check, Plural(static_cast<int>(f.cases.size()), "case"),
                     f.store == "2.20" ? "" : ", on " + std::string(StoreName(f.store)));
}

// The folder's unsafe findings and static errors, by file.
void ToFix(std::string& text, const MigrationCheckReport& report, const ReportContext& context,
           Logs& logs) {
  const std::string on_keyspace = " on keyspace " + report.keyspace;  // The header says it.
  std::string section;
  for (const std::string& file : reporting::FilesInOrder(report)) {
    std::string part;
    for (const LintFinding& f : report.lint) {
      if (FileOf(f) == file && RuleOf(f.rule).severity == Severity::kError) {
        Wrapped(part, fmt::format("  {:<14}{}:{} ", f.rule, f.line, f.column), f.message, 16);
      }
    }
    for (std::size_t i = 0; i < report.dynamic.size(); ++i) {
      const DynamicFinding& f = report.dynamic[i];
      if (FileOf(f) != file || !report.Fails(f)) continue;
      std::string detail = f.detail;
      for (std::size_t at = detail.find(on_keyspace); at != std::string::npos;
           at = detail.find(on_keyspace, at)) {
        detail.erase(at, on_keyspace.size());
      }
      std::string body = fmt::format("({}) {}{}", Where(f), detail, logs.Ref(f.error));
      if (context.repro_written && !context.repro_files.at(i).empty()) {
        body += "; repro " + context.repro_files.at(i);
      }
      Wrapped(part, fmt::format("  {:<14}", InfoOf(f.verdict).name), body, 16);
    }
    if (!part.empty()) section += file + "\n" + part;
  }
  if (!section.empty()) text += "\nto fix before shipping\n" + section;
}

// Static warnings and the races a retry hid; notes counted.
void WorthALookText(std::string& text, const MigrationCheckReport& report) {
  std::string section;
  std::map<std::string, int> notes;
  for (const LintFinding& f : report.lint) {
    if (RuleOf(f.rule).severity == Severity::kNote) ++notes[f.rule];
  }
  for (const std::string& file : reporting::FilesInOrder(report)) {
    std::string part;
    for (const LintFinding& f : report.lint) {
      if (FileOf(f) != file || RuleOf(f.rule).severity != Severity::kWarning) continue;
      Wrapped(part, fmt::format("  {}:{} {}: ", f.line, f.column, f.rule), f.message, 4);
    }
    for (const DynamicFinding& f : report.dynamic) {
      if (FileOf(f) != file || !WorthALook(f)) continue;
      Wrapped(part, fmt::format("  {} ", InfoOf(f.verdict).name),
              fmt::format("({}) {}", Where(f), RaceText(f)), 4);
    }
    if (!part.empty()) section += file + "\n" + part;
  }
  if (!notes.empty()) {
    std::string counted;
    for (const auto& [rule, count] : notes) {
      counted += fmt::format("{}{} ({})", counted.empty() ? "" : ", ", rule, count);
    }
    Wrapped(section, "  notes: ", counted + "; --verbose lists them", 4);
  }
  if (!section.empty()) text += "\nworth a look\n" + section;
}

void RunnerRisksShort(std::string& text, const MigrationCheckReport& report,
                      const ReportContext& context) {
  for (const std::string& runner : report.runners) {
    const std::vector<reporting::RiskMet> met = reporting::RisksMet(report, context, runner);
    if (met.empty()) continue;
    Wrapped(text, "\n",
            fmt::format("{}'s own risks, in every folder ({}):", runner,
                        report.fail_on_runner_risks ? "--fail-on-runner-risks: they fail it"
                                                    : "they pass; --fail-on-runner-risks fails "
                                                      "on them"),
            2);
    for (const reporting::RiskMet& one : met) {
      // What it is; why and what it costs, with --verbose.
      std::string body =
          fmt::format("{} ({})", one.risk->brief, Plural(static_cast<int>(one.cases), "case"));
      if (context.repro_written && !one.repro.empty()) body += "; repro " + one.repro;
      Wrapped(text, fmt::format("  {}: ", one.risk->id.substr(runner.size() + 1)), body, 4);
    }
    Wrapped(text, "  fix: ", std::string(kRunnerRiskFix), 4);
  }
}

// What held, in one line: the cases that passed.
std::string HeldText(const MigrationCheckReport& report) {
  std::map<std::string_view, std::size_t> held;
  for (const DynamicFinding& f : report.dynamic) {
    if (!InfoOf(f.verdict).unsafe) held[InfoOf(f.verdict).name] += f.cases.size();
  }
  std::string text;
  for (const auto& [name, cases] : held) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", cases, name);  // "13 safe"
  }
  return text;
}

}  // namespace

std::string ShortTextReport(const MigrationCheckReport& report, const ReportContext& context) {
  std::string runners;
  for (const std::string& runner : report.runners)
    runners += (runners.empty() ? "" : ", ") + runner;
  std::string text;
  Wrapped(text, "",
          fmt::format("check-migrations {}: keyspace {}, {}", context.folder, report.keyspace,
                      runners.empty() ? "static rules only" : runners),
          2);
  text += "files\n";
  FilesSummary(text, report);
  Logs logs;
  ToFix(text, report, context, logs);
  WorthALookText(text, report);
  logs.Write(text);
  RunnerRisksShort(text, report, context);
  if (!report.notes.empty()) {
    text += "\nnotes\n";
    for (const std::string& note : report.notes) Wrapped(text, "  ", note, 4);
  }
  std::string end = fmt::format("{} runs", report.runs);
  if (const std::string held = HeldText(report); !held.empty()) end += "; held: " + held;
  const bool repros = std::any_of(report.dynamic.begin(), report.dynamic.end(),
                                  [](const DynamicFinding& f) { return f.repro.has_value(); });
  if (repros && !context.repro_written) end += "; --out DIR writes repros";
  Wrapped(text, "\n", end + "; --verbose: every case and why", 2);
  const int errors = reporting::CountLint(report, Severity::kError);
  const int unsafe = reporting::CountUnsafe(report);
  const char* whose = report.fail_on_runner_risks ? "" : " of the folder's own";
  text += report.Unsafe() ? fmt::format("UNSAFE: {} and {}{}\n", Plural(errors, "static error"),
                                        Plural(unsafe, "unsafe finding"), whose)
                          : fmt::format("SAFE: no static error and no unsafe finding{}\n", whose);
  return text;
}

}  // namespace faultline::scenarios
