// The message a scenario text is refused with ("read" when it is accepted):
// for the tests of what the reader refuses.
#pragma once

#include <string>
#include <variant>

#include "scenarios/file/scenario_file.h"

namespace faultline::scenarios {

inline std::string ReadError(const std::string& text) {
  std::variant<Scenario, FileError> parsed = ParseScenario(text, "story.toml");
  return std::holds_alternative<FileError>(parsed) ? std::get<FileError>(parsed).message : "read";
}

}  // namespace faultline::scenarios
