#include "models/s3/s3.h"
#include "sim/fnv.h"

#include <fmt/format.h>

#include <charconv>

#include "sim/assert.h"

namespace faultline::models::s3 {

std::optional<ObjectPath> ParseObjectPath(const std::string& path) {
  if (path.size() < 2 || path[0] != '/') return std::nullopt;
  const std::size_t slash = path.find('/', 1);
  if (slash == std::string::npos || slash == 1 || slash + 1 >= path.size()) return std::nullopt;
  ObjectPath object{path.substr(1, slash - 1), path.substr(slash + 1)};
  FL_ASSERT(!object.key.empty());
  FL_ASSERT(object.bucket.find('/') == std::string::npos);
  return object;
}

namespace {
std::string XmlEscaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}
}  // namespace

bool IsBucketPath(const std::string& path) {
  return path.size() > 1 && path[0] == '/' && path.find('/', 1) == std::string::npos;
}

std::string ContentId(std::string_view bytes) {
  std::string cid = fmt::format("bafk{:016x}", sim::Fnv1a64(bytes));
  FL_ASSERT(cid.size() == 20);  // ETags and the index depend on its shape.
  return cid;
}

std::uint16_t ParsePort(std::string_view text) {
  std::uint16_t port = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  return error == std::errc() && end == text.data() + text.size() ? port : 0;
}

sim::Duration NextRetryDelay(const RetryPolicy& policy, sim::Duration delay) {
  return std::min(delay * 2, policy.cap);
}

sim::Duration RetryWaits(const RetryPolicy& policy) {
  FL_ASSERT(policy.attempts >= 1 && policy.initial <= policy.cap);
  sim::Duration total{};
  sim::Duration delay = policy.initial;
  for (int tried = 1; tried < policy.attempts; ++tried) {  // As RetryCqlStartup sleeps.
    total += delay;
    delay = NextRetryDelay(policy, delay);
  }
  return total;
}

sim::Awaitable<sim::Status> RetryCqlStartup(std::string what, RetryPolicy policy,
                                            std::function<sim::Awaitable<sim::Status>()> attempt) {
  FL_ASSERT(policy.attempts >= 1);
  FL_ASSERT(policy.initial <= policy.cap);
  sim::Duration delay = policy.initial;
  sim::Status status = sim::Status::Ok();
  for (int tried = 1; tried <= policy.attempts; ++tried) {
    status = co_await attempt();
    if (status.ok()) co_return status;
    if (tried == policy.attempts) break;
    co_await sim::SleepFor(delay);
    delay = NextRetryDelay(policy, delay);
  }
  co_return sim::Status::FromCode(status.code(), fmt::format("{} after {} attempts: {}", what,
                                                             policy.attempts, status.message()));
}

sim::Awaitable<sim::Status> CreateGatewaySession(cql::CqlSession& session, std::string keyspace,
                                                 RetryPolicy policy) {
  const sim::Status created =
      co_await RetryCqlStartup("create yugabyte cql session", policy,
                               [&session, &keyspace]() -> sim::Awaitable<sim::Status> {
                                 co_return co_await session.Connect(keyspace);
                               });
  if (created.ok()) co_return created;
  co_return sim::Status::FromCode(created.code(), "create cql session: " + created.message());
}

std::string LockOwner(fakes::ContainerContext& context) {
  return fmt::format("{}/{}", context.name(), context.process().incarnation());
}

fakes::Response ErrorResponse(int status, std::string_view code, std::string_view message,
                              std::string_view resource) {
  FL_ASSERT_MSG(status >= 400, "an error response with status {}", status);
  FL_ASSERT_MSG(status <= 599, "an error response with status {}", status);
  fakes::Headers headers;
  headers["Content-Type"] = "application/xml";
  return fakes::Response(
      status,
      fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{}</Code><Message>{}"
                  "</Message><Resource>{}</Resource></Error>",
                  code, XmlEscaped(message), XmlEscaped(resource)),
      std::move(headers));
}

namespace {
constexpr std::string_view kBase64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}  // namespace

std::string EncodeBase64(std::string_view bytes) {
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t at = 0; at < bytes.size(); at += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - at);
    std::uint32_t group = 0;
    for (std::size_t i = 0; i < 3; ++i) {
      group = (group << 8) | (i < n ? static_cast<unsigned char>(bytes[at + i]) : 0u);
    }
    for (std::size_t i = 0; i < 4; ++i) {
      text += i <= n ? kBase64Alphabet[(group >> (18 - 6 * i)) & 0x3f] : '=';
    }
  }
  FL_ASSERT(text.size() % 4 == 0);
  return text;
}

std::optional<std::string> DecodeBase64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string bytes;
  for (std::size_t at = 0; at < text.size(); at += 4) {
    std::uint32_t group = 0;
    int padding = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      const char c = text[at + i];
      const std::size_t value = kBase64Alphabet.find(c);
      const bool pad = c == '=' && at + 4 == text.size() && i >= 2;
      if (value == std::string_view::npos && !pad) return std::nullopt;
      if (pad) ++padding;
      if (!pad && padding > 0) return std::nullopt;  // Nothing after '='.
      group = (group << 6) | (pad ? 0u : static_cast<std::uint32_t>(value));
    }
    for (int i = 0; i < 3 - padding; ++i) {
      bytes += static_cast<char>((group >> (16 - 8 * i)) & 0xff);
    }
  }
  return bytes;
}

}  // namespace faultline::models::s3
