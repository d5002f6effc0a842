// Topologies for the harness tests: the seed cluster whose node image is
// upgraded to a version that adds a two-statement migration file, under
// the runner a test names.
#pragma once

#include <string>
#include <vector>

#include "models/migrate/source.h"
#include "models/s3/seed_images.h"
#include "scenarios/core/scenario.h"

namespace faultline::scenarios {

// The seed node image's (v2's) migration files.
inline std::vector<models::migrate::MigrationFile> SeedNodeFiles() {
  std::vector<models::migrate::MigrationFile> files;
  const auto images =
      models::s3::SeedNodeImages();  // Named: a range-for over a temporary's member dangles.
  for (const auto& [version, migration] : images.at("v2").migrations.migrations()) {
    if (migration.up) files.emplace_back(migration.up_name, *migration.up);
    if (migration.down) files.emplace_back(migration.down_name, *migration.down);
  }
  return files;
}

// node "base" (the seed's files) and "next" (one more file, two
// statements), both with `runner`; the nodes start at "base".
inline Scenario UpgradeTopology(const std::string& runner) {
  Scenario topology;
  topology.name = "upgrade-" + runner;
  ImageSpec base{.service = "node", .version = "base", .runner = runner};
  base.files = SeedNodeFiles();
  ImageSpec next = base;
  next.version = "next";
  next.files.emplace_back("1765000000_object_tags.up.cql",
                          "CREATE TABLE objecttags (multihash blob PRIMARY KEY, tags set<text>);\n"
                          "ALTER TABLE cidgroups ADD created_at timestamp;\n");
  topology.images = {base, next};
  topology.node_version = "base";
  return topology;
}

}  // namespace faultline::scenarios
