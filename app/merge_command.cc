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

#include "app/command_util.h"
#include "app/commands.h"
#include "app/explore_results.h"
#include "scenarios/explore/explore.h"
#include "scenarios/explore/shard_file.h"

namespace faultline::app {
namespace {

namespace fs = std::filesystem;
using scenarios::DrawnGroup;
using scenarios::ShardFile;

int RunMergeCommand(const std::vector<std::string>& directories, const std::string& out_flag,
                    bool json, const scenarios::InputLimits& limits) {
  std::vector<ShardFile> shards;
  for (const std::string& directory : directories) {
    std::variant<ShardFile, std::string> read =
        scenarios::ReadShardFile(fs::path(directory) / "groups.tsv", limits);
    if (const auto* error = std::get_if<std::string>(&read)) return BadInput(*error);
    shards.push_back(std::move(std::get<ShardFile>(read)));
    const ShardFile& first = shards.front();
    const ShardFile& last = shards.back();
    const auto bounds = [](const scenarios::ExploreBounds& b) {
      return std::tuple(b.max_events, b.max_crashes, b.max_power_losses);
    };
    if (last.scenario != first.scenario || last.seed != first.seed || last.runs != first.runs ||
        last.expectations != first.expectations || bounds(last.bounds) != bounds(first.bounds)) {
      return BadInput(fmt::format("{} is of another exploration ({} from seed {}, {} runs) than {}",
                                  directory, last.scenario, last.seed, last.runs, directories[0]));
    }
  }
  std::optional<scenarios::Scenario> from_file;
  const scenarios::Scenario* workload = NamedOrFile(shards.front().scenario, from_file, limits);
  if (workload == nullptr) return kExitBadInput;
  const std::optional<fs::path> out = ResultsDirectory(
      out_flag, fmt::format("explore-{}-{}-merged", workload->name, shards.front().seed));
  if (!out) return kExitBadInput;
  // The merge is one exploration again: all of its runs, no shard.
  ShardFile merged = shards.front();
  merged.runs_done = 0;
  merged.shard = {};
  merged.groups.clear();
  std::set<std::uint64_t> indexes;
  std::vector<std::vector<DrawnGroup>> parts;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    ShardFile& shard = shards[i];
    if (shard.shard.count != shards.front().shard.count) {
      return BadInput(fmt::format("{} is a shard of {}, {} of {}", directories[i],
                                  shard.shard.count, directories[0], shards.front().shard.count));
    }
    if (!indexes.insert(shard.shard.index).second) {
      return BadInput(fmt::format("{}: shard {}/{} is given twice", directories[i],
                                  shard.shard.index, shard.shard.count));
    }
    std::int64_t failed = 0;
    for (const DrawnGroup& group : shard.groups) {
      const bool in_range = group.first_seed >= shard.seed &&
                            group.first_seed - shard.seed < static_cast<std::uint64_t>(shard.runs);
      if (!in_range || !scenarios::InShard(group.first_seed - shard.seed, shard.shard)) {
        return BadInput(fmt::format("{}: seed {} is not one of this shard's runs", directories[i],
                                    group.first_seed));
      }
      failed += group.count;
    }
    if (shard.runs_done > shard.runs || failed > shard.runs_done) {
      return BadInput(
          fmt::format("{}: more runs or failures than the exploration had", directories[i]));
    }
    merged.runs_done += shard.runs_done;
    parts.push_back(std::move(shard.groups));
  }
  merged.groups = scenarios::MergeDrawnGroups(parts);
  return FinishExploration(*workload, std::move(merged), *out, json, 0,
                           std::chrono::steady_clock::now());
}

}  // namespace

CommandRun DefineMerge(CLI::App& command) {
  struct MergeFlags {
    std::vector<std::string> directories;
    std::string out;
    bool json = false;
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
  AddLimits(command, flags->limits);
  return [flags] {
    return RunMergeCommand(flags->directories, flags->out, flags->json, flags->limits);
  };
}

}  // namespace faultline::app
