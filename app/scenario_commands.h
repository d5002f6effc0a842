// `faultline list`, `explain NAME` and `run NAME`: the scenario catalogue
// from the command line.
#pragma once

#include <string>
#include <vector>

namespace faultline::app {

int RunList(const std::vector<std::string>& args);
int RunExplain(const std::vector<std::string>& args);
int RunScenarioCommand(const std::vector<std::string>& args);
// `faultline explore NAME|FILE [--runs N] [--seed S] [--out DIR] [--json]
// [--shard I/N] [--jobs N] [--time D]` (explore_command.cc).
int RunExploreCommand(const std::vector<std::string>& args);
// `faultline merge DIR... [--out DIR] [--json]`: shards as one exploration.
int RunMergeCommand(const std::vector<std::string>& args);
// `faultline report NAME|FILE -o FILE.html`: a page of the run (report_command.cc).
int RunReportCommand(const std::vector<std::string>& args);
// `faultline shell NAME|FILE --at STEP`: the store after a step (shell_command.cc).
int RunShellCommand(const std::vector<std::string>& args);
// check-migrations DIR [options] (check_migrations_command.cc).
int RunCheckMigrationsCommand(const std::vector<std::string>& args);

}  // namespace faultline::app
