#include "tests/sim/program.h"

#include <array>
#include <map>
#include <string>
#include <utility>

namespace faultline::sim::testing {
namespace {

constexpr std::array<const char*, 3> kSites{"prop.alpha", "prop.beta", "prop.gamma"};
// Restarts are bounded so that processes restarting each other terminate.
constexpr std::uint32_t kMaxIncarnations = 3;
constexpr std::uint64_t kMaxSteps = 200'000;
constexpr Duration kTimeout{500};

const char* OpName(OpKind kind) {
  switch (kind) {
    case OpKind::kSleep:
      return "sleep";
    case OpKind::kYield:
      return "yield";
    case OpKind::kEmit:
      return "emit";
    case OpKind::kFaultPoint:
      return "fault";
    case OpKind::kSpawn:
      return "spawn";
    case OpKind::kKill:
      return "kill";
    case OpKind::kTimeout:
      return "timeout";
  }
  return "?";
}

// Interprets a Program on a Simulation and watches the kernel's guarantees.
class Interpreter {
 public:
  explicit Interpreter(const Program& program) : program_(program) {}

  void Start(Simulation& sim) {
    sim_ = &sim;
    for (std::size_t i = 0; i < program_.processes.size(); ++i) {
      ids_.push_back(sim.AddProcess("p" + std::to_string(i)).id());
    }
    for (std::size_t i = 0; i < program_.processes.size(); ++i) {
      sim.process(ids_[i]).Start(MainFor(i));
    }
  }

  int ran_after_death() const { return ran_after_death_; }

  int FramesOfEndedIncarnations() const {
    int frames = 0;
    for (const auto& [key, count] : live_frames_) {
      const Process& process = sim_->process(key.first);
      const bool ended = key.second < process.incarnation() || !process.running();
      if (ended) frames += count;
    }
    return frames;
  }

 private:
  using IncarnationKey = std::pair<ProcessId, std::uint32_t>;

  class FrameGuard {
   public:
    FrameGuard(Interpreter& interpreter, const Owner& owner)
        : interpreter_(interpreter), key_(owner.process, owner.incarnation) {
      ++interpreter_.live_frames_[key_];
    }
    ~FrameGuard() { --interpreter_.live_frames_[key_]; }
    FrameGuard(const FrameGuard&) = delete;
    FrameGuard& operator=(const FrameGuard&) = delete;

   private:
    Interpreter& interpreter_;
    IncarnationKey key_;
  };

  MainFunction MainFor(std::size_t index) {
    return [this, index]() -> Awaitable<int> {
      const Executor self = co_await asio::this_coro::executor;
      Process& process = sim_->process(self.owner().process);
      const auto& tasks = program_.processes[index].tasks;
      for (std::size_t t = 1; t < tasks.size(); ++t) {
        process.Spawn("task", [this, index, t] { return RunOps(index, t); });
      }
      co_await RunOps(index, 0);
      co_return 0;
    };
  }

  void CheckAlive(const Owner& owner) {
    const Process& process = sim_->process(owner.process);
    if (!process.running() || process.incarnation() != owner.incarnation) ++ran_after_death_;
  }

  Awaitable<void> RunOps(std::size_t process_index, std::size_t task_index) {
    const Executor self = co_await asio::this_coro::executor;
    FrameGuard guard(*this, self.owner());
    for (const Op& op : program_.processes[process_index].tasks[task_index]) {
      CheckAlive(self.owner());
      co_await RunOp(self, process_index, task_index, op);
    }
    CheckAlive(self.owner());
  }

  Awaitable<void> RunChild(std::int64_t sleep_ns) {
    const Executor self = co_await asio::this_coro::executor;
    FrameGuard guard(*this, self.owner());
    CheckAlive(self.owner());
    sim_->Emit("prog.child", {{"phase", "start"}});
    co_await SleepFor(Duration(sleep_ns));
    CheckAlive(self.owner());
    sim_->Emit("prog.child", {{"phase", "end"}});
  }

  Awaitable<void> RunOp(Executor self, std::size_t process_index, std::size_t task_index, Op op) {
    switch (op.kind) {
      case OpKind::kSleep:
        co_await SleepFor(Duration(op.argument));
        break;
      case OpKind::kYield:
        co_await Yield();
        break;
      case OpKind::kEmit:
        sim_->Emit("prog.emit",
                   {{"process", process_index}, {"task", task_index}, {"argument", op.argument}});
        break;
      case OpKind::kFaultPoint: {
        const Status status = co_await FaultPoint(kSites[op.argument % kSites.size()]);
        if (!status.ok()) sim_->Emit("prog.fault_error", {{"status", status.ToString()}});
        break;
      }
      case OpKind::kSpawn: {
        const std::int64_t sleep_ns = op.argument;
        sim_->process(self.owner().process).Spawn("child", [this, sleep_ns] {
          return RunChild(sleep_ns);
        });
        break;
      }
      case OpKind::kKill: {
        Process& target = sim_->process(ids_[op.argument % ids_.size()]);
        if (target.id() == self.owner().process) break;
        if (target.running()) {
          target.Kill();
        } else if (target.incarnation() < kMaxIncarnations) {
          target.Restart();
        }
        break;
      }
      case OpKind::kTimeout: {
        const Status status = co_await WithTimeout(SleepFor(Duration(op.argument)), kTimeout);
        sim_->Emit("prog.timeout", {{"ok", status.ok()}});
        break;
      }
    }
  }

  const Program& program_;
  Simulation* sim_ = nullptr;
  std::vector<ProcessId> ids_;
  std::map<IncarnationKey, int> live_frames_;
  int ran_after_death_ = 0;
};

rc::Gen<Op> GenOp() {
  return rc::gen::apply(
      [](OpKind kind, std::int64_t argument) {
        return Op{kind, argument};
      },
      rc::gen::weightedElement<OpKind>({{4, OpKind::kSleep},
                                        {4, OpKind::kYield},
                                        {4, OpKind::kEmit},
                                        {3, OpKind::kFaultPoint},
                                        {1, OpKind::kSpawn},
                                        {1, OpKind::kKill},
                                        {1, OpKind::kTimeout}}),
      rc::gen::inRange<std::int64_t>(0, 1000));
}

template <typename T>
rc::Gen<std::vector<T>> GenVector(std::size_t min_size, std::size_t max_size, rc::Gen<T> element) {
  return rc::gen::mapcat(
      rc::gen::inRange<std::size_t>(min_size, max_size + 1),
      [element](std::size_t size) { return rc::gen::container<std::vector<T>>(size, element); });
}

}  // namespace

void showValue(const Program& program, std::ostream& out) {
  for (std::size_t p = 0; p < program.processes.size(); ++p) {
    out << "process p" << p << ":\n";
    const auto& tasks = program.processes[p].tasks;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
      out << "  task " << t << ":";
      for (const Op& op : tasks[t]) out << ' ' << OpName(op.kind) << '(' << op.argument << ')';
      out << '\n';
    }
  }
}

ProgramOutcome RunProgram(const Program& program, const SimulationOptions& options) {
  // The interpreter outlives the simulation: frames destroyed at the end of
  // the simulation still report to it.
  Interpreter interpreter(program);
  Simulation sim(options);
  interpreter.Start(sim);
  ProgramOutcome outcome;
  for (std::uint64_t step = 0; step < kMaxSteps; ++step) {
    const RunResult result = sim.RunSteps(1);
    outcome.frames_outliving_process =
        std::max(outcome.frames_outliving_process, interpreter.FramesOfEndedIncarnations());
    if (result.reason == StopReason::kQuiescent) {
      outcome.quiescent = true;
      break;
    }
  }
  outcome.trace_hash = sim.trace().hash();
  outcome.events = sim.trace().event_count();
  outcome.ran_after_death = interpreter.ran_after_death();
  return outcome;
}

rc::Gen<Program> GenProgram() {
  const rc::Gen<std::vector<Op>> task = GenVector<Op>(1, 12, GenOp());
  const rc::Gen<ProcessProgram> process = rc::gen::map(
      GenVector<std::vector<Op>>(1, 3, task),
      [](std::vector<std::vector<Op>> tasks) { return ProcessProgram{std::move(tasks)}; });
  return rc::gen::map(
      GenVector<ProcessProgram>(1, 4, process),
      [](std::vector<ProcessProgram> processes) { return Program{std::move(processes)}; });
}

rc::Gen<Program> GenRace() {
  const rc::Gen<std::vector<Op>> task =
      rc::gen::map(rc::gen::inRange<std::int64_t>(2, 6), [](std::int64_t pairs) {
        std::vector<Op> ops;
        for (std::int64_t i = 0; i < pairs; ++i) {
          ops.push_back({OpKind::kEmit, i});
          ops.push_back({OpKind::kYield, 0});
        }
        return ops;
      });
  return rc::gen::map(GenVector<std::vector<Op>>(2, 4, task),
                      [](std::vector<std::vector<Op>> tasks) {
                        return Program{{ProcessProgram{std::move(tasks)}}};
                      });
}

}  // namespace faultline::sim::testing
