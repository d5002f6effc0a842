// The store's client protocol, carried in fakes::Network request/response
// bodies. Requests: method QUERY (statement text), PREPARE (text) or EXECUTE
// (a prepared id); each with the bound values, the session's keyspace and
// the paging request. A response is an outcome: a CqlError, or a
// QueryResult. The session's keyspace lives in the client and travels with
// every request, so a restarted store needs no session state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/cql/engine.h"

namespace faultline::models::cql::wire {

inline constexpr const char* kQuery = "QUERY";
inline constexpr const char* kPrepare = "PREPARE";
inline constexpr const char* kExecute = "EXECUTE";
// The protocol's handshake (OPTIONS, then STARTUP) as one request: a
// session's connect. Answered with an empty result.
inline constexpr const char* kOptions = "OPTIONS";

struct RequestBody {
  std::string statement;  // QUERY, PREPARE: the text; EXECUTE: the prepared id.
  std::string keyspace;
  std::vector<Value> values;
  PageRequest page;
};

std::string EncodeRequest(const RequestBody& request);
std::optional<RequestBody> DecodeRequest(std::string_view bytes);

// PREPARE answers with a result whose text is the prepared id.
std::string EncodeOutcome(const Outcome& outcome);
std::optional<Outcome> DecodeOutcome(std::string_view bytes);

}  // namespace faultline::models::cql::wire
