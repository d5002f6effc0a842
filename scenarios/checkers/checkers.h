// Whole-run checkers, kept apart from the models. They observe and never
// act: they read the runtime, the network's listeners, the volumes and the
// store's database on its volume (models/cql/store_snapshot.h) directly,
// starting no process and sending no message, so adding or removing one
// never changes a run's trace.
// The checkers are one table (WholeRunCheckers, in checkers.cc), each
// checker's verdict in a file of its own: acknowledged_writes.cc,
// index_points_at_bytes.cc, schema_matches_image.cc, converges.cc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "scenarios/core/results.h"
#include "sim/trace.h"

namespace faultline::scenarios {

struct World;

// Watches the run: give it to the simulation as a trace sink (it notes
// schema changes), call After() after every step, then Verdicts() at the
// end: one per checker, `what` its name and `actual` what broke it.
class Checkers final : public sim::TraceSink {
 public:
  void Write(const sim::TraceEvent& event) override;
  void After(World& world);
  std::vector<CheckResult> Verdicts(World& world);

 private:
  // The schema is read again only when it may differ from the last reading:
  // after a schema statement, or when which services serve (or their
  // incarnations or image versions) changed. So a step costs O(services).
  bool schema_statement_seen_ = true;
  // Per served service: serving, its incarnation, its image version.
  std::vector<std::tuple<bool, std::uint32_t, std::string>> serving_fingerprint_;
  std::vector<std::tuple<bool, std::uint32_t, std::string>> next_fingerprint_;
  std::string schema_violation_;  // The first one seen.
};

// When a checker's property holds.
enum class CheckerPhase : unsigned char {
  kEveryMoment,  // After every step, faults or not: it may be asked at any time.
  kSettled,      // Once the faults stopped and the cluster had the liveness phase.
};

namespace checkers {
struct EndOfRun;  // checkers/end_of_run.h (internal).
}

// One whole-run checker: one entry of the table in checkers.cc, its
// verdict in a file of its own. A new checker is one entry and its file.
struct CheckerSpec {
  std::string_view name;     // As [checkers] and every report names it.
  std::string_view meaning;  // One line.
  CheckerPhase phase;
  // Step kinds (as a file names them) that take data away by the
  // operator's own hand: a run with one of them may fail this checker with
  // no bug (explore expects it to).
  std::vector<std::string_view> exempted_by;
  CheckResult (*verdict)(const checkers::EndOfRun& end);
};

// Every checker, in the order verdicts and reports list them.
const std::vector<CheckerSpec>& WholeRunCheckers();
// The checker named so, or nullptr.
const CheckerSpec* FindChecker(std::string_view name);
// Whether a step of kind `step_kind` exempts `checker` (exempted_by).
bool ExemptedBy(const CheckerSpec& checker, std::string_view step_kind);

}  // namespace faultline::scenarios
