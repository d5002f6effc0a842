#include "scenarios/checkers.h"

#include "models/migrate/schema_check.h"
#include "models/s3/s3.h"
#include "scenarios/world.h"

namespace faultline::scenarios {
namespace {

using sim::Awaitable;

CheckResult AcknowledgedWrites(World& world) {
  CheckResult check{"acknowledged-writes", true, ""};
  for (const auto& [path, body] : world.acknowledged) {
    const std::string got = world.RunProcess(
        "checker", [&world, path](models::cql::CqlSession&) -> Awaitable<std::string> {
          sim::Result<fakes::Response> response =
              co_await world.network.Call(fakes::Endpoint("s3-proxy", models::s3::kProxyPort),
                                          fakes::Request("GET", path), std::chrono::seconds(30));
          if (!response.ok()) co_return response.status().ToString();
          co_return fmt::format("{} {}", response->status, response->body);
        });
    if (got != "200 " + body) {
      check.held = false;
      check.actual += fmt::format("{}: {}; ", path, OneLine(got, 60));
    }
  }
  return check;
}

CheckResult IndexPointsAtBytes(World& world) {
  CheckResult check{"index-points-at-bytes", true, ""};
  models::cql::ClientResult rows;
  world.RunProcess("checker", [&rows](models::cql::CqlSession& session) -> Awaitable<std::string> {
    rows = co_await session.QueryAll("SELECT bucket, key, node_id FROM filecoingw_s3.s3objects", {},
                                     500);
    co_return "";
  });
  if (!rows.ok()) {
    return CheckResult{"index-points-at-bytes", false, "cannot read the index: " + rows.ToString()};
  }
  for (const models::cql::Row& row : rows.result.rows) {
    const std::string& node = row.at(2).bytes;
    fakes::Volume* data =
        world.runtime.FindVolume("/data/fgw2/" + node, fakes::VolumeKind::kHostDirectory);
    const std::string path = fmt::format("/objects/{}/{}", row.at(0).bytes, row.at(1).bytes);
    if (data == nullptr || data->Find(path) == nullptr) {
      check.held = false;
      check.actual += fmt::format("{}/{} on '{}': no bytes; ", row.at(0).bytes, row.at(1).bytes,
                                  row.at(2).is_null() ? "null" : node);
    }
  }
  return check;
}

// Which serving nodes' schemas differ from their image's, now ("" if none).
std::string SchemaViolations(World& world) {
  CheckResult check{"schema-matches-image", true, ""};
  const std::pair<const char*, const char*> nodes[] = {{"kuri-1", "filecoingw_kuri1"},
                                                       {"kuri-2", "filecoingw_kuri2"}};
  for (const auto& [node, keyspace] : nodes) {
    if (!IsServing(world, node)) continue;
    std::string diff;
    world.RunProcess(
        "checker", [&diff, keyspace](models::cql::CqlSession& session) -> Awaitable<std::string> {
          sim::Result<models::migrate::SchemaModel> live =
              co_await models::migrate::LiveSchema(session, keyspace);
          if (!live.ok()) {
            diff = live.status().ToString();
            co_return "";
          }
          for (const std::string& line : models::migrate::SchemaDiff(
                   models::migrate::ExpectedSchema(models::s3::NodeKeyspaceMigrations(), keyspace),
                   *live)) {
            diff += line + "; ";
          }
          co_return "";
        });
    if (!diff.empty()) check.actual += fmt::format("{} serves with {}", node, diff);
  }
  return check.actual;
}

CheckResult Converges(World& world) {
  CheckResult check{"converges", true, ""};
  for (const char* service : {"s3-proxy", "kuri-1", "kuri-2"}) {
    if (!IsServing(world, service)) {
      check.held = false;
      check.actual += fmt::format("{} is not serving; ", service);
    }
  }
  return check;
}

}  // namespace

void Checkers::After(World& world) {
  if (!schema_violation_.empty()) return;
  const std::string violation = SchemaViolations(world);
  if (!violation.empty()) {
    schema_violation_ =
        fmt::format("at {}: {}", sim::FormatTime(world.simulation.Now()), violation);
  }
}

std::vector<CheckResult> Checkers::Verdicts(World& world) {
  After(world);
  return {AcknowledgedWrites(world), IndexPointsAtBytes(world),
          CheckResult{"schema-matches-image", schema_violation_.empty(), schema_violation_},
          Converges(world)};
}

}  // namespace faultline::scenarios
