#include "scenarios/core/closest_name.h"

#include <algorithm>
#include <cctype>
#include <cstddef>

#include <fmt/format.h>

#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

// Optimal string alignment distance (Damerau-Levenshtein without
// repeated edits of one substring): three rows of the usual table.
std::size_t Distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before(b.size() + 1);
  std::vector<std::size_t> last(b.size() + 1);
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) last[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
    std::swap(before, last);
    std::swap(last, row);
  }
  return last[b.size()];
}

// "kuri-9" for "kuri-1": another number, not a slip of the hand (the
// node is not in this cluster).
bool OnlyNumbersDiffer(std::string_view a, std::string_view b) {
  if (a.size() != b.size() || a == b) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const bool digits = std::isdigit(static_cast<unsigned char>(a[i])) != 0 &&
                        std::isdigit(static_cast<unsigned char>(b[i])) != 0;
    if (a[i] != b[i] && !digits) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string_view> ClosestName(std::string_view written,
                                            const std::vector<std::string_view>& choices) {
  // Names are short; a long word is no typo of one (and bounds the table).
  constexpr std::size_t kLongest = 200;
  if (written.empty() || written.size() > kLongest) return std::nullopt;
  std::optional<std::string_view> closest;
  std::size_t best = 0;
  for (const std::string_view choice : choices) {
    if (choice.size() > kLongest || OnlyNumbersDiffer(written, choice)) continue;
    const std::size_t distance = Distance(written, choice);
    const std::size_t allowed =
        std::max<std::size_t>(1, std::max(written.size(), choice.size()) / 3);
    if (distance > allowed || (closest && distance >= best)) continue;
    closest = choice;
    best = distance;
  }
  FL_ASSERT(!closest || best <= written.size() + closest->size());
  return closest;
}

std::string DidYouMean(std::string_view written, const std::vector<std::string_view>& choices) {
  const std::optional<std::string_view> near = ClosestName(written, choices);
  return near ? fmt::format(" (did you mean '{}'?)", *near) : "";
}

std::string DidYouMean(std::string_view written, const std::vector<std::string>& choices) {
  const std::vector<std::string_view> views(choices.begin(), choices.end());
  return DidYouMean(written, views);
}

std::string GroupedNames(const std::vector<std::string>& names) {
  // Groups in the order their first name comes.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const std::string& name : names) {
    const std::size_t dot = name.rfind('.');
    const std::string prefix = dot == std::string::npos ? "" : name.substr(0, dot);
    const std::string last = dot == std::string::npos ? name : name.substr(dot + 1);
    if (groups.empty() || groups.back().first != prefix) groups.push_back({prefix, {}});
    groups.back().second.push_back(last);
  }
  constexpr std::size_t kWidth = 100;
  std::string text;
  for (const auto& [prefix, lasts] : groups) {
    // Braces only say what a prefix is shared by: plain names are a list.
    const bool braced = !prefix.empty() && lasts.size() > 1;
    std::string line = "\n  " + (prefix.empty() ? "" : prefix + ".") + (braced ? "{" : "");
    const std::size_t indent = prefix.empty() ? 2 : prefix.size() + 4;
    for (std::size_t i = 0; i < lasts.size(); ++i) {
      const std::string piece = lasts[i] + (i + 1 < lasts.size() ? ", " : "");
      if (line.size() + piece.size() > kWidth && line.size() > indent + 2) {
        while (line.back() == ' ') line.pop_back();  // The ", " before the break.
        text += line;
        line = "\n" + std::string(indent, ' ');
      }
      line += piece;
    }
    if (braced) line += "}";
    text += line;
  }
  return text;
}

}  // namespace faultline::scenarios
