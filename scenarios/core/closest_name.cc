#include "scenarios/core/closest_name.h"

#include <algorithm>
#include <cstddef>

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

}  // namespace

std::optional<std::string_view> ClosestName(std::string_view written,
                                            const std::vector<std::string_view>& choices) {
  // Names are short; a long word is no typo of one (and bounds the table).
  constexpr std::size_t kLongest = 200;
  if (written.empty() || written.size() > kLongest) return std::nullopt;
  std::optional<std::string_view> closest;
  std::size_t best = 0;
  for (const std::string_view choice : choices) {
    if (choice.size() > kLongest) continue;
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

}  // namespace faultline::scenarios
