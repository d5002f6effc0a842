// The lint's rules over statements and the folder's schema history
// (internal to models/migrate/; not installed): lint.cc runs them,
// lint_schema.cc defines them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/cql/ast.h"
#include "models/migrate/lint.h"
#include "models/migrate/schema_model.h"
#include "models/migrate/source.h"

namespace faultline::models::migrate::linting {

// At most this many findings of one rule in one file: a report stays
// readable (and small) when a file repeats one mistake.
constexpr int kMaxPerRuleAndFile = 20;

struct Context {
  const LintInput& input;
  std::vector<LintFinding>& findings;
  std::map<std::pair<std::string, std::string>, int>& counts;  // (rule, file) -> findings
  void Add(std::string_view rule, const std::string& file, int line, int column,
           std::string message) const {
    (void)RuleOf(rule);  // Panics for a rule not in the table.
    int& count = counts[{std::string(rule), file}];
    if (++count > kMaxPerRuleAndFile) return;
    if (count == kMaxPerRuleAndFile) message += " (and maybe more: only the first 20 are said)";
    findings.push_back({std::string(rule), file, line, column, std::move(message)});
  }
  // A finding about a file outside the folder (`path` as given).
  void AddOutside(std::string_view rule, const std::string& path, int line, int column,
                  std::string message) const {
    Add(rule, path, line, column, std::move(message));
    findings.back().in_folder = false;
  }
};

// "ks.t" or "t", as the statement wrote it.
std::string NameOf(const cql::QualifiedName& name);
// A statement that fails when it runs a second time, and why: golang-migrate
// re-runs a whole file after a force to the version before it.
std::optional<std::string> NotIdempotent(const cql::Statement& statement);
// What a statement deletes that code of the previous image still reads.
std::optional<std::string> Destructive(const cql::Statement& statement);
bool NamesAnotherKeyspace(const cql::Statement& statement, const std::string& keyspace);
// The rules that follow the schema through the folder's history.
void LintHistory(const Context& context, const MigrationSource& source,
                 const SchemaModel& older_schema);
// Why `statement` fails on `schema`, when it names a table or column that
// is not there (and says no IF EXISTS).
std::optional<std::string> FailsOn(const cql::Statement& statement, const std::string& keyspace,
                                   const SchemaModel& schema);

}  // namespace faultline::models::migrate::linting
