// The S3 proxy: stateless, it routes S3 requests to the storage nodes as the
// seed gateway's front end does (../shared/reference/seed-cluster.md).
// - PUT: round-robin over healthy backends; none healthy -> 503.
// - GET/HEAD/DELETE: look up node_id in filecoingw_s3.s3objects; no row ->
//   404, lookup error (Undefined Column ...) -> 500, node_id unknown or its
//   backend unhealthy -> 503, forwarding fails -> 502. An image that does
//   not read node_id finds the holder by asking each healthy backend.
// - GET /healthz: 200 when a backend is healthy, else 503.
// Backends are probed on /healthz every `probe_interval` (PROBE_INTERVAL_MS
// overrides the image's, ProxyProbeInterval). At start-up the
// proxy runs its own migrations for filecoingw_s3, inside the retry wrapper.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fakes/compose.h"
#include "models/migrate/runner.h"
#include "models/s3/s3.h"

namespace faultline::models::s3 {

inline constexpr const char* kProxyImage = "s3-proxy";
inline constexpr const char* kProxyService = "s3-proxy";  // Its service's name.
inline constexpr std::uint16_t kProxyPort = 8078;

struct ProxyImage {
  migrate::MigrationSource migrations;  // For filecoingw_s3.
  // What its code reads: the new image looks up node_id in S3Objects to
  // route GET/HEAD/DELETE; the old one, whose S3Objects has no node_id,
  // checks the row exists and asks the healthy backends in turn (HEAD)
  // which one holds the object. An image's code and migrations must agree.
  bool reads_node_id = true;
  RetryPolicy startup_retry;
  std::shared_ptr<migrate::MigrationRunner> runner =
      std::make_shared<migrate::GolangMigrateRunner>();
  // What its code does that the seed's v2 does not (the teaching
  // catalogue's failure classes, seed_images.cc): send PUT bodies base64
  // encoded (X-Body-Encoding), which a node that does not know the header
  // stores as they came; stop probing a backend after its first failed probe
  // once it had answered, so a node that restarts stays down for the proxy.
  bool encodes_bodies = false;
  bool reprobes_failed_backends = true;
  sim::Duration probe_interval = std::chrono::seconds(1);
  sim::Duration backend_timeout = std::chrono::seconds(5);
};

// Environment: BACKENDS ("kuri-1:7001,kuri-2:7002"), STORE_HOST (yugabyte),
// PROBE_INTERVAL_MS (ProxyProbeInterval).
fakes::EntryPoint ProxyEntryPoint(ProxyImage image);

// How often the proxy probes each backend: PROBE_INTERVAL_MS, 1 to
// kMaxProbeIntervalMs, else the image's; empty when it is malformed.
inline constexpr std::int64_t kMaxProbeIntervalMs = 3'600'000;
std::optional<sim::Duration> ProxyProbeInterval(const fakes::ServiceSpec& service,
                                                sim::Duration image);

fakes::ServiceSpec ProxyServiceSpec(const std::vector<fakes::Endpoint>& backends,
                                    const std::string& version = "v2");

}  // namespace faultline::models::s3
