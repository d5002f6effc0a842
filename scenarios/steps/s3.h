// The s3 and multipart steps' Perform functions, for the step table
// (steps.cc). Internal to scenarios/.
#pragma once

#include <string>

#include "scenarios/core/scenario.h"

namespace faultline::scenarios {

struct World;

// One request (Step::method, path, query, body) through the proxy, or to
// the node Step::service names; the outcome is "<status> <body>".
std::string PerformS3(World& world, const Step& step, int& status);
// A whole multipart upload of Step::parts: initiate, parts, complete.
std::string PerformMultipart(World& world, const Step& step, int& status);

}  // namespace faultline::scenarios
