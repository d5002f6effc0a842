// A prompt line in the scenario format's words ("kill kuri-1", "partition
// yugabyte", "wait 30s", "migrate filecoingw_kuri1 force 3") as a step, read
// by the scenario file reader itself, so the prompt takes every step kind
// and field a file does, checked alike.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "scenarios/core/scenario.h"

namespace faultline::live {

// The step `line` says on `topology`'s cluster, or what is wrong with it.
// Words fill the kind's fields in the order a file lists them; `key=value`
// names one; the last of statement, body or command takes the rest of the
// line.
std::variant<scenarios::Step, std::string> StepOfWords(std::string_view line,
                                                       const scenarios::Scenario& topology);

// What the prompt takes, for `help`: each step kind with its fields.
std::string PromptHelp();

// The prompt's commands beside the step kinds.
inline constexpr const char* kPromptCommands[] = {"status", "logs", "help", "complete", "exit"};

// How `line` may go on (`complete LINE` at the prompt, for a shell's or an
// editor's completion): its last word completed as a step kind or command
// (the first word), a service (a field that names one), or a `key=` of
// the kind's fields; sorted, at most a screenful.
std::vector<std::string> Completions(std::string_view line,
                                     const std::vector<std::string>& services);

}  // namespace faultline::live
