#include "sim/simulation.h"

#include <algorithm>

#include <fmt/format.h>

namespace faultline::sim {

Simulation::Simulation(SimulationOptions options)
    : options_(std::move(options)),
      random_(options_.seed),
      recent_(std::max<std::size_t>(options_.recent_events, 1)),
      scheduler_(options_.scheduling, random_.Fork("scheduler"), *this),
      faults_(random_.Fork("faults"), options_.fault_plan) {
  trace_.KeepLastIn(&recent_);
  for (TraceSink* sink : options_.sinks) trace_.AddSink(sink);
  RegisterAssertionContext(this);
  Process& root = AddProcess("sim");
  FL_ASSERT(root.id() == kRootProcess);
  // The root's main task waits forever, so that the root stays running and
  // the harness can spawn tasks into it.
  root.Start([this]() -> Awaitable<int> {
    co_await root_never_set_.Wait();
    FL_PANIC("the root process's main task was woken");
  });
}

Simulation::~Simulation() {
  // Destroy every coroutine frame while the processes, trace and scheduler
  // their destructors may reach are still alive. No trace events: a run's
  // trace ends where its driver stopped it.
  scheduler_.DestroyAll();
  UnregisterAssertionContext(this);
}

Process& Simulation::AddProcess(std::string name) {
  FL_ASSERT(processes_.size() < kMaxProcesses);
  const auto id = static_cast<ProcessId>(processes_.size());
  const auto [entry, added] = process_by_name_.emplace(name, id);
  FL_ASSERT_MSG(added, "a process named {} already exists", name);
  processes_.push_back(std::make_unique<Process>(*this, id, std::move(name)));
  FL_ASSERT(processes_.back()->name() == entry->first);
  return *processes_.back();
}

Process& Simulation::process(ProcessId id) {
  FL_ASSERT(id < processes_.size());
  return *processes_[id];
}

Process* Simulation::FindProcess(std::string_view name) {
  auto found = process_by_name_.find(name);
  return found == process_by_name_.end() ? nullptr : processes_[found->second].get();
}

Owner Simulation::CurrentOwner() const {
  if (scheduler_.InJob()) return scheduler_.current();
  return Owner{kRootProcess, processes_.front()->incarnation(), 0};
}

FaultDecision Simulation::HitFaultPoint(std::string_view site, const Owner& caller) {
  Process& caller_process = process(caller.process);
  const bool may_crash = caller.process != kRootProcess && scheduler_.IsLive(caller);
  const FaultInjector::Hit hit =
      faults_.OnHit(site, may_crash, caller_process.name(), scheduler_.steps());
  if (hit.decision.action == FaultAction::kNone) return hit.decision;
  EmitFor(caller.process, caller.incarnation, "fault.fire",
          {{"site", site}, {"hit", hit.number}, {"action", FaultActionName(hit.decision.action)}});
  // A power loss ends the process as a crash does; the data layer drops
  // what was never synced.
  if (hit.decision.action == FaultAction::kCrash ||
      hit.decision.action == FaultAction::kPowerLoss) {
    if (scheduler_.InJob() && scheduler_.current().process == caller.process) {
      caller_process.EndFromInside(/*killed=*/true, kKilledExitCode);
    } else {
      caller_process.Kill();
    }
  }
  return hit.decision;
}

void Simulation::Emit(std::string_view name, std::initializer_list<TraceField> fields) {
  Emit(name, std::vector<TraceField>(fields));
}

void Simulation::Emit(std::string_view name, std::vector<TraceField> fields) {
  const Owner owner = CurrentOwner();
  // Code of a dead incarnation can only be running on after a crash inside a
  // synchronous call, until its next suspension; nothing it does is seen.
  if (!scheduler_.IsLive(owner)) return;
  EmitFor(owner.process, owner.incarnation, name, std::move(fields));
}

void Simulation::EmitFor(ProcessId process, std::uint32_t incarnation, std::string_view name,
                         std::initializer_list<TraceField> fields) {
  EmitFor(process, incarnation, name, std::vector<TraceField>(fields));
}

void Simulation::EmitFor(ProcessId process, std::uint32_t incarnation, std::string_view name,
                         std::vector<TraceField> fields) {
  FL_ASSERT(process < processes_.size());
  trace_.Record(TraceEvent{0, scheduler_.steps(), Now(), processes_[process]->name(), incarnation,
                           std::string(name), std::move(fields)});
}

RunResult Simulation::RunUntilIdle(std::uint64_t max_steps) {
  return scheduler_.Run(RunBudget{max_steps, std::nullopt, nullptr});
}

RunResult Simulation::RunUntil(TimePoint until, std::uint64_t max_steps) {
  return scheduler_.Run(RunBudget{max_steps, until, nullptr});
}

RunResult Simulation::RunFor(Duration duration, std::uint64_t max_steps) {
  return RunUntil(scheduler_.TimeAfter(duration), max_steps);
}

RunResult Simulation::RunSteps(std::uint64_t steps) {
  return scheduler_.Run(RunBudget{steps, std::nullopt, nullptr});
}

RunResult Simulation::RunUntil(std::function<bool()> stop_when, std::uint64_t max_steps) {
  return scheduler_.Run(RunBudget{max_steps, std::nullopt, std::move(stop_when)});
}

std::string Simulation::DescribeForAssertion() const {
  std::string text = fmt::format("  seed={} virtual_time={} step={} trace_hash={}\n", options_.seed,
                                 FormatTime(Now()), scheduler_.steps(), FormatHash(trace_.hash()));
  const std::vector<TraceEvent> events = recent_.Events();
  text += fmt::format("  last {} trace events:\n", events.size());
  for (const TraceEvent& event : events) text += "    " + FormatEventText(event) + "\n";
  if (const TraceEvent* recording = trace_.recording()) {
    text += "    (being recorded) " + FormatEventText(*recording) + "\n";
  }
  text += fmt::format("  replay with the same seed ({}) to reproduce\n", options_.seed);
  return text;
}

std::string DeterminismReport::Describe() const {
  if (deterministic) {
    return fmt::format("deterministic: both runs gave trace hash {} over {} events",
                       FormatHash(first_hash), first_events);
  }
  std::string text =
      fmt::format("NOT deterministic: trace hashes {} ({} events) and {} ({} events)",
                  FormatHash(first_hash), first_events, FormatHash(second_hash), second_events);
  if (divergence) {
    text += '\n';
    text += divergence->Describe();
  }
  return text;
}

DeterminismReport CheckDeterminism(const SimulationOptions& options,
                                   const std::function<void(Simulation&)>& body,
                                   std::size_t max_recorded_events) {
  auto run_once = [&](RecordingSink& recording) {
    SimulationOptions recorded = options;
    recorded.sinks.push_back(&recording);
    Simulation simulation(recorded);
    body(simulation);
    return simulation.trace().hash();
  };
  RecordingSink first(max_recorded_events);
  RecordingSink second(max_recorded_events);
  DeterminismReport report;
  report.first_hash = run_once(first);
  report.second_hash = run_once(second);
  report.first_events = first.hashes().size();
  report.second_events = second.hashes().size();
  report.deterministic = report.first_hash == report.second_hash;
  if (report.deterministic) return report;

  report.divergence = FindFirstDivergence(first.events(), second.events());
  if (!report.divergence) {
    // Identical recorded prefixes: the runs parted beyond it. Locate the
    // index by the per-event hashes, without the events themselves.
    const auto& a = first.hashes();
    const auto& b = second.hashes();
    std::size_t index = 0;
    while (index < a.size() && index < b.size() && a[index] == b[index]) ++index;
    report.divergence = Divergence{index, std::nullopt, std::nullopt};
  }
  return report;
}

}  // namespace faultline::sim
