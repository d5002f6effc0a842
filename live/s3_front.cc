// The S3 front: HTTP/1.1 on a real socket (Boost.Beast), each request an
// `s3` step through the simulated proxy, its answer written back as the
// proxy gave it. Path-style addressing; signatures are not checked (as
// S3Proxy's authorization=none); `Expect: 100-continue` is answered before
// the body is read; `aws-chunked` bodies are decoded. What S3 clients
// require and the models do not keep (an object's modification time) is
// the virtual clock's date.
// Boost 1.74's Asio needs <utility> before it under GCC 12.
#include <utility>

#include <fmt/format.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <chrono>
#include <ctime>
#include <optional>
#include <string>

#include "fakes/sqlite_vfs.h"
#include "live/http_body.h"
#include "live/server.h"
#include "sim/assert.h"

namespace faultline::live {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using scenarios::Step;

// An upload's part is at most 5 GiB in S3; here, what a step holds in memory.
constexpr std::uint64_t kMaxBody = 64ull << 20;
constexpr std::uint32_t kMaxHeader = 16 << 10;
constexpr auto kIdle = std::chrono::minutes(10);
constexpr int kMaxRequestsPerConnection = 1'000'000;

// The virtual clock as an HTTP date, or ISO 8601 for XML (S3's two forms).
std::string DateOf(sim::TimePoint now, bool iso) {
  const std::int64_t ms =
      fakes::SqliteVfs::kEpochUnixMs +
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t seconds = ms / 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::strftime(text, sizeof text, iso ? "%Y-%m-%dT%H:%M:%S" : "%a, %d %b %Y %H:%M:%S GMT", &utc);
  return iso ? fmt::format("{}.{:03}Z", text, ms % 1000) : std::string(text);
}

// A listing as S3 clients read it: the fields the node's listing leaves out
// (whether it is cut, each key's date) added.
std::string CompleteListing(std::string body, const std::string& date) {
  const std::string count_end = "</KeyCount>";
  if (const std::size_t at = body.find(count_end); at != std::string::npos) {
    body.insert(at + count_end.size(), "<IsTruncated>false</IsTruncated>");
  }
  const std::string size_open = "<Size>";
  const std::string modified = "<LastModified>" + date + "</LastModified>";
  constexpr std::size_t kMaxKeys = 1'000'000;
  std::size_t at = 0;
  for (std::size_t n = 0; n < kMaxKeys; ++n) {
    at = body.find(size_open, at);
    if (at == std::string::npos) break;
    body.insert(at, modified);
    at += modified.size() + size_open.size();
  }
  return body;
}

http::response<http::string_body> Refusal(http::status status, std::string_view code,
                                          std::string_view message) {
  http::response<http::string_body> response(status, 11);
  response.set(http::field::content_type, "application/xml");
  response.set(http::field::connection, "close");
  response.body() = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{}</Code><Message>{}</Message>"
      "</Error>",
      code, message);
  response.keep_alive(false);
  response.prepare_payload();
  return response;
}

// The request as an `s3` step, or why it cannot be one.
std::variant<Step, std::string> StepOf(const http::request<http::string_body>& request) {
  const std::string target(request.target());
  if (target.empty() || target[0] != '/') return std::string("the target is not a path");
  const std::size_t question = target.find('?');
  std::optional<std::string> path = PercentDecoded(target.substr(0, question));
  if (!path) return std::string("the path's percent-encoding is malformed");
  Step step;
  step.kind = Step::Kind::kS3;
  step.method = std::string(request.method_string());
  step.path = std::move(*path);
  if (question != std::string::npos) step.query = target.substr(question + 1);
  const auto view = [](beast::string_view text) {
    return std::string_view(text.data(), text.size());
  };
  if (IsAwsChunked(view(request[http::field::content_encoding]),
                   view(request["x-amz-content-sha256"]))) {
    std::optional<std::string> body = DecodeAwsChunked(request.body());
    if (!body) return std::string("the aws-chunked body is malformed");
    step.body = std::move(*body);
  } else {
    step.body = request.body();
  }
  return step;
}

// A GET's Range, served from the whole body the proxy answered (the models
// keep no ranges): 206 with the slice, or 416 past the end.
void ServeRange(std::string_view range, http::response<http::string_body>& response) {
  const std::uint64_t size = response.body().size();
  const std::optional<ByteRange> wanted = ParseRange(range, size);
  if (!wanted) return;
  if (!wanted->satisfiable) {
    response = Refusal(http::status::range_not_satisfiable, "InvalidRange",
                       "The requested range is not satisfiable");
    response.set(http::field::content_range, fmt::format("bytes */{}", size));
    return;
  }
  response.result(http::status::partial_content);
  response.body() = response.body().substr(wanted->first, wanted->length);
  response.set(http::field::content_range, fmt::format("bytes {}-{}/{}", wanted->first,
                                                       wanted->first + wanted->length - 1, size));
}

http::response<http::string_body> ResponseOf(const Step& step, const Answered& answered,
                                             sim::TimePoint now, bool keep_alive,
                                             std::string_view range) {
  const scenarios::StepResult& result = answered.result;
  http::response<http::string_body> response(static_cast<http::status>(result.status), 11);
  const bool head = step.method == "HEAD";
  for (const auto& [name, value] : answered.answer.headers) {
    if (name != "Content-Length") response.set(name, value);
  }
  response.set(http::field::server, "faultline-live");
  response.set(http::field::date, DateOf(now, false));
  response.set("x-amz-request-id", fmt::format("step-{}", result.at.time_since_epoch().count()));
  const bool listing = step.method == "GET" && step.query.find("list-type=2") != std::string::npos;
  if (result.status == 200 && listing) {
    response.body() = CompleteListing(result.body, DateOf(now, true));
  } else if (!head) {
    response.body() = result.body;
  }
  if (result.status == 200 && !listing && step.query.empty()) {
    response.set(http::field::last_modified, DateOf(now, false));
  }
  if (result.status >= 400 && !answered.answer.headers.contains("Content-Type")) {
    response.set(http::field::content_type, "application/xml");
  }
  if (result.status == 200 && step.method == "GET" && !listing && !range.empty()) {
    ServeRange(range, response);
  }
  response.keep_alive(keep_alive);
  if (head) {
    const auto length = answered.answer.headers.find("Content-Length");
    std::uint64_t size = 0;
    if (length != answered.answer.headers.end()) {
      const std::string& digits = length->second;
      std::from_chars(digits.data(), digits.data() + digits.size(), size);
    }
    response.content_length(size);
  } else {
    response.prepare_payload();
  }
  return response;
}

asio::awaitable<void> Write(beast::tcp_stream& stream, http::response<http::string_body> response,
                            bool head) {
  boost::system::error_code error;
  if (head) {
    http::response_serializer<http::string_body> serializer(response);
    co_await http::async_write_header(stream, serializer,
                                      asio::redirect_error(asio::use_awaitable, error));
  } else {
    co_await http::async_write(stream, response, asio::redirect_error(asio::use_awaitable, error));
  }
}

http::status StatusOfParseError(const boost::system::error_code& error) {
  if (error == http::error::body_limit) return http::status::payload_too_large;
  if (error == http::error::header_limit) return http::status::request_header_fields_too_large;
  return http::status::bad_request;
}

asio::awaitable<void> Serve(Server& server, tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer;
  for (int served = 0; served < kMaxRequestsPerConnection && !server.stopping(); ++served) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(kMaxHeader);
    parser.body_limit(kMaxBody);
    stream.expires_after(kIdle);
    boost::system::error_code error;
    co_await http::async_read_header(stream, buffer, parser,
                                     asio::redirect_error(asio::use_awaitable, error));
    if (!error && parser.get()[http::field::expect] == "100-continue") {
      http::response<http::empty_body> go_on(http::status::continue_, 11);
      co_await http::async_write(stream, go_on, asio::redirect_error(asio::use_awaitable, error));
    }
    if (!error) {
      co_await http::async_read(stream, buffer, parser,
                                asio::redirect_error(asio::use_awaitable, error));
    }
    if (error == http::error::end_of_stream || error == asio::error::eof ||
        error == beast::error::timeout || error == asio::error::operation_aborted ||
        error == asio::error::connection_reset) {
      co_return;
    }
    // (Each response is built before it is awaited: GCC 12 miscompiles
    // temporaries with string members built in a co_await expression.)
    if (error) {
      http::response<http::string_body> refusal =
          Refusal(StatusOfParseError(error), "BadRequest",
                  fmt::format("cannot read the request: {}", error.message()));
      co_await Write(stream, std::move(refusal), false);
      co_return;
    }
    const http::request<http::string_body>& request = parser.get();
    std::variant<Step, std::string> step = StepOf(request);
    if (auto* why = std::get_if<std::string>(&step)) {
      http::response<http::string_body> refusal =
          Refusal(http::status::bad_request, "InvalidRequest", *why);
      co_await Write(stream, std::move(refusal), false);
      co_return;
    }
    const bool keep_alive = request.keep_alive();
    const std::string range(request[http::field::range]);
    stream.expires_never();
    const Step& taken = std::get<Step>(step);
    std::shared_ptr<Answered> done = co_await server.Perform(taken);
    const Answered& answered = *done;
    if (answered.result.status == 0) {
      // No answer reached the client (the proxy is down, or never
      // answered): the connection goes, as a real one would.
      server.Say(fmt::format("live: S3 {} {}: no answer ({}); connection closed", taken.method,
                             taken.path, answered.result.outcome));
      co_return;
    }
    http::response<http::string_body> response =
        ResponseOf(taken, answered, server.session().Now(), keep_alive, range);
    co_await Write(stream, std::move(response), taken.method == "HEAD");
    if (!keep_alive) co_return;
  }
}

}  // namespace

asio::awaitable<void> AcceptS3(Server& server, tcp::acceptor& acceptor) {
  constexpr std::uint64_t kMaxAccepts = std::uint64_t{1} << 40;
  for (std::uint64_t n = 0; n < kMaxAccepts && !server.stopping(); ++n) {
    tcp::socket socket(server.io());
    if (!co_await AcceptNext(server, acceptor, socket)) continue;
    asio::co_spawn(server.io(), Serve(server, std::move(socket)),
                   SayIfThrown(server, "an S3 connection"));
  }
}

}  // namespace faultline::live
