// "Did you mean": the name a person most likely meant when they wrote one
// that is not among the choices (a typo, a letter left out, two swapped).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::scenarios {

// The choice nearest to `written` by edit distance (insertions, deletions,
// substitutions and swaps of neighbours, each 1), if it is near enough to
// be a slip: at most a third of the longer word's letters, and at least
// one; the first of equals.
std::optional<std::string_view> ClosestName(std::string_view written,
                                            const std::vector<std::string_view>& choices);

// " (did you mean 'x'?)" with ClosestName's choice, or "" when none is near.
std::string DidYouMean(std::string_view written, const std::vector<std::string_view>& choices);
std::string DidYouMean(std::string_view written, const std::vector<std::string>& choices);

// A long list of dotted names for a message, grouped by all but their last
// part, one group a line (wrapped), each line indented:
// "\n  disk.{delete, open, read}\n  migrate.k.{after_set_clean, ...}".
std::string GroupedNames(const std::vector<std::string>& names);

}  // namespace faultline::scenarios
