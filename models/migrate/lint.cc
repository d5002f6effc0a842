#include "models/migrate/lint.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "models/cql/parser.h"
#include "models/migrate/lint_internal.h"
#include "models/migrate/schema_model.h"
#include "models/migrate/statements.h"
#include "sim/assert.h"
#include "sim/fnv.h"

namespace faultline::models::migrate {
namespace {

using linting::Context;
using linting::Destructive;
using linting::FailsOn;
using linting::LintHistory;
using linting::NotIdempotent;

constexpr std::string_view kSumHeader = "faultline-sum 1";
constexpr std::string_view kChecksumPrefix = "fnv1a64:";

// Line and column (from 1) of byte offsets in one file.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') starts_.push_back(i + 1);
    }
  }
  std::pair<int, int> At(std::size_t offset) const {
    const auto after = std::upper_bound(starts_.begin(), starts_.end(), offset);
    FL_ASSERT(after != starts_.begin());
    const std::size_t line = static_cast<std::size_t>(after - starts_.begin());
    return {static_cast<int>(line), static_cast<int>(offset - starts_[line - 1] + 1)};
  }

 private:
  std::vector<std::size_t> starts_;
};

// Each ';' that golang-migrate's splitter cuts at although it is inside a
// string literal, a quoted name or a comment: multistmt.Parse looks for the
// delimiter's bytes and nothing else.
void SemicolonsInLiterals(const Context& context, const std::string& file, std::string_view body) {
  const LineIndex lines(body);
  enum class In : unsigned char {
    kCode,
    kString,
    kName,
    kLineComment,
    kBlockComment
  } in = In::kCode;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    const char next = i + 1 < body.size() ? body[i + 1] : '\0';
    switch (in) {
      case In::kCode:
        if (c == '\'') in = In::kString;
        if (c == '"') in = In::kName;
        if ((c == '-' && next == '-') || (c == '/' && next == '/')) in = In::kLineComment;
        if (c == '/' && next == '*') in = In::kBlockComment;
        continue;
      case In::kString:
        if (c == '\'' && next == '\'') {
          ++i;  // '' is a quote inside the string.
          continue;
        }
        if (c == '\'') in = In::kCode;
        break;
      case In::kName:
        if (c == '"') in = In::kCode;
        break;
      case In::kLineComment:
        if (c == '\n') in = In::kCode;
        break;
      case In::kBlockComment:
        if (c == '*' && next == '/') in = In::kCode;
        break;
    }
    if (c != ';' || in == In::kCode) continue;
    const auto [line, column] = lines.At(i);
    const std::string_view where = in == In::kString ? "a string literal"
                                   : in == In::kName ? "a quoted name"
                                                     : "a comment";
    context.Add("semicolon-in-literal", file, line, column,
                fmt::format("';' inside {}: golang-migrate's multi-statement mode splits the file "
                            "here and sends each half as a statement",
                            where));
  }
}

// The rules that read one file alone.
void LintFile(const Context& context, const std::string& file, std::string_view body, bool up) {
  if (const std::optional<BodySyntaxError> error = FindSyntaxError(body, context.input.dialect)) {
    context.Add("parse-error", file, error->line, error->column, error->message);
  }
  if (context.input.multi_statement) SemicolonsInLiterals(context, file, body);
  const std::vector<LocatedStatement> statements =
      StatementsOf(body, context.input.multi_statement);
  if (!up) {
    // A down file drops by nature (no destructive-change), but one that
    // fails half-way is run again after a force, like an up file.
    for (const LocatedStatement& statement : statements) {
      if (std::optional<std::string> why = NotIdempotent(statement.statement)) {
        context.Add("not-idempotent", file, statement.line, statement.column, *why);
      }
    }
    return;
  }
  if (statements.size() > 1) {
    context.Add("multiple-statements", file, statements[1].line, statements[1].column,
                fmt::format("{} statements in one file: they are not applied atomically, so a "
                            "failure or crash after the first leaves it half-applied",
                            statements.size()));
  }
  for (const LocatedStatement& statement : statements) {
    if (std::optional<std::string> why = NotIdempotent(statement.statement)) {
      context.Add("not-idempotent", file, statement.line, statement.column, *why);
    }
    if (std::optional<std::string> why = Destructive(statement.statement)) {
      context.Add("destructive-change", file, statement.line, statement.column, *why);
    }
  }
}

// Each up file's down: present, and undoing what the up did.
void LintDowns(const Context& context, const MigrationSource& source) {
  const std::string& keyspace = context.input.keyspace;
  SchemaModel before;
  for (const auto& [version, migration] : source.migrations()) {
    if (!migration.up) {
      context.Add("asymmetric-down", migration.down_name, 1, 1,
                  fmt::format("a down file for version {} has no up file", version));
      continue;
    }
    SchemaModel after = before;
    for (const LocatedStatement& at : StatementsOf(*migration.up, context.input.multi_statement)) {
      ApplyStatement(at.statement, keyspace, after);
    }
    if (!migration.down) {
      context.Add(
          "missing-down", migration.up_name, 1, 1,
          fmt::format("version {} has no down file: `migrate down` cannot undo it", version));
    } else {
      SchemaModel undone = after;
      for (const LocatedStatement& at :
           StatementsOf(*migration.down, context.input.multi_statement)) {
        if (std::optional<std::string> fails = FailsOn(at.statement, keyspace, undone)) {
          context.Add("asymmetric-down", migration.down_name, at.line, at.column, *fails);
        }
        ApplyStatement(at.statement, keyspace, undone);
      }
      const std::vector<std::string> diff = SchemaDiff(before, undone);
      if (!diff.empty()) {
        context.Add("asymmetric-down", migration.down_name, 1, 1,
                    fmt::format("after up and down of {}, the schema is not what it was: {}",
                                version, diff.front()));
      }
    }
    before = std::move(after);
  }
}

std::uint64_t VersionOfName(const std::string& name) {
  std::uint64_t version = 0;
  for (const char c : name) {
    if (c < '0' || c > '9') break;
    version = version * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return version;
}

// The files shipped before (a sum file's, an older folder's) against the
// folder: edited, removed, or a new one older than the newest shipped.
void LintShipped(const Context& context, const std::vector<SumEntry>& shipped,
                 const std::string& shipped_where) {
  std::map<std::string, std::uint64_t> now;
  for (const MigrationFile& file : context.input.files) {
    now[file.name] = FileChecksum(file.contents);
  }
  std::set<std::string> shipped_names;
  std::uint64_t newest = 0;
  bool any_up = false;
  for (const SumEntry& entry : shipped) {
    shipped_names.insert(entry.file);
    if (entry.file.find(".up.") != std::string::npos) {
      newest = std::max(newest, VersionOfName(entry.file));
      any_up = true;
    }
    const auto found = now.find(entry.file);
    if (found == now.end() && entry.file.find(".down.") != std::string::npos) {
      context.AddOutside("applied-file-removed", shipped_where, std::max(entry.line, 1), 1,
                         fmt::format("{} was shipped and is gone: `migrate down` can no longer "
                                     "undo version {}",
                                     entry.file, VersionOfName(entry.file)));
      continue;
    }
    if (found == now.end()) {
      context.AddOutside("applied-file-removed", shipped_where, std::max(entry.line, 1), 1,
                         fmt::format("{} was shipped and is gone: a database at its version fails "
                                     "golang-migrate's start (no migration found for version {})",
                                     entry.file, VersionOfName(entry.file)));
    } else if (found->second != entry.checksum) {
      context.Add("applied-file-edited", entry.file, 1, 1,
                  fmt::format("{} was edited since it was shipped ({}): databases that applied "
                              "it keep the old version, and golang-migrate never runs it again",
                              entry.file, shipped_where));
    }
  }
  if (!any_up) return;
  for (const MigrationFile& file : context.input.files) {
    const std::uint64_t version = VersionOfName(file.name);
    if (file.name.find(".up.") == std::string::npos || shipped_names.contains(file.name)) continue;
    if (version < newest) {
      context.Add("version-out-of-order", file.name, 1, 1,
                  fmt::format("new version {} is older than {}, already shipped: golang-migrate "
                              "moves forward from the recorded version and never runs it",
                              version, newest));
    }
  }
}

std::vector<SumEntry> EntriesOf(const std::vector<MigrationFile>& files) {
  std::vector<SumEntry> entries;
  for (const MigrationFile& file : files) {
    entries.push_back({file.name, FileChecksum(file.contents), 0});
  }
  return entries;
}

}  // namespace

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  FL_PANIC("severity {}", static_cast<int>(severity));
}

const std::vector<LintRule>& LintRules() {
  static const std::vector<LintRule> kRules = {
      {"parse-error", Severity::kError, "a statement the store's CQL parser refuses",
       "fix the statement; the message is the store's own", true},
      {"store-refuses", Severity::kError,
       "a statement that parses but the store refuses when the folder runs on an empty keyspace",
       "fix the statement; the message is what the node's log shows", true},
      {"semicolon-in-literal", Severity::kError,
       "a ';' inside a string literal, a quoted name or a comment, where golang-migrate's "
       "multi-statement mode cuts the statement in two",
       "remove the ';' from the literal or comment, or move the statement to a file of its own "
       "run without x-multi-statement"},
      {"if-not-exists-hides-drift", Severity::kError,
       "CREATE TABLE IF NOT EXISTS of a table whose columns changed across the folder's history",
       "never edit a shipped CREATE; add a new versioned migration (ALTER TABLE ... ADD)", true},
      {"applied-file-edited", Severity::kError,
       "a file shipped before (in the sum file or the older folder) was edited since",
       "restore the shipped file and put the change in a new migration", true},
      {"applied-file-removed", Severity::kError, "a file shipped before is gone from the folder",
       "restore it: databases record its version and need it to move on", true},
      {"version-out-of-order", Severity::kError,
       "a new file whose version is older than the newest one shipped",
       "rename it with a version after every shipped one", true},
      {"column-retyped", Severity::kError, "a column dropped and added again with another type",
       "use a new column name"},
      {"not-idempotent", Severity::kWarning,
       "DDL that fails when the file runs a second time (after a crash and a force)",
       "add IF NOT EXISTS / IF EXISTS; keep an ALTER TABLE alone in its file"},
      {"multiple-statements", Severity::kWarning,
       "several statements in one file: neither Cassandra nor YCQL applies them atomically",
       "one statement per file, so that a version number says exactly what ran"},
      {"destructive-change", Severity::kWarning,
       "DROP TABLE, DROP KEYSPACE, ALTER TABLE ... DROP or TRUNCATE",
       "stop reading the data first (one release), drop it in a later one; keep a backup"},
      {"asymmetric-down", Severity::kWarning,
       "a down file that does not undo its up file (or a down file without an up file)",
       "make the down file drop exactly what the up file created"},
      {"missing-down", Severity::kNote, "an up file without a down file",
       "add a down file if you ever roll back with `migrate down`"},
  };
  return kRules;
}

const LintRule& RuleOf(std::string_view id) {
  for (const LintRule& rule : LintRules()) {
    if (rule.id == id) return rule;
  }
  FL_PANIC("no lint rule {}", id);
}

std::uint64_t FileChecksum(std::string_view contents) { return sim::Fnv1a64(contents); }

std::string WriteSumFile(const std::vector<MigrationFile>& files) {
  std::string text = std::string(kSumHeader) + "\n";
  for (const MigrationFile& file : files) {
    // Names with a line break are refused when a folder is read.
    FL_ASSERT(file.name.find_first_of("\r\n") == std::string::npos);
    text += fmt::format("{} {}{:016x}\n", file.name, kChecksumPrefix, FileChecksum(file.contents));
  }
  return text;
}

sim::Result<SumFile> ParseSumFile(std::string_view text, std::string_view source) {
  SumFile sum;
  int line = 0;
  constexpr std::size_t kMaxEntries = 100'000;
  std::set<std::string, std::less<>> seen;
  while (!text.empty()) {
    ++line;
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view row = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
    const auto fail = [&](int column, std::string what) {
      return sim::Status::InvalidArgument(fmt::format("{}:{}:{}: {}", source, line, column, what));
    };
    if (line == 1) {
      if (row != kSumHeader)
        return fail(1, fmt::format("expected '{}' (is this a sum file?)", kSumHeader));
      continue;
    }
    if (row.empty()) continue;
    const std::size_t space = row.rfind(' ');  // A file name may hold spaces.
    if (space == std::string_view::npos || space == 0) {
      return fail(1, "expected '<file> fnv1a64:<16 hex digits>'");
    }
    std::string_view checksum = row.substr(space + 1);
    if (!checksum.starts_with(kChecksumPrefix)) {
      return fail(static_cast<int>(space) + 2, fmt::format("expected '{}'", kChecksumPrefix));
    }
    checksum.remove_prefix(kChecksumPrefix.size());
    std::uint64_t value = 0;
    const auto [ptr, error] =
        std::from_chars(checksum.data(), checksum.data() + checksum.size(), value, 16);
    if (checksum.size() != 16 || error != std::errc() || ptr != checksum.data() + checksum.size()) {
      return fail(static_cast<int>(space + 2 + kChecksumPrefix.size()), "expected 16 hex digits");
    }
    const std::string_view name = row.substr(0, space);
    if (!seen.insert(std::string(name)).second)
      return fail(1, fmt::format("{} is listed twice", name));
    if (sum.entries.size() >= kMaxEntries)
      return fail(1, fmt::format("over {} files", kMaxEntries));
    sum.entries.push_back({std::string(name), value, line});
  }
  if (line == 0) return sim::Status::InvalidArgument(fmt::format("{}:1:1: empty sum file", source));
  return sum;
}

std::vector<LocatedStatement> StatementsOf(std::string_view body, bool multi_statement) {
  const LineIndex lines(body);
  std::vector<LocatedStatement> statements;
  std::vector<std::string> pieces;
  if (multi_statement) {
    pieces = SplitStatements(body);
  } else {
    pieces.emplace_back(body);
  }
  std::size_t start = 0;
  for (const std::string& piece : pieces) {
    const cql::ParseResult parsed = cql::Parse(piece);
    if (!parsed.error) {
      for (const cql::ParsedStatement& statement : parsed.statements) {
        const auto [line, column] = lines.At(start + statement.start.offset);
        statements.push_back({statement.statement, line, column, statement.text});
      }
    }
    start += piece.size();
  }
  FL_ASSERT(start == body.size());
  return statements;
}

std::vector<LintFinding> LintFolder(const LintInput& input) {
  std::vector<LintFinding> findings;
  std::map<std::pair<std::string, std::string>, int> counts;
  const Context context{input, findings, counts};
  sim::Result<MigrationSource> source = MigrationSource::FromFiles(input.files);
  FL_ASSERT_MSG(source.ok(), "a folder checked when read: {}", source.status().ToString());
  for (const auto& [version, migration] : source->migrations()) {
    if (migration.up) LintFile(context, migration.up_name, *migration.up, true);
    if (migration.down) LintFile(context, migration.down_name, *migration.down, false);
  }
  SchemaModel older_schema;
  if (input.older != nullptr) {
    sim::Result<MigrationSource> older = MigrationSource::FromFiles(*input.older);
    FL_ASSERT(older.ok());
    older_schema = ExpectedSchema(*older, input.keyspace);
  }
  LintHistory(context, *source, older_schema);
  LintDowns(context, *source);
  if (input.sum != nullptr) LintShipped(context, input.sum->entries, input.sum_name);
  if (input.older != nullptr) {
    LintShipped(context, EntriesOf(*input.older),
                input.older_name.empty() ? "the older folder" : input.older_name);
  }
  // By file in the folder's order, then by place; a finding found twice
  // (by the sum file and the older folder) once.
  std::map<std::string, std::size_t> order;
  for (const auto& [version, migration] : source->migrations()) {
    if (migration.up) order.emplace(migration.up_name, order.size());
    if (migration.down) order.emplace(migration.down_name, order.size());
  }
  const auto rank = [&](const LintFinding& f) {
    const auto found = order.find(f.file);
    return std::make_tuple(found == order.end() ? order.size() : found->second, f.file, f.line,
                           f.column, f.rule, f.message);
  };
  std::stable_sort(findings.begin(), findings.end(),
                   [&](const LintFinding& a, const LintFinding& b) { return rank(a) < rank(b); });
  findings.erase(std::unique(findings.begin(), findings.end(),
                             [](const LintFinding& a, const LintFinding& b) {
                               return a.rule == b.rule && a.file == b.file && a.line == b.line &&
                                      a.column == b.column && a.message == b.message;
                             }),
                 findings.end());
  return findings;
}

std::optional<std::string> NamedKeyspace(const std::vector<MigrationFile>& files) {
  std::set<std::string> named;
  // The store's own keyspaces (system.peers, system_schema.tables, ...)
  // are read, never migrated: they name no keyspace of the folder.
  const auto keep = [&](const std::string& keyspace) {
    if (!keyspace.empty() && !keyspace.starts_with("system")) named.insert(keyspace);
  };
  const auto note = [&](const cql::QualifiedName& name) { keep(name.keyspace); };
  for (const MigrationFile& file : files) {
    for (const LocatedStatement& at : StatementsOf(file.contents, true)) {
      std::visit(
          [&](const auto& statement) {
            using T = std::decay_t<decltype(statement)>;
            if constexpr (requires { statement.table; }) {
              if constexpr (std::is_same_v<std::remove_cvref_t<decltype(statement.table)>,
                                           cql::QualifiedName>) {
                note(statement.table);
              }
            }
            if constexpr (std::is_same_v<T, cql::Use>) keep(statement.keyspace);
            // A folder that makes its own keyspace migrates it.
            if constexpr (std::is_same_v<T, cql::CreateKeyspace>) keep(statement.name);
          },
          at.statement);
    }
  }
  if (named.size() != 1) return std::nullopt;
  return *named.begin();
}

}  // namespace faultline::models::migrate
