#include "models/s3/seed_images.h"

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
  auto shared = std::make_shared<const migrate::DbInitPlan>(std::move(plan));
  return [shared, attempts](fakes::ContainerContext& context) -> sim::Awaitable<int> {
    cql::ClientOptions options;
    options.store = fakes::Endpoint(context.Env("STORE_HOST", "yugabyte"), cql::kCqlPort);
    cql::CqlSession session(context.network(), options);
    auto log = [&context](const std::string& line) { context.Log(line); };
    for (int attempt = 1; attempt <= attempts; ++attempt) {
      sim::Status status = co_await migrate::RunDbInit(session, *shared, log);
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

const std::vector<std::string>& SeedImageVersions(std::string_view image) {
  static const std::map<std::string, std::vector<std::string>, std::less<>> kVersions = {
      {cql::kStoreImage, {"2.20", "cassandra"}},
      {kNodeImage, {"v1", "v2", "safe", "db-init"}},
      {kProxyImage, {"v1", "v2", "v2-versioned", "safe"}},
      {kDbInitImage, {"v1", "buggy"}},
  };
  static const std::vector<std::string> kNone;
  auto found = kVersions.find(image);
  return found == kVersions.end() ? kNone : found->second;
}

const std::vector<std::string>& SeedServices() {
  static const std::vector<std::string> kServices = {"yugabyte", "db-init", "kuri-1", "kuri-2",
                                                     "s3-proxy"};
  return kServices;
}

std::string SeedServiceImage(std::string_view service) {
  if (service == "yugabyte") return cql::kStoreImage;
  if (service == "db-init") return kDbInitImage;
  if (service == "kuri-1" || service == "kuri-2") return kNodeImage;
  if (service == "s3-proxy") return kProxyImage;
  return {};
}

std::map<std::string, NodeImage> SeedNodeImages() {
  std::map<std::string, NodeImage> images;
  images.emplace("v2", SeedNodeImage());
  images.emplace("v1", OldSeedNodeImage());
  NodeImage safe = SeedNodeImage();
  safe.runner = std::make_shared<migrate::SafeRunner>();
  images.emplace("safe", std::move(safe));
  NodeImage db_init_style = SeedNodeImage();
  db_init_style.runner = std::make_shared<migrate::DbInitStyleRunner>();
  images.emplace("db-init", std::move(db_init_style));
  return images;
}

std::map<std::string, ProxyImage> SeedProxyImages() {
  std::map<std::string, ProxyImage> images;
  images.emplace("v2", SeedProxyImage());
  images.emplace("v1", OldSeedProxyImage());
  images.emplace("v2-versioned", VersionedProxyImage());
  ProxyImage safe_proxy = SeedProxyImage();
  safe_proxy.runner = std::make_shared<migrate::SafeRunner>();
  images.emplace("safe", std::move(safe_proxy));
  return images;
}

void RegisterSeedImages(fakes::Runtime& runtime) {
  runtime.RegisterImage(cql::kStoreImage, "2.20", cql::StoreEntryPoint());
  cql::StoreOptions cassandra;
  cassandra.schema_agreement = cql::SchemaAgreement::kCassandra;
  runtime.RegisterImage(cql::kStoreImage, "cassandra", cql::StoreEntryPoint(cassandra));
  for (auto& [version, image] : SeedNodeImages()) {
    runtime.RegisterImage(kNodeImage, version, NodeEntryPoint(std::move(image)));
  }
  for (auto& [version, image] : SeedProxyImages()) {
    runtime.RegisterImage(kProxyImage, version, ProxyEntryPoint(std::move(image)));
  }
  runtime.RegisterImage(kDbInitImage, "v1", DbInitEntryPoint(SeedDbInitPlan(false)));
  runtime.RegisterImage(kDbInitImage, "buggy", DbInitEntryPoint(SeedDbInitPlan(true)));
}

fakes::ComposeSpec SeedComposeSpec(const std::string& node_version,
                                   const std::string& db_init_version) {
  fakes::ComposeSpec spec;
  spec.services.push_back(cql::StoreServiceSpec());
  fakes::ServiceSpec db_init;
  db_init.name = "db-init";
  db_init.image = kDbInitImage;
  db_init.version = db_init_version;
  db_init.depends_on.emplace_back("yugabyte", fakes::DependencyCondition::kStarted);
  spec.services.push_back(db_init);
  const std::pair<const char*, std::uint16_t> nodes[] = {{"kuri-1", 7001}, {"kuri-2", 7002}};
  for (const auto& [name, port] : nodes) {
    fakes::ServiceSpec node = NodeServiceSpec(name, port, node_version);
    node.depends_on.emplace_back("db-init", fakes::DependencyCondition::kCompletedSuccessfully);
    spec.services.push_back(node);
  }
  fakes::ServiceSpec proxy =
      ProxyServiceSpec({fakes::Endpoint("kuri-1", 7001), fakes::Endpoint("kuri-2", 7002)});
  proxy.depends_on.emplace_back("db-init", fakes::DependencyCondition::kCompletedSuccessfully);
  spec.services.push_back(proxy);
  return spec;
}

}  // namespace faultline::models::s3
