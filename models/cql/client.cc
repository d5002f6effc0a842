#include "models/cql/client.h"

#include "models/cql/wire.h"

#include <fmt/format.h>

#include "sim/assert.h"

namespace faultline::models::cql {

namespace {

// A transport failure as gocql reports it on a session that is up: a host
// that refuses is marked down, and with none left Exec finds no connection
// (query_executor.go); no answer within the timeout is ErrTimeoutNoResponse.
sim::Status AsGocqlError(const sim::Status& transport) {
  FL_ASSERT(!transport.ok());
  switch (transport.code()) {
    case sim::StatusCode::kTimedOut:
      return sim::Status::TimedOut(kGocqlTimeout);
    case sim::StatusCode::kUnavailable:
      return sim::Status::Unavailable(kGocqlNoHosts);
    default:
      return transport;
  }
}

}  // namespace

std::string ClientResult::ToString() const {
  if (!status.ok()) return status.message();
  if (error) return error->message;
  return "ok";
}

sim::Awaitable<ClientResult> CqlSession::Send(std::string method, std::string statement,
                                              std::vector<Value> values, PageRequest page,
                                              std::optional<std::string> keyspace) {
  wire::RequestBody body;
  body.statement = std::move(statement);
  body.keyspace = keyspace ? std::move(*keyspace) : keyspace_;
  body.values = std::move(values);
  body.page = std::move(page);
  fakes::Request request(std::move(method), "/cql", wire::EncodeRequest(body));
  sim::Result<fakes::Response> response =
      co_await network_.Call(options_.store, std::move(request), options_.timeout);
  ClientResult result;
  if (!response.ok()) {
    result.status = AsGocqlError(response.status());
    co_return result;
  }
  std::optional<Outcome> outcome = wire::DecodeOutcome(response.value().body);
  if (response.value().status != 200 || !outcome) {
    result.status = sim::Status::Corruption("the store's answer is unreadable");
    co_return result;
  }
  if (auto* error = std::get_if<CqlError>(&*outcome)) {
    result.error = std::move(*error);
    co_return result;
  }
  result.result = std::move(std::get<QueryResult>(*outcome));
  if (result.result.kind == QueryResult::Kind::kSetKeyspace) keyspace_ = result.result.text;
  co_return result;
}

sim::Awaitable<sim::Status> CqlSession::Connect(std::string keyspace) {
  fakes::Request request(wire::kOptions, "/cql", wire::EncodeRequest(wire::RequestBody{}));
  sim::Result<fakes::Response> response =
      co_await network_.Call(options_.store, std::move(request), options_.timeout);
  if (response.ok()) {
    if (keyspace.empty()) co_return sim::Status::Ok();
    // connectionpool.go: each connection USEs the keyspace; one that cannot
    // is dropped, and session.go finds the pool empty (ErrNoConnectionsStarted).
    ClientResult use = co_await Query("USE \"" + keyspace + "\"");
    if (use.ok()) co_return sim::Status::Ok();
    co_return sim::Status::Unavailable(kGocqlNoConnectionsStarted);
  }
  // session.go: "gocql: unable to create session: %v" around the control
  // connection's "unable to discover protocol version: %v" around the dial
  // error. The host is shown by name (the simulation has no addresses).
  const std::string dial = response.status().code() == sim::StatusCode::kTimedOut
                               ? "i/o timeout"
                               : "connect: connection refused";
  co_return sim::Status::FromCode(
      response.status().code(),
      fmt::format("gocql: unable to create session: unable to discover protocol version: dial "
                  "tcp {}: {}",
                  fakes::FormatEndpoint(options_.store), dial));
}

sim::Awaitable<ClientResult> CqlSession::Query(std::string statement, std::vector<Value> values,
                                               PageRequest page) {
  co_return co_await Send(wire::kQuery, std::move(statement), std::move(values), std::move(page));
}

sim::Awaitable<ClientResult> CqlSession::Prepare(std::string statement,
                                                 PreparedStatement* prepared) {
  std::string text = statement;
  std::string keyspace = keyspace_;
  ClientResult result = co_await Send(wire::kPrepare, std::move(statement), {}, {});
  if (result.ok()) {
    *prepared = PreparedStatement(result.result.text, std::move(text), std::move(keyspace));
  }
  co_return result;
}

sim::Awaitable<ClientResult> CqlSession::Execute(const PreparedStatement& prepared,
                                                 std::vector<Value> values, PageRequest page) {
  // A copy: the caller's statement need not outlive the first suspension.
  const PreparedStatement statement = prepared;
  std::vector<Value> retry_values = values;
  PageRequest retry_page = page;
  ClientResult result =
      co_await Send(wire::kExecute, statement.id, std::move(values), std::move(page));
  if (!result.error || result.error->code != ErrorCode::kUnprepared) co_return result;
  // The store restarted and forgot it: prepare again (same text and
  // keyspace, so the same id), once.
  ClientResult prepare = co_await Send(wire::kPrepare, statement.text, {}, {}, statement.keyspace);
  if (!prepare.ok()) co_return prepare;
  co_return co_await Send(wire::kExecute, prepare.result.text, std::move(retry_values),
                          std::move(retry_page));
}

sim::Awaitable<ClientResult> CqlSession::QueryAll(std::string statement, std::vector<Value> values,
                                                  std::int32_t page_size) {
  PageRequest page;
  page.page_size = page_size;
  ClientResult all;
  for (int pages = 0; pages < kMaxPages; ++pages) {
    ClientResult one = co_await Query(statement, values, page);
    if (!one.ok()) co_return one;
    if (pages == 0) {
      all = one;
    } else {
      for (Row& row : one.result.rows) all.result.rows.push_back(std::move(row));
    }
    if (one.result.paging_state.empty()) {
      all.result.paging_state.clear();
      co_return all;
    }
    page.paging_state = one.result.paging_state;
  }
  all.status = sim::Status::Internal("more than kMaxPages pages");
  co_return all;
}

}  // namespace faultline::models::cql
