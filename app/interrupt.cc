#include "app/interrupt.h"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>

namespace faultline::app {
namespace {

// Read and written by the signal handler: lock-free atomics and plain
// system calls only. The process's one set of handlers, so process-wide.
constexpr int kMaxWorkers = 64;
std::atomic<pid_t> workers[kMaxWorkers];
std::atomic<int> asked_by{0};
std::atomic<bool> in_worker{false};
std::atomic<pid_t> installer{0};           // The process that put the handlers in place.
std::atomic<std::int64_t> first_at_ns{0};  // When the first signal came (CLOCK_MONOTONIC).
// A signal this soon after the first is the same stop: `timeout` and some
// supervisors send one to the command and then to its process group, so it
// arrives twice within microseconds (found trying `timeout -s INT`, which
// lost the results of 2 runs in 10). A person's second Ctrl-C comes later.
constexpr std::int64_t kSameStopNs = 50'000'000;
struct sigaction old_int;
struct sigaction old_term;

void Say(const char* text) {
  std::size_t length = 0;
  while (text[length] != '\0') ++length;
  (void)!write(STDERR_FILENO, text, length);
}

std::int64_t NowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // Async-signal-safe (signal-safety(7)).
  return std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

void OnSignalKeepingErrno(int signal) {
  const std::int64_t now = NowNs();
  const int before = asked_by.exchange(signal);
  if (before == 0) first_at_ns.store(now);
  // A worker, or a run forked from this process (harness/branches.h), only
  // stops, however often told: the process that put the handlers in place
  // speaks and passes the stop on.
  if (in_worker.load() || getpid() != installer.load()) return;
  if (before != 0 && now - first_at_ns.load() < kSameStopNs) return;
  if (before != 0 && signal == SIGINT) {
    // The second Ctrl-C: now. The workers die with this process.
    Say("\nfaultline: stopped at once; the results directory is incomplete\n");
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
    return;
  }
  for (std::atomic<pid_t>& worker : workers) {
    const pid_t pid = worker.load();
    if (pid > 0) kill(pid, SIGINT);
  }
  if (before == 0) {
    Say("\nfaultline: stopping: the runs under way finish and what was found is written "
        "(Ctrl-C again to stop at once)\n");
  }
}

void OnSignal(int signal) {
  const int saved_errno = errno;  // The code it interrupted may be about to read it.
  OnSignalKeepingErrno(signal);
  errno = saved_errno;
}

std::atomic<const char*> said_on_interrupt{nullptr};
std::atomic<pid_t> saying_process{0};
struct sigaction said_old_int;
struct sigaction said_old_term;

void SayAndEnd(int signal) {
  const char* said = said_on_interrupt.load();
  if (said != nullptr && getpid() == saying_process.load()) Say(said);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

// `handler` for SIGINT and SIGTERM, each masked while either runs (so
// neither interrupts the other), the old ones kept in the last two. A
// signal ignored when the command started stays ignored (nohup, a script's
// background job): the caller meant it not to stop.
void HandleInterrupts(void (*handler)(int), int flags, struct sigaction& old_int_kept,
                      struct sigaction& old_term_kept) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  action.sa_flags = flags;
  sigaction(SIGINT, nullptr, &old_int_kept);
  sigaction(SIGTERM, nullptr, &old_term_kept);
  if (old_int_kept.sa_handler != SIG_IGN) sigaction(SIGINT, &action, nullptr);
  if (old_term_kept.sa_handler != SIG_IGN) sigaction(SIGTERM, &action, nullptr);
}

}  // namespace

SayOnInterrupt::SayOnInterrupt(const char* said) {
  said_on_interrupt.store(said);
  saying_process.store(getpid());
  HandleInterrupts(SayAndEnd, 0, said_old_int, said_old_term);
}

SayOnInterrupt::~SayOnInterrupt() {
  sigaction(SIGINT, &said_old_int, nullptr);
  sigaction(SIGTERM, &said_old_term, nullptr);
  said_on_interrupt.store(nullptr);
}

StopOnInterrupt::StopOnInterrupt() {
  asked_by.store(0);
  installer.store(getpid());
  HandleInterrupts(OnSignal, SA_RESTART, old_int, old_term);
}

StopOnInterrupt::~StopOnInterrupt() {
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
}

bool StopOnInterrupt::Requested() { return asked_by.load() != 0; }
int StopOnInterrupt::Signal() { return asked_by.load(); }

void StopOnInterrupt::AddWorker(pid_t pid) {
  for (std::atomic<pid_t>& worker : workers) {
    pid_t empty = 0;
    if (worker.compare_exchange_strong(empty, pid)) return;
  }
}

void StopOnInterrupt::RemoveWorker(pid_t pid) {
  for (std::atomic<pid_t>& worker : workers) {
    pid_t was = pid;
    if (worker.compare_exchange_strong(was, 0)) return;
  }
}

void StopOnInterrupt::BecomeWorker() {
  in_worker.store(true);
  for (std::atomic<pid_t>& worker : workers) worker.store(0);
}

}  // namespace faultline::app
