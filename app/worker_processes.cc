#include "app/worker_processes.h"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>

#include "app/interrupt.h"
#include "sim/assert.h"

namespace faultline::app {
namespace {

struct Worker {
  pid_t pid;
  int read_end;
};

// Whether `pid` was reaped (its status in `status`).
bool Reap(pid_t pid, int* status) {
  pid_t reaped = -1;
  do {
    reaped = waitpid(pid, status, 0);
  } while (reaped < 0 && errno == EINTR);
  StopOnInterrupt::RemoveWorker(pid);
  return reaped == pid;
}

// The child's side: work, write the answer, exit without running the
// parent's atexit handlers or flushing its buffers a second time.
[[noreturn]] void BeAWorker(int write_end, int job, const std::function<std::string(int)>& work) {
  const std::string text = work(job);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(write_end, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);
    written += static_cast<std::size_t>(n);
  }
  close(write_end);
  _exit(0);
}

std::optional<std::string> ReadAll(int fd, const std::function<void()>& tick) {
  std::string text;
  char buffer[65536];
  constexpr int kTickMs = 500;
  for (;;) {
    if (tick) {
      pollfd ready{fd, POLLIN, 0};
      const int polled = poll(&ready, 1, kTickMs);
      if (polled == 0) {
        tick();
        continue;
      }
      if (polled < 0 && errno == EINTR) continue;
    }
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

std::optional<std::vector<std::string>> RunInWorkerProcesses(
    int jobs, const std::function<std::string(int job)>& work, std::string_view command,
    const std::function<void()>& tick) {
  FL_ASSERT(jobs >= 1);
  std::vector<Worker> workers;
  // On a failure to start one, the ones started are stopped and reaped.
  const auto abandon = [&](const char* what) -> std::optional<std::vector<std::string>> {
    std::cerr << "faultline: " << command << ": cannot start a worker process (" << what
              << "): " << std::strerror(errno) << "\n";
    for (const Worker& worker : workers) {
      kill(worker.pid, SIGKILL);
      close(worker.read_end);
      Reap(worker.pid, nullptr);
    }
    return std::nullopt;
  };
  const pid_t parent = getpid();
  for (int job = 0; job < jobs; ++job) {
    int fds[2];
    if (pipe(fds) != 0) return abandon("pipe");
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      return abandon("fork");
    }
    if (pid == 0) {
      // A worker dies with the command that forked it, whatever ended that
      // (SIGKILL included): its work is of no use to anyone else. If the
      // parent is already gone, the death signal came too late to be set.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(4);
      StopOnInterrupt::BecomeWorker();
      close(fds[0]);
      for (const Worker& earlier : workers) close(earlier.read_end);
      BeAWorker(fds[1], job, work);
    }
    close(fds[1]);
    workers.push_back({pid, fds[0]});
    StopOnInterrupt::AddWorker(pid);  // A stop asked of this process is passed on,
    // and one asked while it was being forked, now.
    if (StopOnInterrupt::Requested()) kill(pid, SIGINT);
  }
  // In job order: a worker blocked on a full pipe waits only for the parent
  // to finish reading the ones before it, which never wait for it.
  // Once one fails, the others' work is of no use: they are stopped.
  std::vector<std::string> answers;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    std::optional<std::string> text = ReadAll(workers[i].read_end, tick);
    close(workers[i].read_end);
    int status = 0;
    const bool reaped = Reap(workers[i].pid, &status);
    if (!text || !reaped || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::cerr << "faultline: " << command << ": worker process " << i << " failed\n";
      for (std::size_t j = i + 1; j < workers.size(); ++j) {
        kill(workers[j].pid, SIGKILL);
        close(workers[j].read_end);
        Reap(workers[j].pid, nullptr);
      }
      return std::nullopt;
    }
    answers.push_back(std::move(*text));
  }
  FL_ASSERT(answers.size() == static_cast<std::size_t>(jobs));
  return answers;
}

}  // namespace faultline::app
