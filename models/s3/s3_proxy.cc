#include "models/s3/s3_proxy.h"

#include <fmt/format.h>

#include <charconv>

#include "fakes/runtime.h"
#include "models/cql/client.h"
#include "models/s3/multipart.h"
#include "sim/assert.h"

namespace faultline::models::s3 {
namespace {

using fakes::Endpoint;
using fakes::Request;
using fakes::Response;

std::vector<Endpoint> ParseBackends(const std::string& text) {
  std::vector<Endpoint> backends;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const std::size_t colon = item.find(':');
    const std::uint16_t port =
        colon == std::string::npos ? 0 : ParsePort(std::string_view(item).substr(colon + 1));
    if (port != 0) backends.emplace_back(item.substr(0, colon), port);  // Others are skipped.
    FL_ASSERT(end + 1 > start);  // Each item moves past the last.
    start = end + 1;
  }
  return backends;
}

class Proxy {
 public:
  Proxy(fakes::ContainerContext& context, const ProxyImage& image)
      : context_(context),
        image_(image),
        backends_(ParseBackends(context.Env("BACKENDS", "kuri-1:7001,kuri-2:7002"))),
        healthy_(backends_.size(), false),
        probe_interval_(ProxyProbeInterval(context.spec(), image.probe_interval)),
        session_(context.network(), SessionOptions(context)) {
    FL_ASSERT(healthy_.size() == backends_.size());
  }

  sim::Awaitable<int> Run() {
    if (!probe_interval_) {  // A scenario file's is refused when read.
      context_.Log("s3-proxy: invalid PROBE_INTERVAL_MS '" + context_.Env("PROBE_INTERVAL_MS") +
                   "'");
      co_return 1;
    }
    if (sim::Status migrated = co_await MigrateWithRetries(); !migrated.ok()) {
      context_.Log("s3-proxy: cannot start: " + migrated.message());
      co_return 1;
    }
    if (sim::Status connected =
            co_await CreateGatewaySession(session_, kIndexKeyspace, image_.startup_retry);
        !connected.ok()) {
      context_.Log("s3-proxy: cannot start: " + connected.message());
      co_return 1;
    }
    if (backends_.empty()) {
      context_.Log("s3-proxy: no valid backend in BACKENDS '" + context_.Env("BACKENDS") + "'");
      co_return 1;
    }
    for (std::size_t i = 0; i < backends_.size(); ++i) co_await Probe(i);
    // One prober per backend, so that a slow one does not delay the others.
    for (std::size_t i = 0; i < backends_.size(); ++i) {
      context_.process().Spawn("health-" + backends_[i].host,
                               [this, i]() -> sim::Awaitable<void> { co_await ProbeForever(i); });
    }
    context_.network().Listen(context_.process(), kProxyPort,
                              [this](Request request) -> sim::Awaitable<Response> {
                                co_return co_await Handle(std::move(request));
                              });
    listening_ = true;
    context_.SetReady(AnyHealthy());
    context_.Log(
        fmt::format("s3-proxy serving on port {} with {} backends", kProxyPort, backends_.size()));
    co_await context_.StopRequested();
    co_return 0;
  }

 private:
  static cql::ClientOptions SessionOptions(fakes::ContainerContext& context) {
    cql::ClientOptions options;
    options.store = Endpoint(context.Env("STORE_HOST", "yugabyte"), cql::kCqlPort);
    return options;
  }

  // The same gateway start-up as a node's (models/s3/s3.h).
  sim::Awaitable<sim::Status> MigrateWithRetries() {
    co_return co_await RetryCqlStartup(
        "initialize yugabyte cql", image_.startup_retry, [this]() -> sim::Awaitable<sim::Status> {
          co_return co_await image_.runner->Migrate(
              session_, kIndexKeyspace, image_.migrations, LockOwner(context_),
              [this](const std::string& line) { context_.Log(line); });
        });
  }

  sim::Awaitable<void> Probe(std::size_t i) {
    FL_ASSERT_MSG(i < backends_.size(), "probe of backend {} of {}", i, backends_.size());
    sim::Result<Response> answer = co_await context_.network().Call(
        backends_[i], Request("GET", "/healthz"), image_.backend_timeout);
    FL_ASSERT(healthy_.size() == backends_.size());
    healthy_[i] = answer.ok() && answer->status == 200;
    if (listening_) context_.SetReady(AnyHealthy());
  }
  bool AnyHealthy() const {
    return std::find(healthy_.begin(), healthy_.end(), true) != healthy_.end();
  }
  sim::Awaitable<void> ProbeForever(std::size_t i) {
    FL_ASSERT(i < backends_.size());
    // A bound far past any run (a probe a millisecond, the shortest
    // PROBE_INTERVAL_MS, for 30 virtual years); a
    // stop or crash of the proxy ends it long before.
    constexpr std::int64_t kMaxProbes = std::int64_t{1} << 40;
    bool answered = healthy_[i];
    for (std::int64_t probe = 0; probe < kMaxProbes; ++probe) {
      co_await sim::SleepFor(*probe_interval_);
      co_await Probe(i);
      answered = answered || healthy_[i];
      // The no-reprobe image drops a backend that answered once and then
      // failed a probe: it never notices that the node came back.
      if (!image_.reprobes_failed_backends && answered && !healthy_[i]) {
        context_.Log(
            fmt::format("s3-proxy: backend {} failed a probe; dropped", backends_[i].host));
        co_return;
      }
    }
  }

  sim::Awaitable<Response> Handle(Request request) {
    if (request.path == "/healthz") {
      co_return AnyHealthy() ? Response(200, "ok") : Response(503, "no healthy backend");
    }
    // Bucket listings and locations: any healthy backend can answer.
    if (request.method == "GET" && IsBucketPath(request.path)) {
      co_return co_await RoundRobin(std::move(request));
    }
    // A bucket is only a column of the index (bucket, key): creating one
    // (CreateBucket, `aws s3 mb`, `s3cmd mb`) has nothing to store.
    if ((request.method == "PUT" || request.method == "HEAD") && IsBucketPath(request.path)) {
      co_return Response(200, "");
    }
    const std::optional<ObjectPath> object = ParseObjectPath(request.path);
    if (!object) co_return ErrorResponse(400, "InvalidRequest", "no bucket and key", request.path);
    const std::optional<std::string> upload = QueryParameter(request.query, "uploadId");
    const bool initiate = request.method == "POST" && QueryParameter(request.query, "uploads");
    // Writes, parts and initiates go round-robin; complete and abort go to
    // the upload's coordinator; the rest to the node holding the object.
    if (request.method == "PUT" && image_.encodes_bodies) {
      request.body = EncodeBase64(request.body);
      request.headers[kBodyEncodingHeader] = kBase64;
    }
    if (request.method == "PUT" || initiate) co_return co_await RoundRobin(std::move(request));
    if (upload) co_return co_await ByUpload(*upload, std::move(request));
    co_return co_await ByIndex(*object, std::move(request));
  }

  sim::Awaitable<Response> RoundRobin(Request request) {
    // Requests are served only once Run has found a backend.
    FL_ASSERT(!backends_.empty());
    for (std::size_t tried = 0; tried < backends_.size(); ++tried) {
      const std::size_t i = next_++ % backends_.size();
      FL_ASSERT(i < healthy_.size());
      if (healthy_[i]) co_return co_await Forward(backends_[i], std::move(request));
    }
    co_return ErrorResponse(503, "ServiceUnavailable", "no healthy backend", request.path);
  }

  sim::Awaitable<Response> ByUpload(std::string upload, Request request) {
    std::vector<cql::Value> key;
    key.push_back(cql::Value::Text(upload));
    cql::ClientResult lookup = co_await session_.Query(
        fmt::format("SELECT node_id FROM {}.multipartuploads WHERE upload_id = ?", kIndexKeyspace),
        std::move(key));
    co_return co_await ToOwner(lookup, "NoSuchUpload", "The specified upload does not exist.",
                               std::move(request));
  }

  sim::Awaitable<Response> ByIndex(ObjectPath object, Request request) {
    std::vector<cql::Value> key;
    key.push_back(cql::Value::Text(object.bucket));
    key.push_back(cql::Value::Text(object.key));
    cql::ClientResult lookup = co_await session_.Query(
        fmt::format("SELECT {} FROM {}.{} WHERE bucket = ? AND key = ?",
                    image_.reads_node_id ? "node_id" : "bucket", kIndexKeyspace, kObjectsTable),
        std::move(key));
    if (!image_.reads_node_id) co_return co_await ToHolder(lookup, std::move(request));
    co_return co_await ToOwner(lookup, "NoSuchKey", "The specified key does not exist.",
                               std::move(request));
  }

  // The old image's routing: the index says the object exists, and the first
  // healthy backend that has it (HEAD 200) gets the request; 404 when none
  // has it, 503 when no backend is healthy.
  sim::Awaitable<Response> ToHolder(const cql::ClientResult& lookup, Request request) {
    if (!lookup.ok()) {
      context_.Log("lookup failed: " + lookup.ToString());
      co_return ErrorResponse(500, "InternalError", lookup.ToString(), request.path);
    }
    if (lookup.result.rows.empty()) {
      co_return ErrorResponse(404, "NoSuchKey", "The specified key does not exist.", request.path);
    }
    bool any_healthy = false;
    for (std::size_t i = 0; i < backends_.size(); ++i) {
      if (!healthy_[i]) continue;
      any_healthy = true;
      sim::Result<Response> has = co_await context_.network().Call(
          backends_[i], Request("HEAD", request.path), image_.backend_timeout);
      if (has.ok() && has->status == 200)
        co_return co_await Forward(backends_[i], std::move(request));
    }
    if (!any_healthy) {
      co_return ErrorResponse(503, "ServiceUnavailable", "no healthy backend", request.path);
    }
    co_return ErrorResponse(404, "NoSuchKey", "The specified key does not exist.", request.path);
  }

  // Forwards to the node a lookup of node_id named: 500 when the lookup
  // failed, 404 (`missing`) when it found nothing, 503 when the node is
  // unknown or unhealthy, 502 when forwarding fails.
  sim::Awaitable<Response> ToOwner(const cql::ClientResult& lookup, std::string_view missing,
                                   std::string_view missing_message, Request request) {
    if (!lookup.ok()) {
      context_.Log("lookup failed: " + lookup.ToString());
      co_return ErrorResponse(500, "InternalError", lookup.ToString(), request.path);
    }
    if (lookup.result.rows.empty()) {
      co_return ErrorResponse(404, missing, missing_message, request.path);
    }
    const cql::Value& node_id = lookup.result.rows.front().at(0);
    for (std::size_t i = 0; i < backends_.size(); ++i) {
      if (node_id.kind == cql::Value::Kind::kText && backends_[i].host == node_id.bytes &&
          healthy_[i]) {
        co_return co_await Forward(backends_[i], std::move(request));
      }
    }
    co_return ErrorResponse(
        503, "ServiceUnavailable",
        fmt::format("backend '{}' is unknown or unhealthy",
                    node_id.kind == cql::Value::Kind::kText ? node_id.bytes : "null"),
        request.path);
  }

  sim::Awaitable<Response> Forward(Endpoint backend, Request request) {
    const std::string resource = request.path;
    sim::Result<Response> answer =
        co_await context_.network().Call(backend, std::move(request), image_.backend_timeout);
    if (!answer.ok()) {
      co_return ErrorResponse(502, "BadGateway", answer.status().ToString(), resource);
    }
    co_return std::move(answer).value();
  }

  fakes::ContainerContext& context_;
  const ProxyImage& image_;
  std::vector<Endpoint> backends_;
  std::vector<bool> healthy_;
  std::optional<sim::Duration> probe_interval_;  // Empty: malformed (Run ends).
  bool listening_ = false;                       // Readiness is said only once requests are served.
  std::size_t next_ = 0;
  cql::CqlSession session_;
};

}  // namespace

std::optional<sim::Duration> ProxyProbeInterval(const fakes::ServiceSpec& service,
                                                sim::Duration image) {
  const auto found = service.environment.find("PROBE_INTERVAL_MS");
  if (found == service.environment.end()) return image;
  const std::string& text = found->second;
  std::int64_t ms = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (error != std::errc() || end != text.data() + text.size() || ms < 1 ||
      ms > kMaxProbeIntervalMs) {
    return std::nullopt;
  }
  return std::chrono::milliseconds(ms);
}

fakes::EntryPoint ProxyEntryPoint(ProxyImage image) {
  auto shared = std::make_shared<const ProxyImage>(std::move(image));
  return [shared](fakes::ContainerContext& context) -> sim::Awaitable<int> {
    Proxy proxy(context, *shared);
    co_return co_await proxy.Run();
  };
}

fakes::ServiceSpec ProxyServiceSpec(const std::vector<fakes::Endpoint>& backends,
                                    const std::string& version) {
  fakes::ServiceSpec spec;
  spec.name = kProxyService;
  spec.image = kProxyImage;
  spec.version = version;
  std::string list;
  for (const fakes::Endpoint& backend : backends) {
    list += (list.empty() ? "" : ",") + fakes::FormatEndpoint(backend);
  }
  FL_ASSERT(backends.empty() || !list.empty());
  spec.environment["BACKENDS"] = list;
  spec.restart = fakes::RestartPolicy::kAlways;
  return spec;
}

}  // namespace faultline::models::s3
