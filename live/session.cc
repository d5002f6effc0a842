#include "live/session.h"

#include <fmt/format.h>

#include <chrono>
#include <utility>

#include "models/cql/errors.h"
#include "models/cql/server.h"
#include "models/s3/s3_proxy.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/steps/steps.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::live {
namespace {

using scenarios::Expectation;
using scenarios::Step;
using scenarios::StepResult;

// The store's service in the seed cluster and every topology built on it.
constexpr const char* kStore = models::cql::kStoreImage;

Step WaitStep(sim::Duration duration) {
  Step step;
  step.kind = Step::Kind::kWait;
  step.duration = duration;
  return step;
}

// What a request step was answered, as an expectation a replay must meet:
// the S3 status; the statement's rows, or its error's headline.
std::vector<Expectation> AnswerOf(Step::Kind kind, const StepResult& result,
                                  const scenarios::World::LastAnswer& answer) {
  std::vector<Expectation> expect;
  Expectation said;
  if (kind == Step::Kind::kS3 && result.status != 0) {
    said.kind = Expectation::Kind::kStatus;
    said.number = result.status;
  } else if (kind == Step::Kind::kCql && answer.cql && answer.cql->ok() &&
             answer.cql->result.kind == models::cql::QueryResult::Kind::kRows) {
    said.kind = Expectation::Kind::kRows;
    said.number = static_cast<std::int64_t>(answer.cql->result.rows.size());
  } else if (kind == Step::Kind::kCql && !result.ok) {
    said.kind = Expectation::Kind::kOutputContains;
    said.text = std::string(models::cql::Headline(result.outcome));
    if (said.text.empty()) return expect;
  } else {
    return expect;
  }
  expect.push_back(std::move(said));
  return expect;
}

// Consecutive waits as one: the scheduler runs the same events to the same
// time either way, and the file reads as the session went.
void MergeWaits(std::vector<Step>& steps) {
  std::vector<Step> merged;
  for (Step& step : steps) {
    if (step.kind == Step::Kind::kWait && !merged.empty() &&
        merged.back().kind == Step::Kind::kWait && merged.back().expect.empty()) {
      merged.back().duration += step.duration;
      continue;
    }
    merged.push_back(std::move(step));
  }
  steps = std::move(merged);
}

// Whether `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), which a TOML string holds as it is.
bool IsUtf8(std::string_view text) {
  const auto byte = [&text](std::size_t at) { return static_cast<unsigned char>(text[at]); };
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char first = byte(i);
    std::size_t length = 0;
    unsigned char low = 0x80;  // The second byte's range.
    unsigned char high = 0xbf;
    if (first < 0x80) {
      length = 1;
    } else if (first >= 0xc2 && first <= 0xdf) {
      length = 2;
    } else if (first >= 0xe0 && first <= 0xef) {
      length = 3;
      if (first == 0xe0) low = 0xa0;
      if (first == 0xed) high = 0x9f;
    } else if (first >= 0xf0 && first <= 0xf4) {
      length = 4;
      if (first == 0xf0) low = 0x90;
      if (first == 0xf4) high = 0x8f;
    } else {
      return false;
    }
    if (i + length > text.size()) return false;
    if (length > 1 && (byte(i + 1) < low || byte(i + 1) > high)) return false;
    for (std::size_t k = 2; k < length; ++k) {
      if ((byte(i + k) & 0xc0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

}  // namespace

scenarios::Scenario SeedClusterTopology() {
  scenarios::Scenario topology;
  topology.name = "seed-cluster";
  return topology;
}

Session::Session(const scenarios::Scenario& topology, SessionOptions options)
    : options_(std::move(options)) {
  FL_ASSERT(options_.elapsed != nullptr);
  // The topology only: its images, nodes and services. The story's own
  // faults, its expected verdicts and its repro's failure belong to its
  // steps, not to what you do live; faults are yours to type.
  scenarios::Scenario setting = topology;
  setting.steps.clear();
  setting.crash_site.clear();
  setting.crash_hit = 0;
  setting.faults.clear();
  setting.checkers.clear();
  setting.recorded.reset();
  setting.name = "live-" + topology.name;
  setting.title = "A live session on " + topology.name + "'s cluster";
  setting.story =
      "Recorded by faultline live: each request a client sent, and each step typed at "
      "the prompt, at its virtual time.";
  setting.lesson = "";
  // A session lasts as long as its user: the scheduler's step budget is
  // the most a file may give, not a story's default.
  setting.budget.steps = scenarios::Budget::kMaxSteps;
  cluster_ = std::make_unique<scenarios::Cluster>(
      setting, scenarios::ClusterOptions{.seed = options_.seed, .checkers = false});
}

Session::~Session() = default;

scenarios::World& Session::world() { return cluster_->world(); }

const StepResult& Session::Start() {
  FL_ASSERT_MSG(cluster_->played().empty(), "Start() twice");
  Step up_step;
  up_step.kind = Step::Kind::kUp;
  const StepResult& up = PlayAndNote(std::move(up_step));
  Say(up);
  // Clients come once it serves: the proxy and the store answer their
  // health checks (a second at a time, each a `wait` of the recording).
  constexpr int kMaxSeconds = 300;
  const auto serving = [this] {
    return cluster_->Serving(kStore) && cluster_->Serving(models::s3::kProxyService);
  };
  for (int second = 0; second < kMaxSeconds && !serving(); ++second) {
    PlayAndNote(WaitStep(std::chrono::seconds(1)));
  }
  if (options_.say) {
    options_.say(fmt::format(
        "[{}] {}", sim::FormatTime(Now()),
        serving() ? "the proxy and the store serve" : "the proxy or the store does not serve yet"));
  }
  anchor_wall_ = options_.elapsed();
  anchor_virtual_ = Now();
  return up;
}

void Session::CatchUp() {
  if (options_.fast || cluster_->played().empty()) return;
  const sim::TimePoint target = anchor_virtual_ + (options_.elapsed() - anchor_wall_);
  if (target <= Now()) return;
  // A file writes durations to the millisecond: the rest waits for the next.
  const auto lag = std::chrono::duration_cast<std::chrono::milliseconds>(target - Now());
  if (lag.count() < 1) return;
  PlayAndNote(WaitStep(lag));
}

const StepResult& Session::Play(Step step) {
  CatchUp();
  const StepResult& result = PlayAndNote(std::move(step));
  Say(result);
  return result;
}

const StepResult& Session::PlayAndNote(Step step) {
  const Step::Kind kind = step.kind;
  const StepResult& result = cluster_->Play(std::move(step));
  answers_.push_back(AnswerOf(kind, result, cluster_->world().last_answer));
  FL_ASSERT(answers_.size() == cluster_->played().size());
  return result;
}

void Session::Say(const StepResult& result) const {
  if (!options_.say) return;
  std::string outcome = result.outcome;
  if (const std::size_t end = outcome.find('\n'); end != std::string::npos) {
    outcome = outcome.substr(0, end) + " ...";
  }
  constexpr std::size_t kMaxSaid = 160;
  if (outcome.size() > kMaxSaid) outcome = outcome.substr(0, kMaxSaid) + "...";
  options_.say(fmt::format("[{}] {} -> {}", sim::FormatTime(result.at), result.action, outcome));
}

sim::Result<std::string> Session::Recording() const {
  sim::Result<scenarios::Scenario> story = cluster_->AsScenario();
  if (!story.ok()) return story.status();
  FL_ASSERT_MSG(story->steps.size() == answers_.size(), "{} steps written for {} played",
                story->steps.size(), answers_.size());
  for (std::size_t i = 0; i < answers_.size(); ++i) {
    Step& step = story->steps[i];
    if (step.expect.empty()) step.expect = answers_[i];
  }
  MergeWaits(story->steps);
  for (const Step& step : story->steps) {
    for (const std::string* text :
         {&step.body, &step.statement, &step.path, &step.query, &step.keyspace}) {
      if (!IsUtf8(*text)) {
        return sim::Status::InvalidArgument(fmt::format(
            "step '{}' carries bytes that are not UTF-8 (a binary body): a scenario file "
            "holds text only",
            scenarios::StepKindOf(step).show(step).substr(0, 60)));
      }
    }
  }
  return scenarios::ToToml(*story);
}

std::uint64_t Session::StoreStarts() const {
  const fakes::Runtime& runtime = cluster_->world().runtime;
  return runtime.HasContainer(kStore) ? runtime.incarnation(kStore) : 0;
}

bool Session::StoreServing() const { return cluster_->Serving(kStore); }

sim::TimePoint Session::Now() const { return cluster_->world().simulation.Now(); }

std::size_t Session::steps_played() const { return cluster_->played().size(); }

}  // namespace faultline::live
