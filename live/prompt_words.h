// A prompt line in the scenario format's words ("kill kuri-1", "partition
// yugabyte", "wait 30s", "migrate filecoingw_kuri1 force 3") as a step, read
// by the scenario file reader itself, so the prompt takes every step kind
// and field a file does, checked alike.
#pragma once

#include <string>
#include <string_view>
#include <variant>

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

}  // namespace faultline::live
