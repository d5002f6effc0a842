// `faultline help [COMMAND]` and `faultline version`.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/build_id.h"
#include "app/cli.h"
#include "app/command_util.h"
#include "app/commands.h"

namespace faultline::app {

CommandRun DefineHelp(CLI::App& command) {
  auto name = std::make_shared<std::string>();
  command.add_option("command", *name, "the command to explain")->type_name("COMMAND");
  return [&command, name] {
    return ShowHelp(*command.get_parent(),
                    name->empty() ? std::vector<std::string>{} : std::vector<std::string>{*name});
  };
}

CommandRun DefineVersion(CLI::App&) {
  return [] {
    std::cout << "faultline 0.1.0 (build " << BuildId() << ")\n";
    return kExitOk;
  };
}

}  // namespace faultline::app
