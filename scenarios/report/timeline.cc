#include "scenarios/report/timeline.h"

#include <fmt/format.h>

#include <algorithm>

#include "models/cql/server.h"
#include "scenarios/core/topology.h"
#include "scenarios/harness/runner.h"
#include "scenarios/steps/steps.h"
#include "sim/assert.h"
#include "sim/clock.h"

namespace faultline::scenarios {
namespace {

// One line: newlines and runs of blanks become single spaces, and a long
// text is cut, so that each event stays one line.
std::string Flat(std::string_view text, std::size_t max) {
  FL_ASSERT(max > 3);  // Room for "...".
  std::string flat;
  for (const char c : text) {
    const char shown = c == '\n' || c == '\t' || c == '\r' ? ' ' : c;
    if (shown == ' ' && !flat.empty() && flat.back() == ' ') continue;
    flat += shown;
  }
  if (flat.size() > max) flat = std::string(sim::CutAtCharacter(flat, max - 3)) + "...";
  FL_ASSERT(flat.size() <= max && flat.find_first_of("\n\r\t") == std::string::npos);
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
    const std::string values = event.FieldText("values");
    const std::string keyspace = event.FieldText("keyspace");
    const std::string from = event.FieldText("from");
    return fmt::format(
        "{}{}{}{} -> {}", from.empty() ? "" : "from " + from + ": ",
        keyspace.empty() ? "" : "[" + keyspace + "] ", Flat(event.FieldText("statement"), 160),
        values.empty() ? "" : "  with (" + Flat(values, 120) + ")", event.FieldText("outcome"));
  }
  if (name == "container.log")
    return Flat(event.FieldText("line"), 1000);  // Errors end long lines.
  if (name == "container.state") return "container " + event.FieldText("state");
  if (name == "process.start") return "process starts";
  if (name == "process.exit") return "process exits with code " + event.FieldText("code");
  if (name == "container.exit") {
    return fmt::format("container exited with code {}{}", event.FieldText("code"),
                       event.FieldText("killed") == "true" ? " (killed)" : "");
  }
  if (name == "process.kill") return fmt::format("CRASH (exit {})", event.FieldText("code"));
  if (name == "fault.fire") {
    return fmt::format("FAULT {} at {} (pass {})", event.FieldText("action"),
                       event.FieldText("site"), event.FieldText("hit"));
  }
  if (name == "net.block")
    return "link cut: " + event.FieldText("from") + " -> " + event.FieldText("to");
  if (name == "net.clog") {
    return "link clogged: " + event.FieldText("from") + " -> " + event.FieldText("to");
  }
  if (name == "net.heal") return "network healed: every link open again";
  if (name == "container.power") {
    return event.FieldText("on") == "true" ? "power back on" : "POWER LOST";
  }
  if (name == "container.remove") return "container removed";
  if (name == "container.stop") return "container asked to stop";
  if (name == "volume.create") return "volume " + event.FieldText("volume") + " created";
  if (name == "volume.wipe") return "volume " + event.FieldText("volume") + " emptied";
  if (name == "volume.remove") return "volume " + event.FieldText("volume") + " removed";
  if (name == "operator.action") {
    const std::string detail = event.FieldText("detail");
    return fmt::format("{}{} -> {}", event.FieldText("action"), detail.empty() ? "" : " " + detail,
                       Flat(event.FieldText("outcome"), 120));
  }
  if (name == "migrate.begin") {
    return fmt::format("{}: {} in {}", event.FieldText("runner"), event.FieldText("file"),
                       event.FieldText("keyspace"));
  }
  if (name == "migrate.end") {
    return fmt::format("{} in {}: {}", event.FieldText("version"), event.FieldText("keyspace"),
                       Flat(event.FieldText("outcome"), 120));
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

ReadableTimeline::ReadableTimeline(std::ostream& out, const Scenario& scenario,
                                   TimelineFilter filter)
    : out_(out), scenario_(scenario), filter_(std::move(filter)), pairs_([&scenario] {
        std::set<std::string> stores;
        for (const ServiceImage& service : ServicesOf(scenario)) {
          if (service.image == models::cql::kStoreImage) stores.insert(service.name);
        }
        return stores;
      }()) {}

void ReadableTimeline::MarkStep(std::size_t index) {
  FL_ASSERT_MSG(index <= scenario_.steps.size(), "step {} of {}", index, scenario_.steps.size());
  step_ = index + 1;
  if (index == scenario_.steps.size()) {
    out_ << fmt::format(
        "\n== liveness phase: the faults stop; the cluster has {} to converge\n",
        fmt::format("{}s",
                    std::chrono::duration_cast<std::chrono::seconds>(kLivenessBound).count()));
    return;
  }
  const Step& step = scenario_.steps[index];
  out_ << fmt::format("\n== step {}: {}{}\n", index + 1, StepKindOf(step).show(step),
                      step.narration.empty() ? "" : "  -- " + Flat(step.narration, 160));
}

bool ReadableTimeline::Shows(const sim::TraceEvent& event) const {
  const std::string_view kind = TimelineKindOf(event.name);
  FL_ASSERT(std::find(TimelineKinds().begin(), TimelineKinds().end(), kind) !=
            TimelineKinds().end());  // One --kind can name.
  if (!filter_.kinds.empty() && !filter_.kinds.contains(std::string(kind))) {
    return false;
  }
  if (filter_.services.empty()) return true;
  for (const std::string_view key : {"from", "to", "service"}) {
    if (filter_.services.contains(HostOf(event.FieldText(key)))) return true;
  }
  return filter_.services.contains(event.process);
}

void ReadableTimeline::Line(const sim::TraceEvent& event, std::string_view who,
                            const std::string& text) {
  out_ << fmt::format("  {:>16}  {:<22} {}\n", sim::FormatTime(event.time), who, text);
}

// A message is one line, when it arrives or is dropped: its send only
// remembers when it left, in which step, and what it is.
void ReadableTimeline::Message(const sim::TraceEvent& event, bool arrived) {
  const sim::TraceValue* id = event.Find("id");
  const auto sent = id == nullptr ? in_flight_.end() : in_flight_.find(id->AsUint());
  if (sent == in_flight_.end()) return;
  const InFlight message = std::move(sent->second);
  in_flight_.erase(sent);
  // Sent before it arrived, in this step or an earlier one.
  FL_ASSERT(event.time >= message.sent && message.step <= step_);
  if ((message.kind.probe && !filter_.probes) || !Shows(event)) return;
  std::string text = Flat(event.FieldText("what"), 120);
  if (message.kind.response && !message.kind.request.empty()) {
    text += " to " + Flat(message.kind.request, 80);
  }
  const std::string took = Millis(event.time - message.sent);
  text += message.step != step_ && message.step > 0
              ? fmt::format("  (sent in step {}, took {})", message.step, took)
              : "  (" + took + ")";
  if (!arrived) text += "  DROPPED (" + event.FieldText("reason") + ")";
  Line(event, event.FieldText("from") + " -> " + event.FieldText("to"), text);
}

void ReadableTimeline::Write(const sim::TraceEvent& event) {
  if (closed_) return;
  const std::string_view name = event.name;
  if (name == "net.send") {
    constexpr std::size_t kMaxInFlight = 1'000'000;  // Far past any run's messages in flight.
    const MessageKind kind =
        pairs_.Sent(MessageIdOf(event), AnsweredIdOf(event), event.FieldText("from"),
                    event.FieldText("to"), event.FieldText("what"));
    if (in_flight_.size() < kMaxInFlight) {
      in_flight_[MessageIdOf(event)] = InFlight{event.time, step_, kind};
    }
    return;
  }
  if (name == "net.drop") pairs_.Dropped(MessageIdOf(event));
  if (name == "net.deliver" || name == "net.drop") return Message(event, name == "net.deliver");
  if (!Shows(event)) return;
  if (name == "net.refused") {
    Line(event, event.FieldText("from") + " -> " + event.FieldText("to"), "connection refused");
    return;
  }
  std::string who = event.process;
  if (const std::string service = event.FieldText("service"); !service.empty()) who = service;
  Line(event, who, Describe(event));
}

void ReadableTimeline::Finish() {
  if (in_flight_.empty()) return;
  out_ << fmt::format("\n({} message{} never arrived: still held by a clog or a partition)\n",
                      in_flight_.size(), in_flight_.size() == 1 ? "" : "s");
}

}  // namespace faultline::scenarios
