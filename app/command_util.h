// What the scenario commands share: exit statuses, how bad input is said,
// how a scenario is named on the command line, numbers and JSON text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "scenarios/core/limits.h"
#include "scenarios/core/scenario.h"

namespace faultline::app {

constexpr int kExitOk = 0;
constexpr int kExitFailureFound = 1;
constexpr int kExitBadInput = 2;

// Every refusal is said as "faultline: COMMAND: what; see `faultline help
// COMMAND`". Set once the command is known (main), for the code it calls.
void SayErrorsAs(std::string_view command);
// Says `message` on standard error, with a pointer to the help of the
// command being run (or to `faultline help` before one is chosen); 2.
int BadInput(const std::string& message);
// A warning, not a refusal: "faultline: COMMAND: what", and the command goes on.
void Warn(const std::string& message);
// The same, pointing at `command`'s own help ("check-migrations").
int BadInput(const std::string& message, std::string_view command);
// The output `path` of `flag` could not be written (errno says why); 2.
int CannotWrite(std::string_view command, std::string_view flag, const std::string& path);

// `text` escaped for inside a JSON string.
std::string Escaped(std::string_view text);

// A scenario of the catalogue by name, or one read from a file (a path, a
// name ending in .toml, or a file that no catalogue name shadows); nullptr
// after saying what was wrong (file:line:col for a file).
const scenarios::Scenario* NamedOrFile(const std::string& name,
                                       std::optional<scenarios::Scenario>& from_file,
                                       const scenarios::InputLimits& limits);

// A non-negative decimal integer, all of `text`.
std::optional<std::uint64_t> ParseSeed(const std::string& text);

}  // namespace faultline::app
