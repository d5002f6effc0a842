#include "app/cli.h"

#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/command_util.h"

namespace faultline::app {
namespace {

constexpr std::size_t kHelpWidth = 80;

// `text` in lines of at most `width` characters, cut at spaces.
std::vector<std::string> Wrapped(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option(const CLI::Option* option, bool is_positional) const override {
    return Row("  " + make_option_name(option, is_positional) + make_option_opts(option),
               make_option_desc(option));
  }

  std::string make_subcommand(const CLI::App* command) const override {
    return Row("  " + command->get_display_name(), command->get_description());
  }

 private:
  // `left`, then `text` wrapped in the column beside it.
  std::string Row(const std::string& left, const std::string& text) const {
    const std::size_t column = get_column_width();
    std::string out = left;
    const std::vector<std::string> lines = Wrapped(text, kHelpWidth - column);
    if (lines.empty()) return out + "\n";
    out += left.size() >= column ? "\n" + std::string(column, ' ')
                                 : std::string(column - left.size(), ' ');
    for (std::size_t i = 0; i < lines.size(); ++i) {
      out += (i == 0 ? "" : std::string(column, ' ')) + lines[i] + "\n";
    }
    return out;
  }
};

}  // namespace

CLI::Option* AddLimits(CLI::App& command, scenarios::InputLimits& into) {
  std::string names;
  for (const scenarios::Limit& limit : scenarios::Limits()) {
    names += fmt::format("{}{}", names.empty() ? "" : ", ", limit.name);
  }
  auto set = [&into](const std::vector<std::string>& assignments) {
    std::set<std::string> seen;
    for (const std::string& assignment : assignments) {
      const std::string name = assignment.substr(0, assignment.find('='));
      if (!seen.insert(name).second) {
        throw CLI::ValidationError("--limit " + name + " is given twice");
      }
      if (std::string problem = scenarios::SetLimit(into, assignment); !problem.empty()) {
        throw CLI::ValidationError(problem);
      }
    }
  };
  return command
      .add_option_function<std::vector<std::string>>(
          "--limit", set,
          "raise a limit on what is read, for this run (may be repeated; "
          "docs/scenario-format.md says each one's default): " +
              names)
      ->type_name("NAME=N")
      ->expected(1)
      ->allow_extra_args(false)  // One NAME=N a --limit: the words after are not its.
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

const CLI::Validator& Given() {
  static const CLI::Validator kGiven(
      [](const std::string& value) {
        return value.empty() ? std::string("needs a value, not an empty one") : std::string();
      },
      "", "Given");
  return kGiven;
}

const CLI::Validator& FolderToWrite() {
  static const CLI::Validator kFolder(
      [](const std::string& value) {
        if (value.empty()) return std::string("needs a value, not an empty one");
        return IsStandardOutput(value)
                   ? std::string("names a folder to write, and - (standard output) is none")
                   : std::string();
      },
      "", "FolderToWrite");
  return kFolder;
}

std::string RepeatedFlag(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options()) {
    // Flags (no value) and single-value options; a list (--limit, the
    // directories of merge) takes many.
    const bool many = option->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
    if (!many && option->get_expected_max() <= 1 && option->count() > 1) {
      return option->get_name() + " is given twice";
    }
  }
  return {};
}

std::shared_ptr<CLI::Formatter> MakeHelpFormatter() { return std::make_shared<HelpFormatter>(); }

CLI::Option* AddNumberFlag(CLI::App& command, const std::string& name,
                           std::function<void(std::uint64_t)> set, std::uint64_t min,
                           std::uint64_t max, const std::string& description) {
  auto parse = [name, set = std::move(set), min, max](const std::string& text) {
    const std::optional<std::uint64_t> number = ParseSeed(text);
    if (!number || *number < min || *number > max) {
      const std::string range = max == UINT64_MAX
                                    ? fmt::format("a whole number from {} to 2^64-1", min)
                                    : fmt::format("from {} to {}", min, max);
      throw CLI::ValidationError(fmt::format("{} is {}, not '{}'", name, range, text));
    }
    set(*number);
  };
  return command.add_option_function<std::string>(name, std::move(parse), description)
      ->type_name("N");
}

CLI::Option* AddSeed(CLI::App& command, std::optional<std::uint64_t>& into,
                     const std::string& description) {
  return AddNumber(command, "--seed", into, 0, UINT64_MAX, description);
}

CLI::Option* AddChoice(CLI::App& command, const std::string& name, std::string& into,
                       std::vector<std::string> words, const std::string& description) {
  const std::string type = fmt::format("{}", fmt::join(words, "|"));
  auto parse = [name, words, &into](const std::string& text) {
    for (const std::string& word : words) {
      if (word == text) {
        into = text;
        return;
      }
    }
    std::string list;
    for (std::size_t i = 0; i < words.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
    }
    throw CLI::ValidationError(fmt::format("{} is {}, not '{}'", name, list, text));
  };
  return command.add_option_function<std::string>(name, std::move(parse), description)
      ->type_name(type);
}

}  // namespace faultline::app
