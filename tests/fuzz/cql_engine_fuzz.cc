// libFuzzer target for the CQL engine behind the parser: statements run
// against a store on a simulated volume, one by one, as a shell would; each
// gets an outcome (never a crash, a hang or a broken catalog), and the
// store's invariants hold after each: the schema it describes is the one a
// store reopened from its volume describes (what is committed is what is
// live), and DESCRIBE SCHEMA's output parses again. An input whose first
// line is "-- cassandra" runs on the store's Cassandra dialect.
// Build: cmake --preset fuzz && cmake --build --preset fuzz
// Run:   build/fuzz/tests/fuzz/cql_engine_fuzz -dict=tests/fuzz/cql_engine.dict \
//            -max_total_time=600 -max_len=2048 corpus/ tests/fuzz/cql_engine_corpus
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "fakes/sqlite_vfs.h"
#include "fakes/volume.h"
#include "models/cql/parser.h"
#include "models/cql/store_database.h"
#include "sim/simulation.h"

namespace {

namespace cql = faultline::models::cql;
using faultline::fakes::SqliteVfs;
using faultline::fakes::Volume;
using faultline::fakes::VolumeKind;

constexpr const char* kMount = "/var/lib/yugabyte";
constexpr const char* kDatabase = "/var/lib/yugabyte/meta.db";
constexpr std::size_t kMaxStatements = 64;

[[noreturn]] void Fail() { __builtin_trap(); }

std::unique_ptr<cql::StoreDatabase> Open(SqliteVfs& vfs, cql::Dialect dialect) {
  auto opened = cql::StoreDatabase::Open(vfs, kDatabase, {}, dialect);
  if (!std::holds_alternative<std::unique_ptr<cql::StoreDatabase>>(opened)) Fail();
  return std::move(std::get<std::unique_ptr<cql::StoreDatabase>>(opened));
}

std::string Schema(cql::Engine& engine) {
  cql::Session session;
  const cql::ParseResult parsed = cql::Parse("DESCRIBE SCHEMA");
  if (parsed.error || parsed.statements.size() != 1) Fail();
  const cql::Outcome outcome = engine.Execute(session, parsed.statements[0]);
  const auto* result = std::get_if<cql::QueryResult>(&outcome);
  if (result == nullptr) Fail();  // Describing never fails.
  return result->text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 8 * 1024) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const cql::ParseResult parsed = cql::Parse(text);
  const cql::Dialect dialect =
      text.starts_with("-- cassandra\n") ? cql::Dialect::kCassandra : cql::Dialect::kYcql;
  faultline::sim::Simulation simulation;
  Volume volume("yugabyte-data", VolumeKind::kNamedVolume);
  SqliteVfs vfs(simulation);
  vfs.Mount(kMount, volume);
  std::unique_ptr<cql::StoreDatabase> store = Open(vfs, dialect);
  cql::Session session;
  std::size_t run = 0;
  for (const cql::ParsedStatement& statement : parsed.statements) {
    if (++run > kMaxStatements) break;
    (void)store->engine().Execute(session, statement);  // An outcome or a CQL error, both fine.
  }
  // What is live is what is committed: a store reopened from the volume
  // describes the same schema.
  const std::string live = Schema(store->engine());
  store.reset();
  std::unique_ptr<cql::StoreDatabase> reopened = Open(vfs, dialect);
  if (Schema(reopened->engine()) != live) Fail();
  // The description is CQL the parser reads.
  if (cql::Parse(live).error) Fail();
  return 0;
}
