// The deterministic simulation kernel, in one include.
#pragma once

#include "sim/assert.h"
#include "sim/clock.h"
#include "sim/event.h"
#include "sim/executor.h"
#include "sim/fault.h"
#include "sim/ops.h"
#include "sim/process.h"
#include "sim/random.h"
#include "sim/scheduler.h"
#include "sim/simulation.h"
#include "sim/status.h"
#include "sim/trace.h"
