// The image versions of the seed stories: the migrations each bundles and
// what its code expects (../shared/reference/seed-cluster.md).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fakes/compose.h"
#include "fakes/runtime.h"
#include "models/migrate/runner.h"
#include "models/migrate/source.h"
#include "models/s3/kuri_node.h"
#include "models/s3/s3_proxy.h"

namespace faultline::models::s3 {

// filecoingw_s3 as the new image's migrations define it (S3Objects with
// node_id and expires_at; MultipartUploads from 1756300000).
migrate::MigrationSource S3KeyspaceMigrations();
// The same folder as the old image had it: only 1754293669, and S3Objects
// without node_id.
migrate::MigrationSource OldS3KeyspaceMigrations();
// A node's own keyspace: plain CREATE TABLE statements (no IF NOT EXISTS),
// so a re-run migration meets Duplicate Object, as in the seeds.
migrate::MigrationSource NodeKeyspaceMigrations();

NodeImage SeedNodeImage();     // "v2": writes node_id.
NodeImage OldSeedNodeImage();  // "v1": does not know node_id.
ProxyImage SeedProxyImage();
// The old era's proxy: its folder creates S3Objects without node_id.
ProxyImage OldSeedProxyImage();
// The fix for the stale schema: the new columns come as a versioned
// migration (ALTER TABLE ... ADD) instead of an edited CREATE ... IF NOT EXISTS.
ProxyImage VersionedProxyImage();

}  // namespace faultline::models::s3

namespace faultline::models::s3 {

inline constexpr const char* kDbInitImage = "db-init";

// The db-init job's entry point: waits for the store (up to `attempts`
// tries a second apart), then runs the seed's script (RunDbInit); exits 0
// whatever the statements did, 1 only when the store never answered.
// Environment: KEYSPACES ("a,b,c") replaces the plan's keyspaces;
// STORE_HOST (yugabyte).
fakes::EntryPoint DbInitEntryPoint(migrate::DbInitPlan plan, int attempts = 30);

// The seed's plan: the three keyspaces; with `with_files`, the buggy version
// that also runs the old image's S3Objects file in filecoingw_s3.
migrate::DbInitPlan SeedDbInitPlan(bool with_files);

}  // namespace faultline::models::s3

namespace faultline::models::s3 {

// The seed's node and proxy image versions, by version, each with runners
// of its own (a runner may hold state, so two simulations never share one).
std::map<std::string, NodeImage> SeedNodeImages();
std::map<std::string, ProxyImage> SeedProxyImages();

// Registers every image of the seed cluster on `runtime`: the store
// ("yugabyte" 2.20 and "cassandra"), the node ("kuri" v1 old, v2 new, "safe" and "db-init"
// with those runners), the proxy ("s3-proxy" v1 old, v2 new, "v2-versioned",
// "safe") and db-init ("v1", "buggy" which also runs the old S3Objects
// file, and "patient" which waits out a long partition).
void RegisterSeedImages(fakes::Runtime& runtime);
// The CQL dialect the store image `version` speaks: Cassandra's for
// "cassandra", YCQL's for the rest.
cql::Dialect StoreDialect(std::string_view version);

// The versions RegisterSeedImages registers for `image`, in order; the
// store's "cassandra" runs it with Cassandra's weaker schema agreement
// (models/cql/schema_agreement.h).
const std::vector<std::string>& SeedImageVersions(std::string_view image);

// The shape of a cluster like the seed's: how many storage nodes, whether
// each migrates a keyspace of its own (filecoingw_kuri1 ...) or all share
// kSharedNodeKeyspace, and the node and db-init image versions.
inline constexpr int kMaxNodes = 16;
inline constexpr const char* kSharedNodeKeyspace = "filecoingw_kuri";
struct ClusterShape {
  int nodes = 2;  // 1 to kMaxNodes: kuri-1 .. kuri-N, on ports 7001 ...
  bool shared_node_keyspace = false;
  std::string node_version = "v2";
  std::string db_init_version = "v1";
};

// The compose file of such a cluster: yugabyte, db-init (after the store
// starts; it creates filecoingw_s3 and the nodes' keyspaces), the nodes and
// the s3-proxy over all of them (after db-init completes). The seed's is the
// default shape. REQUIRES: 1 <= shape.nodes <= kMaxNodes.
fakes::ComposeSpec ClusterComposeSpec(const ClusterShape& shape);
fakes::ComposeSpec SeedComposeSpec(const std::string& node_version = "v2",
                                   const std::string& db_init_version = "v1");
// "kuri-3": node i's service name (from 1).
std::string NodeServiceName(int node);

// The environment variables an image's code reads (for checking a
// scenario's [[service]] env when it is read), in order.
const std::vector<std::string>& EnvironmentKeys(std::string_view image);

}  // namespace faultline::models::s3
