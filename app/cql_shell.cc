// The ycqlsh-like shell: statements from -e, a file or standard input, run
// on a store's engine, with ycqlsh's output and error texts (cql_shell.h).
#include "app/cql_shell.h"

#include <unistd.h>

#include <cctype>
#include <iostream>
#include <string_view>

#include <fmt/format.h>

#include "app/command_util.h"
#include "models/cql/parser.h"

namespace faultline::app {
namespace {

using models::cql::CqlError;
using models::cql::ErrorCode;
using models::cql::Outcome;
using models::cql::QueryResult;

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

bool RunShellSession(models::cql::Engine& engine, const ShellInput& input) {
  models::cql::Session session;
  bool ok = true;
  if (!input.keyspace.empty()) ok = UseKeyspace(engine, session, input.keyspace);
  if (ok && input.execute) ok = RunExecute(engine, session, *input.execute);
  if (ok && input.script)
    ok = RunScript(engine, session, input.script->first, 1, input.script->second);
  if (ok && !input.execute && !input.script) ok = RunInteractive(engine, session);
  return ok;
}

}  // namespace faultline::app
