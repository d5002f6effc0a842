// Ctrl-C and SIGTERM for a long command that keeps what it found (explore):
// the first asks it to stop (it finishes the runs under way, then writes
// its results, marked interrupted); a second Ctrl-C (50 ms or more after
// the first: one sent to the command and to its group is one stop) ends it
// at once, its results directory left without summary.json (incomplete). Worker
// processes started while the handlers are in place are told too (a
// signal sent to the command alone reaches them), and they only stop.
#pragma once

#include <sys/types.h>

namespace faultline::app {

class StopOnInterrupt {
 public:
  // Puts the handlers in place; the destructor puts the old ones back.
  StopOnInterrupt();
  ~StopOnInterrupt();
  StopOnInterrupt(const StopOnInterrupt&) = delete;
  StopOnInterrupt& operator=(const StopOnInterrupt&) = delete;

  // Whether a stop was asked for (in this process: a worker's own signal,
  // or its parent's passed on).
  static bool Requested();
  // The signal that asked for it (SIGINT, SIGTERM), 0 when none.
  static int Signal();

  // The worker processes a stop is passed on to (worker_processes.h): a
  // worker's pid as it starts, 0 as it is reaped; and, in a worker, that
  // it is one (a second signal there does not end it).
  static void AddWorker(pid_t pid);
  static void RemoveWorker(pid_t pid);
  static void BecomeWorker();
};

// Ctrl-C or SIGTERM for a command that has nothing to keep (check-migrations
// writes its results only at its end): `said` on standard error, then the
// signal's own end (exit status 128 + signal), worker processes with it. A
// process forked from this one ends silently. The old handlers come back
// when it goes.
class SayOnInterrupt {
 public:
  explicit SayOnInterrupt(const char* said);  // A literal: read by the handler.
  ~SayOnInterrupt();
  SayOnInterrupt(const SayOnInterrupt&) = delete;
  SayOnInterrupt& operator=(const SayOnInterrupt&) = delete;
};

}  // namespace faultline::app
