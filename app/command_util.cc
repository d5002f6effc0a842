#include "app/command_util.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "scenarios/catalogue/catalogue.h"
#include "scenarios/core/closest_name.h"
#include "scenarios/file/scenario_file.h"
#include "sim/trace.h"

namespace faultline::app {
namespace {

// The command whose errors are being said (SayErrorsAs); empty before one
// is chosen. The program runs one command, so one name serves it.
std::string& CommandSaid() {
  static std::string command;
  return command;
}

// Every refusal in one shape: "faultline: COMMAND: what; see HINT", the
// hint on a line of its own after a message of several lines.
int Refuse(std::string_view command, std::string_view message, std::string_view see) {
  std::cerr << "faultline: " << command << (command.empty() ? "" : ": ") << message
            << (message.find('\n') == std::string_view::npos ? "; see " : "\nsee ") << see << "\n";
  return kExitBadInput;
}

const scenarios::Scenario* Named(const std::string& name) {
  const scenarios::Scenario* scenario = scenarios::FindScenario(name);
  if (scenario == nullptr) {
    std::vector<std::string_view> names;
    for (const scenarios::Scenario& story : scenarios::Catalogue()) names.push_back(story.name);
    Refuse(CommandSaid(),
           fmt::format("no scenario named '{}'{}", name, scenarios::DidYouMean(name, names)),
           "`faultline list` for the catalogue, or give a scenario file's path");
  }
  return scenario;
}

}  // namespace

void SayErrorsAs(std::string_view command) { CommandSaid() = command; }

void Warn(const std::string& message) {
  std::cerr << "faultline: " << CommandSaid() << (CommandSaid().empty() ? "" : ": ") << message
            << "\n";
}

int BadInput(const std::string& message) {
  if (!CommandSaid().empty()) return BadInput(message, CommandSaid());
  return Refuse("", message, "`faultline help`");
}

int BadInput(const std::string& message, std::string_view command) {
  return Refuse(command, message, fmt::format("`faultline help {}`", command));
}

int CannotWrite(std::string_view command, std::string_view flag, const std::string& path) {
  const int error = errno;
  return BadInput(fmt::format("{}: cannot write '{}': {}", flag, path,
                              error != 0 ? std::strerror(error) : "write failed"),
                  command);
}

// `text` escaped for inside a JSON string.
std::string Escaped(std::string_view text) {
  const std::string quoted = sim::JsonQuoted(text);
  return quoted.substr(1, quoted.size() - 2);
}

// A scenario of the catalogue by name, or one read from a file (a path, a
// name ending in .toml, or a file that no catalogue name shadows); nullptr
// after saying what was wrong (file:line:col for a file).
const scenarios::Scenario* NamedOrFile(const std::string& name,
                                       std::optional<scenarios::Scenario>& from_file,
                                       const scenarios::InputLimits& limits) {
  std::error_code exists_error;
  const bool file =
      name.find('/') != std::string::npos || name.ends_with(".toml") ||
      (scenarios::FindScenario(name) == nullptr && std::filesystem::exists(name, exists_error));
  if (!file) return Named(name);
  std::variant<scenarios::Scenario, scenarios::FileError> loaded =
      scenarios::LoadScenarioFile(name, limits);
  if (const auto* error = std::get_if<scenarios::FileError>(&loaded)) {
    // An error at a place in the file keeps the compilers' FILE:LINE:COL:
    // shape, which editors jump to; one about the file as a whole (missing,
    // a folder, too large) is said as every other refusal.
    const std::string_view message = error->message;
    const bool placed = message.starts_with(name + ":") && message.size() > name.size() + 1 &&
                        std::isdigit(static_cast<unsigned char>(message[name.size() + 1]));
    if (placed) {
      std::cerr << message << "\n";
    } else {
      BadInput(error->message);
    }
    return nullptr;
  }
  from_file = std::move(std::get<scenarios::Scenario>(loaded));
  return &*from_file;
}

std::optional<std::uint64_t> ParseSeed(const std::string& text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) return std::nullopt;
  return value;
}

}  // namespace faultline::app
