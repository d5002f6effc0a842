#include "scenarios/core/failure_classes.h"

#include <algorithm>

namespace faultline::scenarios {

const std::vector<FailureClass>& FailureClasses() {
  static const std::vector<FailureClass> kClasses = {
      {"stale-state", "Stale state in a kept volume",
       "a \"clean\" start keeps part of the old state"},
      {"persistent-data-incompatibility", "Persistent-data incompatibility",
       "a new version writes stored data an old one misreads"},
      {"message-incompatibility", "Message incompatibility",
       "mixed versions disagree on a request's format"},
      {"broken-upgrade-step", "A broken upgrade step",
       "a migration that is not idempotent, or is half applied"},
      {"crash-at-metadata-point", "A crash at a metadata point",
       "a crash right after writing an id or a version"},
      {"mishandled-error", "A mishandled non-fatal error",
       "an error swallowed, or any error fatal"},
      {"order-violation", "An order violation",
       "a message lands before or after the state it needs"},
      {"ack-before-durable", "Acknowledged before durable",
       "an answer sent before the data is synced"},
      {"missed-reboot", "A missed reboot", "a peer does not notice a restart"},
      {"wrong-recovery-state", "Wrong recovery state", "recovery misjudges what was in flight"},
      {"recovery-racing-work", "Recovery racing work", "recovery runs alongside normal requests"},
      {"concurrent-migrators", "Concurrent migrators", "no real lock across processes"},
      {"partial-partition", "A partial partition",
       "some links down: the nodes disagree about who is alive"},
      {"repair-by-hand", "A repair by hand", "an operator's fix that makes it worse"},
  };
  return kClasses;
}

const FailureClass* FindFailureClass(std::string_view id) {
  const std::vector<FailureClass>& classes = FailureClasses();
  const auto found = std::find_if(classes.begin(), classes.end(),
                                  [id](const FailureClass& c) { return c.id == id; });
  return found == classes.end() ? nullptr : &*found;
}

}  // namespace faultline::scenarios
