// Scenario files: the TOML format of docs/scenario-format.md, read into a
// Scenario. Every mistake is reported as "file:line:col: what is wrong".
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <variant>

#include "scenarios/core/duration.h"
#include "scenarios/core/limits.h"
#include "scenarios/core/scenario.h"

namespace faultline::scenarios {

// "stories/mine.toml:12:3: step 2: unknown action 'upp' (expected one of ...)".
struct FileError {
  std::string message;
};

// `limits` bound what the file may hold (scenarios/limits.h); a file over one
// is an error that names it and how to raise it.
std::variant<Scenario, FileError> ParseScenario(std::string_view text, std::string_view source,
                                                const InputLimits& limits = {});
std::variant<Scenario, FileError> LoadScenarioFile(const std::filesystem::path& path,
                                                   const InputLimits& limits = {});

// The scenario as a file: ParseScenario(ToToml(s)) gives s back.
std::string ToToml(const Scenario& scenario);

}  // namespace faultline::scenarios
