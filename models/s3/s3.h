// What the storage node and the S3 proxy share: request paths, S3-style XML
// error bodies, the index table's name, and the start-up retry wrapper the
// seed gateway puts around its migrations.
#pragma once

#include <functional>

#include <cstdint>
#include <optional>
#include <string>

#include "fakes/network.h"
#include "fakes/runtime.h"
#include "models/cql/client.h"
#include "sim/sim.h"

namespace faultline::models::s3 {

inline constexpr const char* kIndexKeyspace = "filecoingw_s3";
inline constexpr const char* kObjectsTable = "s3objects";

// "/bucket/key/with/slashes" -> bucket and key; nullopt when either is empty.
struct ObjectPath {
  std::string bucket;
  std::string key;
};
std::optional<ObjectPath> ParseObjectPath(const std::string& path);
// "/bucket" (no key): a bucket-level request.
bool IsBucketPath(const std::string& path);

// An S3 error response: status, and the XML body S3 sends.
fakes::Response ErrorResponse(int status, std::string_view code, std::string_view message,
                              std::string_view resource);

// A stand-in for an object's CID: its content hash, "bafk<16 hex digits>".
std::string ContentId(std::string_view bytes);

// A port number from text ("7001"), or 0 when it is not one.
std::uint16_t ParsePort(std::string_view text);

// The header a proxy that encodes bodies sends (the encodes-bodies proxy), and its
// one value.
inline constexpr const char* kBodyEncodingHeader = "X-Body-Encoding";
inline constexpr const char* kBase64 = "base64";

// RFC 4648 base64 with padding, for a proxy that encodes bodies; Decode
// gives nullopt for text that is not base64.
std::string EncodeBase64(std::string_view bytes);
std::optional<std::string> DecodeBase64(std::string_view text);

// Who a service is, for migration locks: its name and incarnation, so that
// a restarted service waits for its own old lease to expire rather than
// sharing it with a run that may still be in flight.
std::string LockOwner(fakes::ContainerContext& context);

// The gateway's start-up retry: `attempts` tries, sleeping `initial` after the
// first failure, doubling up to `cap`. The seed's values: 30, 2 s, 15 s.
struct RetryPolicy {
  int attempts = 30;
  sim::Duration initial = std::chrono::seconds(2);
  sim::Duration cap = std::chrono::seconds(15);
  friend bool operator==(const RetryPolicy&, const RetryPolicy&) = default;
};

// The wait after `delay` between two start-up attempts: doubled, up to
// the policy's cap.
sim::Duration NextRetryDelay(const RetryPolicy& policy, sim::Duration delay);
// Every wait between a start-up's attempts added up (not the attempts' own
// time): how long RetryCqlStartup retries at least before it gives up.
sim::Duration RetryWaits(const RetryPolicy& policy);

// The gateway's retryCQLStartup (filecoin-gateway, db/cql/cql.go): calls
// `attempt` up to policy.attempts times, sleeping between tries (doubling up
// to the cap), and logs nothing; the last error comes back as
// "<what> after <N> attempts: <error>".
sim::Awaitable<sim::Status> RetryCqlStartup(std::string what, RetryPolicy policy,
                                            std::function<sim::Awaitable<sim::Status>()> attempt);

// After its migrations, NewYugabyteCqlDb makes the gateway's own session
// (bound to `keyspace`) in the same retry: "create cql session: create
// yugabyte cql session after N attempts: <gocql's error>".
sim::Awaitable<sim::Status> CreateGatewaySession(cql::CqlSession& session, std::string keyspace,
                                                 RetryPolicy policy);

}  // namespace faultline::models::s3
