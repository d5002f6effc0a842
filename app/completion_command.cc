// `faultline completion bash`: a bash completion script, read off the same
// tree of commands and flags that parses the command line, so it cannot
// fall behind a new flag. Scenario names come from the catalogue.
#include <algorithm>
#include <cctype>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/cli.h"
#include "app/command_util.h"
#include "app/commands.h"
#include "scenarios/catalogue/catalogue.h"

namespace faultline::app {
namespace {

// Every command, as a sorted list of CLI11's subcommands.
std::vector<const CLI::App*> AllCommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

// The bash words that complete a value of type `type`: "compgen ..." text.
std::string ValueCompletion(const std::string& type) {
  if (type == kFileValue) return "compgen -f -- \"$cur\"";
  if (type == kDirValue || type == "DIR|V") return "compgen -d -- \"$cur\"";
  if (type == "NAME=N") return "compgen -W \"$limits\" -- \"$cur\"";
  if (type == kScenarioValue)
    return "compgen -W \"$scenarios\" -- \"$cur\"; compgen -f -- \"$cur\"";
  if (type == "COMMAND") return "compgen -W \"$commands\" -- \"$cur\"";
  // AddChoice's words ("text|json|sarif|junit") are lower case; value
  // names (N, FILE, DIR|V, S1,S2) are not.
  const bool words_only = !type.empty() && std::none_of(type.begin(), type.end(), [](char c) {
    return std::isupper(static_cast<unsigned char>(c));
  });
  if (words_only) {
    std::string words = type;
    for (char& c : words) c = c == '|' ? ' ' : c;
    return fmt::format("compgen -W \"{}\" -- \"$cur\"", words);
  }
  return "";  // A number, a list, free text: nothing to offer.
}

// One command's case arm: its flags' values, its flags, its positional.
std::string CommandCase(const CLI::App& command) {
  std::vector<std::string> flags;
  std::string values;
  std::string positional;
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_positional()) {
      positional = ValueCompletion(option->get_type_name());
      continue;
    }
    std::vector<std::string> names;
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
    flags.insert(flags.end(), names.begin(), names.end());
    if (option->get_expected_min() == 0) continue;  // A flag without a value.
    const std::string completion = ValueCompletion(option->get_type_name());
    // A limit's name ends in '=', its number follows without a space.
    const std::string after =
        option->get_type_name() == "NAME=N" ? "compopt -o nospace 2>/dev/null; " : "";
    values += fmt::format("        {}) {}{}return ;;\n", fmt::join(names, "|"),
                          completion.empty() ? "" : "COMPREPLY=($(" + completion + ")); ", after);
  }
  return fmt::format(
      "    {})\n"
      "      case \"$prev\" in\n{}      esac\n"
      "      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return; fi\n"
      "      {};;\n",
      command.get_name(), values, fmt::join(flags, " "),
      positional.empty() ? ":" : "COMPREPLY=($(" + positional + "))");
}

std::string BashScript(const CLI::App& app) {
  std::vector<std::string> names;
  std::string cases;
  for (const CLI::App* command : AllCommands(app)) {
    names.push_back(command->get_name());
    cases += CommandCase(*command);
  }
  std::vector<std::string> scenarios;
  for (const scenarios::Scenario& scenario : scenarios::Catalogue()) {
    scenarios.push_back(scenario.name);
  }
  std::vector<std::string> limits;
  for (const scenarios::Limit& limit : scenarios::Limits()) {
    limits.push_back(std::string(limit.name) + "=");
  }
  return fmt::format(
      "# bash completion for faultline: source <(faultline completion bash), or save it\n"
      "# as /etc/bash_completion.d/faultline. Made by `faultline completion bash`.\n"
      "_faultline() {{\n"
      "  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}}\n"
      "  local commands=\"{}\"\n"
      "  local scenarios=\"{}\"\n"
      "  local limits=\"{}\"\n"
      "  # bash cuts --flag=value at '=': the flag is then two words back.\n"
      "  if [[ $cur == = ]]; then cur=; fi\n"
      "  if [[ $prev == = && $COMP_CWORD -ge 3 ]]; then prev=${{COMP_WORDS[COMP_CWORD-2]}}; fi\n"
      "  if [[ ${{COMP_WORDS[COMP_CWORD]}} == = ]]; then prev=${{COMP_WORDS[COMP_CWORD-1]}}; fi\n"
      "  COMPREPLY=()\n"
      "  if [[ $COMP_CWORD -eq 1 ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$commands --help --version\" -- \"$cur\")); return\n"
      "  fi\n"
      "  case \"${{COMP_WORDS[1]}}\" in\n{}  esac\n"
      "}}\n"
      "complete -o filenames -F _faultline faultline\n",
      fmt::join(names, " "), fmt::join(scenarios, " "), fmt::join(limits, " "), cases);
}

}  // namespace

CommandRun DefineCompletion(CLI::App& command) {
  auto shell = std::make_shared<std::string>();
  AddChoice(command, "shell", *shell, {"bash"}, "the shell (bash)")->required();
  // The closure owns `shell`: CLI11 writes into it while parsing, after
  // this function has returned.
  return [&command, shell] {
    std::cout << BashScript(*command.get_parent());
    return kExitOk;
  };
}

}  // namespace faultline::app
