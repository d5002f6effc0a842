// How the store agrees on its schema. YCQL's catalog is strongly consistent:
// of two concurrent CREATE TABLE for one name, one wins and the other gets
// Duplicate Object (the engine does that on its own, running one statement
// at a time). Apache Cassandra is weaker, and this is the optional mode that
// imitates it:
//
// - The store has several coordinators; each client host talks to one of
//   them, assigned round-robin in the order clients first appear (a run's
//   helpers, "ycqlsh#7", count as their host "ycqlsh").
// - A table created on one coordinator reaches the others only after
//   `propagation`. Until then another coordinator does not see it, so its
//   own CREATE TABLE (with or without IF NOT EXISTS) makes a second table
//   with another id, and merging the two fails with Cassandra's
//   "Column family ID mismatch (found X; expected Y)". IF NOT EXISTS is no
//   lock.
// - Drivers wait for schema agreement after a schema change, so every
//   schema change's answer comes back only after `propagation`: one client's
//   own DDL never races with itself.
//
// Not modelled: the losing id's lingering state (in Cassandra, writes through
// it can vanish after a restart), or concurrent ALTERs and keyspace creates.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "models/cql/errors.h"
#include "sim/clock.h"

namespace faultline::models::cql {

enum class SchemaAgreement : unsigned char {
  kStrong,     // YCQL: one catalog, changes seen at once.
  kCassandra,  // Changes reach other coordinators after a delay.
};

struct CassandraSchemaOptions {
  int coordinators = 3;
  sim::Duration propagation = std::chrono::milliseconds(500);
};

class CassandraSchemaGossip {
 public:
  explicit CassandraSchemaGossip(CassandraSchemaOptions options);

  // The coordinator that serves `peer` (a client host).
  int CoordinatorFor(const std::string& peer);

  // Before `coordinator` runs a CREATE TABLE of `table` ("ks.t") at `now`:
  // the mismatch error when another coordinator created it less than
  // `propagation` ago, so this one cannot see it yet.
  std::optional<CqlError> CheckCreate(const std::string& table, int coordinator,
                                      sim::TimePoint now);
  // After a CREATE TABLE of `table` made it, on `coordinator` at `now`.
  void RecordCreate(const std::string& table, int coordinator, sim::TimePoint now);
  // After a DROP TABLE of `table`, or a DROP KEYSPACE: a later create makes
  // a new table, not a second id of the dropped one.
  void Forget(const std::string& table);
  void ForgetKeyspace(const std::string& keyspace);

  sim::Duration propagation() const { return options_.propagation; }

 private:
  struct Creation {
    int coordinator = 0;
    sim::TimePoint at;
    std::string id;
  };
  void ForgetAgreed(sim::TimePoint now);

  CassandraSchemaOptions options_;
  std::map<std::string, int> coordinator_of_peer_;
  std::map<std::string, Creation> recent_creations_;  // Not yet seen everywhere.
};

}  // namespace faultline::models::cql
