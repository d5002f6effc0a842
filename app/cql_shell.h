// `faultline cql`: a ycqlsh-like shell on a metadata store, fresh or opened
// from a directory (an exported volume), for looking at what a run left.
#pragma once

#include <string>
#include <vector>

namespace faultline::app {

// Runs the shell with the arguments after `cql`; returns the exit status:
// 0 every statement succeeded, 2 bad input (a flag, a file, a CQL error).
int RunCqlShell(const std::vector<std::string>& args);

}  // namespace faultline::app
