// "Did you mean": the name a person most likely meant when they wrote one
// that is not among the choices (a typo, a letter left out, two swapped).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace faultline::scenarios {

// The choice nearest to `written` by edit distance (insertions, deletions,
// substitutions and swaps of neighbours, each 1), if it is near enough to
// be a slip: at most a third of the longer word's letters, and at least
// one; the first of equals.
std::optional<std::string_view> ClosestName(std::string_view written,
                                            const std::vector<std::string_view>& choices);

}  // namespace faultline::scenarios
