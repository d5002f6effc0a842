#include "models/s3/seed_images.h"

#include <fmt/format.h>

#include <map>

#include "fakes/runtime.h"
#include "models/cql/client.h"
#include "models/cql/server.h"
#include "models/migrate/safe_runner.h"
#include "sim/assert.h"

namespace faultline::models::s3 {
namespace {

migrate::MigrationSource Source(std::vector<migrate::MigrationFile> files) {
  sim::Result<migrate::MigrationSource> source = migrate::MigrationSource::FromFiles(files);
  FL_ASSERT_MSG(source.ok(), "a built-in migration folder is malformed: {}",
                source.status().ToString());
  FL_ASSERT(!source->empty());
  return std::move(source).value();
}

constexpr const char* kOldObjects =
    "CREATE TABLE IF NOT EXISTS S3Objects (\n"
    "    bucket text,\n    key text,\n    cid text,\n    size bigint,\n    updated timestamp,\n"
    "    PRIMARY KEY (bucket, key)\n);\n";
constexpr const char* kObjects =
    "CREATE TABLE IF NOT EXISTS S3Objects (\n"
    "    bucket text,\n    key text,\n    cid text,\n    size bigint,\n    updated timestamp,\n"
    "    node_id text,\n    expires_at timestamp,\n    PRIMARY KEY (bucket, key)\n);\n";
constexpr const char* kMultipart =
    "CREATE TABLE IF NOT EXISTS MultipartUploads (\n"
    "    upload_id text PRIMARY KEY,\n    bucket text,\n    key text,\n    node_id text,\n"
    "    created timestamp,\n    status text\n);\n";

}  // namespace

migrate::MigrationSource S3KeyspaceMigrations() {
  return Source({{"1754293669_init_s3_object_index.up.cql", kObjects},
                 {"1756300000_multipart_uploads.up.cql", kMultipart}});
}

migrate::MigrationSource OldS3KeyspaceMigrations() {
  return Source({{"1754293669_init_s3_object_index.up.cql", kOldObjects}});
}

migrate::MigrationSource NodeKeyspaceMigrations() {
  return Source(
      {{"1754293669_init_s3_object_index.up.cql",
        "CREATE TABLE cidgroups (group_id bigint PRIMARY KEY, cids set<text>);\n"
        "CREATE TABLE multihashtogroup (multihash blob PRIMARY KEY, group_id bigint);\n"}});
}

NodeImage SeedNodeImage() {
  NodeImage image;
  image.migrations = NodeKeyspaceMigrations();
  image.writes_node_id = true;
  return image;
}

NodeImage OldSeedNodeImage() {
  NodeImage image = SeedNodeImage();
  image.writes_node_id = false;
  return image;
}

ProxyImage OldSeedProxyImage() {
  ProxyImage image;
  image.migrations = OldS3KeyspaceMigrations();
  image.reads_node_id = false;  // Its S3Objects has no node_id to read.
  return image;
}

ProxyImage VersionedProxyImage() {
  ProxyImage image;
  image.migrations = Source({{"1754293669_init_s3_object_index.up.cql", kOldObjects},
                             {"1755000000_add_node_id.up.cql",
                              "ALTER TABLE S3Objects ADD node_id text;\nALTER TABLE S3Objects ADD "
                              "expires_at timestamp;\n"},
                             {"1756300000_multipart_uploads.up.cql", kMultipart}});
  return image;
}

ProxyImage SeedProxyImage() {
  ProxyImage image;
  image.migrations = S3KeyspaceMigrations();
  return image;
}

}  // namespace faultline::models::s3

namespace faultline::models::s3 {

fakes::EntryPoint DbInitEntryPoint(migrate::DbInitPlan plan, int attempts) {
  FL_ASSERT_MSG(attempts >= 1, "db-init with {} attempts", attempts);
  auto shared = std::make_shared<const migrate::DbInitPlan>(std::move(plan));
  return [shared, attempts](fakes::ContainerContext& context) -> sim::Awaitable<int> {
    migrate::DbInitPlan plan = *shared;
    if (const std::string keyspaces = context.Env("KEYSPACES"); !keyspaces.empty()) {
      plan.keyspaces.clear();
      for (std::size_t start = 0; start <= keyspaces.size();) {
        const std::size_t comma = std::min(keyspaces.find(',', start), keyspaces.size());
        if (comma > start) plan.keyspaces.push_back(keyspaces.substr(start, comma - start));
        FL_ASSERT(comma + 1 > start);  // Each item moves past the last.
        start = comma + 1;
      }
      for (const std::string& keyspace : plan.keyspaces) {
        FL_ASSERT(!keyspace.empty());
        FL_ASSERT(keyspace.find(',') == std::string::npos);
      }
    }
    cql::ClientOptions options;
    options.store = fakes::Endpoint(context.Env("STORE_HOST", "yugabyte"), cql::kCqlPort);
    cql::CqlSession session(context.network(), options);
    auto log = [&context](const std::string& line) { context.Log(line); };
    for (int attempt = 1; attempt <= attempts; ++attempt) {
      sim::Status status = co_await migrate::RunDbInit(session, plan, log);
      if (status.ok()) co_return 0;
      context.Log("db-init: store not reachable (" + status.message() + "), retrying");
      co_await sim::SleepFor(std::chrono::seconds(1));
    }
    co_return 1;
  };
}

migrate::DbInitPlan SeedDbInitPlan(bool with_files) {
  migrate::DbInitPlan plan;
  plan.keyspaces = {"filecoingw_s3", "filecoingw_kuri1", "filecoingw_kuri2"};
  if (with_files) plan.sources.emplace_back("filecoingw_s3", OldS3KeyspaceMigrations());
  return plan;
}

}  // namespace faultline::models::s3

namespace faultline::models::s3 {

namespace {

// The node's versions, one entry each: the seed's, then one per failure
// class of the teaching catalogue (../shared/reference/failure-catalog.md)
// or the code that prevents it. The only list of them.
template <typename Image>
struct Version {
  const char* name;
  Image (*make)();
};

template <auto Change>
NodeImage SeedNodeWith() {
  NodeImage image = SeedNodeImage();
  Change(image.code);
  return image;
}

const std::vector<Version<NodeImage>>& NodeVersions() {
  using Journal = NodeCode::DeleteJournal;
  static const std::vector<Version<NodeImage>> kVersions = {
      {"v1", OldSeedNodeImage},
      {"v2", SeedNodeImage},
      {"safe",
       [] {
         NodeImage image = SeedNodeImage();
         image.runner = std::make_shared<migrate::SafeRunner>();
         return image;
       }},
      {"db-init",
       [] {
         NodeImage image = SeedNodeImage();
         image.runner = std::make_shared<migrate::DbInitStyleRunner>();
         return image;
       }},
      // v2 that also reads the framed format: the release to ship before
      // writes-framed, and to roll back to.
      {"reads-framed", SeedNodeWith<[](NodeCode& code) { code.reads_framed = true; }>},
      // The next release: keeps objects behind a header line, and understands a proxy that
      // encodes bodies.
      {"writes-framed", SeedNodeWith<[](NodeCode& code) {
         code.writes = ObjectFormat::kFramed;
         code.reads_framed = true;
         code.decodes_body_encoding = true;
       }>},
      {"no-fsync", SeedNodeWith<[](NodeCode& code) { code.syncs_before_ack = false; }>},
      {"swallows-index-error",
       SeedNodeWith<[](NodeCode& code) { code.index_errors_fail_put = false; }>},
      {"async-index", SeedNodeWith<[](NodeCode& code) { code.index_before_ack = false; }>},
      {"index-first-delete", SeedNodeWith<[](NodeCode& code) { code.index_first_delete = true; }>},
      {"serves-early", SeedNodeWith<[](NodeCode& code) { code.serves_before_migrating = true; }>},
      {"replays-deletes",
       SeedNodeWith<[](NodeCode& code) { code.delete_journal = Journal::kNeverCleared; }>},
      {"journal-cleared",
       SeedNodeWith<[](NodeCode& code) { code.delete_journal = Journal::kClearedWhenDone; }>},
  };
  return kVersions;
}

template <auto Change>
ProxyImage SeedProxyWith() {
  ProxyImage image = SeedProxyImage();
  Change(image);
  return image;
}

const std::vector<Version<ProxyImage>>& ProxyVersions() {
  static const std::vector<Version<ProxyImage>> kVersions = {
      {"v1", OldSeedProxyImage},
      {"v2", SeedProxyImage},
      {"v2-versioned", VersionedProxyImage},
      {"safe",
       [] {
         ProxyImage image = SeedProxyImage();
         image.runner = std::make_shared<migrate::SafeRunner>();
         return image;
       }},
      // Sends PUT bodies base64 encoded, for nodes that know the header (writes-framed).
      {"encodes-bodies", SeedProxyWith<[](ProxyImage& image) { image.encodes_bodies = true; }>},
      // Drops a backend for good after a failed probe.
      {"no-reprobe",
       SeedProxyWith<[](ProxyImage& image) { image.reprobes_failed_backends = false; }>},
  };
  return kVersions;
}

template <typename Image>
std::vector<std::string> NamesOf(const std::vector<Version<Image>>& versions) {
  std::vector<std::string> names;
  for (const Version<Image>& version : versions) names.emplace_back(version.name);
  return names;
}

template <typename Image>
std::map<std::string, Image> Build(const std::vector<Version<Image>>& versions) {
  std::map<std::string, Image> images;
  for (const Version<Image>& version : versions) {
    const bool added = images.emplace(version.name, version.make()).second;
    FL_ASSERT_MSG(added, "image version {} is listed twice", version.name);
  }
  return images;
}

}  // namespace

const std::vector<std::string>& SeedImageVersions(std::string_view image) {
  static const std::map<std::string, std::vector<std::string>, std::less<>> kVersions = {
      {cql::kStoreImage, {"2.20", "cassandra"}},
      {kNodeImage, NamesOf(NodeVersions())},
      {kProxyImage, NamesOf(ProxyVersions())},
      {kDbInitImage, {"v1", "buggy", "patient"}},
  };
  static const std::vector<std::string> kNone;
  auto found = kVersions.find(image);
  return found == kVersions.end() ? kNone : found->second;
}

const std::vector<std::string>& EnvironmentKeys(std::string_view image) {
  static const std::map<std::string, std::vector<std::string>, std::less<>> kKeys = {
      {kNodeImage,
       {"KEYSPACE", "NODE_ID", "PORT", "RETRY_ATTEMPTS", "RETRY_CAP_MS", "RETRY_DELAY_MS",
        "STORE_HOST"}},
      {kProxyImage, {"BACKENDS", "PROBE_INTERVAL_MS", "STORE_HOST"}},
      {kDbInitImage, {"KEYSPACES", "STORE_HOST"}},
  };
  static const std::vector<std::string> kNone;
  auto found = kKeys.find(image);
  return found == kKeys.end() ? kNone : found->second;
}

std::string NodeServiceName(int node) {
  FL_ASSERT_MSG(node >= 1, "node {}: nodes count from 1", node);
  return fmt::format("kuri-{}", node);
}

std::map<std::string, NodeImage> SeedNodeImages() { return Build(NodeVersions()); }
std::map<std::string, ProxyImage> SeedProxyImages() { return Build(ProxyVersions()); }

cql::Dialect StoreDialect(std::string_view version) {
  return version == "cassandra" ? cql::Dialect::kCassandra : cql::Dialect::kYcql;
}

void RegisterSeedImages(fakes::Runtime& runtime) {
  FL_ASSERT(StoreDialect("2.20") == cql::StoreOptions{}.dialect);
  runtime.RegisterImage(cql::kStoreImage, "2.20", cql::StoreEntryPoint());
  cql::StoreOptions cassandra;
  cassandra.schema_agreement = cql::SchemaAgreement::kCassandra;
  cassandra.dialect = StoreDialect("cassandra");
  runtime.RegisterImage(cql::kStoreImage, "cassandra", cql::StoreEntryPoint(cassandra));
  for (auto& [version, image] : SeedNodeImages()) {
    runtime.RegisterImage(kNodeImage, version, NodeEntryPoint(std::move(image)));
  }
  for (auto& [version, image] : SeedProxyImages()) {
    runtime.RegisterImage(kProxyImage, version, ProxyEntryPoint(std::move(image)));
  }
  runtime.RegisterImage(kDbInitImage, "v1", DbInitEntryPoint(SeedDbInitPlan(false)));
  runtime.RegisterImage(kDbInitImage, "buggy", DbInitEntryPoint(SeedDbInitPlan(true)));
  // v1 that waits for the store as long as a partition may last (600 tries,
  // about half an hour) instead of giving up after 30: the fix for
  // db-init-gives-up-in-a-partition, found by explore.
  runtime.RegisterImage(kDbInitImage, "patient", DbInitEntryPoint(SeedDbInitPlan(false), 600));
}

fakes::ComposeSpec ClusterComposeSpec(const ClusterShape& shape) {
  FL_ASSERT_MSG(shape.nodes >= 1, "a cluster has 1 to {} nodes, not {}", kMaxNodes, shape.nodes);
  FL_ASSERT_MSG(shape.nodes <= kMaxNodes, "a cluster has 1 to {} nodes, not {}", kMaxNodes,
                shape.nodes);
  fakes::ComposeSpec spec;
  spec.services.push_back(cql::StoreServiceSpec());
  fakes::ServiceSpec db_init;
  db_init.name = "db-init";
  db_init.image = kDbInitImage;
  db_init.version = shape.db_init_version;
  db_init.depends_on.emplace_back("yugabyte", fakes::DependencyCondition::kStarted);
  std::string keyspaces = kIndexKeyspace;
  std::vector<fakes::Endpoint> backends;
  std::vector<fakes::ServiceSpec> nodes;
  for (int i = 1; i <= shape.nodes; ++i) {
    const auto port = static_cast<std::uint16_t>(7000 + i);
    fakes::ServiceSpec node = NodeServiceSpec(NodeServiceName(i), port, shape.node_version);
    if (shape.shared_node_keyspace) node.environment["KEYSPACE"] = kSharedNodeKeyspace;
    node.depends_on.emplace_back("db-init", fakes::DependencyCondition::kCompletedSuccessfully);
    const std::string keyspace = NodeKeyspace(node);
    if (i == 1 || !shape.shared_node_keyspace) keyspaces += "," + keyspace;
    backends.emplace_back(node.name, port);
    nodes.push_back(std::move(node));
  }
  db_init.environment["KEYSPACES"] = keyspaces;
  spec.services.push_back(std::move(db_init));
  for (fakes::ServiceSpec& node : nodes) spec.services.push_back(std::move(node));
  fakes::ServiceSpec proxy = ProxyServiceSpec(backends);
  proxy.depends_on.emplace_back("db-init", fakes::DependencyCondition::kCompletedSuccessfully);
  spec.services.push_back(std::move(proxy));
  // The store, db-init, the nodes and the proxy.
  FL_ASSERT(spec.services.size() == static_cast<std::size_t>(shape.nodes) + 3);
  return spec;
}

fakes::ComposeSpec SeedComposeSpec(const std::string& node_version,
                                   const std::string& db_init_version) {
  return ClusterComposeSpec(
      ClusterShape{.nodes = 2, .node_version = node_version, .db_init_version = db_init_version});
}

}  // namespace faultline::models::s3
