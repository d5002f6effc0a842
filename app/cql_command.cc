// `faultline cql`: a ycqlsh-like shell on a metadata store, fresh or opened
// from a directory (an exported volume), for looking at what a run left.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "app/command_util.h"
#include "app/commands.h"
#include "app/cql_shell.h"
#include "app/shell_store.h"

namespace faultline::app {
namespace {

struct Flags {
  std::optional<std::filesystem::path> data;
  std::optional<std::string> execute;
  std::optional<std::string> file;
  std::string keyspace;
};

int RunCqlShell(const Flags& flags) {
  if (flags.execute && flags.file) return BadInput("give -e or -f, not both", "cql");
  std::string script;
  if (flags.file) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(*flags.file, error)) {
      return BadInput("-f " + *flags.file +
                          (std::filesystem::exists(*flags.file, error) ? ": not a regular file"
                                                                       : ": no such file"),
                      "cql");
    }
    std::ifstream in(*flags.file);
    if (!in) {
      return BadInput("cannot read " + *flags.file, "cql");
    }
    std::stringstream contents;
    contents << in.rdbuf();
    script = contents.str();
  }
  ShellStore store;
  if (flags.data) {
    if (sim::Status status = store.Load(*flags.data); !status.ok()) {
      return BadInput(status.ToString(), "cql");
    }
  }
  if (sim::Status status = store.Open(); !status.ok()) {
    return BadInput("cannot open the store" + (flags.data ? " in " + flags.data->string() : "") +
                        ": " + status.ToString(),
                    "cql");
  }
  ShellInput input{.keyspace = flags.keyspace, .execute = flags.execute, .script = std::nullopt};
  if (flags.file) input.script.emplace(*flags.file, std::move(script));
  const bool ok = RunShellSession(store.engine(), input);
  if (flags.data) {
    if (sim::Status status = store.SaveTo(*flags.data); !status.ok()) {
      return BadInput(
          "cannot write the store back to " + flags.data->string() + ": " + status.ToString(),
          "cql");
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
