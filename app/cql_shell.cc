#include "app/cql_shell.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <variant>

#include <fmt/format.h>

#include "app/command_util.h"
#include "app/commands.h"
#include "fakes/sqlite_vfs.h"
#include "fakes/volume.h"
#include "models/cql/parser.h"
#include "models/cql/store_database.h"
#include "sim/simulation.h"

namespace faultline::app {
namespace {

using models::cql::CqlError;
using models::cql::ErrorCode;
using models::cql::Outcome;
using models::cql::QueryResult;

constexpr const char* kMountPoint = "/var/lib/yugabyte";
constexpr const char* kDatabase = "/var/lib/yugabyte/meta.db";
// The files of a saved store: the database and SQLite's (persistent) journal.
constexpr std::array<const char*, 2> kStoreFiles = {"meta.db", "meta.db-journal"};
constexpr const char* kStaging = ".faultline-saving";

struct Flags {
  std::optional<std::filesystem::path> data;
  std::optional<std::string> execute;
  std::optional<std::string> file;
  std::string keyspace;
};

// The error as ycqlsh reports it, with where the statement came from.
void PrintError(const std::string& source, int line, const CqlError& error,
                std::string_view statement, std::size_t offset) {
  const bool syntax = error.code == ErrorCode::kSyntaxError;
  std::cerr << fmt::format(
      "{}:{}:{}: Error from server: code={} [{}] message=\"{}\"\n", source, line,
      syntax ? "SyntaxException" : "InvalidRequest", syntax ? "2000" : "2200",
      syntax ? "Syntax error in CQL query" : "Invalid query", error.WireText(statement, offset));
}

void PrintOutcome(const QueryResult& result) {
  const std::string text = models::cql::FormatResult(result);
  if (text.empty()) return;
  std::cout << (result.kind == QueryResult::Kind::kRows ? "\n" : "") << text << "\n";
}

// The store, on a volume loaded from --data or fresh.
class ShellStore {
 public:
  ShellStore() : volume_("yugabyte-data", fakes::VolumeKind::kNamedVolume), vfs_(simulation_) {
    vfs_.Mount(kMountPoint, volume_);
  }
  ~ShellStore() { store_.reset(); }  // Before the VFS and the volume.

  // Loads the store kept in `directory` (created when missing). Only the
  // store's own files are read, and only they are written back: a directory
  // that holds other files and no store is refused, never taken over.
  sim::Status Load(const std::filesystem::path& directory) {
    std::error_code error;
    if (!std::filesystem::exists(directory, error)) {
      std::filesystem::create_directories(directory, error);
      if (error) return sim::Status::IoError("cannot create " + directory.string());
    }
    if (!std::filesystem::is_directory(directory, error)) {
      return sim::Status::InvalidArgument(directory.string() + " is not a directory");
    }
    if (!std::filesystem::exists(directory / kStoreFiles[0], error) &&
        !std::filesystem::is_empty(directory, error)) {
      return sim::Status::InvalidArgument(
          fmt::format("{} holds no store ({} is missing) and is not empty; give a new or empty "
                      "directory, or one a store was saved in",
                      directory.string(), kStoreFiles[0]));
    }
    // An interrupted save leaves its staging folder; its files are not the store's.
    std::filesystem::remove_all(directory / kStaging, error);
    for (const char* name : kStoreFiles) {
      if (sim::Status status = Import(directory / name, name); !status.ok()) return status;
    }
    volume_.SyncAll();
    return sim::Status::Ok();
  }

  // A snapshot's database bytes, as the store's file (nothing is saved back).
  sim::Status LoadDatabase(const std::string& database) {
    if (database.empty()) return sim::Status::Ok();  // No store yet: a fresh one.
    fakes::SimFile& file = volume_.OpenOrCreate(std::string("/") + kStoreFiles[0]);
    if (sim::Status written = volume_.Write(file, 0, database); !written.ok()) return written;
    volume_.SyncAll();
    return sim::Status::Ok();
  }

  sim::Status Open() {
    auto opened = models::cql::StoreDatabase::Open(vfs_, kDatabase);
    if (auto* status = std::get_if<sim::Status>(&opened)) return *status;
    store_ = std::move(std::get<std::unique_ptr<models::cql::StoreDatabase>>(opened));
    return sim::Status::Ok();
  }

  // Writes the store back: its files, and no file it no longer has (a
  // journal SQLite deleted must not come back as a hot journal). Each file
  // is written beside its place and renamed over it, so an interrupted save
  // leaves every file whole, old or new; stale files go last.
  sim::Status SaveTo(const std::filesystem::path& directory) {
    store_.reset();  // Closes the database: everything is on the volume.
    const std::filesystem::path staging = directory / kStaging;
    std::error_code error;
    std::filesystem::remove_all(staging, error);
    if (sim::Status status = volume_.ExportTo(staging); !status.ok()) return status;
    for (const std::string& path : volume_.List()) {
      if (!IsStoreFile(path)) continue;  // Only what Load reads comes back.
      const std::filesystem::path relative = std::filesystem::path(path).relative_path();
      // The saved file keeps the permissions of the one it replaces.
      const std::filesystem::path target = directory / relative;
      if (std::filesystem::exists(target, error)) {
        std::filesystem::permissions(staging / relative,
                                     std::filesystem::status(target, error).permissions(), error);
      }
      std::filesystem::rename(staging / relative, target, error);
      if (error) {
        return sim::Status::IoError(
            fmt::format("cannot replace {}: {}", (directory / relative).string(), error.message()));
      }
    }
    std::filesystem::remove_all(staging, error);
    for (const std::string& path : imported_) {
      if (volume_.Exists(path)) continue;
      std::filesystem::remove(directory / std::filesystem::path(path).relative_path(), error);
    }
    return sim::Status::Ok();
  }

  models::cql::Engine& engine() { return store_->engine(); }

 private:
  static bool IsStoreFile(const std::string& volume_path) {
    return std::any_of(kStoreFiles.begin(), kStoreFiles.end(),
                       [&](const char* name) { return volume_path == std::string("/") + name; });
  }

  // One store file, when it is there: a regular file, not a link to
  // somewhere else (it is written back in place).
  sim::Status Import(const std::filesystem::path& source, const std::string& name) {
    std::error_code error;
    const std::filesystem::file_status status = std::filesystem::symlink_status(source, error);
    if (status.type() == std::filesystem::file_type::not_found) return sim::Status::Ok();
    if (status.type() != std::filesystem::file_type::regular) {
      return sim::Status::InvalidArgument(source.string() + " is not a regular file");
    }
    std::ifstream in(source, std::ios::binary);
    std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) return sim::Status::IoError("cannot read " + source.string());
    fakes::SimFile& file = volume_.OpenOrCreate("/" + name);
    if (sim::Status written = volume_.Write(file, 0, contents); !written.ok()) return written;
    imported_.insert("/" + name);
    return sim::Status::Ok();
  }

  sim::Simulation simulation_;
  fakes::Volume volume_;
  fakes::SqliteVfs vfs_;
  std::unique_ptr<models::cql::StoreDatabase> store_;
  std::set<std::string> imported_;
};

constexpr std::string_view kHelp = R"(
Documented shell commands (no ';' needed):
===========================================
EXIT  QUIT  HELP

CQL statements, each ended by ';' (DESCRIBE too), as the store answers them:
==============================================================================
SELECT  INSERT  UPDATE  DELETE  BATCH  TRUNCATE
CREATE KEYSPACE  CREATE TABLE  ALTER TABLE  DROP TABLE  DROP KEYSPACE  USE
DESCRIBE KEYSPACES | CLUSTER | TABLES | SCHEMA | KEYSPACE [name] | TABLE name
SELECT * FROM system.local; SELECT * FROM system_schema.tables;
)";

// ycqlsh's own commands, which never reach the server: what `text` (one
// statement, without its ';') asks of the shell, if it is one of them.
enum class ShellCommand { kNone, kHelp, kExit };
ShellCommand ShellCommandOf(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() &&
         (std::isspace(static_cast<unsigned char>(text.back())) || text.back() == ';')) {
    text.remove_suffix(1);
  }
  std::string word;
  for (const char c : text.substr(0, text.find(' '))) {
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (word == "exit" || word == "quit") return ShellCommand::kExit;
  if (word == "help" || word == "?") return ShellCommand::kHelp;
  return ShellCommand::kNone;
}

// Runs every statement of `text`; false at the first error (printed).
bool RunScript(models::cql::Engine& engine, models::cql::Session& session,
               const std::string& source, int first_line, const std::string& text) {
  models::cql::ParseResult parsed = models::cql::Parse(text);
  for (const models::cql::ParsedStatement& statement : parsed.statements) {
    Outcome outcome = engine.Execute(session, statement);
    if (auto* error = std::get_if<CqlError>(&outcome)) {
      const std::size_t offset = std::min(error->offset.value_or(0), statement.text.size());
      const auto lines_before = static_cast<int>(std::count(
          statement.text.begin(), statement.text.begin() + static_cast<long>(offset), '\n'));
      PrintError(source, first_line + statement.start.line - 1 + lines_before, *error,
                 statement.text, offset);
      return false;
    }
    PrintOutcome(std::get<QueryResult>(outcome));
  }
  if (parsed.error) {
    // Show the statement the error is in, not the whole script: from the
    // ';' before the error to the one after it.
    const std::size_t at = std::min(parsed.error->position.offset, text.size());
    const std::size_t before = at == 0 ? std::string::npos : text.rfind(';', at - 1);
    std::size_t begin = before == std::string::npos ? 0 : before + 1;
    begin = std::min(text.find_first_not_of(" \t\r\n", begin), at);
    const std::size_t end = std::min(text.find(';', at), text.size());
    PrintError(source, first_line + parsed.error->position.line - 1,
               models::cql::SyntaxError(parsed.error->message), text.substr(begin, end - begin),
               at - begin);
    return false;
  }
  return true;
}

// -k KEYSPACE: USE it, quoted, so any name is taken as it is and nothing else.
bool UseKeyspace(models::cql::Engine& engine, models::cql::Session& session,
                 const std::string& keyspace) {
  std::string quoted;
  for (const char c : keyspace) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return RunScript(engine, session, "-k", 1, "USE \"" + quoted + "\"");
}

// -e STATEMENTS: a shell command (HELP; EXIT does nothing) or statements.
bool RunExecute(models::cql::Engine& engine, models::cql::Session& session,
                const std::string& statements) {
  const ShellCommand command = ShellCommandOf(statements);
  if (command == ShellCommand::kHelp) std::cout << kHelp << "\n";
  if (command != ShellCommand::kNone) return true;
  return RunScript(engine, session, "<string>", 1, statements);
}

// Standard input: statement by statement (each ends with ';'), with a prompt
// on a terminal; on a terminal an error does not end the session.
bool RunInteractive(models::cql::Engine& engine, models::cql::Session& session) {
  const bool terminal = isatty(STDIN_FILENO) != 0;
  std::string pending;
  int line_number = 0;
  int pending_start = 1;
  bool all_ok = true;
  std::string line;
  auto prompt = [&] {
    if (!terminal) return;
    std::cout << (pending.empty() ? (session.keyspace.empty() ? "ycqlsh> "
                                                              : "ycqlsh:" + session.keyspace + "> ")
                                  : "   ... ")
              << std::flush;
  };
  prompt();
  while (std::getline(std::cin, line)) {
    ++line_number;
    if (pending.empty()) pending_start = line_number;
    pending += line + "\n";
    std::string trimmed = line;
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) {
      trimmed.pop_back();
    }
    // HELP, EXIT and QUIT need no ';', as in ycqlsh.
    const ShellCommand command = ShellCommandOf(pending);
    if (command == ShellCommand::kExit) return all_ok;
    if (command == ShellCommand::kHelp) {
      std::cout << kHelp << "\n";
      pending.clear();
      prompt();
      continue;
    }
    if (trimmed.ends_with(";")) {
      if (!RunScript(engine, session, "<stdin>", pending_start, pending)) {
        all_ok = false;
        if (!terminal) return false;
      }
      pending.clear();
    }
    prompt();
  }
  if (!pending.empty() && pending.find_first_not_of(" \t\r\n") != std::string::npos) {
    all_ok = RunScript(engine, session, "<stdin>", pending_start, pending) && all_ok;
  }
  if (terminal) std::cout << "\n";
  return all_ok;
}

}  // namespace

int RunCqlShellOnSnapshot(const std::string& database, const std::optional<std::string>& execute,
                          const std::string& keyspace) {
  ShellStore store;
  if (sim::Status status = store.LoadDatabase(database); !status.ok()) {
    std::cerr << "faultline: shell: cannot load the store: " << status.ToString() << "\n";
    return kExitBadInput;
  }
  if (sim::Status status = store.Open(); !status.ok()) {
    std::cerr << "faultline: shell: cannot open the store: " << status.ToString() << "\n";
    return kExitBadInput;
  }
  models::cql::Session session;
  bool ok = true;
  if (!keyspace.empty()) ok = UseKeyspace(store.engine(), session, keyspace);
  if (ok && execute) ok = RunExecute(store.engine(), session, *execute);
  if (ok && !execute) ok = RunInteractive(store.engine(), session);
  return ok ? kExitOk : kExitBadInput;
}

namespace {

int RunCqlShell(const Flags& flags) {
  if (flags.execute && flags.file) return BadInput("give -e or -f, not both", "cql");
  std::string script;
  if (flags.file) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(*flags.file, error)) {
      std::cerr << "faultline: cql: -f " << *flags.file
                << (std::filesystem::exists(*flags.file, error) ? ": not a regular file\n"
                                                                : ": no such file\n");
      return kExitBadInput;
    }
    std::ifstream in(*flags.file);
    if (!in) {
      std::cerr << "faultline: cql: cannot read " << *flags.file << "\n";
      return kExitBadInput;
    }
    std::stringstream contents;
    contents << in.rdbuf();
    script = contents.str();
  }
  ShellStore store;
  if (flags.data) {
    if (sim::Status status = store.Load(*flags.data); !status.ok()) {
      std::cerr << "faultline: cql: " << status.ToString() << "\n";
      return kExitBadInput;
    }
  }
  if (sim::Status status = store.Open(); !status.ok()) {
    std::cerr << "faultline: cql: cannot open the store"
              << (flags.data ? " in " + flags.data->string() : "") << ": " << status.ToString()
              << "\n";
    return kExitBadInput;
  }
  models::cql::Session session;
  bool ok = true;
  if (!flags.keyspace.empty()) ok = UseKeyspace(store.engine(), session, flags.keyspace);
  if (ok && flags.execute) ok = RunExecute(store.engine(), session, *flags.execute);
  if (ok && flags.file) ok = RunScript(store.engine(), session, *flags.file, 1, script);
  if (ok && !flags.execute && !flags.file) ok = RunInteractive(store.engine(), session);
  if (flags.data) {
    if (sim::Status status = store.SaveTo(*flags.data); !status.ok()) {
      std::cerr << "faultline: cql: cannot write the store back to " << flags.data->string() << ": "
                << status.ToString() << "\n";
      return kExitBadInput;
    }
  }
  return ok ? kExitOk : kExitBadInput;
}

}  // namespace

CommandRun DefineCql(CLI::App& command) {
  auto flags = std::make_shared<Flags>();
  command
      .add_option("--data", flags->data,
                  "open the store kept in DIR (an exported volume: DIR/meta.db), creating it if "
                  "DIR is new or empty, and write it back on exit; a DIR with other files and no "
                  "meta.db is refused; without it the store is fresh and gone at exit")
      ->type_name(kDirValue)
      ->check(Given());
  command.add_option("-e,--execute", flags->execute,
                     "run these statements (separated by ';') and exit");
  command.add_option("-f,--file", flags->file, "run the statements in FILE and exit")
      ->type_name(kFileValue)
      ->check(Given());
  command.add_option("-k,--keyspace", flags->keyspace, "start with USE KEYSPACE");
  return [flags] { return RunCqlShell(*flags); };
}

}  // namespace faultline::app
