// How each kind of step is performed on the world (internal to steps/; not
// installed): one function per kind, named in the step table (steps.cc),
// grouped by what they act on. Each returns what the step did as data
// (core/results.h's StepOutcome).
#pragma once

#include "scenarios/core/results.h"
#include "scenarios/core/scenario.h"

namespace faultline::scenarios {

struct World;

// Compose and containers (compose.cc).
StepOutcome PerformUp(World& world, const Step& step);
StepOutcome PerformDown(World& world, const Step& step);
StepOutcome PerformClean(World& world, const Step& step);
StepOutcome PerformSetImage(World& world, const Step& step);
StepOutcome PerformRestart(World& world, const Step& step);
StepOutcome PerformKill(World& world, const Step& step);
StepOutcome PerformStop(World& world, const Step& step);
StepOutcome PerformWait(World& world, const Step& step);
StepOutcome PerformWaitFor(World& world, const Step& step);

// The operator: ycqlsh and the migrate CLI (operator.cc).
StepOutcome PerformCql(World& world, const Step& step);
StepOutcome PerformMigrateVersion(World& world, const Step& step);
StepOutcome PerformMigrateForce(World& world, const Step& step);
StepOutcome PerformMigrate(World& world, const Step& step);
StepOutcome PerformRecreateKeyspace(World& world, const Step& step);

// The network (network.cc).
StepOutcome PerformPartition(World& world, const Step& step);
StepOutcome PerformHeal(World& world, const Step& step);
StepOutcome PerformClog(World& world, const Step& step);
StepOutcome PerformLatency(World& world, const Step& step);
StepOutcome PerformLoss(World& world, const Step& step);
// "from kuri-1 to yugabyte", "between kuri-1 and every other host".
std::string Between(const Step& step);

// Disks (disk.cc).
StepOutcome PerformPowerLoss(World& world, const Step& step);
StepOutcome PerformDiskFull(World& world, const Step& step);
StepOutcome PerformDiskErrors(World& world, const Step& step);
StepOutcome PerformDiskOk(World& world, const Step& step);

// S3 through the proxy or to a node (s3.cc): one request (Step::method,
// path, query, body), or a whole multipart upload of Step::parts.
StepOutcome PerformS3(World& world, const Step& step);
StepOutcome PerformMultipart(World& world, const Step& step);

}  // namespace faultline::scenarios
