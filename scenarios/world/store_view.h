// What the metadata store held at one moment of a run, read from its data
// volume as the checkers read it (a StoreSnapshot: no request, no simulated
// I/O, no trace event): for `faultline report`'s step scrubber and
// `faultline shell --at STEP`.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "scenarios/world/world.h"
#include "sim/status.h"

namespace faultline::scenarios {

struct TableView {
  std::string name;  // "filecoingw_s3.s3objects"
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // Cells as ycqlsh prints them.
  std::size_t total_rows = 0;                  // rows.size() unless it was cut.
};

struct StoreView {
  std::string schema;             // DESCRIBE SCHEMA: every user keyspace's CREATEs.
  std::vector<TableView> tables;  // Every user table, in keyspace and name order.
  std::string unreadable;         // Why there is no view ("no store yet"), or empty.
};

// The store as it is now, with at most `max_rows` rows per table.
StoreView ViewStore(World& world, std::size_t max_rows);

// The bytes of the store's database file as they are now (NotFound before
// the store first wrote one), to open in a shell of its own.
sim::Result<std::string> StoreDatabaseFile(World& world);

}  // namespace faultline::scenarios
