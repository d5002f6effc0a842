// libFuzzer target for the scenario loader: any text is a scenario or a
// FileError that says where (never a crash, a hang or an exception); a
// scenario written back (ToToml) reads again, to the same file; and played
// under a small budget it runs to its end or stops at the budget, with every
// assertion of the simulator, the models and the checkers on.
// Build: cmake --preset fuzz && cmake --build --preset fuzz
// Run:   build/fuzz/tests/fuzz/scenario_file_fuzz -dict=tests/fuzz/scenario_file.dict \
//            -max_total_time=600 -max_len=8192 corpus/ tests/fuzz/scenario_corpus
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "scenarios/file/scenario_file.h"
#include "scenarios/harness/runner.h"

namespace {

using faultline::scenarios::FileError;
using faultline::scenarios::Scenario;

// A source in no directory, so a relative [[image]] folder reaches no real
// file; an absolute one would (a user's file may name one), so inputs that
// name a folder at all are left out: the fuzzer reads nothing of the machine.
constexpr std::string_view kSource = "/nonexistent-fuzz-directory/fuzz.toml";

[[noreturn]] void Fail() { __builtin_trap(); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16 * 1024) return 0;  // A story, not a soak.
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (text.find("migrations") != std::string_view::npos) return 0;
  std::variant<Scenario, FileError> parsed = faultline::scenarios::ParseScenario(text, kSource);
  if (const auto* error = std::get_if<FileError>(&parsed)) {
    // Said where: "source:line:col: what".
    if (!error->message.starts_with(std::string(kSource) + ":")) Fail();
    return 0;
  }
  Scenario& scenario = std::get<Scenario>(parsed);
  const std::string written = faultline::scenarios::ToToml(scenario);
  std::variant<Scenario, FileError> again = faultline::scenarios::ParseScenario(written, kSource);
  if (!std::holds_alternative<Scenario>(again)) Fail();  // What it writes, it reads.
  if (faultline::scenarios::ToToml(std::get<Scenario>(again)) != written) Fail();
  // Played small: a run ends at its budget at the latest.
  scenario.budget.virtual_time =
      std::min(scenario.budget.virtual_time,
               std::chrono::duration_cast<faultline::sim::Duration>(std::chrono::minutes(10)));
  scenario.budget.steps = std::min<std::uint64_t>(scenario.budget.steps, 200'000);
  (void)faultline::scenarios::RunScenario(scenario, {.seed = 1});
  return 0;
}
