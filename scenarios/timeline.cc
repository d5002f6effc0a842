#include "scenarios/timeline.h"

#include <fmt/format.h>

#include <algorithm>

#include "scenarios/steps.h"
#include "sim/assert.h"
#include "sim/clock.h"

namespace faultline::scenarios {
namespace {

std::string Field(const sim::TraceEvent& event, std::string_view key) {
  const sim::TraceValue* value = event.Find(key);
  return value == nullptr ? std::string() : value->ToString();
}

// One line: newlines and runs of blanks become single spaces, and a long
// text is cut, so that each event stays one line.
std::string Flat(std::string_view text, std::size_t max) {
  std::string flat;
  for (const char c : text) {
    const char shown = c == '\n' || c == '\t' || c == '\r' ? ' ' : c;
    if (shown == ' ' && !flat.empty() && flat.back() == ' ') continue;
    flat += shown;
  }
  if (flat.size() > max) flat = flat.substr(0, max - 3) + "...";
  return flat;
}

std::string Millis(sim::Duration duration) {
  return fmt::format(
      "{:.1f}ms", std::chrono::duration_cast<std::chrono::microseconds>(duration).count() / 1000.0);
}

// The text of an event of each kind; the kind's fields, as a person says them.
std::string Describe(const sim::TraceEvent& event) {
  const std::string_view name = event.name;
  if (name == "cql.statement") {
    const std::string values = Field(event, "values");
    const std::string keyspace = Field(event, "keyspace");
    return fmt::format("{}{}{} -> {}", keyspace.empty() ? "" : "[" + keyspace + "] ",
                       Flat(Field(event, "statement"), 160),
                       values.empty() ? "" : "  with (" + Flat(values, 120) + ")",
                       Field(event, "outcome"));
  }
  if (name == "container.log") return Flat(Field(event, "line"), 1000);  // Errors end long lines.
  if (name == "container.state") return "container " + Field(event, "state");
  if (name == "process.start") return "process starts";
  if (name == "process.exit") return "process exits with code " + Field(event, "code");
  if (name == "container.exit") {
    return fmt::format("container exited with code {}{}", Field(event, "code"),
                       Field(event, "killed") == "true" ? " (killed)" : "");
  }
  if (name == "process.kill") return fmt::format("CRASH (exit {})", Field(event, "code"));
  if (name == "fault.fire") {
    return fmt::format("FAULT {} at {} (pass {})", Field(event, "action"), Field(event, "site"),
                       Field(event, "hit"));
  }
  if (name == "operator.action") {
    const std::string detail = Field(event, "detail");
    return fmt::format("{}{} -> {}", Field(event, "action"), detail.empty() ? "" : " " + detail,
                       Flat(Field(event, "outcome"), 120));
  }
  if (name == "migrate.begin") {
    return fmt::format("{}: {} in {}", Field(event, "runner"), Field(event, "file"),
                       Field(event, "keyspace"));
  }
  if (name == "migrate.end") {
    return fmt::format("{} in {}: {}", Field(event, "version"), Field(event, "keyspace"),
                       Flat(Field(event, "outcome"), 120));
  }
  std::string text(name);
  for (const sim::TraceField& field : event.fields) {
    text += fmt::format(" {}={}", field.key, Flat(field.value.ToString(), 80));
  }
  return text;
}

}  // namespace

const std::vector<std::string_view>& TimelineKinds() {
  static const std::vector<std::string_view> kKinds = {"net",     "cql",     "log",   "container",
                                                       "process", "migrate", "fault", "operator",
                                                       "volume",  "other"};
  return kKinds;
}

std::string_view TimelineKindOf(std::string_view name) {
  if (name == "container.log") return "log";
  const std::string_view prefix = name.substr(0, name.find('.'));
  const std::vector<std::string_view>& kinds = TimelineKinds();
  const bool known = std::find(kinds.begin(), kinds.end(), prefix) != kinds.end();
  return known ? prefix : "other";
}

void ReadableTimeline::MarkStep(const Scenario& scenario, std::size_t index) {
  FL_ASSERT_MSG(index <= scenario.steps.size(), "step {} of {}", index, scenario.steps.size());
  if (index == scenario.steps.size()) {
    out_ << "\n== liveness phase: the faults stop; the cluster has 30s to converge\n";
    return;
  }
  const Step& step = scenario.steps[index];
  out_ << fmt::format("\n== step {}: {}{}\n", index + 1, StepKindOf(step).show(step),
                      step.narration.empty() ? "" : "  -- " + Flat(step.narration, 160));
}

bool ReadableTimeline::Shows(const sim::TraceEvent& event) const {
  if (!filter_.kinds.empty() && !filter_.kinds.contains(std::string(TimelineKindOf(event.name)))) {
    return false;
  }
  if (filter_.services.empty()) return true;
  for (const std::string_view key : {"from", "to", "service"}) {
    std::string who = Field(event, key);
    who = who.substr(0, who.find(':'));  // "kuri-1:7001" is kuri-1.
    if (filter_.services.contains(who)) return true;
  }
  return filter_.services.contains(event.process);
}

void ReadableTimeline::Line(const sim::TraceEvent& event, std::string_view who,
                            const std::string& text) {
  out_ << fmt::format("  {:>16}  {:<22} {}\n", sim::FormatTime(event.time), who, text);
}

void ReadableTimeline::Write(const sim::TraceEvent& event) {
  const std::string_view name = event.name;
  // A message is one line, when it arrives (or is dropped): its send only
  // remembers when it left.
  if (name == "net.send") {
    constexpr std::size_t kMaxInFlight = 1'000'000;  // Far past any run's messages in flight.
    if (in_flight_.size() < kMaxInFlight) in_flight_[event.Find("id")->AsUint()] = event.time;
    return;
  }
  const bool arrives = name == "net.deliver";
  if (arrives || name == "net.drop") {
    const sim::TraceValue* id = event.Find("id");
    const auto sent = id == nullptr ? in_flight_.end() : in_flight_.find(id->AsUint());
    std::string took;
    if (sent != in_flight_.end()) {
      took = fmt::format("  ({})", Millis(event.time - sent->second));
      in_flight_.erase(sent);
    }
    if (!Shows(event)) return;
    Line(event, Field(event, "from") + " -> " + Field(event, "to"),
         Flat(Field(event, "what"), 120) +
             (arrives ? took : "  DROPPED (" + Field(event, "reason") + ")"));
    return;
  }
  if (!Shows(event)) return;
  if (name == "net.refused") {
    Line(event, Field(event, "from") + " -> " + Field(event, "to"), "connection refused");
    return;
  }
  std::string who = event.process;
  if (const std::string service = Field(event, "service"); !service.empty()) who = service;
  Line(event, who, Describe(event));
}

void ReadableTimeline::Finish() {
  if (in_flight_.empty()) return;
  out_ << fmt::format("\n({} message{} never arrived: still held by a clog or a partition)\n",
                      in_flight_.size(), in_flight_.size() == 1 ? "" : "s");
}

}  // namespace faultline::scenarios
