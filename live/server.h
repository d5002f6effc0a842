// Live mode's real sockets: the S3 front (HTTP/1.1, s3_front.cc), the CQL
// front (the native protocol v4, cql_front.cc), the prompt (stdin, and the
// same lines over a local control socket, prompt.cc), all on one thread's
// io_context. Requests become steps, queued and played by the Session one
// at a time, outside any socket handler, in the order they arrived.
#pragma once

// Boost 1.74's Asio needs <utility> before it under GCC 12 (sim/asio.h).
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "live/session.h"
#include "scenarios/core/results.h"
#include "scenarios/world/world.h"
#include "sim/status.h"

namespace faultline::live {

namespace asio = boost::asio;

struct ServeOptions {
  std::string listen = "127.0.0.1";  // Loopback unless told otherwise.
  std::uint16_t s3_port = 8078;      // The seed's proxy port; 0: any free port.
  std::uint16_t cql_port = 9042;     // The store's; 0: any free port.
  std::string control;               // A Unix socket for prompt lines; empty: none.
  bool prompt = true;                // Read prompt lines from stdin.
};

// A step's result with the whole answer the world kept of it.
struct Answered {
  scenarios::StepResult result;
  scenarios::World::LastAnswer answer;
};

class Server {
 public:
  Server(Session& session, ServeOptions options, std::function<void(const std::string&)> say);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the ports (and the control socket); an error names what could not be bound.
  sim::Status Listen();
  std::uint16_t s3_port() const;
  std::uint16_t cql_port() const;
  // Serves until Stop() (the prompt's `exit`, SIGINT, SIGTERM).
  void Run();
  void Stop();
  bool stopping() const { return stopping_; }

  // Plays `step` once the steps before it have been played; its answer.
  // (Shared, not by value: GCC 12 miscompiles aggregates with string
  // members returned through co_await.)
  // `step` is the caller's, which awaits the answer, so it outlives the call.
  asio::awaitable<std::shared_ptr<Answered>> Perform(const scenarios::Step& step);
  // Runs `observe` between steps (after the catch-up with the wall clock),
  // for what reads the cluster without a step: `status`, `logs`.
  // (Callers pass named functions, never a lambda built in the co_await
  // expression: GCC 12 destroys such temporaries twice.)
  asio::awaitable<void> Between(const std::function<void(Session&)>& observe);

  Session& session() { return session_; }
  asio::io_context& io() { return io_; }
  const ServeOptions& options() const { return options_; }
  void Say(const std::string& line) const { say_(line); }

  // Connections of the CQL front, told when the store restarts (cql_front.cc).
  struct CqlHooks {
    std::function<void()> store_restarted;
  };
  CqlHooks& cql_hooks() { return cql_hooks_; }

 private:
  struct Pending {
    std::function<void()> run;
  };
  void Drain();
  asio::awaitable<void> Queue(const std::function<void()>& run);

  Session& session_;
  ServeOptions options_;
  std::function<void(const std::string&)> say_;
  asio::io_context io_;
  std::optional<asio::ip::tcp::acceptor> s3_acceptor_;
  std::optional<asio::ip::tcp::acceptor> cql_acceptor_;
  std::optional<asio::local::stream_protocol::acceptor> control_acceptor_;
  std::deque<Pending> pending_;
  std::uint64_t store_starts_ = 0;
  CqlHooks cql_hooks_;
  bool stopping_ = false;
};

// What a spawned coroutine's end does: an exception that escaped it is said
// (with what it was), never dropped in silence.
std::function<void(std::exception_ptr)> SayIfThrown(const Server& server, std::string what);

// The next connection of `acceptor` into `socket`; false (after a pause,
// so an accept that keeps failing, out of descriptors say, never spins)
// when there was none.
// (The fronts' TCP sockets and the control socket alike.)
template <typename Acceptor, typename Socket>
asio::awaitable<bool> AcceptNext(Server& server, Acceptor& acceptor, Socket& socket) {
  boost::system::error_code error;
  co_await acceptor.async_accept(socket, asio::redirect_error(asio::use_awaitable, error));
  if (!error) co_return true;
  asio::steady_timer pause(server.io(), std::chrono::milliseconds(100));
  co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, error));
  co_return false;
}

// The fronts' accept loops (s3_front.cc, cql_front.cc) and the prompt's
// readers (prompt.cc), each started by Server::Run.
asio::awaitable<void> AcceptS3(Server& server, asio::ip::tcp::acceptor& acceptor);
asio::awaitable<void> AcceptCql(Server& server, asio::ip::tcp::acceptor& acceptor);
asio::awaitable<void> ReadPrompt(Server& server);
asio::awaitable<void> AcceptControl(Server& server,
                                    asio::local::stream_protocol::acceptor& acceptor);

}  // namespace faultline::live
