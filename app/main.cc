// faultline: the command line tool. Exit status 0 when the checked property
// held, 1 when a failure was found, 2 for bad input.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/cli.h"
#include "app/command_util.h"
#include "app/commands.h"
#include "scenarios/core/closest_name.h"

namespace faultline::app {
namespace {

constexpr std::string_view kSummary =
    "faultline: replay cluster restart and migration failures from a seed.";
constexpr std::string_view kFooter =
    R"(`faultline help COMMAND` (or `faultline COMMAND --help`) shows a command's
flags. A flag's value may follow it (--seed 7) or an equals sign (--seed=7);
a flag given twice is refused; an output named - is standard output. Bash
completion: source <(faultline completion bash).

Exit status: 0 every check held, 1 a check failed, 2 bad input.
)";

// CLI11's words for a flag given twice, in faultline's.
std::string Said(const CLI::ParseError& error) {
  std::string what = error.what();
  const std::size_t repeated = what.find(": At Most 1 required but received");
  if (repeated != std::string::npos) return what.substr(0, repeated) + " is given twice";
  const std::size_t valued = what.find(" was given a disallowed flag override");
  if (valued != std::string::npos) return "--" + what.substr(0, valued) + " takes no value";
  const std::size_t missing = what.find(": 1 required");
  if (missing != std::string::npos) return what.substr(0, missing) + " needs a value";
  return what;
}

// What a command was given and has no place for: "unknown option --x" or
// "unexpected argument 'y'"; empty when nothing.
std::string Unexpected(const CLI::App& command) {
  const std::vector<std::string> extras = command.remaining();
  for (const std::string& extra : extras) {
    if (extra.size() > 1 && extra.front() == '-' && extra != "--") {
      std::vector<std::string> flags;
      for (const CLI::Option* option : command.get_options()) {
        for (const std::string& name : option->get_lnames()) flags.push_back("--" + name);
      }
      const std::string flag = extra.substr(0, extra.find('='));
      return "unknown option " + extra + scenarios::DidYouMean(flag, flags);
    }
  }
  std::vector<std::string> arguments;
  for (const std::string& extra : extras) {
    if (extra != "--") arguments.push_back(extra);
  }
  if (arguments.empty()) return {};
  std::vector<std::string> takes;
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_positional()) takes.push_back(option->get_type_name());
  }
  return fmt::format("unexpected argument '{}': {} takes {}", arguments.front(), command.get_name(),
                     takes.empty() ? "no arguments" : fmt::format("{}", fmt::join(takes, " ")));
}

int UnknownCommand(std::string_view written) {
  std::vector<std::string_view> names = {"help"};
  for (const Command& command : Commands()) names.push_back(command.name);
  return BadInput(
      fmt::format("unknown command '{}'{}", written, scenarios::DidYouMean(written, names)));
}

// The tree of commands, each flag declared once (commands.cc).
void Declare(CLI::App& app, std::map<const CLI::App*, CommandRun>& runs) {
  app.footer(std::string(kFooter));
  app.formatter(MakeHelpFormatter());
  app.get_formatter()->column_width(28);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  // --json=no must not pass for a flag: a flag takes no value.
  app.option_defaults()->disable_flag_override();
  // One command a line: a later word that names a command (a results
  // directory called demo) is an argument, refused if out of place, not a
  // second command that swallows the rest.
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", "faultline 0.1.0");
  for (const Command& command : Commands()) {
    CLI::App* sub = app.add_subcommand(std::string(command.name), std::string(command.summary));
    if (!command.details.empty()) sub->footer(std::string(command.details) + "\n");
    sub->allow_extras();  // Said below in faultline's words, not CLI11's.
    runs[sub] = command.define(*sub);
  }
}

int Main(int argc, char** argv) {
  std::map<const CLI::App*, CommandRun> runs;
  CLI::App app{std::string(kSummary), "faultline"};
  Declare(app, runs);
  if (argc < 2) {
    std::cerr << app.help();
    return kExitBadInput;
  }
  const std::string_view first = argv[1];
  // `help run` is read here: CLI11 would take "run" for the run command.
  if (first == "help") {
    return ShowHelp(app, std::vector<std::string>(argv + 2, argv + argc));
  }
  if (first.starts_with("-") && first != "--help" && first != "-h" && first != "--version") {
    return BadInput(
        fmt::format("'{}' before the command: write faultline COMMAND [options]", first));
  }
  if (first == "--version" && argc > 2) return BadInput("--version takes nothing after it");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();  // The chosen command's, when one was named.
    return kExitOk;
  } catch (const CLI::CallForVersion& version) {
    std::cout << version.what() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& error) {
    const std::vector<CLI::App*> chosen = app.get_subcommands();
    if (chosen.empty()) return UnknownCommand(argv[1]);
    return BadInput(Said(error), chosen.front()->get_name());
  }
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  if (chosen.empty()) return UnknownCommand(argv[1]);
  const CLI::App& command = *chosen.front();
  SayErrorsAs(command.get_name());
  if (const std::string extra = Unexpected(command); !extra.empty()) {
    return BadInput(extra, command.get_name());
  }
  if (const std::string repeated = RepeatedFlag(command); !repeated.empty()) {
    return BadInput(repeated, command.get_name());
  }
  return runs.at(chosen.front())();
}

}  // namespace
}  // namespace faultline::app

// Whatever a command did, output that never reached standard output (a full
// disk, a closed pipe) is bad input, said on standard error: never a silent
// exit 0 with half an answer.
int main(int argc, char** argv) {
  const int status = faultline::app::Main(argc, argv);
  errno = 0;
  std::cout.flush();
  const bool written = std::cout.good() && std::fflush(stdout) == 0 && std::ferror(stdout) == 0;
  if (!written) {
    std::fprintf(stderr, "faultline: cannot write to standard output: %s\n",
                 errno != 0 ? std::strerror(errno) : "write failed");
    return 2;
  }
  return status;
}
