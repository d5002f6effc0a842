#include "scenarios/core/results.h"

#include <fmt/format.h>

#include <utility>

namespace faultline::scenarios {

StepOutcome StepOutcome::Did(std::string words) {
  return {.ok = true, .status = 0, .body = {}, .text = std::move(words)};
}

StepOutcome StepOutcome::Failed(std::string why) {
  return {.ok = false, .status = 0, .body = {}, .text = std::move(why)};
}

StepOutcome StepOutcome::Answer(int status, std::string body) {
  std::string text = fmt::format("{} {}", status, body);
  return {.ok = status >= 200 && status < 300,
          .status = status,
          .body = std::move(body),
          .text = std::move(text)};
}

StepOutcome StepOutcome::Output(std::string output, bool ok) {
  std::string text = output;
  return {.ok = ok, .status = 0, .body = std::move(output), .text = std::move(text)};
}

std::string OneLine(const std::string& text, std::size_t max) {
  std::string line;
  for (const char c : text) {
    if (line.size() >= max) {
      line += "...";
      break;
    }
    line += c == '\n' ? ' ' : c;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

}  // namespace faultline::scenarios
