// Which build of faultline this is: the GNU build id the linker writes
// into the executable (a digest of its code, `readelf -n`), so results of
// two builds are told apart (explore's shards, a resumed exploration)
// without a version number anyone has to remember to change.
#pragma once

#include <string>

namespace faultline::app {

// The executable's build id in hex, or "unknown" when it was linked
// without one (--build-id=none).
const std::string& BuildId();

}  // namespace faultline::app
