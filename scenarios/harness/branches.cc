#include "scenarios/harness/branches.h"

#include <malloc.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "scenarios/harness/child_heap.h"
#include "sim/assert.h"
#include "sim/trace.h"

namespace faultline::scenarios {

namespace {

// How many trace events a run has emitted: two passes with the same count
// have none between them.
class EventCount final : public sim::TraceSink {
 public:
  void Write(const sim::TraceEvent& /*event*/) override { ++count_; }
  std::uint64_t count() const { return count_; }

 private:
  std::uint64_t count_ = 0;
};

// The point passed last in the trunk, for share_quiet_points.
struct LastPoint {
  const BranchPoint* point = nullptr;
  std::uint64_t future = 0;  // The key of the future it forked or shares.
  std::string process;
  std::uint64_t job = 0;
  std::uint64_t events = 0;
};

// Appends what `fd` has now to `text`; false at its end (or on an error).
bool ReadSome(int fd, std::string& text) {
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.append(buffer, static_cast<std::size_t>(n));
    return true;
  }
}

// Writes all of `data` to `fd`; false if the other end is gone.
bool WriteAll(int fd, std::string_view data) {
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<std::size_t>(n);
  }
  return true;
}

// Exactly `size` bytes from `fd`, or nullopt at its end (or on an error).
std::optional<std::string> ReadExactly(int fd, std::size_t size) {
  std::string data(size, '\0');
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = read(fd, data.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    got += static_cast<std::size_t>(n);
  }
  return data;
}

// A frame: its length as 8 bytes, then its bytes.
bool WriteFrame(int fd, std::string_view data) {
  const std::uint64_t size = data.size();
  return WriteAll(fd, std::string_view(reinterpret_cast<const char*>(&size), sizeof size)) &&
         WriteAll(fd, data);
}

std::optional<std::string> ReadFrame(int fd) {
  constexpr std::uint64_t kMaxFrame = std::uint64_t{1} << 30;
  const std::optional<std::string> header = ReadExactly(fd, sizeof(std::uint64_t));
  if (!header) return std::nullopt;
  std::uint64_t size = 0;
  std::memcpy(&size, header->data(), sizeof size);
  FL_ASSERT_MSG(size <= kMaxFrame, "a frame of {} bytes between branched runs", size);
  return ReadExactly(fd, size);
}

// Reaps `pid`; whether it exited with status 0.
bool ReapedClean(pid_t pid) {
  int status = 0;
  pid_t reaped = -1;
  do {
    reaped = waitpid(pid, &status, 0);
  } while (reaped < 0 && errno == EINTR);
  return reaped == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// In a child just forked: it dies with `parent`, and writes nothing its
// parent had buffered.
void DieWithParent(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(4);
}

void FlushBeforeFork() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
}

}  // namespace

Branches::Branches(int max_beside, std::size_t max_branches)
    : max_beside_(max_beside), max_branches_(max_branches), parent_(getpid()) {
  FL_ASSERT(max_beside >= 0);
  FL_ASSERT(max_branches <= kMaxBranches);
}

Branches::~Branches() {
  if (in_child()) return;
  for (Child& child : live_) {
    kill(child.pid, SIGKILL);
    close(child.read_end);
    int status = 0;
    while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

std::uint64_t Branches::child_key() const {
  FL_ASSERT(in_child());
  return *child_key_;
}

bool Branches::Fork(std::uint64_t key) {
  FL_ASSERT_MSG(!in_child(), "a future forks no futures of its own");
  FL_ASSERT_MSG(forked_ < max_branches_, "more than {} futures", max_branches_);
  FL_ASSERT(!results_.contains(key));
  FL_ASSERT(std::none_of(live_.begin(), live_.end(), [&](const Child& c) { return c.key == key; }));
  ++forked_;
  int fds[2];
  FL_ASSERT_MSG(pipe(fds) == 0, "cannot make a pipe for a future");
  FlushBeforeFork();  // Nothing buffered is written twice, once by each side.
  const pid_t pid = fork();
  FL_ASSERT_MSG(pid >= 0, "cannot fork a future");
  if (pid == 0) {
    // A future is of no use to anyone once its parent is gone, whatever
    // ended it (SIGKILL included); if the parent is already gone, the death
    // signal came too late to be set.
    DieWithParent(parent_);
    EnterChildHeap();  // Its allocations leave the parent's pages alone.
    close(fds[0]);
    for (const Child& sibling : live_) close(sibling.read_end);
    live_.clear();
    child_key_ = key;
    write_end_ = fds[1];
    return true;
  }
  close(fds[1]);
  live_.push_back(Child{key, pid, fds[0], {}});
  while (live_.size() > static_cast<std::size_t>(max_beside_)) WaitForOne();
  return false;
}

void Branches::Return(std::string_view result) {
  FL_ASSERT(in_child());
  if (!WriteAll(write_end_, result)) _exit(3);
  close(write_end_);
  _exit(0);
}

void Branches::WaitForOne() {
  FL_ASSERT(!live_.empty());
  std::vector<pollfd> fds;
  for (;;) {
    fds.clear();
    for (const Child& child : live_) fds.push_back(pollfd{child.read_end, POLLIN, 0});
    const int ready = poll(fds.data(), fds.size(), -1);
    if (ready < 0 && errno == EINTR) continue;
    FL_ASSERT_MSG(ready > 0, "cannot wait for the futures");
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      if (ReadSome(live_[i].read_end, live_[i].text)) continue;
      Reap(live_[i]);
      live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
}

void Branches::Reap(Child& child) {
  close(child.read_end);
  int status = 0;
  pid_t reaped = -1;
  do {
    reaped = waitpid(child.pid, &status, 0);
  } while (reaped < 0 && errno == EINTR);
  FL_ASSERT_MSG(reaped == child.pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "future {} ended without its result (status {:#x}; it said why above)", child.key,
                status);
  results_.emplace(child.key, std::move(child.text));
}

std::map<std::uint64_t, std::string> Branches::Gather() {
  FL_ASSERT(!in_child());
  while (!live_.empty()) WaitForOne();
  FL_ASSERT(results_.size() == forked_);
  return std::move(results_);
}

BranchedRun RunBranched(const Scenario& scenario, const RunOptions& options,
                        const std::vector<BranchPoint>& points,
                        const std::function<std::string(const BranchPoint& point,
                                                        const ScenarioResult& result)>& finish,
                        const BranchCallbacks& callbacks) {
  FL_ASSERT(options.at_fault_pass == nullptr);  // This sets it.
  // Each fork copies the parent's page tables and write-protects its pages
  // (and each exit takes the copy apart): what the parent freed before
  // (a whole run's world, say) goes back to the system first.
  (void)malloc_trim(0);
  // Each point by (site, process, hit); a process's passes counted apart.
  std::map<std::tuple<std::string_view, std::string_view, std::uint64_t>, const BranchPoint*>
      wanted;
  for (const BranchPoint& point : points) {
    FL_ASSERT(point.hit >= 1);
    FL_ASSERT(point.decision.action != sim::FaultAction::kNone);
    const bool added = wanted
                           .emplace(std::tuple{std::string_view(point.site),
                                               std::string_view(point.process), point.hit},
                                    &point)
                           .second;
    FL_ASSERT_MSG(added, "two branch points at pass {} of {} by '{}'", point.hit, point.site,
                  point.process);
  }
  // The passes of each (site, process) a point names, counted apart; no
  // other pass is counted (a run passes the store's disk sites thousands
  // of times).
  std::map<std::pair<std::string_view, std::string_view>, std::uint64_t> process_passes;
  for (const BranchPoint& point : points) {
    if (!point.process.empty())
      process_passes.emplace(
          std::pair<std::string_view, std::string_view>(point.site, point.process), 0);
  }
  Branches branches(callbacks.max_beside, points.size());
  const BranchPoint* taken = nullptr;  // In a child: its point.
  BranchedRun branched;
  EventCount events;
  LastPoint last;
  // Whether the point passed now shares the future of the point passed
  // last (BranchCallbacks::share_quiet_points); notes it as passed last.
  const auto shares_last = [&](const BranchPoint& point, const sim::FaultPass& pass) {
    const bool quiet = callbacks.share_quiet_points && last.point != nullptr &&
                       last.process == pass.process && pass.job - last.job <= 1 &&
                       last.events == events.count() && last.point->decision == point.decision;
    if (quiet) {
      FL_ASSERT(!branched.shares.contains(last.future));
      branched.shares.emplace(point.key, last.future);
    }
    last = {&point, quiet ? last.future : point.key, std::string(pass.process), pass.job,
            events.count()};
    return quiet;
  };
  RunOptions run = options;
  if (callbacks.share_quiet_points) run.sinks.push_back(&events);
  run.at_fault_pass = [&](const sim::FaultPass& pass) -> std::optional<sim::FaultDecision> {
    if (taken != nullptr) {  // A future takes one point; it may end here.
      if (callbacks.end_at_pass) {
        if (std::optional<std::string> text = callbacks.end_at_pass(pass)) branches.Return(*text);
      }
      return std::nullopt;
    }
    const BranchPoint* point = nullptr;
    if (auto any = wanted.find({pass.site, std::string_view(), pass.hit}); any != wanted.end()) {
      point = any->second;
    } else if (auto counted = process_passes.find({pass.site, pass.process});
               counted != process_passes.end()) {
      const auto own = wanted.find({pass.site, pass.process, ++counted->second});
      if (own != wanted.end()) point = own->second;
    }
    if (point == nullptr || shares_last(*point, pass) || !point->fork) return std::nullopt;
    if (callbacks.before_fork) callbacks.before_fork();
    if (!branches.Fork(point->key)) {
      if (callbacks.ended) callbacks.ended(branches.ended());
      return std::nullopt;
    }
    taken = point;
    if (callbacks.in_child) callbacks.in_child(*point);
    return point->decision;
  };
  run.with_result = [&](const ScenarioResult& result) {
    if (options.with_result) options.with_result(result);
    if (!branches.in_child()) return;
    FL_ASSERT(taken != nullptr && taken->key == branches.child_key());
    branches.Return(finish(*taken, result));  // The world is left standing: the child ends.
  };
  branched.trunk = RunScenario(scenario, run);
  FL_ASSERT(!branches.in_child());
  branched.futures = branches.Gather();
  return branched;
}

HeldRun::HeldRun(std::function<std::string(const std::string& request, HeldRun& held)> play)
    : play_(std::move(play)) {
  int requests[2];
  int answers[2];
  FL_ASSERT_MSG(pipe(requests) == 0 && pipe(answers) == 0, "cannot make pipes for a held run");
  FlushBeforeFork();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  FL_ASSERT_MSG(pid >= 0, "cannot fork a held run");
  if (pid == 0) {
    DieWithParent(parent);
    EnterChildHeap();
    close(requests[1]);
    close(answers[0]);
    Serve(requests[0], answers[1]);
  }
  close(requests[0]);
  close(answers[1]);
  holder_ = pid;
  requests_ = requests[1];
  answers_ = answers[0];
}

HeldRun::~HeldRun() {
  close(requests_);  // The holder reads the end and exits.
  close(answers_);
  (void)ReapedClean(holder_);
}

void HeldRun::Serve(int requests, int answers) {
  const pid_t holder = getpid();
  for (std::size_t served = 0; served <= kMaxAsks; ++served) {
    const std::optional<std::string> request = ReadFrame(requests);
    if (!request) _exit(0);
    FlushBeforeFork();
    const pid_t pid = fork();
    if (pid < 0) _exit(5);
    if (pid == 0) {
      DieWithParent(holder);
      EnterChildHeap();
      answering_ = answers;
      const std::string answer = play_(*request, *this);
      _exit(WriteFrame(answers, "1" + answer) ? 0 : 3);
    }
    // An answer that never came is said as such: the asker panics.
    if (!ReapedClean(pid) && !WriteFrame(answers, "0")) _exit(3);
  }
  _exit(6);
}

void HeldRun::AnswerNow(std::string_view answer) {
  FL_ASSERT_MSG(answering_ >= 0, "AnswerNow outside a held run's answering child");
  _exit(WriteFrame(answering_, "1" + std::string(answer)) ? 0 : 3);
}

std::string HeldRun::Ask(const std::string& request) {
  FL_ASSERT_MSG(asked_ < kMaxAsks, "more than {} asks of a held run", kMaxAsks);
  ++asked_;
  FL_ASSERT_MSG(WriteFrame(requests_, request), "the held run is gone");
  std::optional<std::string> answer = ReadFrame(answers_);
  FL_ASSERT_MSG(answer && !answer->empty() && answer->front() == '1',
                "a held run's answer to '{}' failed (it said why above)", request);
  return answer->substr(1);
}

}  // namespace faultline::scenarios
