// Whole-run checkers, kept apart from the models: each looks at the end
// state of a scenario run and says whether a property held.
// - acknowledged-writes: every object a PUT was acknowledged for (and not
//   deleted since) reads back through the proxy, byte for byte.
// - index-points-at-bytes: every row of filecoingw_s3.s3objects names a
//   node whose data directory holds the object.
// - schema-matches-image: every node that serves has, in its keyspace,
//   exactly the schema its image's migrations define.
// - converges: the proxy and both nodes serve.
#pragma once

#include <vector>

#include "scenarios/runner.h"

namespace faultline::scenarios {

struct World;

// Watches the run: call After() after every step (the schema checker looks
// at every moment, since a node may serve a wrong schema for a while and
// stop), then Verdicts() at the end: one per checker, `what` its name and
// `actual` what broke it.
class Checkers {
 public:
  void After(World& world);
  std::vector<CheckResult> Verdicts(World& world);

 private:
  std::string schema_violation_;  // The first one seen.
};

inline constexpr const char* kCheckerNames[] = {"acknowledged-writes", "index-points-at-bytes",
                                                "schema-matches-image", "converges"};

}  // namespace faultline::scenarios
