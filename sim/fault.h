// Fault points. Code under test marks the places where the world can go wrong
// with a name, `component.operation` (for example `migrate.after_set_dirty`),
// and awaits sim::FaultPoint(name) there (sim/ops.h). At every hit a plan
// decides: nothing, crash the process, fail with an error status, or delay.
//
// Plans:
//   ExplicitFaultPlan     the Nth hit of site X does Y (replaying a schedule).
//   ProbabilityFaultPlan  each hit of site X does Y with probability p.
//   SwarmFaultPlan        FoundationDB's BUGGIFY: each site is switched on for
//                         the whole run with one probability, and an enabled
//                         site fires with another, all drawn from the seed.
// Each site draws from its own random stream, forked from the seed by the
// site's name, so a new site never shifts another site's decisions.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/clock.h"
#include "sim/names.h"
#include "sim/random.h"
#include "sim/status.h"

namespace faultline::sim {

// kPowerLoss: the machine loses power at the hit. The process ends as for a
// crash, and the layer that holds the data (fakes/sqlite_vfs.h) drops the
// writes that were never synced, keeping what `survivors` says.
enum class FaultAction : unsigned char { kNone, kCrash, kError, kDelay, kPowerLoss };

// Each action and its name, from the trace to the scenario file format:
// the one vocabulary of fault actions.
inline constexpr Named<FaultAction> kFaultActions[] = {{FaultAction::kNone, "none"},
                                                       {FaultAction::kCrash, "crash"},
                                                       {FaultAction::kError, "error"},
                                                       {FaultAction::kDelay, "delay"},
                                                       {FaultAction::kPowerLoss, "power-loss"}};
inline std::string_view FaultActionName(FaultAction action) {
  return NameOf(kFaultActions, action);
}
// The action a name names (FaultActionName's inverse), or nullopt.
inline std::optional<FaultAction> FaultActionNamed(std::string_view name) {
  return ValueNamed(kFaultActions, name);
}

// What a power loss keeps of the writes made since the last sync.
enum class Survivors : unsigned char {
  kNothingUnsynced,  // Only what was synced.
  kInOrderPrefix,    // The oldest unsynced writes, up to a point drawn at random.
  kTornBlocks,       // Any blocks of the unsynced writes, each on its own.
};
// Each model and its name, in one table.
inline constexpr Named<Survivors> kSurvivors[] = {{Survivors::kNothingUnsynced, "nothing-unsynced"},
                                                  {Survivors::kInOrderPrefix, "in-order-prefix"},
                                                  {Survivors::kTornBlocks, "torn-blocks"}};
inline std::string_view SurvivorsName(Survivors survivors) { return NameOf(kSurvivors, survivors); }
// The survivors a name names (SurvivorsName's inverse), or nullopt.
inline std::optional<Survivors> SurvivorsNamed(std::string_view name) {
  return ValueNamed(kSurvivors, name);
}

struct FaultDecision {
  FaultAction action = FaultAction::kNone;
  Duration delay{};                         // For kDelay.
  StatusCode error = StatusCode::kIoError;  // For kError.
  std::string message;  // For kError: the error's text; empty: "injected fault at <site>".
  Survivors survivors = Survivors::kNothingUnsynced;  // For kPowerLoss.
  friend bool operator==(const FaultDecision&, const FaultDecision&) = default;
};

// A site as one process sees it: `process@site`. A plan may name such a
// site to decide only that process's hits, counted on their own.
std::string ScopedSite(std::string_view process, std::string_view site);

class FaultPlan {
 public:
  virtual ~FaultPlan() = default;
  // Decides hit number `hit` (from 1) of `site`. `site_random` is the site's
  // own stream. Deciding changes nothing: the same arguments give the same
  // decision. (An ExplicitFaultPlan may still gain rules while a run goes
  // on, as the cluster harness's CrashAt adds them; share such a plan with
  // no other simulation.)
  virtual FaultDecision Decide(std::string_view site, std::uint64_t hit,
                               Rng& site_random) const = 0;
  virtual std::string Describe() const = 0;
  // Whether it names scoped sites (ScopedSite), so that the injector also
  // counts each process's hits and asks about those.
  virtual bool ScopesByProcess() const { return false; }
};

class ExplicitFaultPlan final : public FaultPlan {
 public:
  // Each returns *this, to chain. REQUIRES: hit >= 1.
  ExplicitFaultPlan& CrashAt(std::string site, std::uint64_t hit);
  ExplicitFaultPlan& FailAt(std::string site, std::uint64_t hit,
                            StatusCode error = StatusCode::kIoError, std::string message = {});
  // Fails hit `hit` and every later one: a persistent error.
  ExplicitFaultPlan& FailFrom(std::string site, std::uint64_t hit,
                              StatusCode error = StatusCode::kIoError);
  ExplicitFaultPlan& DelayAt(std::string site, std::uint64_t hit, Duration delay);
  ExplicitFaultPlan& PowerLossAt(std::string site, std::uint64_t hit, Survivors survivors);
  // Hit `hit` takes `decision`, whichever action it is (not kNone).
  ExplicitFaultPlan& DecideAt(std::string site, std::uint64_t hit, FaultDecision decision);

  FaultDecision Decide(std::string_view site, std::uint64_t hit, Rng& site_random) const override;
  std::string Describe() const override;
  bool ScopesByProcess() const override { return scoped_; }

 private:
  struct Rule {
    std::string site;
    std::uint64_t hit;
    FaultDecision decision;
    bool and_later = false;  // Also every hit after `hit`.
  };
  static constexpr std::size_t kMaxRules = 4096;
  ExplicitFaultPlan& Add(std::string site, std::uint64_t hit, FaultDecision decision,
                         bool and_later = false);
  std::vector<Rule> rules_;
  bool scoped_ = false;  // A rule names a ScopedSite.
};

class ProbabilityFaultPlan final : public FaultPlan {
 public:
  // Every hit of `site` takes `decision` with probability `probability`.
  // REQUIRES: 0 <= probability <= 1.
  ProbabilityFaultPlan& Site(std::string site, double probability, FaultDecision decision);

  FaultDecision Decide(std::string_view site, std::uint64_t hit, Rng& site_random) const override;
  std::string Describe() const override;

 private:
  struct Rule {
    double probability;
    FaultDecision decision;
  };
  std::map<std::string, Rule, std::less<>> rules_;
};

struct SwarmOptions {
  double enable_probability = 0.5;  // A site is on for the run.
  double fire_probability = 0.05;   // An enabled site fires at a hit.
  double crash_weight = 1.0;        // The action of a firing, by weight.
  double error_weight = 1.0;
  double delay_weight = 1.0;
  Duration delay_max = std::chrono::milliseconds(100);
  // Only sites starting with one of these take part; empty means all sites.
  std::vector<std::string> site_prefixes;
};

class SwarmFaultPlan final : public FaultPlan {
 public:
  explicit SwarmFaultPlan(SwarmOptions options);

  // Whether `site` is switched on for runs whose site stream is `site_random`.
  bool Enabled(std::string_view site, const Rng& site_random) const;

  FaultDecision Decide(std::string_view site, std::uint64_t hit, Rng& site_random) const override;
  std::string Describe() const override;

 private:
  SwarmOptions options_;
};

struct SiteCoverage {
  std::string site;
  std::uint64_t hits = 0;
  std::uint64_t fires = 0;
};

// One pass of a fault site, as a pass override sees it.
struct FaultPass {
  std::string_view site;
  std::string_view process;  // The process passing it; empty: the root.
  std::uint64_t hit = 0;     // From 1, per site (by any process).
  // The scheduler's job count when it passes (each job is one process's):
  // between two passes of a process whose counts differ by at most one,
  // no other process ran.
  std::uint64_t job = 0;
};

// Asked at every pass before the plan: a decision to take instead of the
// plan's, or nullopt (the plan decides). For branching a run
// (scenarios/harness/branches.h): the override forks at a pass, and the
// child fires the fault there while the parent goes on without it. It
// draws nothing from the site's stream, so it shifts no later decision.
using PassOverride = std::function<std::optional<FaultDecision>(const FaultPass& pass)>;

// Counts hits per site, asks the plan, and reports coverage.
class FaultInjector {
 public:
  static constexpr std::size_t kMaxSites = 100'000;

  // `plan` may be null: no site ever fires.
  FaultInjector(Rng random, std::shared_ptr<const FaultPlan> plan);

  struct Hit {
    std::uint64_t number = 0;  // From 1, per site.
    FaultDecision decision;
  };
  // Counts a hit of `site` by `process` and asks the plan (about the
  // process's own count of the scoped site first, when the plan scopes); a
  // crash decision where `may_crash` is false is taken as none (and not
  // counted as fired).
  // `job` is the scheduler's job count, for the pass override.
  Hit OnHit(std::string_view site, bool may_crash = true, std::string_view process = {},
            std::uint64_t job = 0);

  // From now on no site fires (hits are still counted): the fault-free
  // phase at the end of a run, in which the system must converge.
  void StopFaults() {
    plan_.reset();
    pass_override_ = nullptr;
  }

  // Sets (or, with nullptr, clears) the override asked at every pass.
  void SetPassOverride(PassOverride pass_override) { pass_override_ = std::move(pass_override); }

  // From now on `plan` decides (the hits so far are kept): how a run forked
  // from another (scenarios/harness/variants.h) takes up its own faults
  // where it parts from it. May be called from within the pass override,
  // and then decides that pass already. REQUIRES: faults not stopped, and
  // `plan` scopes by process as the plan before did (the scoped hits were
  // counted only if it did). Whoever armed the plan before (a Cluster's
  // CrashAt) no longer reaches the injector.
  void SetPlan(std::shared_ptr<const FaultPlan> plan);

  // Every site reached, by name.
  std::vector<SiteCoverage> Coverage() const;
  // How often `site` was passed so far (by any process).
  std::uint64_t Hits(std::string_view site) const {
    auto found = sites_.find(site);
    return found == sites_.end() ? 0 : found->second.hits;
  }
  // How often a scoped site (ScopedSite) was passed; counted only while the
  // plan scopes by process.
  std::uint64_t ScopedHits(std::string_view scoped_site) const {
    auto found = scoped_hits_.find(scoped_site);
    return found == scoped_hits_.end() ? 0 : found->second;
  }
  // One line per site: "  site  hits=N fired=M".
  std::string FormatCoverage() const;

 private:
  struct SiteState {
    Rng random;
    std::uint64_t hits = 0;
    std::uint64_t fires = 0;
  };
  Rng random_;
  std::shared_ptr<const FaultPlan> plan_;
  PassOverride pass_override_;
  std::map<std::string, SiteState, std::less<>> sites_;
  std::map<std::string, std::uint64_t, std::less<>> scoped_hits_;  // Only when the plan scopes.
};

}  // namespace faultline::sim
