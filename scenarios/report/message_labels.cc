#include "scenarios/report/message_labels.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

std::string Upper(std::string_view word) {
  std::string upper(word);
  std::ranges::transform(upper, upper.begin(), [](unsigned char c) { return std::toupper(c); });
  return upper;
}

std::string Cut(std::string label) {
  if (label.size() > kMaxLabelChars) label = label.substr(0, kMaxLabelChars - 3) + "...";
  FL_ASSERT(label.size() <= kMaxLabelChars);
  return label;
}

// The statement's words outside parentheses (column lists, VALUES,
// count(*)), up to its first ';', split at blanks, with quotes dropped:
// enough to find its verb and object.
std::vector<std::string> Words(std::string_view statement) {
  constexpr std::size_t kMaxWords = 12;  // The object is never further in.
  std::vector<std::string> words;
  std::string word;
  int depth = 0;
  for (const char c : statement) {
    if (c == ';' || words.size() >= kMaxWords) break;
    if (c == '(' || c == ')') {
      depth = std::max(0, depth + (c == '(' ? 1 : -1));
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
      continue;
    }
    if (depth > 0) continue;
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else if (c != '"' && c != '\'') {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

// "ks.table" -> "table": the keyspace is the lane's, not news on an arrow.
std::string Unqualified(const std::string& name) {
  const std::size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

// The word after the first of `markers` (case-insensitive), skipping
// "IF [NOT] EXISTS"; empty when there is none.
std::string ObjectAfter(const std::vector<std::string>& words,
                        std::initializer_list<std::string_view> markers) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (std::ranges::find(markers, Upper(words[i])) == markers.end()) continue;
    std::size_t at = i + 1;
    while (at < words.size() && (Upper(words[at]) == "IF" || Upper(words[at]) == "NOT" ||
                                 Upper(words[at]) == "EXISTS")) {
      ++at;
    }
    return at < words.size() ? Unqualified(words[at]) : std::string();
  }
  return {};
}

}  // namespace

std::string MessageLabel(std::string_view what) {
  if (what.starts_with("response ")) return Cut(std::string(what.substr(9)));
  // The store's protocol goes to one path; its method says it all.
  if (what.ends_with(" /cql")) return std::string(what.substr(0, what.size() - 5));
  return Cut(std::string(what));
}

std::string OutcomeLabel(std::string_view outcome) {
  if (!outcome.starts_with("error ")) return Cut(std::string(outcome));
  outcome.remove_prefix(6);
  const std::size_t words = outcome.find(' ');  // After the error's number.
  if (words == std::string_view::npos) return "error " + Cut(std::string(outcome));
  outcome.remove_prefix(words + 1);
  return Cut(std::string(outcome.substr(0, outcome.find_first_of(".:("))));
}

std::string StatementLabel(std::string_view statement) {
  const std::vector<std::string> words = Words(statement);
  if (words.empty()) return "(empty)";
  std::string verb = Upper(words[0]);
  std::string object;
  if (verb == "SELECT" || verb == "DELETE") {
    object = ObjectAfter(words, {"FROM"});
  } else if (verb == "INSERT") {
    object = ObjectAfter(words, {"INTO"});
  } else if (verb == "UPDATE" || verb == "USE" || verb == "TRUNCATE") {
    object = ObjectAfter(words, {verb});
  } else if (verb == "BEGIN") {
    verb = "BATCH";
  } else if ((verb == "CREATE" || verb == "ALTER" || verb == "DROP") && words.size() > 1) {
    // CREATE TABLE t, CREATE INDEX i ON t, CREATE CUSTOM INDEX, CREATE TYPE.
    std::size_t kind = 1;
    if (Upper(words[kind]) == "CUSTOM" && words.size() > 2) kind = 2;
    verb += " " + Upper(words[kind]);
    object = ObjectAfter(words, {Upper(words[kind])});
  }
  return Cut(object.empty() ? verb : verb + " " + object);
}

}  // namespace faultline::scenarios
