#include "scenarios/core/results.h"

namespace faultline::scenarios {

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
