// Where faultline includes Boost.Asio's public API (sim/scheduler.cc and
// sim/ops.h also reach the two internals named below). Everything simulated
// runs as Asio coroutines on our own executor (sim/executor.h); nothing uses
// Asio's I/O objects or its clocks.
#pragma once

// Boost 1.74's Asio uses std::exchange without including <utility>; under GCC 12
// that header is no longer pulled in transitively, so it must come first.
#include <utility>

#include <boost/version.hpp>

// Boost 1.74 (Debian 12's) exposes Asio internals that faultline uses on its
// hottest paths: the per-thread cache that recycles coroutine frames
// (sim/scheduler.cc), resuming an awaitable thread straight from a stored
// handler (SleepFor, sim/ops.h), and launching a task's thread without
// co_spawn's extra step (Process::Spawn). With any other Boost the same code
// takes Asio's public paths, only slower.
#if BOOST_VERSION / 100 == 1074
#define FAULTLINE_ASIO_1_74_HOOKS 1
#else
#define FAULTLINE_ASIO_1_74_HOOKS 0
#endif

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace faultline::sim {
namespace asio = boost::asio;
}  // namespace faultline::sim
