// A live session: the simulated cluster of a scenario's topology, played one
// step at a time as real clients and the prompt ask (live mode). Every
// request becomes a step of the scenario format (an `s3` or `cql` step),
// every prompt line one too, and virtual time catches up with the wall
// clock before each (a `wait` step), so the session is a story: Recording()
// writes it as a scenario file that `faultline run` replays to the same
// outcomes, without any client.
//
// Steps are played one at a time, in the order they arrive: the simulation
// is single-threaded and the recording is a sequence. Between steps nothing
// observes the cluster, so virtual time need only catch up when the next
// step comes (a restart policy's back-off, a probe's interval all play out
// in that wait).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/core/results.h"
#include "scenarios/core/scenario.h"
#include "scenarios/harness/cluster.h"
#include "sim/clock.h"
#include "sim/status.h"

namespace faultline::live {

struct SessionOptions {
  std::optional<std::uint64_t> seed;
  // Virtual time does not follow the wall clock: it moves only as steps need it.
  bool fast = false;
  // The wall clock's time since the session began: live mode's only clock
  // (a test gives its own).
  std::function<sim::Duration()> elapsed;
  // Each step as it is played: "[12.5s] PUT /b/k -> 200". Null: silent.
  std::function<void(const std::string&)> say;
};

class Session {
 public:
  // The most steps a session plays (a cluster plays at most a million); the
  // server stops short of it and writes the recording.
  static constexpr std::size_t kMaxSteps = 900'000;

  // `topology`'s cluster: its images, nodes and services, not its steps,
  // faults or expected verdicts.
  Session(const scenarios::Scenario& topology, SessionOptions options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Brings the cluster up (an `up` step) and waits until the proxy serves
  // or a virtual minute passes.
  const scenarios::StepResult& Start();
  // Lets virtual time catch up with the wall clock, then plays `step`.
  const scenarios::StepResult& Play(scenarios::Step step);
  // Catches up with the wall clock (a `wait` step when it is behind by a
  // millisecond or more), as before a step: for `status` and `logs`.
  void CatchUp();

  // The session as a scenario file: its topology and every step played,
  // each request with what it was answered as its expectation, so a replay
  // that answers otherwise fails. An error when a step cannot be written
  // (a body TOML cannot hold: not UTF-8).
  sim::Result<std::string> Recording() const;

  // How many times the store's container has started: a change means its
  // connections are gone and what was prepared on it is forgotten.
  std::uint64_t StoreStarts() const;
  // The store answers its health check.
  bool StoreServing() const;
  sim::TimePoint Now() const;
  std::size_t steps_played() const;
  scenarios::Cluster& cluster() { return *cluster_; }
  scenarios::World& world();

 private:
  void Say(const scenarios::StepResult& result) const;
  // Every step goes through here: the cluster plays it, and what it was
  // answered is kept as the expectation the recording gives it.
  const scenarios::StepResult& PlayAndNote(scenarios::Step step);

  SessionOptions options_;
  std::unique_ptr<scenarios::Cluster> cluster_;
  // Wall time and virtual time at the end of Start(): virtual time aims at
  // anchor_virtual_ + (elapsed - anchor_wall_).
  sim::Duration anchor_wall_{};
  sim::TimePoint anchor_virtual_{};
  // Per step played, in order: what a replay must answer alike.
  std::vector<std::vector<scenarios::Expectation>> answers_;
};

// The seed cluster, as a scenario with no steps: live mode's default.
scenarios::Scenario SeedClusterTopology();

}  // namespace faultline::live
