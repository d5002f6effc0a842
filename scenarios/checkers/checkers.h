// Whole-run checkers, kept apart from the models. They observe and never
// act: they read the runtime, the network's listeners, the volumes and the
// store's database on its volume (models/cql/store_snapshot.h) directly,
// starting no process and sending no message, so adding or removing one
// never changes a run's trace.
// - acknowledged-writes: every object a PUT was acknowledged for (and not
//   deleted since) is readable as a GET through the proxy would read it: an
//   index row names a serving node whose data directory holds those bytes
//   (or those of a PUT whose outcome is unknown, or, after a DELETE whose
//   outcome is unknown, no object: World::Indeterminate).
// - index-points-at-bytes: every row of filecoingw_s3.s3objects names a
//   node whose data directory holds the object.
// - schema-matches-image: at the end of every step, every serving node and
//   proxy has, in the keyspace it migrates, exactly the schema the
//   migrations of the image version it runs define.
// - converges: after the run's fault-free phase, the proxy and every node
//   serve.
#pragma once

#include <cstdint>
#include <string>
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

inline constexpr const char* kCheckerNames[] = {"acknowledged-writes", "index-points-at-bytes",
                                                "schema-matches-image", "converges"};

}  // namespace faultline::scenarios
