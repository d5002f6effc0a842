// The files a folder held at a git revision (`git ls-tree`), for
// check-migrations' --since GITREF. The one place the app runs git.
#pragma once

#include <set>
#include <string>

#include "sim/status.h"

namespace faultline::app {

// The names of the files directly in `folder` at revision `ref` of the
// repository the folder is in. An error says what git said: not a
// repository, no such revision, git missing.
sim::Result<std::set<std::string>> FilesAtRevision(const std::string& folder,
                                                   const std::string& ref);

}  // namespace faultline::app
