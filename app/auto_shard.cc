#include "app/auto_shard.h"

#include <cstdlib>

#include <fmt/format.h>

#include "app/command_util.h"
#include "scenarios/explore/shard_file.h"

namespace faultline::app {
namespace {

// A variable that must be a number when set: its value, nullopt when
// unset, or what is wrong.
std::variant<std::optional<std::uint64_t>, std::string> NumberIn(const Environment& env,
                                                                 const char* name) {
  const std::optional<std::string> text = env(name);
  if (!text) return std::optional<std::uint64_t>();
  if (const std::optional<std::uint64_t> value = ParseSeed(*text)) return value;
  return fmt::format("--shard auto: {} is '{}', not a number", name, *text);
}

// The index within a Slurm array: its task id less the array's first
// (`sbatch --array=1-8` numbers its tasks from 1); an array with gaps
// (`--array=0-14:2`, `1,3,5`) has no index per shard.
std::variant<std::uint64_t, std::string> SlurmIndex(const Environment& env, std::uint64_t id,
                                                    std::uint64_t count) {
  std::uint64_t fields[3] = {0, 0, 0};
  const char* names[3] = {"SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_COUNT"};
  bool set[3] = {false, false, false};
  for (int i = 0; i < 3; ++i) {
    auto read = NumberIn(env, names[i]);
    if (auto* error = std::get_if<std::string>(&read)) return *error;
    if (const auto value = std::get<std::optional<std::uint64_t>>(read)) {
      fields[i] = *value;
      set[i] = true;
    }
  }
  const auto [min, max, tasks] = fields;
  if (set[2] && tasks != count) {
    return fmt::format(
        "--shard auto/{}: the Slurm array has {} task(s) (SLURM_ARRAY_TASK_COUNT); give "
        "auto/{}, or an array of {} tasks",
        count, tasks, tasks, count);
  }
  if (set[0] && set[1] && set[2] && max >= min && max - min + 1 != tasks) {
    return fmt::format(
        "--shard auto: the Slurm array's task ids {} to {} have gaps ({} tasks); give it one "
        "task per shard, e.g. --array=0-{}",
        min, max, tasks, count - 1);
  }
  if (id < min)
    return fmt::format("--shard auto: SLURM_ARRAY_TASK_ID {} is below its array's first {}", id,
                       min);
  return id - min;
}

}  // namespace

Environment ProcessEnvironment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

std::optional<std::variant<scenarios::Shard, std::string>> AutoShard(const std::string& text,
                                                                     const Environment& env) {
  if (!text.starts_with("auto/")) return std::nullopt;
  const std::optional<std::uint64_t> count = ParseSeed(text.substr(5));
  if (!count || *count == 0 || *count > scenarios::kMaxRuns) {
    return fmt::format("--shard auto/N takes the count of shards, 1 to {}, not '{}'",
                       scenarios::kMaxRuns, text);
  }
  auto kubernetes = NumberIn(env, "JOB_COMPLETION_INDEX");
  if (auto* error = std::get_if<std::string>(&kubernetes)) return *error;
  auto slurm = NumberIn(env, "SLURM_ARRAY_TASK_ID");
  if (auto* error = std::get_if<std::string>(&slurm)) return *error;
  const std::optional<std::uint64_t> k8s_index = std::get<std::optional<std::uint64_t>>(kubernetes);
  const std::optional<std::uint64_t> slurm_id = std::get<std::optional<std::uint64_t>>(slurm);
  if (k8s_index && slurm_id) {
    return std::string(
        "--shard auto: both JOB_COMPLETION_INDEX (Kubernetes) and SLURM_ARRAY_TASK_ID (Slurm) "
        "are set; give the shard as I/N");
  }
  std::uint64_t index = 0;
  const char* source = "JOB_COMPLETION_INDEX";
  if (k8s_index) {
    index = *k8s_index;
  } else if (slurm_id) {
    auto read = SlurmIndex(env, *slurm_id, *count);
    if (auto* error = std::get_if<std::string>(&read)) return *error;
    index = std::get<std::uint64_t>(read);
    source = "SLURM_ARRAY_TASK_ID";
  } else {
    return std::string(
        "--shard auto: neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor "
        "SLURM_ARRAY_TASK_ID (a Slurm job array) is set; give the shard as I/N");
  }
  if (index >= *count) {
    return fmt::format("--shard auto/{}: {} gives shard {}, and shards are 0 to {}", *count, source,
                       index, *count - 1);
  }
  return scenarios::Shard{index, *count};
}

}  // namespace faultline::app
