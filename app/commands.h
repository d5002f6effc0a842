// Each command's declaration of its flags: one function per command, listed
// once in the table of commands.cc. Each returns what runs the command once
// the flags are parsed (its exit status: 0, 1, or 2 for bad input).
#pragma once

#include "app/cli.h"

namespace faultline::app {

CommandRun DefineDemo(CLI::App& command);             // demo_command.cc
CommandRun DefineCql(CLI::App& command);              // cql_command.cc
CommandRun DefineList(CLI::App& command);             // list_command.cc
CommandRun DefineExplain(CLI::App& command);          // explain_command.cc
CommandRun DefineRun(CLI::App& command);              // run_command.cc
CommandRun DefineExplore(CLI::App& command);          // explore_command.cc
CommandRun DefineMerge(CLI::App& command);            // merge_command.cc
CommandRun DefineReport(CLI::App& command);           // report_command.cc
CommandRun DefineShell(CLI::App& command);            // shell_command.cc
CommandRun DefineCheckMigrations(CLI::App& command);  // check_migrations_command.cc
CommandRun DefineCompletion(CLI::App& command);       // completion_command.cc
CommandRun DefineLive(CLI::App& command);             // live_command.cc
CommandRun DefineHelp(CLI::App& command);             // help_command.cc
CommandRun DefineVersion(CLI::App& command);          // help_command.cc

}  // namespace faultline::app
