#include "models/migrate/safe_runner.h"
#include "sim/fnv.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>

#include "models/cql/parser.h"
#include "models/migrate/cassandra_driver.h"
#include "models/migrate/migration_trace.h"
#include "models/migrate/schema_check.h"
#include "sim/assert.h"

namespace faultline::models::migrate {
namespace {

std::string SafeSite(std::string_view keyspace, std::string_view point) {
  return fmt::format("safe.{}.{}", keyspace, point);
}

using cql::ClientResult;
using cql::Value;

std::vector<std::string> Statements(const std::string& body) {
  std::vector<std::string> statements;
  const std::vector<std::string> pieces = SplitStatements(body);
  for (const std::string& piece : pieces) {
    std::string statement = Trimmed(piece, ";");
    if (statement.empty()) continue;
    FL_ASSERT(statement.back() != ';');
    statements.push_back(std::move(statement));
  }
  return statements;
}

// Whether `result` says that `statement` had already taken effect: it may
// have, when it is the first statement after a resume (the crash came
// between running it and recording it).
bool AlreadyApplied(const std::string& statement, const ClientResult& result) {
  if (!result.error) return false;
  const cql::ErrorCode code = result.error->code;
  const cql::ParseResult parsed = cql::Parse(statement);
  if (parsed.statements.size() != 1) return false;
  const cql::Statement& body = parsed.statements[0].statement;
  if (std::holds_alternative<cql::CreateTable>(body)) {
    return code == cql::ErrorCode::kDuplicateObject;
  }
  if (std::holds_alternative<cql::CreateKeyspace>(body)) {
    return code == cql::ErrorCode::kKeyspaceAlreadyExists;
  }
  if (std::holds_alternative<cql::DropTable>(body)) return code == cql::ErrorCode::kObjectNotFound;
  // An index made or dropped already: YCQL's codes, or Cassandra's Invalid
  // Request with its words ("Index 'i' already exists", "... doesn't exist'").
  const std::string_view headline = cql::Headline(result.error->message);
  if (std::holds_alternative<cql::CreateIndex>(body)) {
    return code == cql::ErrorCode::kDuplicateObject ||
           (code == cql::ErrorCode::kInvalidRequest &&
            (headline.find("already exists") != std::string_view::npos ||
             headline.find("is a duplicate of existing index") != std::string_view::npos));
  }
  if (std::holds_alternative<cql::CreateType>(body)) {
    return code == cql::ErrorCode::kDuplicateType ||
           (code == cql::ErrorCode::kInvalidRequest &&
            headline.find("already exists") != std::string_view::npos);
  }
  if (std::holds_alternative<cql::DropType>(body)) {
    return code == cql::ErrorCode::kTypeNotFound ||
           (code == cql::ErrorCode::kInvalidRequest &&
            headline.find("doesn't exist") != std::string_view::npos);
  }
  if (const auto* alter_type = std::get_if<cql::AlterType>(&body)) {
    // Cassandra's words for a field added or renamed already.
    return code == cql::ErrorCode::kInvalidRequest &&
           headline.find(alter_type->action == cql::AlterType::Action::kAdd
                             ? "already exists"
                             : "Unkown field") != std::string_view::npos;
  }
  if (std::holds_alternative<cql::DropIndex>(body)) {
    return code == cql::ErrorCode::kObjectNotFound ||
           (code == cql::ErrorCode::kInvalidRequest &&
            headline.find("doesn't exist") != std::string_view::npos);
  }
  if (std::holds_alternative<cql::DropKeyspace>(body)) {
    return code == cql::ErrorCode::kKeyspaceNotFound;
  }
  if (const auto* alter = std::get_if<cql::AlterTable>(&body)) {
    switch (alter->action) {
      case cql::AlterTable::Action::kAdd:
        return code == cql::ErrorCode::kDuplicateColumn;
      case cql::AlterTable::Action::kDrop:
      case cql::AlterTable::Action::kRename:  // The old name is gone once renamed.
        return code == cql::ErrorCode::kUndefinedColumn;
      case cql::AlterTable::Action::kWith:
        return false;  // Runs again without an error: no error says it was applied.
    }
  }
  return false;
}

// The checksum of a migration's first `count` statements: what progress
// records, so that a file may still be fixed after the statement it failed
// at, but not before it.
std::string PrefixChecksum(const std::vector<std::string>& statements, std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count && i < statements.size(); ++i) text += statements[i] + ";\n";
  return Checksum(text);
}

// What is recorded of one migration.
struct Progress {
  bool exists = false;  // A row: this migration was begun before.
  std::string checksum;
  std::int64_t done = 0;
  bool complete = false;
};

// A conditional statement's answer: one row, [applied] first.
bool IsLwtAnswer(const ClientResult& result) {
  return result.result.rows.size() == 1 && !result.result.rows.front().empty();
}
sim::Status NotAnLwtAnswer() {
  return sim::Status::Unavailable("the store's answer to a conditional statement has no [applied]");
}

// The newest version in the progress table, complete or begun (a newer
// image that crashed part-way through its file migrated this keyspace
// too), -1 for none.
sim::Awaitable<sim::Result<std::int64_t>> NewestApplied(cql::CqlSession& session) {
  ClientResult rows = co_await session.Query("SELECT version FROM faultline_migrations");
  if (!rows.ok()) co_return sim::Status::Unavailable(rows.ToString());
  std::int64_t newest = -1;
  for (const cql::Row& row : rows.result.rows) {
    FL_ASSERT(row.size() == 1);
    newest = std::max(newest, row[0].integer);
  }
  co_return newest;
}

// The runner's work on one keyspace, under its lock.
class SafeMigration {
 public:
  SafeMigration(cql::CqlSession& session, const MigrationSource& source, std::string owner,
                LogSink log, const std::string& keyspace)
      : session_(session),
        source_(source),
        owner_(std::move(owner)),
        log_(std::move(log)),
        keyspace_(keyspace),
        site_lock_after_(SafeSite(keyspace, SafeRunner::kFaultPoints[0])),
        site_statement_before_(SafeSite(keyspace, SafeRunner::kFaultPoints[1])),
        site_statement_after_(SafeSite(keyspace, SafeRunner::kFaultPoints[2])),
        site_progress_after_(SafeSite(keyspace, SafeRunner::kFaultPoints[3])) {}

  const std::string& lock_after_site() const { return site_lock_after_; }

  sim::Awaitable<sim::Status> Prepare() {
    for (const char* statement :
         {"CREATE TABLE IF NOT EXISTS faultline_migrations (version bigint PRIMARY KEY, "
          "checksum text, statements_done int, complete boolean)",
          "CREATE TABLE IF NOT EXISTS faultline_migration_lock (id int PRIMARY KEY, owner text)"}) {
      ClientResult result = co_await session_.Query(statement);
      if (!result.ok()) co_return sim::Status::Unavailable(result.ToString());
    }
    co_return sim::Status::Ok();
  }

  sim::Awaitable<sim::Status> Lock(const SafeRunner::Options& options) {
    FL_ASSERT(options.lock_attempts > 0);
    for (int attempt = 0; attempt < options.lock_attempts; ++attempt) {
      std::vector<Value> values;
      values.push_back(Value::Text(owner_));
      values.push_back(
          Value::Int(std::chrono::duration_cast<std::chrono::seconds>(options.lease).count()));
      ClientResult taken = co_await session_.Query(
          "INSERT INTO faultline_migration_lock (id, owner) VALUES (1, ?) IF NOT EXISTS USING "
          "TTL ?",
          std::move(values));
      if (!taken.ok()) co_return sim::Status::Unavailable(taken.ToString());
      if (!IsLwtAnswer(taken)) co_return NotAnLwtAnswer();
      const cql::Row& row = taken.result.rows.front();
      FL_ASSERT(!row.empty());  // IsLwtAnswer: [applied] is there.
      const std::string holder = row.size() > 2 ? row[2].bytes : "";
      if (row[0].integer != 0) co_return sim::Status::Ok();
      // Our own lease (the same token, from before a failed attempt): take
      // it back with a fresh TTL.
      if (holder == owner_) co_return co_await Renew(options);
      // A lease of this container's earlier life ("kuri-2/2" for us,
      // "kuri-2/3"): that process is dead, restarted into us, so its lease
      // guards nothing. Take it over rather than wait for it to expire (a
      // crash loop would otherwise wait out a lease at every restart).
      if (IsEarlierLifeOfUs(holder)) co_return co_await TakeOver(holder, options);
      if (attempt == 0)
        log_(fmt::format("migrate: waiting for the migration lock held by {}", holder));
      co_await sim::SleepFor(options.lock_retry);
    }
    co_return sim::Status::Unavailable("cannot take the migration lock: another runner holds it");
  }

  // Whether `holder` names this container at an earlier incarnation: the
  // owners are "<container>/<incarnation>" (models/s3/s3.h LockOwner).
  bool IsEarlierLifeOfUs(const std::string& holder) const {
    const std::size_t ours = owner_.rfind('/');
    const std::size_t theirs = holder.rfind('/');
    if (ours == std::string::npos || theirs == std::string::npos) return false;
    if (owner_.compare(0, ours, holder, 0, theirs) != 0 || ours != theirs) return false;
    const auto incarnation = [](const std::string& owner, std::size_t slash) {
      std::uint64_t value = 0;
      const auto [end, error] =
          std::from_chars(owner.data() + slash + 1, owner.data() + owner.size(), value);
      return error == std::errc() && end == owner.data() + owner.size()
                 ? std::optional<std::uint64_t>(value)
                 : std::nullopt;
    };
    const std::optional<std::uint64_t> mine = incarnation(owner_, ours);
    const std::optional<std::uint64_t> earlier = incarnation(holder, theirs);
    return mine && earlier && *earlier < *mine;
  }

  // Moves the lease from `holder` to us, if it is still theirs.
  sim::Awaitable<sim::Status> TakeOver(const std::string& holder,
                                       const SafeRunner::Options& options) {
    log_(fmt::format("migrate: taking over the migration lock of {}, an earlier life of {}", holder,
                     owner_));
    // Named, not temporaries in the co_await (GCC 12 may destroy those twice).
    const std::string lost = "the migration lock changed hands while taking it over";
    co_return co_await LeaseIfOwnedBy(holder, options, lost);
  }

  // Extends the lease; fails when it is no longer ours (it expired and
  // another runner took it), so that two runners never both migrate.
  sim::Awaitable<sim::Status> Renew(const SafeRunner::Options& options) {
    const std::string lost = "lost the migration lock (its lease expired)";
    co_return co_await LeaseIfOwnedBy(owner_, options, lost);
  }

  // The lease, ours with a fresh TTL, if `holder` still holds it (a
  // lightweight transaction); else Unavailable with `lost`.
  sim::Awaitable<sim::Status> LeaseIfOwnedBy(std::string holder, const SafeRunner::Options& options,
                                             std::string lost) {
    FL_ASSERT(options.lease > sim::Duration::zero());
    std::vector<Value> values;
    values.push_back(
        Value::Int(std::chrono::duration_cast<std::chrono::seconds>(options.lease).count()));
    values.push_back(Value::Text(owner_));
    values.push_back(Value::Text(std::move(holder)));
    ClientResult answer = co_await session_.Query(
        "UPDATE faultline_migration_lock USING TTL ? SET owner = ? WHERE id = 1 IF owner = ?",
        std::move(values));
    if (!answer.ok()) co_return sim::Status::Unavailable(answer.ToString());
    if (!IsLwtAnswer(answer)) co_return NotAnLwtAnswer();
    FL_ASSERT(!answer.result.rows.front().empty());
    if (answer.result.rows.front().front().integer == 0) {
      co_return sim::Status::Unavailable(std::move(lost));
    }
    co_return sim::Status::Ok();
  }

  sim::Awaitable<void> Unlock() {
    std::vector<Value> values;
    values.push_back(Value::Text(owner_));
    co_await session_.Query("DELETE FROM faultline_migration_lock WHERE id = 1 IF owner = ?",
                            std::move(values));
  }

  sim::Awaitable<sim::Status> ApplyAll(const SafeRunner::Options& options) {
    options_ = &options;
    for (const auto& [version, migration] : source_.migrations()) {
      if (!migration.up) continue;
      if (sim::Status status = co_await Apply(migration); !status.ok()) co_return status;
    }
    co_return sim::Status::Ok();
  }

 private:
  sim::Awaitable<sim::Result<Progress>> ReadProgress(std::int64_t version) {
    std::vector<Value> key;
    key.push_back(Value::Int(version));
    ClientResult rows = co_await session_.Query(
        "SELECT checksum, statements_done, complete FROM faultline_migrations WHERE version = ?",
        std::move(key));
    if (!rows.ok()) co_return sim::Status::Unavailable(rows.ToString());
    Progress progress;
    if (!rows.result.rows.empty()) {
      const cql::Row& row = rows.result.rows.front();
      progress.exists = true;
      progress.checksum = row.at(0).bytes;
      progress.done = row.at(1).integer;
      progress.complete = row.at(2).integer != 0;
    }
    co_return progress;
  }

  // Records progress, then passes the progress.after fault point.
  sim::Awaitable<sim::Status> Record(std::int64_t version, const std::string& checksum,
                                     std::int64_t done, bool complete) {
    FL_ASSERT(done > 0 || complete);  // Only an empty migration records none done.
    if (sim::Status status = co_await WriteProgress(version, checksum, done, complete);
        !status.ok()) {
      co_return status;
    }
    co_return co_await sim::FaultPoint(site_progress_after_);
  }

  sim::Awaitable<sim::Status> WriteProgress(std::int64_t version, const std::string& checksum,
                                            std::int64_t done, bool complete) {
    FL_ASSERT(done >= 0);
    std::vector<Value> values;
    values.push_back(Value::Text(checksum));
    values.push_back(Value::Int(done));
    values.push_back(Value::Bool(complete));
    values.push_back(Value::Int(version));
    ClientResult result = co_await session_.Query(
        "UPDATE faultline_migrations SET checksum = ?, statements_done = ?, complete = ? WHERE "
        "version = ?",
        std::move(values));
    if (!result.ok()) co_return sim::Status::Unavailable(result.ToString());
    co_return sim::Status::Ok();
  }

  sim::Awaitable<sim::Status> Apply(const Migration& migration) {
    FL_ASSERT(migration.up.has_value());  // ApplyAll skips a migration without an up file.
    const auto version = static_cast<std::int64_t>(migration.version);
    sim::Result<Progress> progress = co_await ReadProgress(version);
    if (!progress.ok()) co_return progress.status();
    const std::vector<std::string> statements = Statements(*migration.up);
    if (std::optional<sim::Status> changed = Changed(migration, statements, *progress)) {
      co_return *changed;
    }
    if (progress->complete) co_return sim::Status::Ok();
    TraceMigrationBegin(session_, "safe", keyspace_, migration.version, migration.up_name);
    sim::Status status = co_await ApplyStatements(migration, statements, *progress);
    TraceMigrationEnd(session_, keyspace_, migration.version, status);
    co_return status;
  }

  // The refusal when the file differs from what was applied of it: a
  // statement edited, or one added to a migration already complete.
  static std::optional<sim::Status> Changed(const Migration& migration,
                                            const std::vector<std::string>& statements,
                                            const Progress& progress) {
    const auto done = static_cast<std::size_t>(std::max<std::int64_t>(progress.done, 0));
    const std::string applied_checksum = PrefixChecksum(statements, done);
    if (!progress.checksum.empty() && progress.checksum != applied_checksum) {
      return sim::Status::InvalidArgument(fmt::format(
          "migration {} ({}) changed after it was applied (checksum {}, recorded {}); restore "
          "the file or write a new migration",
          migration.version, migration.up_name, applied_checksum, progress.checksum));
    }
    if (progress.complete && done != statements.size()) {
      return sim::Status::InvalidArgument(fmt::format(
          "migration {} ({}) changed after it was applied ({} statements applied, the file now "
          "has {}); restore the file or write a new migration",
          migration.version, migration.up_name, done, statements.size()));
    }
    return std::nullopt;
  }

  sim::Awaitable<sim::Status> ApplyStatements(const Migration& migration,
                                              const std::vector<std::string>& statements,
                                              const Progress& progress) {
    FL_ASSERT(options_ != nullptr);  // Set by ApplyAll.
    FL_ASSERT(!progress.complete);   // Apply returns before a complete one.
    const auto version = static_cast<std::int64_t>(migration.version);
    const auto done = static_cast<std::size_t>(std::max<std::int64_t>(progress.done, 0));
    if (progress.exists && done > 0) {
      log_(fmt::format("migrate: resuming {} at statement {} of {}", migration.up_name, done + 1,
                       statements.size()));
    }
    if (!progress.exists) {
      // The intent, before any statement runs: a later run that finds this
      // row knows the next statement may have taken effect already.
      if (sim::Status status =
              co_await WriteProgress(version, PrefixChecksum(statements, 0), 0, false);
          !status.ok()) {
        co_return status;
      }
    }
    for (std::size_t i = done; i < statements.size(); ++i) {
      if (sim::Status fault = co_await sim::FaultPoint(site_statement_before_); !fault.ok()) {
        co_return fault;
      }
      if (sim::Status renewed = co_await Renew(*options_); !renewed.ok()) co_return renewed;
      ClientResult result = co_await session_.Query(statements[i]);
      // Only the first statement of a resumed migration may have taken effect
      // before a crash; on a fresh one, "already exists" is a real conflict.
      const bool resumed_here = progress.exists && i == done;
      if (!result.ok() && !(resumed_here && AlreadyApplied(statements[i], result))) {
        co_return sim::Status::Internal(fmt::format("migration {} statement {} failed: {} ({})",
                                                    migration.up_name, i + 1, statements[i],
                                                    result.ToString()));
      }
      if (sim::Status fault = co_await sim::FaultPoint(site_statement_after_); !fault.ok()) {
        co_return fault;
      }
      const bool last = i + 1 == statements.size();
      if (sim::Status status = co_await Record(version, PrefixChecksum(statements, i + 1),
                                               static_cast<std::int64_t>(i + 1), last);
          !status.ok()) {
        co_return status;
      }
    }
    if (statements.empty()) {
      co_return co_await Record(version, PrefixChecksum(statements, 0), 0, true);
    }
    co_return sim::Status::Ok();
  }

  cql::CqlSession& session_;
  const MigrationSource& source_;
  std::string owner_;
  LogSink log_;
  const SafeRunner::Options* options_ = nullptr;
  std::string keyspace_;
  // Fault sites, named for the keyspace (see safe_runner.h).
  std::string site_lock_after_;
  std::string site_statement_before_;
  std::string site_statement_after_;
  std::string site_progress_after_;
};

}  // namespace

std::string Checksum(std::string_view body) {
  std::string checksum = fmt::format("{:016x}", sim::Fnv1a64(body));
  FL_ASSERT(checksum.size() == 16);
  return checksum;
}

std::vector<std::string> SafeRunner::FaultSites(const std::string& keyspace) const {
  std::vector<std::string> sites;
  for (const std::string_view point : kFaultPoints) sites.push_back(SafeSite(keyspace, point));
  return sites;
}

sim::Awaitable<sim::Status> SafeRunner::Migrate(cql::CqlSession& session,
                                                const std::string& keyspace,
                                                const MigrationSource& source,
                                                const std::string& owner, LogSink log) {
  FL_ASSERT(log);
  FL_ASSERT(!owner.empty());  // The lease names its holder.
  ClientResult use = co_await session.Query("USE \"" + keyspace + "\"");
  if (!use.ok()) co_return sim::Status::Unavailable(use.ToString());
  SafeMigration migration(session, source, owner, log, keyspace);
  if (sim::Status status = co_await migration.Prepare(); !status.ok()) co_return status;
  if (sim::Status status = co_await migration.Lock(options_); !status.ok()) co_return status;
  sim::Status status = co_await sim::FaultPoint(migration.lock_after_site());
  if (status.ok()) status = co_await migration.ApplyAll(options_);
  // A keyspace a newer image migrated further (a rollback): what the newer
  // files added is allowed, what this image's files define must all be
  // there, with their types (the old code reads only those).
  sim::Result<std::int64_t> newest = std::int64_t{-1};
  if (status.ok()) {
    newest = co_await NewestApplied(session);
    if (!newest.ok()) status = newest.status();
  }
  const std::int64_t own_newest =
      source.empty() ? -1 : static_cast<std::int64_t>(source.migrations().rbegin()->first);
  const bool rolled_back = status.ok() && newest.ok() && *newest > own_newest;
  if (rolled_back) {
    log(
        fmt::format("migrate: {}: at version {}, newer than this image's {} (a rollback): its "
                    "schema must hold everything this image's migrations define",
                    keyspace, *newest, own_newest));
  }
  if (status.ok()) {
    sim::Result<SchemaModel> live = co_await LiveSchema(session, keyspace);
    if (!live.ok()) {
      status = live.status();
    } else if (const std::vector<std::string> diff =
                   SchemaDiff(ExpectedSchema(source, keyspace), *live,
                              rolled_back ? ExtraTables::kAllowed : ExtraTables::kDifferent,
                              rolled_back ? ExtraColumns::kAllowed : ExtraColumns::kDifferent);
               !diff.empty()) {
      std::string text = fmt::format("schema check failed for keyspace {}:", keyspace);
      for (const std::string& line : diff) text += "\n  - " + line;
      status = sim::Status::Internal(text);
    }
  }
  co_await migration.Unlock();
  if (status.ok()) log(fmt::format("migrate: {}: up to date, schema checked", keyspace));
  if (!status.ok()) log(fmt::format("migrate: {}: {}", keyspace, status.message()));
  co_return status;
}

}  // namespace faultline::models::migrate
