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
  store_starts_ = session_.StoreStarts();
  asio::co_spawn(io_, AcceptS3(*this, *s3_acceptor_), asio::detached);
  asio::co_spawn(io_, AcceptCql(*this, *cql_acceptor_), asio::detached);
  if (options_.prompt) asio::co_spawn(io_, ReadPrompt(*this), asio::detached);
  if (!options_.control.empty()) asio::co_spawn(io_, AcceptControl(*this), asio::detached);
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
    answered->answer = session_.world().last_answer;
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

}  // namespace faultline::live
