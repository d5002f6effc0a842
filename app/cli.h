// The command line's one parser: CLI11 (Debian's libcli11-dev), with the
// option kinds faultline's commands share. Each command is one entry of the
// table in commands.cc; `faultline help COMMAND` and the bash completion are
// read off the same tree, so a flag is declared once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>

#include "scenarios/core/limits.h"

namespace faultline::app {

// What a command does once its flags are parsed: its exit status.
using CommandRun = std::function<int()>;

// A command of the tool.
struct Command {
  std::string_view name;
  std::string_view summary;  // One line, for `faultline help`.
  std::string_view details;  // Paragraphs after the options in its own help.
  // Declares its positionals and flags on `command`; returns what runs it.
  CommandRun (*define)(CLI::App& command);
};

// Every command, in the order `faultline help` lists them (commands.cc).
std::span<const Command> Commands();

// `faultline help [COMMAND]` on the tree `app`: its help, or a command's.
int ShowHelp(const CLI::App& app, const std::vector<std::string>& words);

// The value names completion understands (completion.cc): a flag whose
// value is a file, a folder, a scenario, or one of a few words ("a|b|c").
inline constexpr const char* kFileValue = "FILE";
inline constexpr const char* kDirValue = "DIR";
inline constexpr const char* kScenarioValue = "NAME|FILE";

// A number flag: decimal digits only (no sign, no space, no 0x), from `min`
// to `max`; a bad value is "--flag is from MIN to MAX, not 'x'".
CLI::Option* AddNumberFlag(CLI::App& command, const std::string& name,
                           std::function<void(std::uint64_t)> set, std::uint64_t min,
                           std::uint64_t max, const std::string& description);

template <typename T>
CLI::Option* AddNumber(CLI::App& command, const std::string& name, T& into, std::uint64_t min,
                       std::uint64_t max, const std::string& description) {
  return AddNumberFlag(
      command, name,
      [&into](std::uint64_t value) {
        if constexpr (std::is_arithmetic_v<T>) {
          into = static_cast<T>(value);
        } else {
          into = value;  // std::optional<std::uint64_t>.
        }
      },
      min, max, description);
}

// --seed N: any 64-bit seed.
CLI::Option* AddSeed(CLI::App& command, std::optional<std::uint64_t>& into,
                     const std::string& description);

// A flag whose value must be one of `words` ("--store is yugabyte or
// cassandra, not 'x'").
CLI::Option* AddChoice(CLI::App& command, const std::string& name, std::string& into,
                       std::vector<std::string> words, const std::string& description);

// CLI11's help layout, with each description wrapped to fit 80 columns
// beside its flag.
std::shared_ptr<CLI::Formatter> MakeHelpFormatter();

// --limit NAME=N (repeatable, one name once): raises a limit of the table
// in scenarios/core/limits.h for this run.
CLI::Option* AddLimits(CLI::App& command, scenarios::InputLimits& into);

// "--json is given twice", or empty: a flag given twice is refused, not
// silently the last one (CLI11 refuses valued options itself).
std::string RepeatedFlag(const CLI::App& command);

// For an option whose value may not be empty (--sum "$UNSET" must not pass
// for no --sum at all).
const CLI::Validator& Given();

// For an option that names a folder to write (--out DIR): "-" is refused,
// as standard output cannot hold a folder.
const CLI::Validator& FolderToWrite();

// "-" names standard output.
inline bool IsStandardOutput(std::string_view path) { return path == "-"; }

}  // namespace faultline::app
