// check-migrations' text report as a person reads it on a pull request
// (the default; --verbose is TextReport's every case): the verdict per
// file first, then what to fix (the folder's unsafe findings and static
// errors), what is worth a look, each distinct log line once, the
// runner's own risks once, and the verdict. Lines wrap at 100 columns.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "scenarios/check_migrations/report_parts.h"
#include "sim/assert.h"

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
// A line two replicas both logged is one, with both names ("kuri-1,
// kuri-2: ...").
class Logs {
 public:
  std::string Ref(const std::string& error) {
    if (error.empty()) return "";
    std::string line = LastCauses(error);
    std::string who;
    if (const std::size_t said = line.find(": ... "); said != std::string::npos) {
      who = line.substr(0, said);
      line.erase(0, said + 2);
    }
    auto [it, added] = numbers_.emplace(line, Entry{numbers_.size() + 1, {}});
    if (added) order_.push_back(line);
    std::vector<std::string>& whose = it->second.who;
    if (!who.empty() && std::find(whose.begin(), whose.end(), who) == whose.end()) {
      whose.push_back(who);
    }
    return fmt::format(" [log {}]", it->second.number);
  }
  void Write(std::string& text) const {
    if (order_.empty()) return;
    text += "\nlogs (each once; --verbose shows each finding's whole line)\n";
    for (const std::string& line : order_) {
      const Entry& entry = numbers_.at(line);
      std::string who;
      for (const std::string& one : entry.who) who += (who.empty() ? "" : ", ") + one;
      Wrapped(text, fmt::format("  [{}] ", entry.number), who.empty() ? line : who + ": " + line,
              6);
    }
  }

 private:
  struct Entry {
    std::size_t number = 0;
    std::vector<std::string> who;  // In the order met.
  };
  std::map<std::string, Entry> numbers_;
  std::vector<std::string> order_;
};

// A race a retry hid, in one sentence: the detail repeats the log line.
// (The same race on each store: who lost it on each, once each.)
std::string RaceText(const std::vector<const DynamicFinding*>& races) {
  const DynamicFinding& f = *races.front();
  if (f.runner != "golang-migrate") return f.detail;
  std::vector<std::string> losers;
  for (const DynamicFinding* race : races) {
    std::string loser = race->error.substr(0, race->error.find(':'));
    if (std::find(losers.begin(), losers.end(), loser) == losers.end()) {
      losers.push_back(std::move(loser));
    }
  }
  std::string named;
  for (const std::string& loser : losers) named += (named.empty() ? "" : ", ") + loser;
  return fmt::format(
      "a replica lost the race ({}) and came up only because the winner's SetVersion overwrote "
      "its dirty flag: one timing away from needs-force",
      named);
}

// What a finding's log says, whoever said it (the part after "kuri-2:").
std::string Said(const DynamicFinding& f) {
  const std::string line = LastCauses(f.error);
  return line.substr(line.find(": ... ") == std::string::npos ? 0 : line.find(": ... "));
}

// Findings of one file that say the same (a race on each store, or a race
// and a crash that leave the same state), as one: their indices in
// report.dynamic, in order.
std::vector<std::vector<std::size_t>> MergedAcrossStores(
    const MigrationCheckReport& report, const std::string& file,
    const std::function<bool(const DynamicFinding&)>& shown) {
  std::vector<std::vector<std::size_t>> merged;
  for (std::size_t i = 0; i < report.dynamic.size(); ++i) {
    const DynamicFinding& f = report.dynamic[i];
    if (FileOf(f) != file || !shown(f)) continue;
    const auto same = std::find_if(merged.begin(), merged.end(), [&](const auto& members) {
      const DynamicFinding& g = report.dynamic[members.front()];
      // (A lost race's detail names who lost it; its line names each.)
      const bool same_words =
          (WorthALook(f) && WorthALook(g)) || (g.detail == f.detail && Said(g) == Said(f));
      return g.runner == f.runner && g.verdict == f.verdict && same_words &&
             g.force_to == f.force_to;
    });
    if (same == merged.end()) {
      merged.push_back({i});
    } else {
      same->push_back(i);
    }
  }
  return merged;
}

// "crash, 3 cases"; "concurrent, 2 cases, on cassandra"; "crash, 3 cases;
// concurrent, 6 cases on yugabyte, 5 on cassandra".
std::string Where(const MigrationCheckReport& report, const std::vector<std::size_t>& members) {
  FL_ASSERT(!members.empty());
  std::vector<std::string> checks;  // In the order met.
  for (const std::size_t i : members) {
    const std::string& check = report.dynamic[i].check;
    if (std::find(checks.begin(), checks.end(), check) == checks.end()) checks.push_back(check);
  }
  std::string text;
  for (const std::string& check : checks) {
    std::vector<const DynamicFinding*> of_check;
    for (const std::size_t i : members) {
      if (report.dynamic[i].check == check) of_check.push_back(&report.dynamic[i]);
    }
    const auto cases = [](const DynamicFinding* f) { return static_cast<int>(f->cases.size()); };
    text += (text.empty() ? "" : "; ") + check + ", " + Plural(cases(of_check.front()), "case");
    if (of_check.size() == 1) {
      const std::string& store = of_check.front()->store;
      text += store == "2.20" ? "" : ", on " + std::string(StoreName(store));
      continue;
    }
    for (std::size_t i = 0; i < of_check.size(); ++i) {
      text += fmt::format("{} on {}", i == 0 ? "" : fmt::format(", {}", cases(of_check[i])),
                          StoreName(of_check[i]->store));
    }
  }
  return text;
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
        Wrapped(part, fmt::format("  {:<13} {}:{} ", f.rule, f.line, f.column), f.message, 16);
      }
    }
    const auto fails = [&](const DynamicFinding& f) { return report.Fails(f); };
    for (const std::vector<std::size_t>& merged : MergedAcrossStores(report, file, fails)) {
      const DynamicFinding& f = report.dynamic[merged.front()];
      std::string detail = f.detail;
      for (std::size_t at = detail.find(on_keyspace); at != std::string::npos;
           at = detail.find(on_keyspace, at)) {
        detail.erase(at, on_keyspace.size());
      }
      std::string body = fmt::format("({}) {}", Where(report, merged), detail);
      for (const std::size_t i : merged) {
        const std::string ref = logs.Ref(report.dynamic[i].error);
        if (body.find(ref) == std::string::npos) body += ref;
      }
      std::vector<std::string> repros;
      for (const std::size_t i : merged) {
        if (context.repro_written && !context.repro_files.at(i).empty()) {
          repros.push_back(context.repro_files.at(i));
        }
      }
      if (!repros.empty()) body += (repros.size() == 1 ? "; repro " : "; repros ");
      for (std::size_t r = 0; r < repros.size(); ++r) body += (r == 0 ? "" : ", ") + repros[r];
      Wrapped(part, fmt::format("  {:<13} ", InfoOf(f.verdict).name), body, 16);
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
    for (const std::vector<std::size_t>& merged : MergedAcrossStores(report, file, WorthALook)) {
      std::vector<const DynamicFinding*> races;
      for (const std::size_t i : merged) races.push_back(&report.dynamic[i]);
      Wrapped(part, fmt::format("  {} ", InfoOf(races.front()->verdict).name),
              fmt::format("({}) {}", Where(report, merged), RaceText(races)), 4);
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
  std::string end = Plural(report.runs, "run");
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
