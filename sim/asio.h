// The one place faultline includes Boost.Asio. Everything simulated runs as Asio
// coroutines on our own executor (sim/executor.h); nothing here uses Asio's
// I/O objects or its clocks.
#pragma once

// Boost 1.74's Asio uses std::exchange without including <utility>; under GCC 12
// that header is no longer pulled in transitively, so it must come first.
#include <utility>

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
