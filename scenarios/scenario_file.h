// Scenario files: the TOML format of docs/scenario-format.md, read into a
// Scenario. Every mistake is reported as "file:line:col: what is wrong".
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <variant>

#include "scenarios/limits.h"
#include "scenarios/scenario.h"

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

// The most parts a multipart step may upload (S3's own bound).
inline constexpr std::size_t kMaxParts = 10'000;

// "8m", "15s", "500ms", "2h": a virtual duration of at most kMaxDuration;
// nullopt if malformed or longer.
inline constexpr sim::Duration kMaxDuration = std::chrono::hours(24 * 365);
std::optional<sim::Duration> ParseDuration(std::string_view text);
// "8m", "15s", "500ms": as a file writes it (the largest whole unit).
std::string DurationText(sim::Duration duration);
// What is wrong with `text` as a duration, for an error message.
std::string DurationError(std::string_view text);

}  // namespace faultline::scenarios
