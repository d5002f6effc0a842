#include "scenarios/world/store_view.h"

#include <fmt/format.h>

#include <variant>

#include "models/cql/server.h"
#include "models/cql/store_snapshot.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

namespace cql = models::cql;

// `name` as a CQL identifier: quoted, so any name reads back as itself.
std::string Quoted(const std::string& name) {
  std::string quoted = "\"";
  for (const char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

TableView ViewTable(cql::StoreSnapshot& store, const std::string& keyspace,
                    const std::string& table, std::size_t max_rows) {
  TableView view{keyspace + "." + table, {}, {}, 0};
  cql::Outcome rows =
      store.Read(fmt::format("SELECT * FROM {}.{}", Quoted(keyspace), Quoted(table)));
  if (const auto* error = std::get_if<cql::CqlError>(&rows)) {
    view.columns = {"error"};
    view.rows.push_back({error->message});
    return view;
  }
  const cql::QueryResult& result = std::get<cql::QueryResult>(rows);
  for (const cql::ColumnSpec& column : result.columns) view.columns.push_back(column.name);
  view.total_rows = result.rows.size();
  for (std::size_t i = 0; i < result.rows.size() && i < max_rows; ++i) {
    const cql::Row& row = result.rows[i];
    FL_ASSERT_MSG(row.size() == result.columns.size(), "a row of {} has {} cells for {} columns",
                  view.name, row.size(), result.columns.size());
    std::vector<std::string> cells;
    for (std::size_t c = 0; c < row.size(); ++c) {
      cells.push_back(cql::FormatCell(row[c], result.columns[c].type));
    }
    view.rows.push_back(std::move(cells));
  }
  FL_ASSERT(view.rows.size() <= max_rows);
  return view;
}

}  // namespace

StoreView ViewStore(World& world, std::size_t max_rows) {
  StoreView view;
  sim::Result<cql::StoreSnapshot*> opened = ObserveStore(world);
  if (!opened.ok()) {
    view.unreadable = opened.status().code() == sim::StatusCode::kNotFound
                          ? "no store yet: it has not written its database"
                          : opened.status().message();
    return view;
  }
  cql::StoreSnapshot& store = **opened;
  cql::Outcome schema = store.Read("DESCRIBE SCHEMA");
  if (const auto* text = std::get_if<cql::QueryResult>(&schema)) view.schema = text->text;
  for (const auto& [keyspace_name, keyspace] : store.catalog().keyspaces()) {
    if (keyspace.system) continue;
    for (const auto& [table_name, table] : keyspace.tables) {
      view.tables.push_back(ViewTable(store, keyspace_name, table_name, max_rows));
    }
  }
  return view;
}

sim::Result<std::string> StoreDatabaseFile(World& world) {
  for (const ServedService& service : world.served) {
    if (service.image != cql::kStoreImage) continue;
    const fakes::Volume* volume = MountedVolume(world, service.name, cql::kStoreDataDirectory);
    const fakes::SimFile* file =
        volume == nullptr ? nullptr : volume->Find(cql::kStoreDatabaseFile);
    if (file == nullptr) break;
    return file->contents();
  }
  return sim::Status::NotFound("the store has not written its database yet");
}

}  // namespace faultline::scenarios
