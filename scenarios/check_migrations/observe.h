// check-migrations' runs, seen from outside (internal to scenarios/): the
// steps its scenarios are made of, what an observer reads of a replica
// after a step (RunOptions::observe: it reads, never acts), and a trace
// sink that notes which file was in flight at a fault and which migrations
// failed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/migrate/schema_check.h"
#include "scenarios/core/scenario.h"
#include "scenarios/harness/runner.h"
#include "sim/trace.h"

namespace faultline::scenarios {
struct World;
}

namespace faultline::scenarios::check {

inline constexpr const char* kSubject = "kuri-1";  // The node that runs the folder.

Step Do(Step::Kind kind, std::string narration);
Step Wait(sim::Duration duration, std::string narration);
Step ForService(Step::Kind kind, const std::string& service, std::string narration);
std::string NodeName(int node);  // "kuri-2"
std::string Joined(const std::vector<std::string>& parts, std::string_view by = ", ");
// The first line of `text`, at most 120 characters.
std::string FirstLine(const std::string& text);
// A runner's failure on one line, the store's reason kept whole (a
// statement that begins with a line break leaves FirstLine nothing).
std::string FailureWords(const std::string& text);

// What an observer reads of one replica after a step.
struct Observed {
  bool serving = false;
  std::string versions;  // "3 dirty", "none" (RecordedVersions)
  // The keyspace's schema, shared: a case that ends where it joins the
  // clean run is judged by the trunk's end, and a copy would cost as much
  // as the schema is large.
  const models::migrate::SchemaModel& schema() const { return *schema_read; }
  std::shared_ptr<const models::migrate::SchemaModel> schema_read =
      std::make_shared<const models::migrate::SchemaModel>();
  std::string last_line;  // Its log's last line that is not a start banner.
  int restarts = 0;
  bool exists = false;
};
Observed Observe(World& world, const std::string& service, const std::string& keyspace);

// The file a migration was in when the first fault fired: the last
// migrate.begin of the subject in the keyspace before it.
class InFlight final : public sim::TraceSink {
 public:
  explicit InFlight(std::string keyspace) : keyspace_(std::move(keyspace)) {}
  void Write(const sim::TraceEvent& event) override {
    NoteFailure(event);
    if (event.name == "fault.fire") any_fired_ = true;
    if (event.process != kSubject) return;
    if (event.name == "migrate.begin") {
      const sim::TraceValue* keyspace = event.Find("keyspace");
      const sim::TraceValue* file = event.Find("file");
      if (keyspace != nullptr && file != nullptr && keyspace->AsString() == keyspace_) {
        latest_file_ = file->AsString();
        if (!fired_) file_ = latest_file_;
      }
    }
    if (event.name == "fault.fire") fired_ = true;
  }
  const std::string& file() const { return file_; }
  // The file the subject migrates now (or last did), fault or not.
  const std::string& latest_file() const { return latest_file_; }
  // Each failed migration of a file in the keyspace, in the order they
  // happened: who, which version, and the runner's words.
  struct Failure {
    std::string process;
    std::uint64_t version = 0;
    std::string text;
  };
  const std::vector<Failure>& failures() const { return failures_; }
  // Whether a fault fired, in any process (a pause that a run never
  // reached did not).
  bool any_fired() const { return any_fired_; }

 private:
  void NoteFailure(const sim::TraceEvent& event) {
    if (event.name != "migrate.end") return;
    const sim::TraceValue* keyspace = event.Find("keyspace");
    const sim::TraceValue* outcome = event.Find("outcome");
    const sim::TraceValue* version = event.Find("version");
    if (keyspace == nullptr || outcome == nullptr || version == nullptr) return;
    if (keyspace->AsString() != keyspace_ || outcome->AsString() == "OK") return;
    constexpr std::size_t kMaxKept = 100;
    if (failures_.size() < kMaxKept) {
      failures_.push_back({event.process, version->AsUint(), outcome->AsString()});
    }
  }
  std::vector<Failure> failures_;
  std::string keyspace_;
  std::string file_;
  std::string latest_file_;
  bool fired_ = false;
  bool any_fired_ = false;
};

// Calls `begins(file)` at each migrate.begin of the subject in the
// keyspace, until it returns true: where check-migrations' --since history
// ends in a run (the first new file).
class HistoryEnd final : public sim::TraceSink {
 public:
  HistoryEnd(std::string keyspace, std::function<bool(const std::string& file)> begins)
      : keyspace_(std::move(keyspace)), begins_(std::move(begins)) {}
  void Write(const sim::TraceEvent& event) override {
    if (found_ || event.process != kSubject || event.name != "migrate.begin") return;
    const sim::TraceValue* keyspace = event.Find("keyspace");
    const sim::TraceValue* file = event.Find("file");
    if (keyspace == nullptr || file == nullptr || keyspace->AsString() != keyspace_) return;
    found_ = begins_(file->AsString());
  }

 private:
  std::string keyspace_;
  std::function<bool(const std::string&)> begins_;
  bool found_ = false;
};

// One run and what was seen after the steps asked for, of every replica.
struct Played {
  ScenarioResult result;
  std::map<std::size_t, std::vector<Observed>> seen;  // Step -> replica (from kuri-1).
  std::string in_flight;
  std::vector<InFlight::Failure> failures;
  bool fault_fired = false;
};

}  // namespace faultline::scenarios::check
