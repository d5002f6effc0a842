// Simulation: one deterministic run. It owns the scheduler and virtual clock,
// the root random stream, the trace, the fault injector and the processes.
// Everything in it is decided by SimulationOptions::seed, so two simulations
// built from the same options and driven the same way produce the same trace
// hash. There is no global simulation: pass it, or reach it from an Executor.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/assert.h"
#include "sim/executor.h"
#include "sim/fault.h"
#include "sim/process.h"
#include "sim/random.h"
#include "sim/scheduler.h"
#include "sim/trace.h"

namespace faultline::sim {

struct SimulationOptions {
  std::uint64_t seed = 1;
  SchedulingMode scheduling = SchedulingMode::kRandom;
  std::shared_ptr<const FaultPlan> fault_plan;  // Null: no fault ever fires.
  std::size_t recent_events = 32;               // Kept for assertion reports.
  // Sinks that see every event from the first; not owned, and each must
  // outlive the simulation.
  std::vector<TraceSink*> sinks;
};

class Simulation final : public AssertionContext {
 public:
  static constexpr std::uint64_t kDefaultMaxSteps = 100'000'000;
  static constexpr std::size_t kMaxProcesses = 100'000;
  // Process 0 stands for the test harness or tool driving the simulation.
  static constexpr ProcessId kRootProcess = 0;

  explicit Simulation(SimulationOptions options = {});
  ~Simulation() override;
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  std::uint64_t seed() const { return options_.seed; }
  const SimulationOptions& options() const { return options_; }
  TimePoint Now() const { return scheduler_.Now(); }
  std::uint64_t steps() const { return scheduler_.steps(); }

  Scheduler& scheduler() { return scheduler_; }
  Trace& trace() { return trace_; }
  FaultInjector& faults() { return faults_; }
  // A random stream of its own for a component, named by it.
  Rng Random(std::string_view stream) const { return random_.Fork(stream); }

  // REQUIRES: `name` is not taken.
  Process& AddProcess(std::string name);
  Process& process(ProcessId id);
  Process* FindProcess(std::string_view name);
  // The harness's own process ("sim"): running from the start, never killed.
  Process& root() { return *processes_.front(); }

  // Spawns a task in the root process; see Process::Spawn.
  template <typename MakeBody>
  TaskId Spawn(std::string task_name, MakeBody&& make_body) {
    return root().Spawn(std::move(task_name), std::forward<MakeBody>(make_body));
  }

  // The owner of the code running now: the job's, or the root process's
  // between jobs.
  Owner CurrentOwner() const;

  // Counts a hit of fault site `site` by the code running now, records a
  // fired fault in the trace, and, for a crash, ends the calling process at
  // once (the root process is never crashed). For code that cannot await,
  // such as SQLite's VFS callbacks; coroutines use co_await FaultPoint().
  FaultDecision HitFaultPoint(std::string_view site) { return HitFaultPoint(site, CurrentOwner()); }
  // As above, on behalf of `caller` (an operation started outside any job).
  FaultDecision HitFaultPoint(std::string_view site, const Owner& caller);

  // Records a trace event from the code running now (the root process
  // between jobs), stamped with the virtual time and the step.
  void Emit(std::string_view name, std::initializer_list<TraceField> fields = {});
  void Emit(std::string_view name, std::vector<TraceField> fields);
  // Records a trace event on behalf of a process incarnation.
  void EmitFor(ProcessId process, std::uint32_t incarnation, std::string_view name,
               std::initializer_list<TraceField> fields);
  void EmitFor(ProcessId process, std::uint32_t incarnation, std::string_view name,
               std::vector<TraceField> fields);

  RunResult Run(const RunBudget& budget) { return scheduler_.Run(budget); }
  RunResult RunUntilIdle(std::uint64_t max_steps = kDefaultMaxSteps);
  RunResult RunUntil(TimePoint until, std::uint64_t max_steps = kDefaultMaxSteps);
  RunResult RunFor(Duration duration, std::uint64_t max_steps = kDefaultMaxSteps);
  RunResult RunSteps(std::uint64_t steps);
  RunResult RunUntil(std::function<bool()> stop_when, std::uint64_t max_steps = kDefaultMaxSteps);

  std::string DescribeForAssertion() const override;

 private:
  SimulationOptions options_;
  Rng random_;
  Trace trace_;
  RingSink recent_;
  Scheduler scheduler_;
  FaultInjector faults_;
  std::vector<std::unique_ptr<Process>> processes_;
  // Each process by its name, so that adding one costs O(log n), not a scan.
  std::map<std::string, ProcessId, std::less<>> process_by_name_;
  Event root_never_set_;
};

// The outcome of running one simulation body twice from the same options.
struct DeterminismReport {
  bool deterministic = false;
  std::uint64_t first_hash = 0;
  std::uint64_t second_hash = 0;
  std::uint64_t first_events = 0;
  std::uint64_t second_events = 0;
  // Where the runs parted; the events are present when within the recorded
  // prefix of each run.
  std::optional<Divergence> divergence;

  std::string Describe() const;
};

// Builds a Simulation from `options`, hands it to `body` (which sets it up and
// runs it), and does it again; compares the trace hashes and, when they
// differ, finds the first divergent event.
DeterminismReport CheckDeterminism(const SimulationOptions& options,
                                   const std::function<void(Simulation&)>& body,
                                   std::size_t max_recorded_events = 100'000);

}  // namespace faultline::sim
