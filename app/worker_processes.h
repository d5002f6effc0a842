// Work spread over worker processes (fork), each returning its answer as
// text through a pipe. A process of its own per worker, so no two
// simulations share SQLite's process-wide random generator or anything
// else process-wide; the caller merges the answers in job order, so its
// result does not depend on how many workers there were.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::app {

// Runs `work(job)` for job 0 .. jobs-1, each in a child process; returns the
// texts in job order, or nullopt after saying on standard error (as
// `command`) that a worker could not start or failed.
// `tick`, when given, is called about twice a second while the parent
// waits (progress).
std::optional<std::vector<std::string>> RunInWorkerProcesses(
    int jobs, const std::function<std::string(int job)>& work, std::string_view command,
    const std::function<void()>& tick = {});

}  // namespace faultline::app
