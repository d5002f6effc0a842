#include "live/server.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <filesystem>

#include "sim/assert.h"

namespace faultline::live {
namespace {

using asio::ip::tcp;

// A client may hold a thousand idle connections: the process may open as
// many files as its hard limit allows.
void RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

sim::Result<tcp::acceptor> Bind(asio::io_context& io, const std::string& address,
                                std::uint16_t port, std::string_view what) {
  boost::system::error_code error;
  const asio::ip::address ip = asio::ip::make_address(address, error);
  if (error)
    return sim::Status::InvalidArgument(fmt::format("--listen {}: not an address", address));
  tcp::acceptor acceptor(io);
  const tcp::endpoint endpoint(ip, port);
  if (acceptor.open(endpoint.protocol(), error); !error) {
    acceptor.set_option(tcp::acceptor::reuse_address(true), error);
    acceptor.bind(endpoint, error);
  }
  if (!error) acceptor.listen(asio::socket_base::max_listen_connections, error);
  if (error) {
    return sim::Status::Unavailable(
        fmt::format("cannot listen for {} on {}:{}: {}", what, address, port, error.message()));
  }
  return acceptor;
}

}  // namespace

Server::Server(Session& session, ServeOptions options, std::function<void(const std::string&)> say)
    : session_(session), options_(std::move(options)), say_(std::move(say)) {}

Server::~Server() = default;

sim::Status Server::Listen() {
  RaiseOpenFileLimit();
  sim::Result<tcp::acceptor> s3 = Bind(io_, options_.listen, options_.s3_port, "S3");
  if (!s3.ok()) return s3.status();
  sim::Result<tcp::acceptor> cql = Bind(io_, options_.listen, options_.cql_port, "CQL");
  if (!cql.ok()) return cql.status();
  s3_acceptor_.emplace(std::move(*s3));
  cql_acceptor_.emplace(std::move(*cql));
  if (options_.control.empty()) return sim::Status::Ok();
  // A socket left by an earlier session is replaced; any other file is not.
  const std::filesystem::path control(options_.control);
  std::error_code checked;
  if (std::filesystem::is_socket(control, checked)) {
    std::filesystem::remove(control, checked);
  } else if (std::filesystem::exists(control, checked)) {
    return sim::Status::InvalidArgument(fmt::format(
        "--control {}: a file that is not a socket is there; name another path", options_.control));
  }
  using asio::local::stream_protocol;
  stream_protocol::acceptor acceptor(io_);
  boost::system::error_code error;
  if (acceptor.open(stream_protocol(), error); !error) {
    acceptor.bind(stream_protocol::endpoint(options_.control), error);
  }
  if (!error) acceptor.listen(asio::socket_base::max_listen_connections, error);
  if (error) {
    return sim::Status::Unavailable(
        fmt::format("--control {}: cannot listen there: {}", options_.control, error.message()));
  }
  control_acceptor_.emplace(std::move(acceptor));
  return sim::Status::Ok();
}

std::uint16_t Server::s3_port() const { return s3_acceptor_->local_endpoint().port(); }
std::uint16_t Server::cql_port() const { return cql_acceptor_->local_endpoint().port(); }

void Server::Stop() {
  stopping_ = true;
  io_.stop();
}

void Server::Run() {
  FL_ASSERT_MSG(s3_acceptor_ && cql_acceptor_, "Run() before Listen()");
  FL_ASSERT(options_.control.empty() == !control_acceptor_.has_value());
  store_starts_ = session_.StoreStarts();
  asio::co_spawn(io_, AcceptS3(*this, *s3_acceptor_), SayIfThrown(*this, "the S3 front"));
  asio::co_spawn(io_, AcceptCql(*this, *cql_acceptor_), SayIfThrown(*this, "the CQL front"));
  if (options_.prompt) asio::co_spawn(io_, ReadPrompt(*this), SayIfThrown(*this, "the prompt"));
  if (control_acceptor_) {
    asio::co_spawn(io_, AcceptControl(*this, *control_acceptor_),
                   SayIfThrown(*this, "the control socket"));
  }
  asio::signal_set signals(io_, SIGINT, SIGTERM);
  signals.async_wait([this](const boost::system::error_code& error, int number) {
    if (error) return;
    Say(fmt::format("live: {} received; stopping", number == SIGINT ? "SIGINT" : "SIGTERM"));
    Stop();
  });
  // One thread: sockets are served between steps, and a step is played
  // outside every socket's handler, so the simulation never runs inside one.
  constexpr auto kPoll = std::chrono::milliseconds(20);
  while (!stopping_) {
    io_.run_one_for(kPoll);
    io_.poll();
    Drain();
  }
}

void Server::Drain() {
  // Each step may let more arrive (its handlers run at the next poll), so
  // the queue is bounded by what came before this drain.
  for (std::size_t n = pending_.size(); n > 0 && !stopping_; --n) {
    // Each request is at most two steps (a catch-up wait, then it).
    if (session_.steps_played() + 2 > Session::kMaxSteps) {
      Say(
          fmt::format("live: the session has played {} steps, the most one cluster plays; "
                      "stopping",
                      session_.steps_played()));
      Stop();
      return;
    }
    Pending next = std::move(pending_.front());
    pending_.pop_front();
    next.run();
    // A store that started again has dropped its connections and forgotten
    // what was prepared on it: the CQL front closes its own to match.
    if (const std::uint64_t starts = session_.StoreStarts(); starts != store_starts_) {
      store_starts_ = starts;
      if (cql_hooks_.store_restarted) cql_hooks_.store_restarted();
    }
  }
}

asio::awaitable<void> Server::Queue(const std::function<void()>& run) {
  auto done = std::make_shared<asio::steady_timer>(io_, asio::steady_timer::time_point::max());
  pending_.push_back(Pending{[run, done] {
    run();
    done->cancel();
  }});
  boost::system::error_code cancelled;
  co_await done->async_wait(asio::redirect_error(asio::use_awaitable, cancelled));
}

asio::awaitable<std::shared_ptr<Answered>> Server::Perform(const scenarios::Step& step) {
  auto answered = std::make_shared<Answered>();
  const std::function<void()> play = [this, &step, answered] {
    answered->result = session_.Play(step);
    // Moved: the world keeps it only for this hand-over (Session noted it).
    answered->answer = std::move(session_.world().last_answer);
  };
  co_await Queue(play);
  co_return std::shared_ptr<Answered>(answered);  // A copy: GCC 12 frees an implicitly moved local.
}

asio::awaitable<void> Server::Between(const std::function<void(Session&)>& observe) {
  const std::function<void()> run = [this, &observe] {
    session_.CatchUp();
    observe(session_);
  };
  co_await Queue(run);
}

std::function<void(std::exception_ptr)> SayIfThrown(const Server& server, std::string what) {
  return [&server, what = std::move(what)](std::exception_ptr thrown) {
    if (!thrown) return;
    try {
      std::rethrow_exception(thrown);
    } catch (const std::exception& error) {
      server.Say(fmt::format("live: {} ended by an exception: {}", what, error.what()));
    } catch (...) {
      server.Say(fmt::format("live: {} ended by an exception", what));
    }
  };
}

}  // namespace faultline::live
