#include "scenarios/checkers/expectations.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <string_view>

#include "fakes/runtime.h"
#include "models/s3/kuri_node.h"
#include "models/s3/s3.h"
#include "scenarios/core/topology.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"
#include "sim/clock.h"
#include "sim/names.h"

namespace faultline::scenarios {
namespace {

using Kind = Expectation::Kind;

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

// A required text that must say something.
std::string NonEmpty(const FieldSource& in, std::string_view key) {
  std::string text = in.Text(key);
  if (text.empty()) in.Fail(key, fmt::format("'{}' is empty", key));
  return text;
}

// Whether `text` is a version table's rows as RecordedVersions writes them:
// "none", or "<version> dirty|clean" items joined by ", ".
bool IsVersionRows(std::string_view text) {
  if (text == "none") return true;
  constexpr std::size_t kMaxRows = 100'000;
  for (std::size_t row = 0; row < kMaxRows; ++row) {
    const std::size_t comma = text.find(", ");
    const std::string_view item = text.substr(0, comma);
    const std::size_t space = item.find(' ');
    if (space == std::string_view::npos) return false;
    std::int64_t version = 0;
    const std::string_view digits = item.substr(0, space);
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), version);
    const std::string_view flag = item.substr(space + 1);
    if (error != std::errc() || end != digits.data() + digits.size() ||
        (flag != "dirty" && flag != "clean")) {
      return false;
    }
    if (comma == std::string_view::npos) return true;
    text.remove_prefix(comma + 2);
  }
  return false;
}

void ReadStatus(const FieldSource& in, std::int64_t& status, std::string_view key) {
  status = *in.Integer(key);
  if (status < 100 || status > 599) in.Fail(key, "an HTTP status is 100 to 599");
}

// --- Reading and writing each form --------------------------------------------

void ReadLog(const FieldSource& in, Expectation& e) {
  e.service = in.Service("log", /*pattern=*/true);
  if (in.Has("contains") == in.Has("lacks")) {
    in.FailTable("it needs 'contains' or 'lacks', one of them");
  }
  const bool lacks = in.Has("lacks");
  e.kind = lacks ? Kind::kLogLacks : Kind::kLogContains;
  e.text = NonEmpty(in, lacks ? "lacks" : "contains");
}

void ReadStatusIn(const FieldSource& in, Expectation& e) {
  constexpr std::string_view kStatus = "an HTTP status is 100 to 599";
  std::optional<std::vector<std::int64_t>> statuses = in.Integers("status_in", kStatus);
  if (!statuses || statuses->empty() || statuses->size() > 100) {
    in.Fail("status_in", "'status_in' is a list of 1 to 100 HTTP statuses");
  }
  for (std::size_t i = 0; i < statuses->size(); ++i) {
    if ((*statuses)[i] < 100 || (*statuses)[i] > 599) in.FailItem("status_in", i, kStatus);
  }
  e.numbers = std::move(*statuses);
}

void ReadRows(const FieldSource& in, Expectation& e) {
  const std::optional<std::int64_t> rows = in.Integer("rows");
  if (!rows || *rows < 0) in.Fail("rows", "'rows' is a count, 0 or more");
  e.number = *rows;
}

void ReadRestarted(const FieldSource& in, Expectation& e) {
  e.service = in.Service("restarted");
  e.number = in.Integer("times").value_or(1);
  if (e.number < 0) in.Fail("times", "'times' must not be negative");
}

void ReadState(const FieldSource& in, Expectation& e) {
  e.service = in.Service("state");
  e.text = in.Text("is");
  if (!fakes::ContainerStateNamed(e.text)) {
    in.Fail("is", "'is' is " + sim::NamesOf(fakes::kContainerStates));
  }
}

void ReadExited(const FieldSource& in, Expectation& e) {
  e.service = in.Service("exited");
  const std::optional<std::int64_t> code = in.Integer("code");
  if (!code) in.FailTable("it needs 'code'");
  if (*code < 0 || *code > 255) in.Fail("code", "an exit code is 0 to 255");
  e.number = *code;
}

// --- Judging each form ------------------------------------------------------------

CheckResult JudgeStatus(World&, const Expectation& e, const StepOutcome& outcome) {
  return {.what = fmt::format("status {}", e.number),
          .held = outcome.status == e.number,
          .actual = std::to_string(outcome.status)};
}

CheckResult JudgeStatusIn(World&, const Expectation& e, const StepOutcome& outcome) {
  std::string list;
  for (const std::int64_t number : e.numbers) {
    list += (list.empty() ? "" : ", ") + std::to_string(number);
  }
  return {.what = fmt::format("status one of {}", list),
          .held = std::find(e.numbers.begin(), e.numbers.end(), outcome.status) != e.numbers.end(),
          .actual = std::to_string(outcome.status)};
}

// What `contains` and the row checks read is the outcome in words (an S3
// answer's "<status> <body>", a shell's output), as files have always had it.
CheckResult JudgeOutput(World&, const Expectation& e, const StepOutcome& outcome) {
  const bool contains = e.kind == Kind::kOutputContains;
  FL_ASSERT(contains || e.kind == Kind::kOutputLacks);
  return {.what = fmt::format("output {} \"{}\"", contains ? "contains" : "lacks", e.text),
          .held = (outcome.text.find(e.text) != std::string::npos) == contains,
          .actual = OneLine(outcome.text)};
}

// A node's start-up waits as a person reads them: whole seconds past a
// minute ("6m44s"), milliseconds below ("700ms").
sim::Duration Rounded(sim::Duration total) {
  if (total >= std::chrono::minutes(1)) {
    return std::chrono::duration_cast<std::chrono::seconds>(total);
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(total);
}

// Why a node's log may lack a line for now, when it is running and has
// said nothing since it started: the gateway's start-up retry is silent
// (retryCQLStartup) and logs only once it gives up, minutes later with the
// seed's image (30 attempts from 2s, doubling to 15s apart: 6m44s of
// waits). Empty when that is not the case.
std::string SilentRetryHint(World& world, const std::string& service,
                            const std::vector<std::string>& lines) {
  if (!service.starts_with("kuri-") || lines.empty() ||
      lines.back().find("| starting node ") == std::string::npos ||
      world.runtime.state(service) != fakes::ContainerState::kRunning) {
    return {};
  }
  const auto spec = std::ranges::find(world.spec.services, service, &fakes::ServiceSpec::name);
  FL_ASSERT(spec != world.spec.services.end());  // It has a container.
  const auto image = world.images.find({spec->image, spec->version});
  const std::optional<models::s3::RetryPolicy> policy = models::s3::NodeRetryPolicy(
      *spec, image == world.images.end() ? models::s3::RetryPolicy{} : image->second.startup_retry);
  if (!policy) return {};  // A malformed policy: it says so in its log at once.
  return fmt::format(
      " ({} has logged nothing since it started: its start-up retries the store silently and "
      "logs why only once it gives up, after {} attempts over at least {}; wait longer, or give "
      "it fewer with RETRY_ATTEMPTS in its [[service]] env)",
      service, policy->attempts, sim::FormatDuration(Rounded(models::s3::RetryWaits(*policy))));
}

CheckResult JudgeLog(World& world, const Expectation& e, const StepOutcome&) {
  const bool contains = e.kind == Kind::kLogContains;
  FL_ASSERT(contains || e.kind == Kind::kLogLacks);
  std::vector<std::string> logs;  // Of every service the name matches.
  std::vector<ServiceImage> services;
  for (const fakes::ServiceSpec& spec : world.spec.services) {
    services.push_back({spec.name, spec.image});
  }
  std::string hint;  // Why a line may be missing for now (the first service's).
  for (const std::string& service : MatchingServices(e.service, services)) {
    if (!world.runtime.HasContainer(service)) continue;
    std::vector<std::string> lines = world.runtime.Logs(service);
    if (hint.empty() && contains) hint = SilentRetryHint(world, service, lines);
    for (std::string& line : lines) logs.push_back(std::move(line));
  }
  const auto found = std::find_if(logs.begin(), logs.end(), [&](const std::string& line) {
    return line.find(e.text) != std::string::npos;
  });
  const bool held = (found != logs.end()) == contains;
  return {
      .what = fmt::format("{}'s log {} \"{}\"", e.service, contains ? "contains" : "lacks", e.text),
      .held = held,
      .actual = (found != logs.end() ? OneLine(*found)
                 : logs.empty()      ? "(no log)"
                                     : OneLine(logs.back())) +
                (held ? "" : hint)};
}

CheckResult JudgeRows(World&, const Expectation& e, const StepOutcome& outcome) {
  const std::optional<std::size_t> rows = ResultRows(outcome.text);
  return {.what = fmt::format("{} rows", e.number),
          .held = rows == static_cast<std::size_t>(e.number),
          .actual = rows ? std::to_string(*rows) + " rows" : OneLine(outcome.text)};
}

CheckResult JudgeRowWith(World&, const Expectation& e, const StepOutcome& outcome) {
  return {.what = fmt::format("a row with \"{}\"", e.text),
          .held = HasCell(outcome.text, e.text),
          .actual = OneLine(outcome.text)};
}

CheckResult JudgeSchemaMigrations(World& world, const Expectation& e, const StepOutcome&) {
  std::string versions = RecordedVersions(world, e.service);
  const bool held = versions == e.text;
  return {.what = fmt::format("{}.schema_migrations holds {}", e.service, e.text),
          .held = held,
          .actual = std::move(versions)};
}

CheckResult JudgeRestarted(World& world, const Expectation& e, const StepOutcome&) {
  const int restarts =
      world.runtime.HasContainer(e.service) ? world.runtime.restart_count(e.service) : 0;
  return {.what = fmt::format("{} restarted at least {} times", e.service, e.number),
          .held = restarts >= e.number,
          .actual = std::to_string(restarts)};
}

CheckResult JudgeState(World& world, const Expectation& e, const StepOutcome&) {
  std::string state = world.runtime.HasContainer(e.service)
                          ? std::string(fakes::ContainerStateName(world.runtime.state(e.service)))
                          : "absent";
  const bool held = state == e.text;
  return {
      .what = fmt::format("{} is {}", e.service, e.text), .held = held, .actual = std::move(state)};
}

CheckResult JudgeExitCode(World& world, const Expectation& e, const StepOutcome&) {
  const std::optional<int> code = world.runtime.HasContainer(e.service)
                                      ? world.runtime.last_exit_code(e.service)
                                      : std::nullopt;
  return {.what = fmt::format("{} exited with {}", e.service, e.number),
          .held = code == e.number,
          .actual = code ? std::to_string(*code) : "no exit"};
}

CheckResult JudgeServing(World& world, const Expectation& e, const StepOutcome&) {
  const bool expected = e.kind == Kind::kServing;
  FL_ASSERT(expected || e.kind == Kind::kNotServing);
  const bool serving = IsServing(world, e.service);
  return {.what = fmt::format("{} is {}serving", e.service, expected ? "" : "not "),
          .held = serving == expected,
          .actual = serving ? "serving" : "not serving"};
}

// --- The table --------------------------------------------------------------------

std::vector<ExpectationForm> MakeForms() {
  return {
      {"status",
       {Kind::kStatus},
       {"status"},
       [](const FieldSource& in, Expectation& e) { ReadStatus(in, e.number, "status"); },
       [](const Expectation& e, FieldSink& out) { out.Integer("status", e.number); },
       JudgeStatus},
      {"status_in",
       {Kind::kStatusIn},
       {"status_in"},
       ReadStatusIn,
       [](const Expectation& e, FieldSink& out) { out.Integers("status_in", e.numbers); },
       JudgeStatusIn},
      {"log",
       {Kind::kLogContains, Kind::kLogLacks},
       {"log", "contains", "lacks"},
       ReadLog,
       [](const Expectation& e, FieldSink& out) {
         out.Text("log", e.service);
         out.Text(e.kind == Kind::kLogLacks ? "lacks" : "contains", e.text);
       },
       JudgeLog},
      {"rows",
       {Kind::kRows},
       {"rows"},
       ReadRows,
       [](const Expectation& e, FieldSink& out) { out.Integer("rows", e.number); },
       JudgeRows},
      {"row_with",
       {Kind::kRowWith},
       {"row_with"},
       [](const FieldSource& in, Expectation& e) { e.text = NonEmpty(in, "row_with"); },
       [](const Expectation& e, FieldSink& out) { out.Text("row_with", e.text); },
       JudgeRowWith},
      {"schema_migrations",
       {Kind::kSchemaMigrations},
       {"schema_migrations", "is"},
       [](const FieldSource& in, Expectation& e) {
         e.service = NonEmpty(in, "schema_migrations");
         e.text = NonEmpty(in, "is");
         // A typo would be an expectation that can never hold: refused here.
         if (!IsVersionRows(e.text)) {
           in.Fail("is",
                   "'is' is 'none' or the rows as '<version> dirty' or '<version> clean', "
                   "comma-separated (\"1754293669 clean, 1760000000 dirty\")");
         }
       },
       [](const Expectation& e, FieldSink& out) {
         out.Text("schema_migrations", e.service);
         out.Text("is", e.text);
       },
       JudgeSchemaMigrations},
      {"restarted",
       {Kind::kRestarted},
       {"restarted", "times"},
       ReadRestarted,
       [](const Expectation& e, FieldSink& out) {
         out.Text("restarted", e.service);
         out.Integer("times", e.number);
       },
       JudgeRestarted},
      {"state",
       {Kind::kState},
       {"state", "is"},
       ReadState,
       [](const Expectation& e, FieldSink& out) {
         out.Text("state", e.service);
         out.Text("is", e.text);
       },
       JudgeState},
      {"exited",
       {Kind::kExitCode},
       {"exited", "code"},
       ReadExited,
       [](const Expectation& e, FieldSink& out) {
         out.Text("exited", e.service);
         out.Integer("code", e.number);
       },
       JudgeExitCode},
      {"serving",
       {Kind::kServing},
       {"serving"},
       [](const FieldSource& in, Expectation& e) { e.service = in.Service("serving"); },
       [](const Expectation& e, FieldSink& out) { out.Text("serving", e.service); },
       JudgeServing},
      {"not_serving",
       {Kind::kNotServing},
       {"not_serving"},
       [](const FieldSource& in, Expectation& e) { e.service = in.Service("not_serving"); },
       [](const Expectation& e, FieldSink& out) { out.Text("not_serving", e.service); },
       JudgeServing},
      {"contains",
       {Kind::kOutputContains},
       {"contains"},
       [](const FieldSource& in, Expectation& e) { e.text = in.Text("contains"); },
       [](const Expectation& e, FieldSink& out) { out.Text("contains", e.text); },
       JudgeOutput},
      {"lacks",
       {Kind::kOutputLacks},
       {"lacks"},
       [](const FieldSource& in, Expectation& e) { e.text = in.Text("lacks"); },
       [](const Expectation& e, FieldSink& out) { out.Text("lacks", e.text); },
       JudgeOutput},
  };
}

// The table's own rules, checked once: keys unique, each form whole, every
// kind in one form only.
void CheckForms(const std::vector<ExpectationForm>& forms) {
  std::set<std::string_view> keys;
  std::set<Kind> kinds;
  for (const ExpectationForm& form : forms) {
    FL_ASSERT_MSG(keys.insert(form.key).second, "expectation {} is in the table twice", form.key);
    FL_ASSERT(!form.keys.empty() && form.keys.front() == form.key);
    FL_ASSERT(!form.kinds.empty());
    for (const Kind kind : form.kinds) {
      FL_ASSERT_MSG(kinds.insert(kind).second, "expectation kind {} in two forms",
                    static_cast<int>(kind));
    }
    FL_ASSERT(form.read != nullptr && form.write != nullptr && form.judge != nullptr);
  }
}

}  // namespace

const std::vector<ExpectationForm>& ExpectationForms() {
  static const std::vector<ExpectationForm> kForms = [] {
    std::vector<ExpectationForm> forms = MakeForms();  // Immutable once made.
    CheckForms(forms);
    return forms;
  }();
  return kForms;
}

const ExpectationForm* FindExpectationForm(const std::vector<std::string_view>& keys) {
  for (const ExpectationForm& form : ExpectationForms()) {
    if (std::find(keys.begin(), keys.end(), form.key) != keys.end()) return &form;
  }
  return nullptr;
}

const ExpectationForm& FormOf(const Expectation& expectation) {
  for (const ExpectationForm& form : ExpectationForms()) {
    if (std::find(form.kinds.begin(), form.kinds.end(), expectation.kind) != form.kinds.end()) {
      return form;
    }
  }
  FL_PANIC("expectation kind {} has no form", static_cast<int>(expectation.kind));
}

CheckResult CheckExpectation(World& world, const Expectation& expectation,
                             const StepOutcome& outcome) {
  return FormOf(expectation).judge(world, expectation, outcome);
}

}  // namespace faultline::scenarios
