#include "scenarios/check_migrations/ignores.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "models/migrate/lint.h"
#include "scenarios/check_migrations/check_migrations.h"
#include "scenarios/core/closest_name.h"

namespace faultline::scenarios {
namespace {

constexpr std::string_view kMarker = "faultline:ignore";

std::string_view Trimmed(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t\r");
  if (start == std::string_view::npos) return {};
  return text.substr(start, text.find_last_not_of(" \t\r") - start + 1);
}

// What an ignore may name: the static rules, the unsafe verdicts and the
// runner risks, in that order.
std::vector<std::string_view> IgnorableNames() {
  std::vector<std::string_view> names;
  for (const auto& rule : models::migrate::LintRules()) names.push_back(rule.id);
  for (const VerdictInfo& verdict : Verdicts()) {
    if (verdict.unsafe) names.push_back(verdict.name);
  }
  for (const RunnerRisk& risk : RunnerRisks()) names.push_back(risk.id);
  return names;
}

}  // namespace

bool Ignorable(std::string_view rule) {
  const std::vector<std::string_view> names = IgnorableNames();
  return std::find(names.begin(), names.end(), rule) != names.end();
}

std::string NoSuchRule(std::string_view rule) {
  const std::vector<std::string_view> names = IgnorableNames();
  return fmt::format("no such rule, verdict or runner risk{} (one of {})", DidYouMean(rule, names),
                     fmt::join(names, ", "));
}

sim::Result<std::vector<Ignore>> InFileIgnores(
    const std::vector<models::migrate::MigrationFile>& files) {
  std::vector<Ignore> ignores;
  for (const models::migrate::MigrationFile& file : files) {
    std::string_view text = file.contents;
    int line = 0;
    while (!text.empty()) {
      ++line;
      const std::size_t end = text.find('\n');
      const std::string_view raw = text.substr(0, end);
      text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
      const std::string_view content = Trimmed(raw);
      // Only a line that is a comment and nothing else: `--` or `//`.
      if (!content.starts_with("--") && !content.starts_with("//")) continue;
      const std::string_view comment = Trimmed(content.substr(2));
      if (!comment.starts_with(kMarker)) continue;
      const int column = static_cast<int>(raw.find(kMarker)) + 1;
      const std::string_view rest = Trimmed(comment.substr(kMarker.size()));
      const std::string_view rule = rest.substr(0, rest.find_first_of(" \t"));
      const std::string_view reason =
          rule.size() < rest.size() ? Trimmed(rest.substr(rule.size())) : std::string_view();
      if (!Ignorable(rule)) {
        return sim::Status::InvalidArgument(
            fmt::format("{}:{}:{}: faultline:ignore {}: {}", file.name, line, column,
                        rule.empty() ? "(nothing)" : rule, NoSuchRule(rule)));
      }
      if (reason.empty()) {
        return sim::Status::InvalidArgument(
            fmt::format("{}:{}:{}: faultline:ignore {} says no reason: write why after the rule "
                        "(-- faultline:ignore {} we run it by hand)",
                        file.name, line, column, rule, rule));
      }
      ignores.push_back({.file = file.name,
                         .rule = std::string(rule),
                         .reason = std::string(reason),
                         .where = fmt::format("{}:{}", file.name, line)});
    }
  }
  return ignores;
}

}  // namespace faultline::scenarios
