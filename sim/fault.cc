#include "sim/fault.h"

#include <array>

#include <fmt/format.h>

#include "sim/assert.h"

namespace faultline::sim {
namespace {

std::string DescribeDecision(const FaultDecision& decision) {
  switch (decision.action) {
    case FaultAction::kDelay:
      return fmt::format("delay {}", FormatDuration(decision.delay));
    case FaultAction::kError:
      return fmt::format("error {}", StatusCodeName(decision.error));
    case FaultAction::kPowerLoss:
      return fmt::format("power-loss keeping {}", SurvivorsName(decision.survivors));
    default:
      return std::string(FaultActionName(decision.action));
  }
}

}  // namespace

ExplicitFaultPlan& ExplicitFaultPlan::CrashAt(std::string site, std::uint64_t hit) {
  return Add(std::move(site), hit, FaultDecision{FaultAction::kCrash});
}

std::string ScopedSite(std::string_view process, std::string_view site) {
  FL_ASSERT(!process.empty());
  FL_ASSERT(site.find('@') == std::string_view::npos);
  return fmt::format("{}@{}", process, site);
}

ExplicitFaultPlan& ExplicitFaultPlan::FailAt(std::string site, std::uint64_t hit, StatusCode error,
                                             std::string message) {
  FL_ASSERT(error != StatusCode::kOk);
  return Add(std::move(site), hit,
             FaultDecision{FaultAction::kError, Duration{}, error, std::move(message)});
}

ExplicitFaultPlan& ExplicitFaultPlan::FailFrom(std::string site, std::uint64_t hit,
                                               StatusCode error) {
  FL_ASSERT(error != StatusCode::kOk);
  return Add(std::move(site), hit, FaultDecision{FaultAction::kError, Duration{}, error},
             /*and_later=*/true);
}

ExplicitFaultPlan& ExplicitFaultPlan::DelayAt(std::string site, std::uint64_t hit, Duration delay) {
  FL_ASSERT(delay >= Duration::zero());
  return Add(std::move(site), hit, FaultDecision{FaultAction::kDelay, delay});
}

ExplicitFaultPlan& ExplicitFaultPlan::PowerLossAt(std::string site, std::uint64_t hit,
                                                  Survivors survivors) {
  FaultDecision decision{FaultAction::kPowerLoss};
  decision.survivors = survivors;
  return Add(std::move(site), hit, std::move(decision));
}

ExplicitFaultPlan& ExplicitFaultPlan::DecideAt(std::string site, std::uint64_t hit,
                                               FaultDecision decision) {
  FL_ASSERT(decision.action != FaultAction::kNone);
  FL_ASSERT(decision.action != FaultAction::kError || decision.error != StatusCode::kOk);
  FL_ASSERT(decision.delay >= Duration::zero());
  return Add(std::move(site), hit, std::move(decision));
}

ExplicitFaultPlan& ExplicitFaultPlan::Add(std::string site, std::uint64_t hit,
                                          FaultDecision decision, bool and_later) {
  FL_ASSERT(hit >= 1);
  FL_ASSERT(rules_.size() < kMaxRules);
  scoped_ = scoped_ || site.find('@') != std::string::npos;
  rules_.push_back(Rule{std::move(site), hit, std::move(decision), and_later});
  return *this;
}

FaultDecision ExplicitFaultPlan::Decide(std::string_view site, std::uint64_t hit, Rng&) const {
  for (const Rule& rule : rules_) {
    const bool due = rule.and_later ? hit >= rule.hit : hit == rule.hit;
    if (due && rule.site == site) return rule.decision;
  }
  return {};
}

std::string ExplicitFaultPlan::Describe() const {
  std::string text = "explicit:";
  for (const Rule& rule : rules_) {
    text += fmt::format(" {}@{}{}={}", rule.site, rule.hit, rule.and_later ? "+" : "",
                        DescribeDecision(rule.decision));
  }
  return text;
}

ProbabilityFaultPlan& ProbabilityFaultPlan::Site(std::string site, double probability,
                                                 FaultDecision decision) {
  FL_ASSERT(probability >= 0.0 && probability <= 1.0);
  rules_.insert_or_assign(std::move(site), Rule{probability, decision});
  return *this;
}

FaultDecision ProbabilityFaultPlan::Decide(std::string_view site, std::uint64_t,
                                           Rng& site_random) const {
  auto rule = rules_.find(site);
  if (rule == rules_.end()) return {};
  if (!site_random.Bernoulli(rule->second.probability)) return {};
  return rule->second.decision;
}

std::string ProbabilityFaultPlan::Describe() const {
  std::string text = "probability:";
  for (const auto& [site, rule] : rules_) {
    text += fmt::format(" {}={}@{}", site, DescribeDecision(rule.decision), rule.probability);
  }
  return text;
}

SwarmFaultPlan::SwarmFaultPlan(SwarmOptions options) : options_(std::move(options)) {
  FL_ASSERT(options_.enable_probability >= 0.0 && options_.enable_probability <= 1.0);
  FL_ASSERT(options_.fire_probability >= 0.0 && options_.fire_probability <= 1.0);
  FL_ASSERT(options_.crash_weight + options_.error_weight + options_.delay_weight > 0.0);
  FL_ASSERT(options_.delay_max >= Duration::zero());
}

bool SwarmFaultPlan::Enabled(std::string_view site, const Rng& site_random) const {
  if (!options_.site_prefixes.empty()) {
    bool listed = false;
    for (const std::string& prefix : options_.site_prefixes) listed |= site.starts_with(prefix);
    if (!listed) return false;
  }
  // Drawn from a stream of its own, so it is the same at every hit.
  Rng enable = site_random.Fork("swarm.enable");
  return enable.Bernoulli(options_.enable_probability);
}

FaultDecision SwarmFaultPlan::Decide(std::string_view site, std::uint64_t, Rng& site_random) const {
  if (!Enabled(site, site_random)) return {};
  if (!site_random.Bernoulli(options_.fire_probability)) return {};
  const std::array<double, 3> weights{options_.crash_weight, options_.error_weight,
                                      options_.delay_weight};
  switch (site_random.WeightedChoice(weights)) {
    case 0:
      return FaultDecision{FaultAction::kCrash};
    case 1:
      return FaultDecision{FaultAction::kError};
    default: {
      const auto delay_ns = site_random.UniformInt(0, options_.delay_max.count());
      return FaultDecision{FaultAction::kDelay, Duration(delay_ns)};
    }
  }
}

std::string SwarmFaultPlan::Describe() const {
  return fmt::format("swarm: enable={} fire={} weights crash={} error={} delay={}",
                     options_.enable_probability, options_.fire_probability, options_.crash_weight,
                     options_.error_weight, options_.delay_weight);
}

FaultInjector::FaultInjector(Rng random, std::shared_ptr<const FaultPlan> plan)
    : random_(random), plan_(std::move(plan)) {}

FaultInjector::Hit FaultInjector::OnHit(std::string_view site, bool may_crash,
                                        std::string_view process, std::uint64_t job) {
  auto it = sites_.find(site);
  if (it == sites_.end()) {
    FL_ASSERT_MSG(sites_.size() < kMaxSites, "more than {} fault sites", kMaxSites);
    it = sites_.emplace(std::string(site), SiteState{random_.Fork(site)}).first;
  }
  SiteState& state = it->second;
  Hit hit{++state.hits, {}};
  std::optional<FaultDecision> overridden;
  if (pass_override_) overridden = pass_override_(FaultPass{site, process, hit.number, job});
  if (overridden) {
    hit.decision = *overridden;
  } else if (plan_ != nullptr && plan_->ScopesByProcess() && !process.empty()) {
    // This process's own hits of the site, counted apart, decide first.
    const std::string scoped = ScopedSite(process, site);
    auto counted = scoped_hits_.find(scoped);
    if (counted == scoped_hits_.end()) {
      FL_ASSERT_MSG(scoped_hits_.size() < kMaxSites, "more than {} scoped sites", kMaxSites);
      counted = scoped_hits_.emplace(scoped, 0).first;
    }
    hit.decision = plan_->Decide(scoped, ++counted->second, state.random);
  }
  if (!overridden && plan_ != nullptr && hit.decision.action == FaultAction::kNone) {
    hit.decision = plan_->Decide(site, hit.number, state.random);
  }
  const bool ends_the_process =
      hit.decision.action == FaultAction::kCrash || hit.decision.action == FaultAction::kPowerLoss;
  if (ends_the_process && !may_crash) hit.decision = {};
  if (hit.decision.action != FaultAction::kNone) ++state.fires;
  return hit;
}

void FaultInjector::SetPlan(std::shared_ptr<const FaultPlan> plan) {
  FL_ASSERT_MSG(plan_ != nullptr && plan != nullptr, "a fault plan set after the faults stopped");
  FL_ASSERT_MSG(plan->ScopesByProcess() == plan_->ScopesByProcess(),
                "a fault plan that scopes by process otherwise than the one before");
  plan_ = std::move(plan);
}

std::vector<SiteCoverage> FaultInjector::Coverage() const {
  std::vector<SiteCoverage> coverage;
  coverage.reserve(sites_.size());
  for (const auto& [site, state] : sites_) coverage.push_back({site, state.hits, state.fires});
  return coverage;
}

std::string FaultInjector::FormatCoverage() const {
  std::string text;
  for (const SiteCoverage& site : Coverage()) {
    text += fmt::format("  {:<40} hits={} fired={}\n", site.site, site.hits, site.fires);
  }
  return text;
}

}  // namespace faultline::sim
