#include "models/migrate/lint.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "models/cql/parser.h"
#include "models/migrate/schema_model.h"
#include "models/migrate/statements.h"
#include "sim/assert.h"
#include "sim/fnv.h"

namespace faultline::models::migrate {
namespace {

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

std::string NameOf(const cql::QualifiedName& name) {
  return name.keyspace.empty() ? name.name : name.keyspace + "." + name.name;
}

// One ALTER TABLE operation that fails when it runs a second time, and why.
std::optional<std::string> AlterNotIdempotent(const cql::AlterTable& alter) {
  // WITH sets options to the same values again: it can run twice; so do
  // Cassandra's ADD IF NOT EXISTS and DROP/RENAME IF EXISTS.
  if (alter.action == cql::AlterTable::Action::kWith || alter.if_exists) return std::nullopt;
  if (alter.action == cql::AlterTable::Action::kRename) {
    return fmt::format(
        "ALTER TABLE {} RENAME {} TO {} fails if the file runs again (the old name is gone "
        "then: Undefined Column)",
        NameOf(alter.table), alter.column.name, alter.new_name);
  }
  return fmt::format(
      "ALTER TABLE {} {} {} fails if the file runs again (YCQL has no IF NOT EXISTS for a "
      "column; Cassandra 4.1 takes ADD IF NOT EXISTS and DROP IF EXISTS)",
      NameOf(alter.table), alter.action == cql::AlterTable::Action::kAdd ? "ADD" : "DROP",
      alter.column.name);
}

// A statement that fails when it runs a second time, and why: golang-migrate
// re-runs a whole file after a force to the version before it.
std::optional<std::string> NotIdempotent(const cql::Statement& statement) {
  if (const auto* create = std::get_if<cql::CreateTable>(&statement)) {
    if (!create->if_not_exists) {
      return fmt::format("CREATE TABLE {} fails if the file runs again (Duplicate Object)",
                         NameOf(create->table));
    }
  } else if (const auto* keyspace = std::get_if<cql::CreateKeyspace>(&statement)) {
    if (!keyspace->if_not_exists) {
      return fmt::format("CREATE KEYSPACE {} fails if the file runs again (Duplicate Object)",
                         keyspace->name);
    }
  } else if (const auto* drop = std::get_if<cql::DropTable>(&statement)) {
    if (!drop->if_exists) {
      return fmt::format("DROP TABLE {} fails if the file runs again (Object Not Found)",
                         NameOf(drop->table));
    }
  } else if (const auto* drop_keyspace = std::get_if<cql::DropKeyspace>(&statement)) {
    if (!drop_keyspace->if_exists) {
      return fmt::format("DROP KEYSPACE {} fails if the file runs again (Object Not Found)",
                         drop_keyspace->name);
    }
  } else if (const auto* type = std::get_if<cql::CreateType>(&statement)) {
    if (!type->if_not_exists) {
      return fmt::format("CREATE TYPE {} fails if the file runs again (Duplicate Type)",
                         NameOf(type->type));
    }
  } else if (const auto* alter_type = std::get_if<cql::AlterType>(&statement)) {
    if (alter_type->action == cql::AlterType::Action::kAdd && !alter_type->field_if_not_exists) {
      return fmt::format(
          "ALTER TYPE {} ADD {} fails if the file runs again (the field exists then; Cassandra "
          "takes ADD IF NOT EXISTS)",
          NameOf(alter_type->type), alter_type->field.name);
    }
    if (alter_type->action == cql::AlterType::Action::kRename && !alter_type->rename_if_exists) {
      return fmt::format(
          "ALTER TYPE {} RENAME {} fails if the file runs again (the old name is gone then; "
          "Cassandra takes RENAME IF EXISTS)",
          NameOf(alter_type->type), alter_type->renames.front().from);
    }
  } else if (const auto* drop_type = std::get_if<cql::DropType>(&statement)) {
    if (!drop_type->if_exists) {
      return fmt::format("DROP TYPE {} fails if the file runs again (Type Not Found)",
                         NameOf(drop_type->type));
    }
  } else if (const auto* index = std::get_if<cql::CreateIndex>(&statement)) {
    if (!index->if_not_exists) {
      return fmt::format(
          "CREATE INDEX {}fails if the file runs again (Duplicate Object in YCQL, \"already "
          "exists\" or \"is a duplicate of existing index\" in Cassandra)",
          index->name.empty() ? "ON " + NameOf(index->table) + " " : index->name + " ");
    }
  } else if (const auto* drop_index = std::get_if<cql::DropIndex>(&statement)) {
    if (!drop_index->if_exists) {
      return fmt::format("DROP INDEX {} fails if the file runs again (Object Not Found)",
                         NameOf(drop_index->index));
    }
  } else if (const auto* alter = std::get_if<cql::AlterTable>(&statement)) {
    for (const cql::AlterTable* operation : cql::Operations(*alter)) {
      if (std::optional<std::string> why = AlterNotIdempotent(*operation)) return why;
    }
  }
  return std::nullopt;
}

std::optional<std::string> Destructive(const cql::Statement& statement) {
  if (const auto* drop = std::get_if<cql::DropTable>(&statement)) {
    return fmt::format("DROP TABLE {} deletes the table and every row in it", NameOf(drop->table));
  }
  if (const auto* drop = std::get_if<cql::DropKeyspace>(&statement)) {
    return fmt::format("DROP KEYSPACE {} deletes every table in it", drop->name);
  }
  if (const auto* truncate = std::get_if<cql::Truncate>(&statement)) {
    return fmt::format("TRUNCATE {} deletes every row", NameOf(truncate->table));
  }
  const auto* alter = std::get_if<cql::AlterTable>(&statement);
  if (alter == nullptr) return std::nullopt;
  for (const cql::AlterTable* operation : cql::Operations(*alter)) {
    if (operation->action != cql::AlterTable::Action::kDrop) continue;
    return fmt::format(
        "ALTER TABLE {} DROP {} deletes the column's data, and code still "
        "running the previous image reads it",
        NameOf(alter->table), operation->column.name);
  }
  return std::nullopt;
}

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
  if (const std::optional<BodySyntaxError> error = FindSyntaxError(body)) {
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

std::string ColumnsDiff(const std::map<std::string, std::string>& before,
                        const std::map<std::string, std::string>& after) {
  std::vector<std::string> parts;
  for (const auto& [column, type] : after) {
    auto old = before.find(column);
    if (old == before.end()) parts.push_back("adds " + column);
    if (old != before.end() && old->second != type) {
      parts.push_back(fmt::format("{} {} -> {}", column, old->second, type));
    }
  }
  for (const auto& [column, type] : before) {
    if (!after.contains(column)) parts.push_back("drops " + column);
  }
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

std::map<std::string, std::string> ColumnsOf(const cql::CreateTable& create,
                                             const std::string& keyspace) {
  SchemaModel one;
  ApplyStatement(create, keyspace, one);
  return one.empty() ? std::map<std::string, std::string>{} : one.begin()->second;
}

// Whether the older folder shipped this up file as it is: on the volumes it
// left, the file is applied and never runs again, so its CREATE cannot be
// skipped against what it made itself.
bool ShippedAsIs(const Context& context, const Migration& migration) {
  if (context.input.older == nullptr || !migration.up) return false;
  return std::any_of(context.input.older->begin(), context.input.older->end(),
                     [&](const MigrationFile& file) {
                       return file.name == migration.up_name && file.contents == *migration.up;
                     });
}

bool NamesAnotherKeyspace(const cql::Statement& statement, const std::string& keyspace) {
  return std::visit(
      [&](const auto& s) {
        if constexpr (requires { s.table.keyspace; }) {
          return !s.table.keyspace.empty() && s.table.keyspace != keyspace;
        } else if constexpr (requires { s.index.keyspace; }) {
          return !s.index.keyspace.empty() && s.index.keyspace != keyspace;
        } else if constexpr (requires { s.type.keyspace; }) {
          return !s.type.keyspace.empty() && s.type.keyspace != keyspace;
        }
        return false;
      },
      statement);
}

// What an index is on, to compare two definitions of one name: "t (a,
// keys(m)) INCLUDE (b) WHERE ... USING '...'".
std::string IndexShape(const cql::CreateIndex& index) {
  static constexpr std::string_view kFunctions[] = {"", "keys", "values", "entries", "full"};
  std::string shape = index.table.name + " (";
  for (std::size_t i = 0; i < index.targets.size(); ++i) {
    const cql::IndexTarget& target = index.targets[i];
    const std::string_view function = kFunctions[static_cast<std::size_t>(target.kind)];
    shape += (i > 0 ? ", " : "") +
             (function.empty() ? target.column : fmt::format("{}({})", function, target.column));
  }
  shape += ")";
  if (!index.included.empty())
    shape += fmt::format(" INCLUDE ({})", fmt::join(index.included, ", "));
  if (!index.where_text.empty()) shape += " WHERE " + index.where_text;
  if (!index.using_class.empty()) shape += fmt::format(" USING '{}'", index.using_class);
  if (index.unique) shape = "UNIQUE " + shape;
  return shape;
}

// An index made IF NOT EXISTS under a name an earlier file gave another
// definition: the store keeps the first and says nothing.
void IndexHistory(const Context& context, const std::string& file, const LocatedStatement& at,
                  std::map<std::string, std::string>& indexes) {
  if (const auto* index = std::get_if<cql::CreateIndex>(&at.statement)) {
    if (index->name.empty()) return;  // Named by the store from its columns.
    const std::string shape = IndexShape(*index);
    const auto earlier = indexes.find(index->name);
    if (index->if_not_exists && earlier != indexes.end() && earlier->second != shape) {
      context.Add("if-not-exists-hides-drift", file, at.line, at.column,
                  fmt::format("CREATE INDEX IF NOT EXISTS {} ON {} when an earlier file made it "
                              "ON {}: the store keeps the old index and says nothing",
                              index->name, shape, earlier->second));
      return;
    }
    indexes.emplace(index->name, shape);
  } else if (const auto* drop = std::get_if<cql::DropIndex>(&at.statement)) {
    indexes.erase(drop->index.name);
  } else if (const auto* drop_table = std::get_if<cql::DropTable>(&at.statement)) {
    std::erase_if(indexes, [&](const auto& entry) {
      return entry.second.starts_with(drop_table->table.name + " (") ||
             entry.second.starts_with("UNIQUE " + drop_table->table.name + " (");
    });
  }
}

// One ALTER TABLE operation in the folder's history: a dropped column is
// remembered with its type, and one added again with another is retyped.
void AlterHistory(const Context& context, const std::string& file, const LocatedStatement& at,
                  const cql::AlterTable& alter, const SchemaModel& schema,
                  std::map<std::pair<std::string, std::string>, std::string>& dropped) {
  const std::string& keyspace = context.input.keyspace;
  const auto table = schema.find(alter.table.name);
  if (table != schema.end() && alter.action == cql::AlterTable::Action::kDrop) {
    const auto column = table->second.find(alter.column.name);
    if (column != table->second.end()) {
      dropped[{alter.table.name, alter.column.name}] = column->second;
    }
  }
  if (alter.action != cql::AlterTable::Action::kAdd) return;
  const auto gone = dropped.find({alter.table.name, alter.column.name});
  cql::AlterTable one = alter;
  one.then.clear();
  one.if_exists = false;
  SchemaModel probe = {{alter.table.name, {}}};
  ApplyStatement(one, keyspace, probe);
  const std::string type = probe[alter.table.name][alter.column.name];
  if (gone != dropped.end() && gone->second != type) {
    context.Add("column-retyped", file, at.line, at.column,
                fmt::format("{}.{} is added as {}, dropped as {}: Cassandra refuses it, "
                            "and old rows hold the old type",
                            alter.table.name, alter.column.name, type, gone->second));
  }
}

// The rules that follow the schema through the folder's history: a table
// or an index re-created IF NOT EXISTS with another definition (here, or as
// the older folder made it), and a column dropped and added again with
// another type.
void LintHistory(const Context& context, const MigrationSource& source,
                 const SchemaModel& older_schema) {
  const std::string& keyspace = context.input.keyspace;
  SchemaModel schema;
  std::map<std::pair<std::string, std::string>, std::string> dropped;  // (table, column) -> type
  std::map<std::string, std::string> indexes;                          // name -> IndexShape
  for (const auto& [version, migration] : source.migrations()) {
    if (!migration.up) continue;
    for (const LocatedStatement& at : StatementsOf(*migration.up, context.input.multi_statement)) {
      if (NamesAnotherKeyspace(at.statement, keyspace)) continue;  // Not this keyspace's history.
      IndexHistory(context, migration.up_name, at, indexes);
      if (const auto* create = std::get_if<cql::CreateTable>(&at.statement)) {
        const std::map<std::string, std::string> columns = ColumnsOf(*create, keyspace);
        const auto earlier = schema.find(create->table.name);
        const auto shipped = older_schema.find(create->table.name);
        if (create->if_not_exists && earlier != schema.end() && earlier->second != columns) {
          context.Add("if-not-exists-hides-drift", migration.up_name, at.line, at.column,
                      fmt::format("CREATE TABLE IF NOT EXISTS {} with other columns than an "
                                  "earlier file made ({}): the store keeps the old table and "
                                  "says nothing",
                                  create->table.name, ColumnsDiff(earlier->second, columns)));
        } else if (create->if_not_exists && earlier == schema.end() &&
                   !ShippedAsIs(context, migration) && shipped != older_schema.end() &&
                   shipped->second != columns) {
          context.Add("if-not-exists-hides-drift", migration.up_name, at.line, at.column,
                      fmt::format("CREATE TABLE IF NOT EXISTS {} with other columns than the "
                                  "older folder made ({}): on a volume it left, the store keeps "
                                  "the old table and says nothing",
                                  create->table.name, ColumnsDiff(shipped->second, columns)));
        }
        for (const auto& [column, type] : columns) {
          auto gone = dropped.find({create->table.name, column});
          if (gone != dropped.end() && gone->second != type) {
            context.Add("column-retyped", migration.up_name, at.line, at.column,
                        fmt::format("{}.{} comes back as {}, dropped as {}: rows written before "
                                    "and code still running the old image disagree",
                                    create->table.name, column, type, gone->second));
          }
        }
      } else if (const auto* alter = std::get_if<cql::AlterTable>(&at.statement)) {
        for (const cql::AlterTable* operation : cql::Operations(*alter)) {
          AlterHistory(context, migration.up_name, at, *operation, schema, dropped);
        }
      } else if (const auto* drop = std::get_if<cql::DropTable>(&at.statement)) {
        // The dropped columns a table remembers go with the table: a table
        // made again under its name is a new one (Cassandra checks a re-added
        // column against the table's own droppedColumns, in
        // AlterTableStatement's "Cannot re-add previously dropped column";
        // DROP TABLE removes that metadata with the rest).
        std::erase_if(dropped,
                      [&](const auto& entry) { return entry.first.first == drop->table.name; });
      }
      ApplyStatement(at.statement, keyspace, schema);
    }
  }
}

// Why `statement` fails on `schema`, when it names a table or column that
// is not there (and says no IF EXISTS): a down file that drops what its up
// never made stops `migrate down` half-way.
std::optional<std::string> FailsOn(const cql::Statement& statement, const std::string& keyspace,
                                   const SchemaModel& schema) {
  if (NamesAnotherKeyspace(statement, keyspace)) return std::nullopt;
  if (const auto* drop = std::get_if<cql::DropTable>(&statement)) {
    if (!drop->if_exists && !schema.contains(drop->table.name)) {
      return fmt::format(
          "DROP TABLE {}: there is no such table then (Object Not Found), so "
          "`migrate down` fails here",
          drop->table.name);
    }
  }
  if (const auto* alter = std::get_if<cql::AlterTable>(&statement)) {
    const auto table = schema.find(alter->table.name);
    if (table == schema.end()) {
      return fmt::format(
          "ALTER TABLE {}: there is no such table then, so `migrate down` fails "
          "here",
          alter->table.name);
    }
    for (const cql::AlterTable* operation : cql::Operations(*alter)) {
      const bool needs_column = operation->action == cql::AlterTable::Action::kDrop ||
                                operation->action == cql::AlterTable::Action::kRename;
      if (needs_column && !operation->if_exists &&
          !table->second.contains(operation->column.name)) {
        return fmt::format(
            "ALTER TABLE {} {} {}: there is no such column then, so `migrate "
            "down` fails here",
            alter->table.name,
            operation->action == cql::AlterTable::Action::kDrop ? "DROP" : "RENAME",
            operation->column.name);
      }
    }
  }
  return std::nullopt;
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
       "fix the statement; the message is the store's own"},
      {"store-refuses", Severity::kError,
       "a statement that parses but the store refuses when the folder runs on an empty keyspace",
       "fix the statement; the message is what the node's log shows"},
      {"semicolon-in-literal", Severity::kError,
       "a ';' inside a string literal, a quoted name or a comment, where golang-migrate's "
       "multi-statement mode cuts the statement in two",
       "remove the ';' from the literal or comment, or move the statement to a file of its own "
       "run without x-multi-statement"},
      {"if-not-exists-hides-drift", Severity::kError,
       "CREATE TABLE IF NOT EXISTS of a table whose columns changed across the folder's history",
       "never edit a shipped CREATE; add a new versioned migration (ALTER TABLE ... ADD)"},
      {"applied-file-edited", Severity::kError,
       "a file shipped before (in the sum file or the older folder) was edited since",
       "restore the shipped file and put the change in a new migration"},
      {"applied-file-removed", Severity::kError, "a file shipped before is gone from the folder",
       "restore it: databases record its version and need it to move on"},
      {"version-out-of-order", Severity::kError,
       "a new file whose version is older than the newest one shipped",
       "rename it with a version after every shipped one"},
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
