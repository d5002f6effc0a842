#include "models/operator/migrate_cli.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <variant>

#include "models/migrate/cassandra_driver.h"
#include "models/migrate/migrate.h"
#include "sim/assert.h"

namespace faultline::models::ops {
namespace {

using migrate::Migrate;
using Outcome = MigrateCliOutcome;

Outcome Fatal(std::string output, std::string line) {
  return Outcome{1, std::move(output) + line + "\n"};
}

// log.fatalErr: "error: <err>". versionExists (migrate.go) already wrote
// "error: <err>" without a line end through m.Log, so that text comes twice.
Outcome FatalError(std::string output, const sim::Status& error) {
  FL_ASSERT(!error.ok());
  if (error.message().starts_with("no migration found for version")) {
    output += "error: " + error.message();
  }
  return Fatal(std::move(output), "error: " + error.message());
}

// Go's flag package: an argument that starts with '-' before the first
// other one is a flag; the commands define none but -all on down. "--" ends
// the flags. Returns the positional arguments, or the exit-2 outcome.
std::variant<std::vector<std::string>, Outcome> ParseFlags(const std::vector<std::string>& words,
                                                           bool* all) {
  FL_ASSERT(!words.empty());  // The command, then its flags and arguments.
  std::vector<std::string> positional;
  std::size_t i = 1;
  for (; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word == "--") {
      ++i;
      break;
    }
    if (word.size() < 2 || word[0] != '-') break;
    if (all != nullptr && (word == "-all" || word == "--all")) {
      *all = true;
      continue;
    }
    // flag.ExitOnError: the error, then the flag set's usage, its defaults
    // (newFlagSetWithHelp defines -help; down also -all).
    const std::string_view all_flag =
        all != nullptr ? "  -all\n    \tApply all down migrations\n" : "";
    return Outcome{2, fmt::format("flag provided but not defined: {}\nUsage of {}:\n{}  -help\n"
                                  "    \tPrint help information\n",
                                  word, words[0], all_flag)};
  }
  for (; i < words.size(); ++i) positional.push_back(words[i]);
  FL_ASSERT(positional.size() < words.size());
  return positional;
}

template <typename Integer>
std::optional<Integer> ParseNumber(const std::string& text) {
  Integer value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A command's error: "no change" is said and is success (upCmd, downCmd,
// gotoCmd print it with log.Println), anything else is fatal.
Outcome Finished(std::string output, const sim::Status& status) {
  if (status.ok()) return Outcome{0, std::move(output)};
  if (status.message() == migrate::kNoChange) return Outcome{0, output + "no change\n"};
  return FatalError(std::move(output), status);
}

sim::Awaitable<Outcome> Up(Migrate& m, const std::string& output,
                           const std::vector<std::string>& args) {
  // The command runs first, then what it logged is read.
  if (args.empty()) {
    const sim::Status status = co_await m.Up();
    co_return Finished(output, status);
  }
  const std::optional<std::uint64_t> n = ParseNumber<std::uint64_t>(args[0]);
  if (!n) co_return Fatal(output, "error: can't read limit argument N");
  const sim::Status status =
      co_await m.Steps(static_cast<int>(std::min<std::uint64_t>(*n, Migrate::kMaxSteps)));
  co_return Finished(output, status);
}

sim::Awaitable<Outcome> Down(Migrate& m, const std::string& output,
                             const std::vector<std::string>& args, bool all) {
  // numDownMigrationsFromArgs.
  if (all && !args.empty())
    co_return Fatal(output, "error: -all cannot be used with other arguments");
  if (args.size() > 1) co_return Fatal(output, "error: too many arguments");
  if (all) {
    const sim::Status status = co_await m.Down();
    co_return Finished(output, status);
  }
  if (args.empty()) {
    // It asks, and reads standard input: nobody answers y.
    co_return Fatal(output + "Are you sure you want to apply all down migrations? [y/N]\n",
                    "Not applying all down migrations");
  }
  FL_ASSERT(args.size() == 1 && !all);  // down N: the one argument.
  const std::optional<std::uint64_t> n = ParseNumber<std::uint64_t>(args[0]);
  if (!n) co_return Fatal(output, "error: can't read limit argument N");
  const sim::Status status =
      co_await m.Steps(-static_cast<int>(std::min<std::uint64_t>(*n, Migrate::kMaxSteps)));
  co_return Finished(output, status);
}

sim::Awaitable<Outcome> Goto(Migrate& m, const std::string& output,
                             const std::vector<std::string>& args) {
  if (args.empty()) co_return Fatal(output, "error: please specify version argument V");
  const std::optional<std::uint64_t> v = ParseNumber<std::uint64_t>(args[0]);
  if (!v) co_return Fatal(output, "error: can't read version argument V");
  const sim::Status status = co_await m.Goto(*v);
  co_return Finished(output, status);
}

sim::Awaitable<Outcome> Force(Migrate& m, const std::string& output,
                              const std::vector<std::string>& args) {
  if (args.empty()) co_return Fatal(output, "error: please specify version argument V");
  const std::optional<std::int64_t> v = ParseNumber<std::int64_t>(args[0]);
  if (!v) co_return Fatal(output, "error: can't read version argument V");
  if (*v < -1) co_return Fatal(output, "error: argument V must be >= -1");
  const sim::Status forced = co_await m.Force(*v);
  if (!forced.ok()) co_return FatalError(output, forced);
  co_return Outcome{0, output};  // force prints nothing.
}

sim::Awaitable<Outcome> Version(Migrate& m, const std::string& output) {
  sim::Result<migrate::VersionState> version = co_await m.Version();
  if (!version.ok()) co_return FatalError(output, version.status());
  co_return Outcome{
      0, fmt::format("{}{}{}\n", output, version->version, version->dirty ? " (dirty)" : "")};
}

}  // namespace

bool IsMigrateCliCommand(std::string_view command) {
  return std::find(std::begin(kMigrateCliCommands), std::end(kMigrateCliCommands), command) !=
         std::end(kMigrateCliCommands);
}

std::vector<std::string> MigrateCliWords(std::string_view command_line) {
  std::vector<std::string> words;
  constexpr std::size_t kMaxWords = 64;  // A bound far past any command.
  std::size_t at = 0;
  while (at < command_line.size() && words.size() < kMaxWords) {
    const std::size_t start = command_line.find_first_not_of(' ', at);
    if (start == std::string_view::npos) break;
    const std::size_t end = std::min(command_line.find(' ', start), command_line.size());
    FL_ASSERT(start < end);  // A word is never empty.
    words.emplace_back(command_line.substr(start, end - start));
    at = end;
  }
  return words;
}

sim::Awaitable<MigrateCliOutcome> RunMigrateCli(cql::CqlSession& shell, std::string keyspace,
                                                const migrate::MigrationSource& source,
                                                std::vector<std::string> words) {
  FL_ASSERT(!words.empty());
  FL_ASSERT_MSG(IsMigrateCliCommand(words[0]), "migrate {} (checked when read)", words[0]);
  const std::string& command = words[0];
  // migrate.New first (main.go, before the command's flags are parsed): the
  // database, as cassandra.Open makes it: a session bound to the keyspace,
  // with a one-minute timeout, then the version table. The URL the step
  // shows asks for multi-statement mode, as the seed's gateway runs it.
  cql::ClientOptions options = shell.options();
  options.timeout = std::chrono::minutes(1);
  cql::CqlSession session(shell.network(), options);
  if (sim::Status connected = co_await session.Connect(keyspace); !connected.ok()) {
    co_return Fatal("", "error: failed to open database: " + connected.message());
  }
  migrate::CassandraDriver::Options driver_options;
  driver_options.multi_statement = true;  // x-multi-statement=true
  migrate::CassandraDriver driver(session, keyspace, driver_options);
  if (sim::Status opened = co_await driver.Open(); !opened.ok()) {
    co_return Fatal("", "error: failed to open database: " + opened.message());
  }
  bool all = false;
  std::vector<std::string> args;
  if (command != "version") {  // version parses no flags.
    auto parsed = ParseFlags(words, command == "down" ? &all : nullptr);
    if (auto* refused = std::get_if<Outcome>(&parsed)) co_return std::move(*refused);
    args = std::move(std::get<std::vector<std::string>>(parsed));
  }
  Migrate m(source, driver);
  // What m.Log writes as migrations run; each command reads it once done
  // (`output` is the commands' own, by reference, written as they go).
  std::string output;
  m.SetLog([&output](const std::string& text) { output += text; });
  if (command == "up") co_return co_await Up(m, output, args);
  if (command == "down") co_return co_await Down(m, output, args, all);
  if (command == "goto") co_return co_await Goto(m, output, args);
  if (command == "force") co_return co_await Force(m, output, args);
  co_return co_await Version(m, output);
}

}  // namespace faultline::models::ops
