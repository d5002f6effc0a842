// The client session models use to talk to the metadata store over the
// simulated network: query, prepare/execute with bound values, page through
// rows, with a current keyspace (USE) kept per session. Every call can fail,
// and callers must look: the store may be down (Unavailable), slow or
// partitioned away (TimedOut), or answer with a CQL error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fakes/network.h"
#include "models/cql/engine.h"
#include "models/cql/server.h"

namespace faultline::models::cql {

struct ClientOptions {
  ClientOptions() : store("yugabyte", kCqlPort) {}
  fakes::Endpoint store;
  sim::Duration timeout = std::chrono::seconds(2);
};

// gocql's own error texts (gocql/gocql conn.go, session.go), for failures
// that happen in the client: no answer in time, no host to send to.
inline constexpr const char* kGocqlTimeout =
    "gocql: no response received from cassandra within timeout period";
inline constexpr const char* kGocqlNoHosts = "gocql: no hosts available in the pool";
inline constexpr const char* kGocqlNoConnectionsStarted =
    "no connections were made when creating the session";

struct ClientResult {
  sim::Status status;             // The call: ok, Unavailable, TimedOut, or Corruption.
  std::optional<CqlError> error;  // The store answered with this error.
  QueryResult result;             // Otherwise, its answer.

  bool ok() const { return status.ok() && !error; }
  // "ok", the status, or the CQL error's text.
  // What gocql's err.Error() says: the server's message, or the client's
  // own text (no status code in front).
  std::string ToString() const;
};

// A statement prepared on the store; survives store restarts (the client
// prepares it again when the store has forgotten it).
// It names tables in the keyspace the session had when it was prepared,
// whatever USE came after, as in YCQL and Cassandra.
struct PreparedStatement {
  PreparedStatement() = default;
  PreparedStatement(std::string prepared_id, std::string statement_text,
                    std::string session_keyspace = {})
      : id(std::move(prepared_id)),
        text(std::move(statement_text)),
        keyspace(std::move(session_keyspace)) {}
  std::string id;
  std::string text;
  std::string keyspace;  // The session's when prepared.
};

class CqlSession {
 public:
  static constexpr int kMaxPages = 100'000;  // QueryAll's bound.

  explicit CqlSession(fakes::Network& network, ClientOptions options = {})
      : network_(network), options_(std::move(options)) {}

  // gocql's CreateSession: the handshake with the store, then, with a
  // `keyspace` (ClusterConfig.Keyspace), the pool's USE of it. Its errors
  // read as gocql's: "gocql: unable to create session: ..." for the
  // handshake, and a keyspace that cannot be used leaves the pool empty:
  // "no connections were made when creating the session".
  sim::Awaitable<sim::Status> Connect(std::string keyspace = {});
  sim::Awaitable<ClientResult> Query(std::string statement, std::vector<Value> values = {},
                                     PageRequest page = {});
  // On success, *prepared is set.
  sim::Awaitable<ClientResult> Prepare(std::string statement, PreparedStatement* prepared);
  sim::Awaitable<ClientResult> Execute(const PreparedStatement& prepared,
                                       std::vector<Value> values = {}, PageRequest page = {});
  // Every row, fetched `page_size` rows at a time.
  sim::Awaitable<ClientResult> QueryAll(std::string statement, std::vector<Value> values,
                                        std::int32_t page_size);

  const std::string& keyspace() const { return keyspace_; }
  fakes::Network& network() { return network_; }
  const ClientOptions& options() const { return options_; }

 private:
  // `keyspace`: the session's, unless given (a re-prepare keeps the first's).
  sim::Awaitable<ClientResult> Send(std::string method, std::string statement,
                                    std::vector<Value> values, PageRequest page,
                                    std::optional<std::string> keyspace = std::nullopt);

  fakes::Network& network_;
  ClientOptions options_;
  std::string keyspace_;
};

}  // namespace faultline::models::cql
