#include "live/prompt_words.h"

#include <fmt/format.h>

#include <optional>
#include <set>
#include <vector>

#include "scenarios/file/scenario_file.h"
#include "scenarios/steps/fields.h"
#include "scenarios/steps/steps.h"

namespace faultline::live {
namespace {

using scenarios::StepField;
using scenarios::StepKind;

std::vector<std::string_view> Words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t at = 0;
  while (at < line.size()) {
    const std::size_t start = line.find_first_not_of(" \t", at);
    if (start == std::string_view::npos) break;
    const std::size_t end = std::min(line.find_first_of(" \t", start), line.size());
    words.push_back(line.substr(start, end - start));
    at = end;
  }
  return words;
}

std::string TomlString(std::string_view text) {
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      quoted += fmt::format("\\u{:04x}", static_cast<int>(c));
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

// A value as the field's file form has it: a string, a list of strings, or
// a bare number or flag (the field's example says which).
std::string TomlValue(StepField field, std::string_view text) {
  const std::string_view example = scenarios::FieldSpecOf(field).example;
  if (example.starts_with('"')) return TomlString(text);
  if (example.starts_with('[')) {
    std::string list = "[";
    for (std::size_t at = 0; at <= text.size();) {
      const std::size_t comma = std::min(text.find(',', at), text.size());
      list += (list.size() > 1 ? ", " : "") + TomlString(text.substr(at, comma - at));
      at = comma + 1;
    }
    return list + "]";
  }
  return std::string(text);
}

bool TakesTheRest(StepField field) {
  return field == StepField::kStatement || field == StepField::kBody ||
         field == StepField::kCommand;
}

// The kind the line starts with ("down -v" is two words), and how many words it took.
std::optional<std::pair<const StepKind*, std::size_t>> KindOf(
    const std::vector<std::string_view>& words) {
  if (words.size() >= 2) {
    const std::string two = fmt::format("{} {}", words[0], words[1]);
    if (const StepKind* kind = scenarios::FindStepKind(two)) return std::pair(kind, 2);
  }
  if (const StepKind* kind = scenarios::FindStepKind(words[0])) return std::pair(kind, 1);
  return std::nullopt;
}

// "prompt:12:3: step 1: what" -> "what".
std::string Unlocated(std::string message) {
  if (const std::size_t at = message.find("step 1: "); at != std::string::npos) {
    return message.substr(at + 8);
  }
  return message;
}

}  // namespace

std::variant<scenarios::Step, std::string> StepOfWords(std::string_view line,
                                                       const scenarios::Scenario& topology) {
  const std::vector<std::string_view> words = Words(line);
  if (words.empty()) return std::string("an empty line");
  const auto kind = KindOf(words);
  if (!kind) return fmt::format("no step kind '{}' (`help` lists them)", words[0]);
  std::string table = fmt::format("\n[[step]]\ndo = {}\n", TomlString(kind->first->name));
  std::set<StepField> given;
  std::size_t next = 0;  // The next field a bare word fills.
  const auto& fields = kind->first->fields;
  for (std::size_t i = kind->second; i < words.size(); ++i) {
    const std::string_view word = words[i];
    const std::size_t equals = word.find('=');
    std::optional<StepField> named;
    if (equals != std::string_view::npos) {
      for (const auto& use : fields) {
        if (scenarios::StepFieldKey(use.field) == word.substr(0, equals)) named = use.field;
      }
    }
    if (named) {
      if (!given.insert(*named).second)
        return fmt::format("'{}' given twice", word.substr(0, equals));
      table += fmt::format("{} = {}\n", word.substr(0, equals),
                           TomlValue(*named, word.substr(equals + 1)));
      continue;
    }
    while (next < fields.size() && given.contains(fields[next].field)) ++next;
    if (next == fields.size()) {
      return fmt::format("'{}' is one word too many for {}", word, kind->first->name);
    }
    const StepField field = fields[next].field;
    given.insert(field);
    std::string_view value = word;
    if (TakesTheRest(field)) {
      value = line.substr(static_cast<std::size_t>(word.data() - line.data()));
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
        value.remove_suffix(1);
      i = words.size();
    }
    table += fmt::format("{} = {}\n", scenarios::StepFieldKey(field), TomlValue(field, value));
  }
  scenarios::Scenario setting = topology;
  setting.steps.clear();
  const std::string text = scenarios::ToToml(setting) + table;
  auto parsed = scenarios::ParseScenario(text, "prompt");
  if (auto* error = std::get_if<scenarios::FileError>(&parsed)) return Unlocated(error->message);
  auto& steps = std::get<scenarios::Scenario>(parsed).steps;
  if (steps.size() != 1) return std::string("not one step");
  return std::move(steps.front());
}

std::vector<std::string> Completions(std::string_view line,
                                     const std::vector<std::string>& services) {
  std::vector<std::string_view> words = Words(line);
  const bool fresh = line.empty() || line.back() == ' ' || line.back() == '\t';
  const std::string prefix = fresh || words.empty() ? std::string() : std::string(words.back());
  if (!fresh && !words.empty()) words.pop_back();
  std::set<std::string> found;
  const auto offer = [&](std::string_view candidate) {
    if (candidate.starts_with(prefix)) found.emplace(candidate);
  };
  if (words.empty()) {
    for (const StepKind& kind : scenarios::StepKinds()) {
      if (kind.name.find(' ') == std::string_view::npos) offer(kind.name);
    }
    for (const char* command : kPromptCommands) offer(command);
  } else if (words.front() == "logs") {
    for (const std::string& service : services) offer(service);
  } else if (const auto kind = KindOf(words)) {
    for (const auto& use : kind->first->fields) {
      const StepField field = use.field;
      if (field == StepField::kService || field == StepField::kPeer) {
        for (const std::string& service : services) offer(service);
      }
      offer(fmt::format("{}=", scenarios::StepFieldKey(field)));
    }
  }
  constexpr std::size_t kMaxShown = 50;
  std::vector<std::string> sorted(found.begin(), found.end());
  if (sorted.size() > kMaxShown) sorted.resize(kMaxShown);
  return sorted;
}

std::string PromptHelp() {
  std::string help =
      "Steps, in the scenario format's words (fields in this order, or key=value):\n";
  for (const StepKind& kind : scenarios::StepKinds()) {
    std::string fields;
    for (const auto& use : kind.fields) {
      const std::string_view key = scenarios::StepFieldKey(use.field);
      fields += use.required ? fmt::format(" {}", key) : fmt::format(" [{}]", key);
    }
    help += fmt::format("  {}{}\n", kind.name, fields);
  }
  help +=
      "Commands:\n"
      "  status          each service's state, and the virtual time\n"
      "  logs SERVICE    the service's last log lines\n"
      "  help            this\n"
      "  complete LINE   how LINE may go on: step kinds, services, fields\n"
      "  exit            stop serving (and write --record's file)\n";
  return help;
}

}  // namespace faultline::live
