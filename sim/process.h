// Process: a named group of tasks that live and die together, like a
// container's main process and its goroutines. Each Start() begins a new
// incarnation (1, 2, ...). Kill() is a crash: from that instant no code of
// the incarnation runs again, wherever it was suspended, and its coroutine
// frames are destroyed (their destructors run; nothing else does). When the
// main task returns, the process exits with that code and its other tasks end
// with it. Watchers learn every exit through WaitForExit().
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/event.h"
#include "sim/executor.h"

namespace faultline::sim {

// Produces the main task of one incarnation; its result is the exit code.
using MainFunction = std::function<Awaitable<int>()>;

enum class ProcessState : unsigned char { kNotStarted, kRunning, kExited, kKilled };

std::string_view ProcessStateName(ProcessState state);

// What `docker inspect` reports for a container killed by SIGKILL.
inline constexpr int kKilledExitCode = 137;

struct ExitStatus {
  std::uint32_t incarnation = 0;
  bool killed = false;
  int code = 0;
  friend bool operator==(const ExitStatus&, const ExitStatus&) = default;
};

class Process {
 public:
  static constexpr std::uint32_t kMaxIncarnations = 1'000'000;

  Process(Simulation& simulation, ProcessId id, std::string name);
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  ProcessId id() const { return id_; }
  const std::string& name() const { return name_; }
  // The current incarnation, or the last one once it ended; 0 before Start.
  std::uint32_t incarnation() const { return incarnation_; }
  ProcessState state() const { return state_; }
  bool running() const { return state_ == ProcessState::kRunning; }
  // One entry per ended incarnation, in order.
  const std::vector<ExitStatus>& exits() const { return exits_; }

  // Begins a new incarnation whose main task is `main()`. REQUIRES: !running().
  void Start(MainFunction main);
  // Kill() if running, then Start() with the last main function.
  // REQUIRES: Start() was called before.
  void Restart();
  // Crashes the running incarnation. REQUIRES: running(), and not called by
  // this process's own code, which crashes itself with co_await sim::Crash().
  void Kill();

  // Spawns another task in the running incarnation. `make_body()` returns an
  // Awaitable<void>; it is kept alive, captures included, as long as the task
  // runs. An exception escaping a task is a bug: it fails an assertion.
  // REQUIRES: running().
  template <typename MakeBody>
  TaskId Spawn(std::string task_name, MakeBody&& make_body);

  // An executor for a new task of the running incarnation. REQUIRES: running().
  Executor NewTaskExecutor();

  // Cancels a task of the running incarnation: it runs no further and its
  // frames are destroyed (at once, unless it is the task running now). A task
  // that already finished, or of an ended incarnation, is left alone.
  void CancelTask(TaskId task);

  // Completes when the incarnation running now ends, with how it ended; at
  // once with the last exit if it is not running.
  Awaitable<ExitStatus> WaitForExit();

  // Ends the running incarnation from inside one of its jobs (sim::Exit,
  // sim::Crash and crash faults). Internal.
  void EndFromInside(bool killed, int code);

 private:
  // Completion handler of every task: reports an escaped exception.
  struct TaskDone {
    Process* process;
    std::string name;
    void operator()(const std::exception_ptr& error) const;
  };

  Awaitable<void> RunMain(std::shared_ptr<MainFunction> main, std::uint32_t incarnation);

  // A task's outermost frame: runs the body, reports an escaped exception.
  template <typename MakeBody>
  static Awaitable<void> RunTask(MakeBody make_body, TaskDone done) {
    std::exception_ptr error;
    try {
      co_await make_body();
    } catch (...) {
      error = std::current_exception();
    }
    done(error);
  }
  void OnMainReturned(std::uint32_t incarnation, int code);
  void EndIncarnation(bool killed, int code);

  Simulation& simulation_;
  Scheduler& scheduler_;
  ProcessId id_;
  std::string name_;
  std::uint32_t incarnation_ = 0;
  ProcessState state_ = ProcessState::kNotStarted;
  std::shared_ptr<MainFunction> main_;
  std::vector<ExitStatus> exits_;
  Event exited_;
};

template <typename MakeBody>
TaskId Process::Spawn(std::string task_name, MakeBody&& make_body) {
  const Executor executor = NewTaskExecutor();
#if FAULTLINE_ASIO_1_74_HOOKS
  // What asio::co_spawn does, less its entry frame, its initial post (a
  // frame and a scheduling step of its own) and its work guards: the task's
  // first step is one job of the task's own, which launches its coroutine
  // thread (see sim/asio.h).
  Awaitable<void> task = RunTask(std::decay_t<MakeBody>(std::forward<MakeBody>(make_body)),
                                 TaskDone{this, std::move(task_name)});
  scheduler_.Post(executor.owner(), [executor, task = std::move(task)](Wake) mutable {
    asio::detail::awaitable_thread<Executor>(std::move(task), executor).launch();
  });
#else
  asio::co_spawn(executor, std::forward<MakeBody>(make_body), TaskDone{this, std::move(task_name)});
#endif
  return executor.owner().task;
}

}  // namespace faultline::sim
