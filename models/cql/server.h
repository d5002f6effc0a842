// The metadata store as a service: a container entry point that opens the
// store's database on its data volume and serves the client protocol
// (wire.h) on port 9042 until stopped. Statements run one at a time, each to
// completion (the engine is synchronous), so the catalog is strongly
// consistent; each takes `statement_time` of virtual time first, which is
// where a crash can fall between a request's arrival and its execution.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "fakes/compose.h"
#include "fakes/network.h"
#include "models/cql/engine.h"
#include "models/cql/schema_agreement.h"
#include "models/cql/store_database.h"

namespace faultline::models::cql {

inline constexpr std::uint16_t kCqlPort = 9042;
inline constexpr const char* kStoreDataDirectory = "/var/lib/yugabyte";
inline constexpr const char* kStoreImage = "yugabyte";

struct StoreOptions {
  sim::Duration statement_time = std::chrono::microseconds(50);
  SchemaAgreement schema_agreement = SchemaAgreement::kStrong;
  CassandraSchemaOptions cassandra;  // For SchemaAgreement::kCassandra.
  StoreDurability durability;        // The store's own unless a test weakens it.
  Dialect dialect = Dialect::kYcql;  // What DDL it accepts, and its words for refusals.
};

// Serves requests with an engine; remembers prepared statements by id.
class StoreService {
 public:
  // `simulation`, when given, receives a "cql.statement" trace event per
  // statement executed: its text, the session's keyspace, and the outcome.
  explicit StoreService(Engine& engine, sim::Simulation* simulation = nullptr)
      : engine_(engine), simulation_(simulation) {}
  // With Cassandra's weaker schema agreement (schema_agreement.h), which
  // needs the simulation's clock.
  StoreService(Engine& engine, sim::Simulation& simulation, CassandraSchemaOptions cassandra)
      : engine_(engine), simulation_(&simulation), gossip_(cassandra) {}

  struct Reply {
    fakes::Response response;
    // How long the answer waits before it leaves: with Cassandra's schema
    // agreement, a schema change answers once every coordinator has it.
    sim::Duration delay{};
  };
  // Answers one request (QUERY, PREPARE or EXECUTE); never fails itself:
  // malformed requests get status 400.
  Reply Serve(const fakes::Request& request);
  fakes::Response Handle(const fakes::Request& request) { return Serve(request).response; }

 private:
  // An error as this store sends it: YCQL's message with the statement and
  // carets; in Cassandra mode, Cassandra's plain message.
  CqlError Worded(CqlError error, std::string_view statement) const;
  Reply Run(const Session& session, const ParsedStatement& statement,
            const std::vector<Value>& values, const PageRequest& page, const std::string& peer);
  // Cassandra mode: the mismatch error when another coordinator's create of
  // the same table has not reached this one yet.
  std::optional<CqlError> CheckSchemaRace(const Session& session, const ParsedStatement& statement,
                                          int coordinator);
  void RecordSchemaChange(const Session& session, const ParsedStatement& statement,
                          int coordinator);

  Engine& engine_;
  sim::Simulation* simulation_;
  std::optional<CassandraSchemaGossip> gossip_;  // Cassandra mode only.
  struct Prepared {
    ParsedStatement statement;
    std::string keyspace;  // The session's when prepared: where its names resolve.
  };
  std::map<std::string, Prepared> prepared_;
  std::map<std::string, ParsedStatement> parsed_queries_;  // QUERY texts seen, parsed.
};

// The store image's entry point: data in kStoreDataDirectory/meta.db.
fakes::EntryPoint StoreEntryPoint(StoreOptions options = {});

// A compose service for the store, with its data on the named volume `volume`.
fakes::ServiceSpec StoreServiceSpec(std::string name = "yugabyte",
                                    std::string volume = "yugabyte-data");

}  // namespace faultline::models::cql
