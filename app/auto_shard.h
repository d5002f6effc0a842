// `explore --shard auto/N`: the shard's index from the job engine that
// started this process, so one command line serves every task of a
// Kubernetes Indexed Job (JOB_COMPLETION_INDEX, 0 to completions-1) or a
// Slurm job array (SLURM_ARRAY_TASK_ID, from SLURM_ARRAY_TASK_MIN), and the
// count from the user, who wrote it in the job's spec too.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>

#include "scenarios/explore/explore.h"

namespace faultline::app {

// Reads one environment variable (getenv in the command; a table in tests).
using Environment = std::function<std::optional<std::string>(const char* name)>;
Environment ProcessEnvironment();

// "auto/8" -> shard I/8 with I from the environment, or what is wrong
// (no engine's index set, an index out of range, an array whose size is
// not the count given). nullopt: `text` is not an "auto/N".
std::optional<std::variant<scenarios::Shard, std::string>> AutoShard(const std::string& text,
                                                                     const Environment& env);

}  // namespace faultline::app
