// `faultline merge DIR...`: the results of an exploration's shards folded
// into one, as if one process had played every run.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/command_util.h"
#include "app/commands.h"
#include "app/explore_results.h"
#include "scenarios/explore/explore.h"
#include "scenarios/explore/shard_file.h"
#include "sim/assert.h"

namespace faultline::app {
namespace {

namespace fs = std::filesystem;
using scenarios::DrawnGroup;
using scenarios::ShardFile;

std::string Or(const std::string& text, const char* otherwise) {
  return text.empty() ? otherwise : text;
}

// Reads every shard's groups.tsv; an error when one is unreadable or of
// another exploration than the first.
std::variant<std::vector<ShardFile>, std::string> ReadShards(
    const std::vector<std::string>& directories, const scenarios::InputLimits& limits) {
  std::vector<ShardFile> shards;
  for (const std::string& directory : directories) {
    std::variant<ShardFile, std::string> read =
        scenarios::ReadShardFile(fs::path(directory) / "groups.tsv", limits);
    if (const auto* error = std::get_if<std::string>(&read)) return *error;
    shards.push_back(std::move(std::get<ShardFile>(read)));
    const ShardFile& first = shards.front();
    const ShardFile& last = shards.back();
    // Another build may draw, play or judge runs otherwise, and another
    // version of the scenario is another workload: their counts do not add.
    if (last.build != first.build) {
      return fmt::format(
          "{} was explored by another build of faultline (build {}) than {} (build {}); "
          "explore every shard with one build and merge them with it",
          directory, Or(last.build, "not recorded"), directories[0],
          Or(first.build, "not recorded"));
    }
    if (last.scenario_digest != first.scenario_digest) {
      return fmt::format(
          "{} explored another version of {} (digest {}) than {} (digest {}); the scenario "
          "changed between the shards: explore them again from one version",
          directory, last.scenario, Or(last.scenario_digest, "not recorded"), directories[0],
          Or(first.scenario_digest, "not recorded"));
    }
    const auto bounds = [](const scenarios::ExploreBounds& b) {
      return std::tuple(b.max_events, b.max_crashes, b.max_power_losses, b.kinds);
    };
    if (last.scenario != first.scenario || last.seed != first.seed || last.runs != first.runs ||
        last.batch != first.batch || last.expectations != first.expectations ||
        bounds(last.bounds) != bounds(first.bounds)) {
      // Each exploration in words, its kinds of fault event when they differ.
      const bool kinds_differ = last.bounds.kinds != first.bounds.kinds;
      const auto words = [kinds_differ](const ShardFile& shard) {
        const std::vector<std::string>& kinds = shard.bounds.kinds;
        return fmt::format("{} from seed {}, {} runs in batches of {}{}", shard.scenario,
                           shard.seed, shard.runs, shard.batch,
                           !kinds_differ   ? ""
                           : kinds.empty() ? ", every kind of fault event"
                                           : fmt::format(", faults {}", fmt::join(kinds, ",")));
      };
      return fmt::format("{} is of another exploration ({}) than {} ({})", directory, words(last),
                         directories[0], words(first));
    }
  }
  return shards;
}

// Whether `shard`'s groups and counts are its own runs'; an error otherwise.
std::optional<std::string> CheckShardRuns(const ShardFile& shard, const std::string& directory) {
  std::int64_t failed = 0;
  for (const DrawnGroup& group : shard.groups) {
    const bool in_range = group.first_seed >= shard.seed &&
                          group.first_seed - shard.seed < static_cast<std::uint64_t>(shard.runs);
    const std::uint64_t run = group.first_seed - shard.seed;
    if (!in_range || !scenarios::InShard(run, shard.shard, shard.batch)) {
      return fmt::format("{}: seed {} is not one of this shard's runs", directory,
                         group.first_seed);
    }
    if (group.world_seed != scenarios::WorldSeedOf(shard.seed, run, shard.batch)) {
      return fmt::format("{}: the run of seed {} is not on its batch's world seed", directory,
                         group.first_seed);
    }
    failed += group.count;
  }
  if (shard.runs_done > shard.runs || failed > shard.runs_done) {
    return fmt::format("{}: more runs or failures than the exploration had", directory);
  }
  return std::nullopt;
}

// The shards folded into one exploration (all of its runs, no shard), or
// why not: a shard of another count, one given twice, one missing (unless
// `allow_missing`, which says so on standard error).
std::variant<ShardFile, std::string> MergeShards(std::vector<ShardFile>& shards,
                                                 const std::vector<std::string>& directories,
                                                 bool allow_missing) {
  FL_ASSERT(!shards.empty() && shards.size() == directories.size());
  ShardFile merged = shards.front();
  merged.runs_done = 0;
  merged.shard = {};
  merged.groups.clear();
  const std::uint64_t count = shards.front().shard.count;
  std::set<std::uint64_t> indexes;
  std::vector<std::vector<DrawnGroup>> parts;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    ShardFile& shard = shards[i];
    if (shard.shard.count != count) {
      return fmt::format("{} is a shard of {}, {} of {}", directories[i], shard.shard.count,
                         directories[0], count);
    }
    if (!indexes.insert(shard.shard.index).second) {
      return fmt::format("{}: shard {}/{} is given twice", directories[i], shard.shard.index,
                         count);
    }
    if (auto error = CheckShardRuns(shard, directories[i])) return *error;
    // A shard stopped early (Ctrl-C, or --time with --runs) holds fewer
    // runs than it was given: the merge says so, so that its result does
    // not read as the whole exploration. (A --time exploration without
    // --runs, runs = kMaxRuns, plays what fits: nothing is short.)
    const std::uint64_t runs_in_shard =
        scenarios::RunsInShard(static_cast<std::uint64_t>(shard.runs), shard.shard, shard.batch);
    if (static_cast<std::uint64_t>(shard.runs) != scenarios::kMaxRuns &&
        static_cast<std::uint64_t>(shard.runs_done) < runs_in_shard) {
      Warn(
          fmt::format("{}: shard {}/{} stopped after {} of its {} runs (`faultline explore "
                      "--resume {}` plays the rest): the merge holds only the runs it played",
                      directories[i], shard.shard.index, count, shard.runs_done, runs_in_shard,
                      directories[i]));
    }
    merged.runs_done += shard.runs_done;
    parts.push_back(std::move(shard.groups));
  }
  // The shards missing, the first few named (a count may be 10^8).
  constexpr std::size_t kNamed = 10;
  std::vector<std::string> missing;
  const std::uint64_t missing_count = count - indexes.size();
  for (std::uint64_t index = 0; index < count && missing.size() < kNamed; ++index) {
    if (!indexes.contains(index)) missing.push_back(fmt::format("{}/{}", index, count));
  }
  if (missing_count > 0) {
    std::string which = fmt::format("{}", fmt::join(missing, ", "));
    if (missing_count > missing.size()) {
      which += fmt::format(" and {} more", missing_count - missing.size());
    }
    if (!allow_missing) {
      return fmt::format(
          "shard(s) {} of this exploration are missing: give every shard's directory, or "
          "--allow-missing to merge these alone",
          which);
    }
    Warn("shard(s) " + which + " missing: the merge holds only the runs of the shards given");
  }
  merged.groups = scenarios::MergeDrawnGroups(parts);
  return merged;
}

int RunMergeCommand(const std::vector<std::string>& directories, const std::string& out_flag,
                    bool json, int top, bool allow_missing, const scenarios::InputLimits& limits) {
  // Everything is checked before the results directory is made: a refused
  // merge leaves nothing behind.
  auto read = ReadShards(directories, limits);
  if (const auto* error = std::get_if<std::string>(&read)) return BadInput(*error);
  auto& shards = std::get<std::vector<ShardFile>>(read);
  auto merged = MergeShards(shards, directories, allow_missing);
  if (const auto* error = std::get_if<std::string>(&merged)) return BadInput(*error);
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* workload = NamedOrFile(shards.front().scenario, from_file, limits);
  if (workload == nullptr) return kExitBadInput;
  // Its groups are drawn again and shrunk here: by the build that found
  // them, on the scenario they were found in.
  if (const std::string problem = NotThisExploration(shards.front(), *workload); !problem.empty()) {
    return BadInput(fmt::format("{}: {}", directories.front(), problem));
  }
  std::optional<ResultsFolder> out = ResultsFolder::Open(
      out_flag, fmt::format("explore-{}-{}-merged", workload->name, shards.front().seed));
  if (!out) return kExitBadInput;
  ExploreProgress progress(!json, 0, 0, 0);  // Its shrinking's.
  return FinishExploration(*workload, std::move(std::get<ShardFile>(merged)), *out, json, top,
                           {std::chrono::steady_clock::now(), 0}, {}, &progress, "merge");
}

}  // namespace

CommandRun DefineMerge(CLI::App& command) {
  struct MergeFlags {
    std::vector<std::string> directories;
    std::string out;
    bool json = false;
    int top = kDefaultTop;
    bool allow_missing = false;
    scenarios::InputLimits limits;
  };
  auto flags = std::make_shared<MergeFlags>();
  command.add_option("directories", flags->directories, "the shards' results directories")
      ->required()
      ->type_name(kDirValue);
  command.add_option("--out", flags->out, "where to write the merged results")
      ->type_name(kDirValue)
      ->check(FolderToWrite());
  command.add_flag("--json", flags->json, "print summary.json instead of the text report");
  AddTop(command, flags->top);
  command.add_flag("--allow-missing", flags->allow_missing,
                   "merge the shards given even when some of the exploration's are missing");
  AddLimits(command, flags->limits);
  return [flags] {
    return RunMergeCommand(flags->directories, flags->out, flags->json, flags->top,
                           flags->allow_missing, flags->limits);
  };
}

}  // namespace faultline::app
