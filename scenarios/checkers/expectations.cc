#include "scenarios/checkers/expectations.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

#include "fakes/runtime.h"
#include "scenarios/core/topology.h"
#include "scenarios/world/world.h"

namespace faultline::scenarios {
namespace {

// "(3 rows)" at the end of a ycqlsh result: how many rows it has.
std::optional<std::size_t> ResultRows(const std::string& output) {
  const std::size_t open = output.rfind("\n(");
  if (open == std::string::npos) return std::nullopt;
  std::size_t rows = 0;
  const char* begin = output.data() + open + 2;
  const auto [end, error] = std::from_chars(begin, output.data() + output.size(), rows);
  if (error != std::errc() || std::string_view(end).rfind(" rows)", 0) != 0) return std::nullopt;
  return rows;
}

// Whether a row of a ycqlsh result (below its header and rule) has a cell
// that is `value`, spaces around it aside.
bool HasCell(const std::string& output, std::string_view value) {
  std::size_t line_start = 0;
  int line = 0;
  constexpr int kMaxLines = 1'000'000;
  while (line_start < output.size() && line < kMaxLines) {
    const std::size_t line_end = std::min(output.find('\n', line_start), output.size());
    const std::string_view text(output.data() + line_start, line_end - line_start);
    if (++line > 2 && !text.empty() && text.front() != '(') {
      for (std::size_t cell = 0; cell <= text.size();) {
        const std::size_t bar = std::min(text.find('|', cell), text.size());
        std::string_view content = text.substr(cell, bar - cell);
        while (!content.empty() && content.front() == ' ') content.remove_prefix(1);
        while (!content.empty() && content.back() == ' ') content.remove_suffix(1);
        if (content == value) return true;
        cell = bar + 1;
      }
    }
    line_start = line_end + 1;
  }
  return false;
}

}  // namespace

CheckResult CheckExpectation(World& world, const Expectation& expectation,
                             const std::string& output, int status) {
  using Kind = Expectation::Kind;
  CheckResult check;
  switch (expectation.kind) {
    case Kind::kStatus:
      check.what = fmt::format("status {}", expectation.number);
      check.held = status == expectation.number;
      check.actual = std::to_string(status);
      break;
    case Kind::kOutputContains:
      check.what = fmt::format("output contains \"{}\"", expectation.text);
      check.held = output.find(expectation.text) != std::string::npos;
      check.actual = OneLine(output);
      break;
    case Kind::kOutputLacks:
      check.what = fmt::format("output lacks \"{}\"", expectation.text);
      check.held = output.find(expectation.text) == std::string::npos;
      check.actual = OneLine(output);
      break;
    case Kind::kLogLacks:
    case Kind::kLogContains: {
      const bool contains = expectation.kind == Kind::kLogContains;
      check.what = fmt::format("{}'s log {} \"{}\"", expectation.service,
                               contains ? "contains" : "lacks", expectation.text);
      std::vector<std::string> logs;  // Of every service the name matches.
      std::vector<ServiceImage> services;
      for (const fakes::ServiceSpec& spec : world.spec.services) {
        services.push_back({spec.name, spec.image});
      }
      for (const std::string& service : MatchingServices(expectation.service, services)) {
        if (!world.runtime.HasContainer(service)) continue;
        for (std::string& line : world.runtime.Logs(service)) logs.push_back(std::move(line));
      }
      const auto found = std::find_if(logs.begin(), logs.end(), [&](const std::string& line) {
        return line.find(expectation.text) != std::string::npos;
      });
      check.held = (found != logs.end()) == contains;
      check.actual = found != logs.end() ? OneLine(*found)
                     : logs.empty()      ? "(no log)"
                                         : OneLine(logs.back());
      break;
    }
    case Kind::kStatusIn: {
      std::string list;
      for (const std::int64_t number : expectation.numbers) {
        list += (list.empty() ? "" : ", ") + std::to_string(number);
      }
      check.what = fmt::format("status one of {}", list);
      check.held = std::find(expectation.numbers.begin(), expectation.numbers.end(), status) !=
                   expectation.numbers.end();
      check.actual = std::to_string(status);
      break;
    }
    case Kind::kRows: {
      check.what = fmt::format("{} rows", expectation.number);
      const std::optional<std::size_t> rows = ResultRows(output);
      check.held = rows == static_cast<std::size_t>(expectation.number);
      check.actual = rows ? std::to_string(*rows) + " rows" : OneLine(output);
      break;
    }
    case Kind::kRowWith: {
      check.what = fmt::format("a row with \"{}\"", expectation.text);
      check.held = HasCell(output, expectation.text);
      check.actual = OneLine(output);
      break;
    }
    case Kind::kSchemaMigrations: {
      check.what =
          fmt::format("{}.schema_migrations holds {}", expectation.service, expectation.text);
      check.actual = RecordedVersions(world, expectation.service);
      check.held = check.actual == expectation.text;
      break;
    }
    case Kind::kRestarted: {
      check.what =
          fmt::format("{} restarted at least {} times", expectation.service, expectation.number);
      const int restarts = world.runtime.HasContainer(expectation.service)
                               ? world.runtime.restart_count(expectation.service)
                               : 0;
      check.held = restarts >= expectation.number;
      check.actual = std::to_string(restarts);
      break;
    }
    case Kind::kState: {
      check.what = fmt::format("{} is {}", expectation.service, expectation.text);
      check.actual =
          world.runtime.HasContainer(expectation.service)
              ? std::string(fakes::ContainerStateName(world.runtime.state(expectation.service)))
              : "absent";
      check.held = check.actual == expectation.text;
      break;
    }
    case Kind::kExitCode: {
      check.what = fmt::format("{} exited with {}", expectation.service, expectation.number);
      const std::optional<int> code = world.runtime.HasContainer(expectation.service)
                                          ? world.runtime.last_exit_code(expectation.service)
                                          : std::nullopt;
      check.held = code == expectation.number;
      check.actual = code ? std::to_string(*code) : "no exit";
      break;
    }
    case Kind::kServing: {
      check.what = fmt::format("{} is {}serving", expectation.service,
                               expectation.number == 1 ? "" : "not ");
      const bool serving = IsServing(world, expectation.service);
      check.held = serving == (expectation.number == 1);
      check.actual = serving ? "serving" : "not serving";
      break;
    }
  }
  return check;
}

}  // namespace faultline::scenarios
