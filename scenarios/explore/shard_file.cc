#include "scenarios/explore/shard_file.h"

#include <charconv>
#include <fstream>
#include <iterator>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "scenarios/explore/event_kinds.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

// A non-negative decimal integer, all of `text` (no sign, no space).
std::optional<std::uint64_t> Number(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// A field's text with no tab or line break, so that it stays one field.
std::string TabFree(std::string text) {
  for (char& c : text) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

// `text` cut at `separator`, at most `most` pieces (nullopt beyond).
std::optional<std::vector<std::string_view>> Split(std::string_view text, char separator,
                                                   std::size_t most) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  while (true) {
    if (pieces.size() == most) return std::nullopt;
    const std::size_t end = text.find(separator, start);
    pieces.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return pieces;
    start = end + 1;
  }
}

// One "key\tvalue" line into `file`; what is wrong, or empty.
std::string ReadLine(std::string_view line, ShardFile& file) {
  const std::size_t tab = line.find('\t');
  const std::string_view key = line.substr(0, tab);
  const std::string_view value = tab == std::string_view::npos ? "" : line.substr(tab + 1);
  if (key == "group") {
    std::optional<DrawnGroup> group = ParseGroupLine(line);
    if (!group) return "a malformed group line";
    file.groups.push_back(std::move(*group));
  } else if (key == "scenario") {
    file.scenario = std::string(value);
  } else if (key == "build") {
    file.build = std::string(value);
  } else if (key == "scenario_digest") {
    file.scenario_digest = std::string(value);
  } else if (key == "shard") {
    const std::optional<Shard> shard = ParseShard(value);
    if (!shard) return "a malformed shard";
    file.shard = *shard;
  } else if (key == "expectations") {
    if (value != "0" && value != "1") return "a malformed expectations";
    file.expectations = value == "1";
  } else if (key == "max_events" || key == "max_crashes" || key == "max_power_losses") {
    const std::optional<std::uint64_t> number = Number(value);
    if (!number || *number > 100 || (key == "max_events" && *number == 0)) {
      return fmt::format("a malformed {}", key);
    }
    const int bound = static_cast<int>(*number);
    (key == "max_events"    ? file.bounds.max_events
     : key == "max_crashes" ? file.bounds.max_crashes
                            : file.bounds.max_power_losses) = bound;
  } else if (key == "faults") {
    // The kinds the exploration drew (--faults, --no-faults); absent: every kind.
    const ChosenEventKinds chosen = ChooseEventKinds(std::string(value), std::nullopt);
    if (!chosen.error.empty()) return "a malformed faults: " + chosen.error;
    file.bounds.kinds = chosen.names;
  } else if (key == "batch") {
    const std::optional<std::uint64_t> number = Number(value);
    if (!number || *number == 0 || *number > static_cast<std::uint64_t>(kMaxBatch)) {
      return fmt::format("a malformed batch (1 to {})", kMaxBatch);
    }
    file.batch = static_cast<int>(*number);
  } else if (key == "seed" || key == "runs" || key == "runs_done") {
    const std::optional<std::uint64_t> number = Number(value);
    if (!number || (key != "seed" && *number > kMaxRuns)) return fmt::format("a malformed {}", key);
    if (key == "seed") file.seed = *number;
    if (key == "runs") file.runs = static_cast<int>(*number);
    if (key == "runs_done") file.runs_done = static_cast<int>(*number);
  } else {
    return fmt::format("unknown line '{}'", TabFree(std::string(key)));
  }
  return {};
}

}  // namespace

std::optional<Shard> ParseShard(std::string_view text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::optional<std::uint64_t> index = Number(text.substr(0, slash));
  const std::optional<std::uint64_t> count = Number(text.substr(slash + 1));
  if (!index || !count || *count == 0 || *count > kMaxRuns || *index >= *count) return std::nullopt;
  return Shard{*index, *count};
}

std::string GroupLine(const DrawnGroup& group) {
  std::string faults;
  for (const std::string& fault : group.signature.faults) {
    faults += (faults.empty() ? "" : ",") + TabFree(fault);
  }
  return fmt::format("group\t{}\t{}\t{}\t{}\t{}\t{}\n", group.first_seed, group.count,
                     TabFree(group.signature.checker), TabFree(group.signature.violation), faults,
                     group.world_seed);
}

std::optional<DrawnGroup> ParseGroupLine(std::string_view line) {
  const std::optional<std::vector<std::string_view>> fields = Split(line, '\t', 7);
  if (!fields || fields->size() < 5 || (*fields)[0] != "group") return std::nullopt;
  const std::optional<std::uint64_t> seed = Number((*fields)[1]);
  const std::optional<std::uint64_t> count = Number((*fields)[2]);
  if (!seed || !count || *count == 0 || *count > kMaxRuns) return std::nullopt;
  // The world seed: a line from before batches has none, and played on
  // its own seed.
  const std::optional<std::uint64_t> world =
      fields->size() == 7 ? Number((*fields)[6]) : std::optional<std::uint64_t>(*seed);
  if (!world || *world > *seed) return std::nullopt;
  DrawnGroup group{{std::string((*fields)[3]), std::string((*fields)[4]), {}},
                   static_cast<int>(*count),
                   *seed,
                   *world};
  if (fields->size() >= 6 && !(*fields)[5].empty()) {
    // A bound: a signature names at most a schedule's faults.
    const std::optional<std::vector<std::string_view>> faults = Split((*fields)[5], ',', 1000);
    if (!faults) return std::nullopt;
    for (std::string_view fault : *faults) group.signature.faults.emplace_back(fault);
  }
  return group;
}

std::string ShardText(const ShardFile& file) {
  std::string text = fmt::format("scenario\t{}\n", TabFree(file.scenario));
  if (!file.scenario_digest.empty()) {
    text += fmt::format("scenario_digest\t{}\n", TabFree(file.scenario_digest));
  }
  if (!file.build.empty()) text += fmt::format("build\t{}\n", TabFree(file.build));
  text += fmt::format("seed\t{}\nruns\t{}\nruns_done\t{}\n", file.seed, file.runs, file.runs_done);
  text += fmt::format("shard\t{}/{}\nbatch\t{}\n", file.shard.index, file.shard.count, file.batch);
  text += fmt::format("expectations\t{}\n", file.expectations ? 1 : 0);
  text +=
      fmt::format("max_events\t{}\nmax_crashes\t{}\nmax_power_losses\t{}\n", file.bounds.max_events,
                  file.bounds.max_crashes, file.bounds.max_power_losses);
  if (!file.bounds.kinds.empty())
    text += fmt::format("faults\t{}\n", fmt::join(file.bounds.kinds, ","));
  for (const DrawnGroup& group : file.groups) text += GroupLine(group);
  return text;
}

std::variant<ShardFile, std::string> ParseShardText(std::string_view text,
                                                    const std::string& source) {
  ShardFile file;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    FL_ASSERT(line_number < text.size());  // Each line takes a byte at least.
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++line_number;
    if (std::string problem = ReadLine(text.substr(start, end - start), file); !problem.empty()) {
      return fmt::format("{}:{}: {}", source, line_number, problem);
    }
    start = end + 1;
  }
  if (file.scenario.empty()) return source + ": names no scenario";
  return file;
}

std::variant<ShardFile, std::string> ReadShardFile(const std::filesystem::path& path,
                                                   const InputLimits& limits) {
  const std::string source = path.string();
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return source + ": cannot read it (is it an explore results directory?)";
  }
  if (std::filesystem::file_size(path, error) > limits.results_file_bytes || error) {
    return fmt::format("{}: {}", source, OverLimit(limits, &InputLimits::results_file_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return source + ": cannot read it";
  if (text.size() > limits.results_file_bytes) {  // It grew since it was measured.
    return fmt::format("{}: {}", source, OverLimit(limits, &InputLimits::results_file_bytes));
  }
  return ParseShardText(text, source);
}

}  // namespace faultline::scenarios
