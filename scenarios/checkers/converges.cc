// converges: after the run's fault-free phase, the proxy and every node
// serve.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "models/cql/server.h"
#include "models/s3/kuri_node.h"
#include "models/s3/s3.h"
#include "scenarios/checkers/end_of_run.h"
#include "sim/assert.h"

namespace faultline::scenarios::checkers {

namespace cql = models::cql;
namespace s3 = models::s3;

CheckResult Converges(const EndOfRun& end) {
  World& world = end.world;
  CheckResult check{"converges", true, ""};
  for (const ServedService& service : world.served) {
    if (!IsServing(world, service.name)) {
      check.held = false;
      check.actual += fmt::format("{} is not serving; ", service.name);
    }
  }
  return check;
}

}  // namespace faultline::scenarios::checkers
