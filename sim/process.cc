#include "sim/process.h"

#include "sim/simulation.h"

namespace faultline::sim {

std::string_view ProcessStateName(ProcessState state) {
  switch (state) {
    case ProcessState::kNotStarted:
      return "not started";
    case ProcessState::kRunning:
      return "running";
    case ProcessState::kExited:
      return "exited";
    case ProcessState::kKilled:
      return "killed";
  }
  return "unknown";
}

Process::Process(Simulation& simulation, ProcessId id, std::string name)
    : simulation_(simulation),
      scheduler_(simulation.scheduler()),
      id_(id),
      name_(std::move(name)) {}

void Process::Start(MainFunction main) {
  FL_ASSERT_MSG(!running(), "process {} is already running", name_);
  FL_ASSERT(main);
  FL_ASSERT_MSG(incarnation_ < kMaxIncarnations, "process {} restarted {} times", name_,
                kMaxIncarnations);
  ++incarnation_;
  state_ = ProcessState::kRunning;
  exited_.Reset();
  main_ = std::make_shared<MainFunction>(std::move(main));
  scheduler_.BeginIncarnation(id_, incarnation_);
  simulation_.EmitFor(id_, incarnation_, "process.start", {});
  const Executor executor = NewTaskExecutor();
  asio::co_spawn(executor, RunMain(main_, incarnation_), TaskDone{this, "main"});
}

void Process::Restart() {
  FL_ASSERT_MSG(main_ != nullptr, "process {} was never started", name_);
  if (running()) Kill();
  Start(*main_);
}

void Process::Kill() {
  FL_ASSERT_MSG(id_ != 0, "the root process cannot be killed");
  FL_ASSERT_MSG(running(), "process {} is not running", name_);
  FL_ASSERT_MSG(scheduler_.current().process != id_ || !scheduler_.InJob(),
                "process {} cannot kill itself synchronously; use co_await sim::Crash()", name_);
  EndIncarnation(/*killed=*/true, kKilledExitCode);
}

void Process::EndFromInside(bool killed, int code) {
  FL_ASSERT(running());
  FL_ASSERT(scheduler_.InJob() && scheduler_.current().process == id_);
  EndIncarnation(killed, code);
}

Executor Process::NewTaskExecutor() {
  // After a crash inside a synchronous call the dead incarnation's code runs
  // on to its next suspension; what it spawns is dead on arrival.
  const bool dead_code_running = scheduler_.InJob() && scheduler_.current().process == id_ &&
                                 scheduler_.current().incarnation == incarnation_;
  FL_ASSERT_MSG(running() || dead_code_running, "process {} is not running", name_);
  return Executor(scheduler_, Owner{id_, incarnation_, scheduler_.NewTaskId()});
}

void Process::CancelTask(TaskId task) {
  if (!running()) return;
  scheduler_.CancelTask(Owner{id_, incarnation_, task});
}

Awaitable<ExitStatus> Process::WaitForExit() {
  if (running()) {
    const std::uint32_t incarnation = incarnation_;
    co_await exited_.Wait();
    co_return exits_.at(incarnation - 1);
  }
  co_return exits_.empty() ? ExitStatus{} : exits_.back();
}

Awaitable<void> Process::RunMain(std::shared_ptr<MainFunction> main, std::uint32_t incarnation) {
  // `main` is held by this frame so the function object, and whatever it
  // captured, lives as long as the coroutine it produced.
  const int code = co_await (*main)();
  OnMainReturned(incarnation, code);
}

void Process::OnMainReturned(std::uint32_t incarnation, int code) {
  // A crash inside a synchronous call (a SQLite VFS call, say) cannot stop
  // the caller's stack, so the main task of an ended incarnation may still
  // return; its exit code means nothing then.
  if (incarnation != incarnation_ || !running()) return;
  EndIncarnation(/*killed=*/false, code);
}

void Process::EndIncarnation(bool killed, int code) {
  state_ = killed ? ProcessState::kKilled : ProcessState::kExited;
  exits_.push_back(ExitStatus{incarnation_, killed, code});
  scheduler_.EndIncarnation(id_);
  simulation_.EmitFor(id_, incarnation_, killed ? "process.kill" : "process.exit",
                      {{"code", code}});
  exited_.Set();
}

void Process::TaskDone::operator()(const std::exception_ptr& error) const {
  if (error) {
    FL_PANIC("task {} of process {} threw: {}", name, process->name(), ExceptionMessage(error));
  }
}

}  // namespace faultline::sim
