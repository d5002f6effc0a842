// The prompt: lines from stdin, and the same over a local control socket
// for scripts (--control PATH), each a step in the scenario format's words
// or a command (status, logs, help, exit).
// Boost 1.74's Asio needs <utility> before it under GCC 12.
#include <utility>

#include <fmt/format.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <istream>

#include "live/prompt_words.h"
#include "live/server.h"
#include "scenarios/world/world.h"

namespace faultline::live {
namespace {

constexpr std::size_t kMaxLine = 64 << 10;
constexpr std::uint64_t kMaxLines = std::uint64_t{1} << 40;

std::string Status(Session& session) {
  scenarios::Cluster& cluster = session.cluster();
  const fakes::Runtime& runtime = session.world().runtime;
  std::string text = fmt::format("virtual time {}\n", sim::FormatTime(session.Now()));
  for (const std::string& service : cluster.Services()) {
    if (!runtime.HasContainer(service)) {
      text += fmt::format("  {:<14} no container\n", service);
      continue;
    }
    text += fmt::format("  {:<14} {:<10} {:<12} restarts {}\n", service,
                        fakes::ContainerStateName(runtime.state(service)),
                        cluster.Serving(service) ? "serving" : "not serving",
                        runtime.restart_count(service));
  }
  return text;
}

std::string Logs(Session& session, const std::string& service) {
  const std::vector<std::string> lines = session.cluster().Logs(service);
  constexpr std::size_t kShown = 20;
  std::string text;
  for (std::size_t i = lines.size() > kShown ? lines.size() - kShown : 0; i < lines.size(); ++i) {
    text += lines[i] + "\n";
  }
  return text.empty() ? service + " has logged nothing\n" : text;
}

// What the prompt answers `line` with.
asio::awaitable<std::string> Answer(Server& server, std::string line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  const std::size_t start = line.find_first_not_of(" \t");
  if (start == std::string::npos || line[start] == '#') co_return "";
  line = line.substr(start);
  if (line == "exit" || line == "quit") {
    server.Stop();
    co_return "stopping\n";
  }
  if (line == "help") co_return PromptHelp();
  if (line == "complete" || line.starts_with("complete ")) {
    const std::string partial = line.size() > 9 ? line.substr(9) : std::string();
    std::string text;
    for (const std::string& word : Completions(partial, server.session().cluster().Services())) {
      text += word + "\n";
    }
    co_return text.empty() ? "(nothing)\n" : text;
  }
  if (line == "status") {
    std::string text;
    const std::function<void(Session&)> observe = [&text](Session& session) {
      text = Status(session);
    };
    co_await server.Between(observe);
    co_return text;
  }
  if (line.starts_with("logs ")) {
    const std::string service = line.substr(5);
    const std::vector<std::string> services = server.session().cluster().Services();
    if (std::find(services.begin(), services.end(), service) == services.end()) {
      co_return fmt::format("no service '{}'\n", service);
    }
    std::string text;
    const std::function<void(Session&)> observe = [&](Session& session) {
      text = Logs(session, service);
    };
    co_await server.Between(observe);
    co_return text;
  }
  std::variant<scenarios::Step, std::string> step =
      StepOfWords(line, server.session().cluster().topology());
  if (auto* why = std::get_if<std::string>(&step)) co_return fmt::format("error: {}\n", *why);
  const scenarios::Step& taken = std::get<scenarios::Step>(step);
  std::shared_ptr<Answered> answered = co_await server.Perform(taken);
  co_return fmt::format("{} {}\n",
                        answered->result.ok ? "ok" : "failed:", answered->result.outcome);
}

template <typename Stream>
asio::awaitable<void> Converse(Server& server, Stream& in,
                               const std::function<void(std::string)>& out) {
  asio::streambuf buffer(kMaxLine);
  for (std::uint64_t n = 0; n < kMaxLines && !server.stopping(); ++n) {
    boost::system::error_code error;
    co_await asio::async_read_until(in, buffer, '\n',
                                    asio::redirect_error(asio::use_awaitable, error));
    if (error == asio::error::not_found) {
      out(fmt::format("error: a line is longer than {} bytes\n", kMaxLine));
      co_return;
    }
    if (error) co_return;  // The end of input: serving goes on.
    std::istream lines(&buffer);
    std::string line;
    std::getline(lines, line);
    std::string answer = co_await Answer(server, std::move(line));
    out(answer);
  }
}

}  // namespace

asio::awaitable<void> ReadPrompt(Server& server) {
  asio::posix::stream_descriptor in(server.io(), ::dup(STDIN_FILENO));
  const std::function<void(std::string)> out = [](std::string text) {
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
  };
  co_await Converse(server, in, out);
}

asio::awaitable<void> AcceptControl(Server& server,
                                    asio::local::stream_protocol::acceptor& acceptor) {
  using asio::local::stream_protocol;
  for (std::uint64_t n = 0; n < kMaxLines && !server.stopping(); ++n) {
    auto socket = std::make_shared<stream_protocol::socket>(server.io());
    if (!co_await AcceptNext(server, acceptor, *socket)) continue;
    boost::system::error_code error;
    // Answers are written without waiting: a script that does not read
    // them loses its connection, and the fronts never wait for it.
    socket->non_blocking(true, error);
    asio::co_spawn(
        server.io(),
        [&server, socket]() -> asio::awaitable<void> {
          const std::function<void(std::string)> out = [socket](std::string text) {
            boost::system::error_code write_error;
            asio::write(*socket, asio::buffer(text), write_error);
            if (write_error) socket->close(write_error);
          };
          co_await Converse(server, *socket, out);
        },
        SayIfThrown(server, "a control connection"));
  }
}

}  // namespace faultline::live
