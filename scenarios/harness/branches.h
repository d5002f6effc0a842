// Branching runs: a run is played once up to a branch point, and each
// future from there plays in a forked child (copy-on-write, as snapshot
// fuzzers do), which starts from the exact world, coroutine frames
// included, instead of replaying the past. The simulation is
// deterministic and single-threaded, so a future's trace is the one the
// same run played from an empty world would have (branches_test.cc), and a
// repro file still replays from empty.
//
// Bounded: at most `max_branches` futures, at most `max_beside` children
// simulating while the parent goes on (0: the parent waits for each, so
// one core), results back by pipe and gathered by key (the same whatever
// the pool), children killed with their parent (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/harness/runner.h"
#include "sim/fault.h"

namespace faultline::scenarios {

// A pool of forked futures, each named by a key. Not for nesting: a child
// forks no futures of its own.
class Branches {
 public:
  static constexpr std::size_t kMaxBranches = 100'000;

  Branches(int max_beside, std::size_t max_branches);
  // A parent that unwinds kills and reaps the children still running.
  ~Branches();
  Branches(const Branches&) = delete;
  Branches& operator=(const Branches&) = delete;

  // Forks the future `key` (each key once): true in the child, which plays
  // it and ends with Return; false in the parent, which goes on.
  bool Fork(std::uint64_t key);

  bool in_child() const { return child_key_.has_value(); }
  std::uint64_t child_key() const;

  // In the child: `result` to the parent, and the child ends (without the
  // parent's atexit handlers or a second flush of its buffers).
  [[noreturn]] void Return(std::string_view result);

  // In the parent: waits for every child; what each returned, by key. A
  // child that ended any other way (an assertion's abort) is a bug here:
  // it panics, naming the key (the child said why on standard error).
  std::map<std::uint64_t, std::string> Gather();

  // How many futures have ended (gathered or not).
  std::size_t ended() const { return results_.size(); }

 private:
  struct Child {
    std::uint64_t key;
    pid_t pid;
    int read_end;
    std::string text;  // Read so far.
  };

  // Reads from the live children until one ends, and reaps it.
  void WaitForOne();
  void Reap(Child& child);

  int max_beside_;
  std::size_t max_branches_;
  std::size_t forked_ = 0;
  pid_t parent_;
  std::optional<std::uint64_t> child_key_;
  int write_end_ = -1;  // In a child.
  std::vector<Child> live_;
  std::map<std::uint64_t, std::string> results_;
};

// A pass at which a future branches: the `hit`-th pass of `site` by
// `process` (empty: by any process), which takes `decision` in the future.
struct BranchPoint {
  std::uint64_t key = 0;
  std::string site;
  std::string process;
  std::uint64_t hit = 1;
  sim::FaultDecision decision{.action = sim::FaultAction::kCrash};
  // false: never forked, only passed, so that the points after it share
  // futures (share_quiet_points) as they would if it were forked (a
  // point another shard of the same run forks).
  bool fork = true;
};

// What RunBranched tells its caller, besides each future's text.
struct BranchCallbacks {
  // In the parent, after each fork: how many futures have ended (for a
  // progress line: the trunk may pause for them).
  std::function<void(std::size_t ended)> ended;
  // In the child, as it forks: which point it is the future of (before
  // its fault fires).
  std::function<void(const BranchPoint& point)> in_child;
  // In the child, at each pass after its point's: a text to end the
  // future with now, in place of finish's (a future that knows how its run
  // ends before playing it), or nullopt to play on.
  std::function<std::optional<std::string>(const sim::FaultPass& pass)> end_at_pass;
  // In the parent, just before each fork: brings up to date, once, what
  // every future would otherwise work out again for itself (a digest
  // kept at the cost of the writes since it was last asked: asked here,
  // each child pays for its own writes only, not for the trunk's).
  // Reads, never acts.
  std::function<void()> before_fork;
  // Children beside the parent (Branches).
  int max_beside = 0;
  // A point passed right after the point before it by the same process,
  // in the same job or the next (so that job was the process's own: no
  // other process ran between) with no trace event between (nothing sent,
  // written or logged), with the same decision, shares that
  // point's future instead of forking its own: a crash there leaves the
  // same world but for the crashed process's memory, which the crash
  // loses. Not to the bit: its fault counters, its virtual time (a job
  // later) and the scheduler's draws may differ, and the trace must show
  // every effect of the process outside its memory (messages traced, the
  // default; no disk of its own, whose writes are not traced). So only for
  // callers whose futures play no fault of their own after it and whose
  // points are such a process's (check-migrations' runner, whose reports
  // are checked against every case played from empty).
  bool share_quiet_points = false;
};

// Plays `scenario` (the trunk, in which no branch point fires), and at
// each point a future in a child, in which that pass takes its decision
// and the run plays to its end; the child then returns `finish(point,
// result)`. `options` apply to the trunk and every future alike (its
// observer runs in the child for the child's run). In a child this never
// returns. Returns the trunk's result, and each future's text by key.
struct BranchedRun {
  ScenarioResult trunk;
  std::map<std::uint64_t, std::string> futures;
  // With share_quiet_points: each point that shared a future, and the key
  // of the point whose future it shares (which shares none; with fork
  // false, another run plays that future).
  std::map<std::uint64_t, std::uint64_t> shares;
};
BranchedRun RunBranched(const Scenario& scenario, const RunOptions& options,
                        const std::vector<BranchPoint>& points,
                        const std::function<std::string(const BranchPoint& point,
                                                        const ScenarioResult& result)>& finish,
                        const BranchCallbacks& callbacks = {});

// A run held where it is, to play on from there on demand: the
// constructor forks a holder process that keeps the world as it is (the
// caller goes on with its run); each Ask forks, from the holder, a child
// that answers `play(request)` in that world, so every answer starts from
// the same held world. The holder ends when the HeldRun is destroyed (and
// with its parent). For a search that tries several endings of one run,
// such as check-migrations' force search from a crash case's end.
class HeldRun {
 public:
  static constexpr std::size_t kMaxAsks = 1'000;

  // `play` answers one request in a fresh fork of the held world; it may
  // answer early through its HeldRun (AnswerNow).
  explicit HeldRun(std::function<std::string(const std::string& request, HeldRun& held)> play);
  ~HeldRun();
  HeldRun(const HeldRun&) = delete;
  HeldRun& operator=(const HeldRun&) = delete;

  std::string Ask(const std::string& request);

  // In the child answering a request (from within `play`): `answer` is the
  // answer, now, and the child ends without playing on.
  [[noreturn]] void AnswerNow(std::string_view answer);

 private:
  [[noreturn]] void Serve(int requests, int answers);

  std::function<std::string(const std::string&, HeldRun&)> play_;
  pid_t holder_ = -1;
  int requests_ = -1;   // Written by the caller.
  int answers_ = -1;    // Read by the caller.
  int answering_ = -1;  // In the child answering a request: where it writes.
  std::size_t asked_ = 0;
};

}  // namespace faultline::scenarios
