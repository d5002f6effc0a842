// The s3 and multipart steps (steps/perform.h): a request
// through the proxy or to a node, and what its answer says it did to the
// object, for acknowledged-writes (World::acknowledged, ::indeterminate).

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fakes/network.h"
#include "models/cql/client.h"
#include "models/cql/server.h"
#include "models/s3/multipart.h"
#include "models/s3/s3.h"
#include "models/s3/s3_proxy.h"
#include "scenarios/steps/perform.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

using sim::Awaitable;

constexpr sim::Duration kRequestTimeout = std::chrono::seconds(30);

const fakes::Endpoint& Proxy() {
  static const fakes::Endpoint kProxy("s3-proxy", models::s3::kProxyPort);
  return kProxy;
}

// What a write's answer says it did.
enum class WriteOutcome : unsigned char {
  kDone,     // Acknowledged: through the proxy, 200 (PUT) or 204 (DELETE).
  kRefused,  // Certainly nothing: never delivered (connection refused), a 4xx, or a 503,
             // which the proxy and the node answer before writing anything.
  kUnknown,  // Anything else (a 500, a 502, a timeout): it may take effect, at any time.
};

WriteOutcome OutcomeOf(int status, sim::StatusCode transport, bool through_proxy, bool put) {
  if (transport == sim::StatusCode::kUnavailable) return WriteOutcome::kRefused;
  if ((status >= 400 && status < 500) || status == 503) return WriteOutcome::kRefused;
  // Straight to a node, even a success is unknown to the proxy's readers:
  // the bytes the index points at may have changed, the index has not.
  if (through_proxy && status == (put ? 200 : 204)) return WriteOutcome::kDone;
  return WriteOutcome::kUnknown;
}

// Notes what a PUT or DELETE of object `path` did, for acknowledged-writes.
void NoteOutcome(World& world, std::string_view method, const std::string& path,
                 std::string_view body, WriteOutcome outcome) {
  if (!models::s3::ParseObjectPath(path)) return;  // /healthz, a bucket: no object.
  if (outcome == WriteOutcome::kRefused) return;
  const bool done = outcome == WriteOutcome::kDone;
  if (method == "PUT") {
    if (done) {
      world.acknowledged[path] = World::Acknowledged::Of(body);
    } else {
      world.indeterminate[path].Put(body);
    }
  } else if (method == "DELETE") {
    if (done) {
      world.acknowledged.erase(path);
    } else {
      world.indeterminate[path].maybe_deleted = true;
    }
  }
}

// Where an S3 step goes: the proxy, or the node (or proxy) it names.
std::optional<fakes::Endpoint> S3Endpoint(const World& world, const std::string& service) {
  if (service.empty()) return Proxy();
  for (const ServedService& served : world.served) {
    if (served.name == service && served.image != models::cql::kStoreImage) return served.endpoint;
  }
  return std::nullopt;
}

// How far an upload got: only its complete can change the object.
struct UploadState {
  int code = 0;                                      // The last answer's status.
  bool completing = false;                           // The complete was sent.
  sim::StatusCode transport = sim::StatusCode::kOk;  // The complete's, when it had no answer.
};

// A stage of an upload that failed: "part 2: <why>", with the status
// answered, if any.
StepOutcome UploadFailed(std::string_view stage, int status, std::string why) {
  StepOutcome failed = StepOutcome::Failed(fmt::format("{}: {}", stage, why));
  failed.status = status;
  return failed;
}

// Initiate, upload each part, complete: the whole upload as a client does
// it, through the proxy. The outcome is the complete's answer.
Awaitable<StepOutcome> Upload(World& world, const Step& step, std::shared_ptr<UploadState> state) {
  sim::Result<fakes::Response> initiated = co_await world.network.Call(
      Proxy(), fakes::Request("POST", step.path, "", {}, "uploads"), kRequestTimeout);
  if (!initiated.ok()) co_return UploadFailed("initiate", 0, initiated.status().ToString());
  const std::string& body = initiated->body;
  const std::size_t open = body.find("<UploadId>");
  const std::size_t close = body.find("</UploadId>");
  if (initiated->status != 200 || open == std::string::npos || close == std::string::npos) {
    state->code = initiated->status;
    co_return UploadFailed("initiate", initiated->status,
                           fmt::format("{} {}", initiated->status, body));
  }
  const std::string upload = body.substr(open + 10, close - open - 10);
  std::vector<std::pair<int, std::string>> etags;
  for (std::size_t i = 0; i < step.parts.size(); ++i) {
    const std::string query = fmt::format("partNumber={}&uploadId={}", i + 1, upload);
    sim::Result<fakes::Response> part = co_await world.network.Call(
        Proxy(), fakes::Request("PUT", step.path, step.parts[i], {}, query), kRequestTimeout);
    if (!part.ok() || part->status != 200 || !part->headers.contains("ETag")) {
      state->code = part.ok() ? part->status : 0;
      co_return UploadFailed(fmt::format("part {}", i + 1), state->code,
                             part.ok() ? part->body : part.status().ToString());
    }
    const std::string& etag = part->headers.at("ETag");
    etags.emplace_back(static_cast<int>(i + 1), etag.substr(1, etag.size() - 2));
  }
  state->completing = true;
  sim::Result<fakes::Response> completed = co_await world.network.Call(
      Proxy(),
      fakes::Request("POST", step.path, models::s3::CompleteBody(etags), {}, "uploadId=" + upload),
      kRequestTimeout);
  if (!completed.ok()) {
    state->transport = completed.status().code();
    co_return UploadFailed("complete", 0, completed.status().ToString());
  }
  state->code = completed->status;
  co_return StepOutcome::Answer(completed->status, completed->body);
}

}  // namespace

StepOutcome PerformS3(World& world, const Step& step) {
  FL_ASSERT(!step.method.empty());  // The reader requires both.
  FL_ASSERT(!step.path.empty());
  const std::optional<fakes::Endpoint> endpoint = S3Endpoint(world, step.service);
  if (!endpoint) {
    return StepOutcome::Failed("no S3 endpoint named " + step.service + " (the proxy or a node)");
  }
  auto transport = std::make_shared<sim::StatusCode>(sim::StatusCode::kOk);
  world.last_answer.headers.clear();
  StepOutcome out = world.RunProcess(
      kClientHost,
      [&world, &step, transport, endpoint](models::cql::CqlSession&) -> Awaitable<StepOutcome> {
        fakes::Request request(step.method, step.path, step.body, {}, step.query);
        sim::Result<fakes::Response> response =
            co_await world.network.Call(*endpoint, std::move(request), kRequestTimeout);
        if (!response.ok()) {
          *transport = response.status().code();
          co_return StepOutcome::Failed(response.status().ToString());
        }
        world.last_answer.headers = response->headers;
        co_return StepOutcome::Answer(response->status, response->body);
      });
  const int status = out.status;
  const bool through_proxy = step.service.empty() || step.service == Proxy().host;
  const bool put = step.method == "PUT";
  if (step.query.empty()) {
    NoteOutcome(world, step.method, step.path, step.body,
                OutcomeOf(status, *transport, through_proxy, put));
  } else if ((put || step.method == "POST") && step.query.find("uploads") == std::string::npos &&
             step.query.find("partNumber") == std::string::npos) {
    // A hand-written complete (or a PUT with another query, which the node
    // takes as a plain write) may replace the object with bytes the step
    // does not spell: any bytes may now be read.
    if (OutcomeOf(status, *transport, false, true) != WriteOutcome::kRefused &&
        models::s3::ParseObjectPath(step.path)) {
      world.indeterminate[step.path].any_bytes = true;
    }
  }
  return out;
}

StepOutcome PerformMultipart(World& world, const Step& step) {
  FL_ASSERT(!step.parts.empty());             // The reader requires a non-empty list.
  FL_ASSERT(step.parts.size() <= kMaxParts);  // The reader bounds them.
  auto state = std::make_shared<UploadState>();
  StepOutcome out = world.RunProcess(
      kClientHost, [&world, &step, state](models::cql::CqlSession&) -> Awaitable<StepOutcome> {
        co_return co_await Upload(world, step, state);
      });
  const int status = state->code;
  if (!state->completing) return out;  // Nothing but a complete changes the object.
  std::string whole;
  for (const std::string& part : step.parts) whole += part;
  NoteOutcome(world, "PUT", step.path, whole,
              OutcomeOf(status, state->transport, /*through_proxy=*/true, /*put=*/true));
  return out;
}

}  // namespace faultline::scenarios
