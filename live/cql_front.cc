// The CQL front: the native protocol v4 on a real socket, each statement a
// `cql` step the store runs in the simulation (its session's keyspace and
// paging with it), its answer framed as the protocol says. What a driver
// asks that sends nothing to the store (OPTIONS, STARTUP, REGISTER, the bind
// markers' types of a PREPARE) is answered here, reading the store's
// catalog as the checkers do: it changes nothing. Bound values are written
// into the statement as literals, so a recorded step replays without them.
// Boost 1.74's Asio needs <utility> before it under GCC 12.
#include <utility>

#include <fmt/format.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <deque>
#include <map>
#include <memory>
#include <set>

#include "live/cql_codec.h"
#include "live/cql_statements.h"
#include "live/server.h"
#include "models/cql/errors.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"
#include "sim/fnv.h"

namespace faultline::live {
namespace {

using asio::ip::tcp;
using cql::ErrorCode;
using cql::Opcode;
using cql::Writer;
using models::cql::ClientResult;
using models::cql::CqlError;
using models::cql::QueryResult;

struct Prepared {
  std::string text;
  std::string keyspace;
  cql::BindMarkers markers;
};

class Connection;

// What the connections share: the statements prepared on the store (gone
// when it restarts), and who listens for schema changes.
struct Front {
  Server& server;
  std::map<std::string, Prepared> prepared;
  std::set<std::shared_ptr<Connection>> connections;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Front& front, tcp::socket socket) : front_(front), socket_(std::move(socket)) {}

  asio::awaitable<void> Serve();
  void Send(std::string frame);
  void Close() {
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }
  bool listens_for_schema() const { return schema_events_; }

 private:
  asio::awaitable<void> WriteQueued();
  asio::awaitable<bool> Handle(const cql::FrameHeader& header, std::string body);
  asio::awaitable<std::string> Query(std::string text, cql::QueryParameters parameters);
  asio::awaitable<std::string> Prepare(std::string text);
  asio::awaitable<std::string> Execute(cql::Reader& in);
  asio::awaitable<std::string> Batch(cql::Reader& in);
  asio::awaitable<std::string> Run(std::string statement, std::string keyspace,
                                   cql::QueryParameters parameters);
  // Shared, not by value: GCC 12 miscompiles aggregates with string
  // members returned through co_await.
  using MarkersOrError = std::variant<cql::BindMarkers, CqlError>;
  asio::awaitable<std::shared_ptr<MarkersOrError>> Markers(std::string text, std::string keyspace);
  std::string ResultOf(const std::string& statement, const std::string& keyspace,
                       const QueryResult& result);

  Front& front_;
  tcp::socket socket_;
  std::string keyspace_;
  bool schema_events_ = false;
  bool closing_ = false;
  std::deque<std::string> outgoing_;
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
};

// The store forgot it (it restarted), or never prepared it: the driver
// prepares it again when told so.
std::string UnpreparedBody(const std::string& id) {
  Writer out;
  out.Int(static_cast<std::int32_t>(ErrorCode::kUnprepared))
      .String("Prepared query with ID not found; prepare it again")
      .ShortBytes(id);
  return out.Take();
}

std::string ErrorBody(ErrorCode code, std::string_view message) {
  Writer out;
  out.Int(static_cast<std::int32_t>(code)).String(message.substr(0, 0xffff));
  return out.Take();
}

// The store's error as the protocol codes it (YCQL's ErrorCode to CQL's).
std::string StoreErrorBody(const CqlError& error, const std::string& statement,
                           const std::string& keyspace) {
  using models::cql::ErrorCode;
  if (error.code == ErrorCode::kDuplicateObject || error.code == ErrorCode::kDuplicateType) {
    const std::optional<cql::SchemaChange> change = cql::SchemaChangeOf(statement, keyspace);
    Writer out;
    out.Int(static_cast<std::int32_t>(cql::ErrorCode::kAlreadyExists)).String(error.message);
    out.String(change ? change->keyspace : keyspace).String(change ? change->name : "");
    return out.Take();
  }
  const cql::ErrorCode code = error.code == ErrorCode::kSyntaxError   ? cql::ErrorCode::kSyntaxError
                              : error.code == ErrorCode::kServerError ? cql::ErrorCode::kServerError
                                                                      : cql::ErrorCode::kInvalid;
  return ErrorBody(code, error.message);
}

void Metadata(Writer& out, const std::string& keyspace, const std::string& table,
              const std::vector<models::cql::ColumnSpec>& columns, const std::string& paging) {
  const bool global = !table.empty();
  std::int32_t flags = global ? 0x0001 : 0;
  if (!paging.empty()) flags |= 0x0002;
  out.Int(flags).Int(static_cast<std::int32_t>(columns.size()));
  if (!paging.empty()) out.Bytes(paging);
  if (global) out.String(keyspace).String(table);
  for (const auto& column : columns) {
    if (!global) out.String(keyspace).String(table);
    out.String(column.name).Type(column.type);
  }
}

std::string SchemaChangeBody(const cql::SchemaChange& change) {
  Writer out;
  out.String(change.change).String(change.target).String(change.keyspace);
  if (change.target != "KEYSPACE") out.String(change.name);
  return out.Take();
}

std::string ResultFrameBody(std::int32_t kind, std::string_view rest) {
  Writer out;
  out.Int(kind).Raw(rest);
  return out.Take();
}

std::string PreparedId(const std::string& keyspace, const std::string& text) {
  Writer out;
  out.Long(static_cast<std::int64_t>(sim::Fnv1a64(keyspace + '\0' + text)));
  out.Long(static_cast<std::int64_t>(sim::Fnv1a64(text + '\0' + keyspace)));
  return out.Take();
}

void Connection::Send(std::string frame) {
  // A client that sends and never reads (or ignores the events it asked
  // for) is not kept in memory without end: past the bound, it goes.
  constexpr std::size_t kMaxQueuedBytes = 64u << 20;
  if (queued_bytes_ + frame.size() > kMaxQueuedBytes) {
    front_.server.Say("live: a CQL client reads nothing of its answers; its connection closed");
    outgoing_.clear();
    queued_bytes_ = 0;
    closing_ = true;
    Close();
    return;
  }
  queued_bytes_ += frame.size();
  outgoing_.push_back(std::move(frame));
  if (writing_) return;
  writing_ = true;
  asio::co_spawn(
      socket_.get_executor(), [self = shared_from_this()]() { return self->WriteQueued(); },
      SayIfThrown(front_.server, "a CQL connection's writer"));
}

asio::awaitable<void> Connection::WriteQueued() {
  // Bounded by the queue's bytes (Send): each frame is at least a header.
  for (std::size_t n = 0; !outgoing_.empty(); ++n) {
    FL_ASSERT(n < (64u << 20));
    std::string frame = std::move(outgoing_.front());
    outgoing_.pop_front();
    queued_bytes_ -= frame.size();
    boost::system::error_code error;
    co_await asio::async_write(socket_, asio::buffer(frame),
                               asio::redirect_error(asio::use_awaitable, error));
    if (error) {
      outgoing_.clear();
      break;
    }
  }
  writing_ = false;
  if (closing_) Close();
}

asio::awaitable<std::shared_ptr<Connection::MarkersOrError>> Connection::Markers(
    std::string text, std::string keyspace) {
  auto found = std::make_shared<MarkersOrError>(CqlError{});
  MarkersOrError& markers = *found;
  const std::function<void(Session&)> observe = [&](Session& session) {
    sim::Result<models::cql::StoreSnapshot*> store = scenarios::ObserveStore(session.world());
    if (!store.ok()) {
      CqlError error;
      error.code = models::cql::ErrorCode::kServerError;
      error.message = "the store holds no database yet: " + store.status().ToString();
      markers = error;
      return;
    }
    markers = cql::MarkersOf(text, keyspace, (*store)->catalog());
  };
  co_await front_.server.Between(observe);
  co_return std::shared_ptr<MarkersOrError>(
      found);  // A copy: GCC 12 frees an implicitly moved local.
}

std::string Connection::ResultOf(const std::string& statement, const std::string& keyspace,
                                 const QueryResult& result) {
  switch (result.kind) {
    case QueryResult::Kind::kVoid:
      return ResultFrameBody(1, "");
    case QueryResult::Kind::kSetKeyspace: {
      keyspace_ = result.text;
      Writer out;
      out.String(result.text);
      return ResultFrameBody(3, out.bytes());
    }
    case QueryResult::Kind::kSchemaChange: {
      const std::optional<cql::SchemaChange> change = cql::SchemaChangeOf(statement, keyspace);
      if (!change) return ResultFrameBody(1, "");
      const std::string body = SchemaChangeBody(*change);
      Writer event;
      event.String("SCHEMA_CHANGE").Raw(body);
      for (const auto& connection : front_.connections) {
        if (connection->listens_for_schema()) {
          connection->Send(cql::Frame(-1, Opcode::kEvent, event.bytes()));
        }
      }
      return ResultFrameBody(5, body);
    }
    case QueryResult::Kind::kText: {
      // DESCRIBE's text (ycqlsh's own statement) as one row of one column.
      Writer out;
      Metadata(out, "", "", {{"description", {}}}, "");
      out.Int(1).Bytes(result.text);
      return ResultFrameBody(2, out.bytes());
    }
    case QueryResult::Kind::kRows: {
      const auto [ks, table] = cql::TableOf(statement, keyspace);
      Writer out;
      Metadata(out, ks, table, result.columns, result.paging_state);
      out.Int(static_cast<std::int32_t>(result.rows.size()));
      for (const models::cql::Row& row : result.rows) {
        for (std::size_t i = 0; i < result.columns.size(); ++i) {
          const bool present = i < row.size() && !row[i].is_null();
          out.Bytes(present ? std::optional(cql::EncodeValue(row[i], result.columns[i].type))
                            : std::nullopt);
        }
      }
      return ResultFrameBody(2, out.bytes());
    }
  }
  return ResultFrameBody(1, "");
}

asio::awaitable<std::string> Connection::Run(std::string statement, std::string keyspace,
                                             cql::QueryParameters parameters) {
  scenarios::Step step;
  step.kind = scenarios::Step::Kind::kCql;
  step.statement = statement;
  step.keyspace = keyspace;
  step.number = parameters.page_size > 0 ? parameters.page_size : 0;
  step.paging_state = parameters.paging_state;
  std::shared_ptr<Answered> done = co_await front_.server.Perform(step);
  const Answered& answered = *done;
  if (!answered.answer.cql) {
    co_return ErrorBody(ErrorCode::kServerError, answered.result.outcome);
  }
  const ClientResult& result = *answered.answer.cql;
  if (!result.status.ok()) {
    // No answer from the store (down, partitioned away, too slow): the
    // driver's connection goes with it, as a real one's would.
    if (result.status.code() == sim::StatusCode::kUnavailable) closing_ = true;
    co_return ErrorBody(ErrorCode::kServerError, result.status.ToString());
  }
  if (result.error) co_return StoreErrorBody(*result.error, statement, keyspace);
  co_return ResultOf(statement, keyspace, result.result);
}

// Values bound to a statement's markers, decoded as their types say.
std::variant<std::vector<std::optional<models::cql::Value>>, std::string> Decoded(
    const cql::BindMarkers& markers, const std::vector<cql::BoundValue>& values) {
  std::vector<std::optional<models::cql::Value>> decoded;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i].unset) {
      return std::string(
          "an unset value (protocol v4's -2) cannot be written into a statement: "
          "bind null, or leave the column out");
    }
    if (!values[i].bytes) {
      decoded.emplace_back();
      continue;
    }
    if (i >= markers.columns.size()) return std::string("more values than bind markers");
    std::optional<models::cql::Value> value =
        cql::DecodeValue(*values[i].bytes, markers.columns[i].type);
    if (!value) {
      return fmt::format("the value bound to {} is not a {}", markers.columns[i].name,
                         markers.columns[i].type.ToString());
    }
    decoded.push_back(std::move(value));
  }
  return decoded;
}

asio::awaitable<std::string> Connection::Query(std::string text, cql::QueryParameters parameters) {
  if (!parameters.values.empty()) {
    std::shared_ptr<MarkersOrError> found = co_await Markers(text, keyspace_);
    const MarkersOrError& markers = *found;
    if (auto* error = std::get_if<CqlError>(&markers)) {
      co_return StoreErrorBody(*error, text, keyspace_);
    }
    auto values = Decoded(std::get<cql::BindMarkers>(markers), parameters.values);
    if (auto* why = std::get_if<std::string>(&values)) {
      co_return ErrorBody(ErrorCode::kProtocolError, *why);
    }
    auto inlined = cql::Inlined(text, std::get<cql::BindMarkers>(markers), std::get<0>(values));
    if (auto* error = std::get_if<CqlError>(&inlined))
      co_return StoreErrorBody(*error, text, keyspace_);
    text = std::get<std::string>(std::move(inlined));
  }
  co_return co_await Run(std::move(text), keyspace_, std::move(parameters));
}

asio::awaitable<std::string> Connection::Prepare(std::string text) {
  std::shared_ptr<MarkersOrError> found = co_await Markers(text, keyspace_);
  if (auto* error = std::get_if<CqlError>(found.get()))
    co_return StoreErrorBody(*error, text, keyspace_);
  cql::BindMarkers& markers = std::get<cql::BindMarkers>(*found);
  const std::string id = PreparedId(keyspace_, text);
  Writer out;
  out.ShortBytes(id);
  // The markers' metadata: flags, count, the partition key's markers, specs.
  const bool global = !markers.table.empty();
  out.Int(global ? 0x0001 : 0).Int(static_cast<std::int32_t>(markers.columns.size()));
  out.Int(static_cast<std::int32_t>(markers.partition_key.size()));
  for (const std::uint16_t index : markers.partition_key) out.Short(index);
  if (global) out.String(markers.keyspace).String(markers.table);
  for (const auto& column : markers.columns) {
    if (!global) out.String(markers.keyspace).String(markers.table);
    out.String(column.name).Type(column.type);
  }
  if (markers.result.empty()) {
    out.Int(0x0004).Int(0);  // No metadata: each RESULT carries its own.
  } else {
    Metadata(out, markers.keyspace, markers.table, markers.result, "");
  }
  front_.prepared[id] = Prepared{text, keyspace_, std::move(markers)};
  co_return ResultFrameBody(4, out.bytes());
}

asio::awaitable<std::string> Connection::Execute(cql::Reader& in) {
  const std::string id = in.ShortBytes();
  cql::QueryParameters parameters;
  if (!cql::ReadParameters(in, parameters)) {
    co_return ErrorBody(ErrorCode::kProtocolError, "EXECUTE's parameters are malformed");
  }
  const auto found = front_.prepared.find(id);
  if (found == front_.prepared.end()) co_return UnpreparedBody(id);
  const Prepared prepared = found->second;
  auto values = Decoded(prepared.markers, parameters.values);
  if (auto* why = std::get_if<std::string>(&values)) {
    co_return ErrorBody(ErrorCode::kProtocolError, *why);
  }
  auto inlined = cql::Inlined(prepared.text, prepared.markers, std::get<0>(values));
  if (auto* error = std::get_if<CqlError>(&inlined)) {
    co_return StoreErrorBody(*error, prepared.text, prepared.keyspace);
  }
  std::string statement = std::get<std::string>(std::move(inlined));
  co_return co_await Run(std::move(statement), prepared.keyspace, std::move(parameters));
}

asio::awaitable<std::string> Connection::Batch(cql::Reader& in) {
  in.Byte();  // LOGGED, UNLOGGED or COUNTER: the store applies a batch alike.
  const std::uint16_t count = in.Short();
  std::string statement = "BEGIN BATCH\n";
  std::optional<std::string> batch_keyspace;
  for (std::uint16_t i = 0; i < count && !in.failed(); ++i) {
    const std::uint8_t kind = in.Byte();
    std::string text;
    std::string keyspace = keyspace_;
    std::optional<cql::BindMarkers> markers;
    if (kind == 1) {
      const std::string id = in.ShortBytes();
      const auto found = front_.prepared.find(id);
      if (found == front_.prepared.end()) co_return UnpreparedBody(id);
      text = found->second.text;
      keyspace = found->second.keyspace;
      markers = found->second.markers;
    } else {
      text = in.LongString();
    }
    std::vector<cql::BoundValue> values;
    const std::uint16_t n = in.Short();
    for (std::uint16_t k = 0; k < n && !in.failed(); ++k) values.push_back(in.Bound());
    if (in.failed()) break;
    if (!values.empty()) {
      if (!markers) {
        std::shared_ptr<MarkersOrError> found = co_await Markers(text, keyspace);
        if (auto* error = std::get_if<CqlError>(found.get()))
          co_return StoreErrorBody(*error, text, keyspace);
        markers = std::get<cql::BindMarkers>(*found);
      }
      auto decoded = Decoded(*markers, values);
      if (auto* why = std::get_if<std::string>(&decoded))
        co_return ErrorBody(ErrorCode::kProtocolError, *why);
      auto inlined = cql::Inlined(text, *markers, std::get<0>(decoded));
      if (auto* error = std::get_if<CqlError>(&inlined))
        co_return StoreErrorBody(*error, text, keyspace);
      text = std::get<std::string>(std::move(inlined));
    }
    statement += "  " + text + ";\n";
    // The batch is one statement in one keyspace: its parts' must agree.
    if (batch_keyspace && *batch_keyspace != keyspace) {
      co_return ErrorBody(ErrorCode::kInvalid,
                          "a batch of statements prepared in different keyspaces: qualify "
                          "their tables with the keyspace");
    }
    batch_keyspace = keyspace;
  }
  cql::QueryParameters parameters;
  parameters.consistency = in.Short();
  if (in.failed()) co_return ErrorBody(ErrorCode::kProtocolError, "BATCH is malformed");
  statement += "APPLY BATCH";
  std::string keyspace = batch_keyspace.value_or(keyspace_);
  co_return co_await Run(std::move(statement), std::move(keyspace), std::move(parameters));
}

asio::awaitable<bool> Connection::Handle(const cql::FrameHeader& header, std::string body) {
  cql::Reader in(body);
  const auto reply = [&](Opcode opcode, std::string_view payload) {
    Send(cql::Frame(header.stream, opcode, payload));
  };
  const auto error_reply = [&](std::string_view bytes) {
    // A RESULT body starts with its kind (1 to 5); an ERROR's with its code.
    cql::Reader peek(bytes);
    const std::int32_t first = peek.Int();
    reply(first >= 1 && first <= 5 ? Opcode::kResult : Opcode::kError, bytes);
  };
  switch (static_cast<Opcode>(header.opcode)) {
    case Opcode::kOptions: {
      Writer out;
      out.StringMultimap(
          {{"CQL_VERSION", {"3.4.2"}}, {"COMPRESSION", {}}, {"PROTOCOL_VERSIONS", {"4/v4"}}});
      reply(Opcode::kSupported, out.bytes());
      co_return true;
    }
    case Opcode::kStartup: {
      const std::map<std::string, std::string> options = in.StringMap();
      if (in.failed()) break;
      if (options.contains("COMPRESSION")) {
        reply(Opcode::kError, ErrorBody(ErrorCode::kProtocolError, "compression is not supported"));
        co_return true;
      }
      reply(Opcode::kReady, "");
      co_return true;
    }
    case Opcode::kRegister: {
      for (const std::string& event : in.StringList()) schema_events_ |= event == "SCHEMA_CHANGE";
      if (in.failed()) break;
      reply(Opcode::kReady, "");
      co_return true;
    }
    case Opcode::kQuery: {
      std::string text = in.LongString();
      cql::QueryParameters parameters;
      if (!cql::ReadParameters(in, parameters)) break;
      std::string answer = co_await Query(std::move(text), std::move(parameters));
      error_reply(answer);
      co_return true;
    }
    case Opcode::kPrepare: {
      std::string text = in.LongString();
      if (in.failed()) break;
      std::string answer = co_await Prepare(std::move(text));
      error_reply(answer);
      co_return true;
    }
    case Opcode::kExecute: {
      std::string answer = co_await Execute(in);
      error_reply(answer);
      co_return true;
    }
    case Opcode::kBatch: {
      std::string answer = co_await Batch(in);
      error_reply(answer);
      co_return true;
    }
    default:
      reply(Opcode::kError, ErrorBody(ErrorCode::kProtocolError,
                                      fmt::format("unknown opcode 0x{:02x}", header.opcode)));
      co_return false;
  }
  reply(Opcode::kError, ErrorBody(ErrorCode::kProtocolError, "the message's body is malformed"));
  co_return false;
}

asio::awaitable<void> Connection::Serve() {
  constexpr std::uint64_t kMaxFrames = std::uint64_t{1} << 40;
  for (std::uint64_t n = 0; n < kMaxFrames && !closing_ && !front_.server.stopping(); ++n) {
    std::uint8_t bytes[cql::kHeaderSize];
    boost::system::error_code error;
    co_await asio::async_read(socket_, asio::buffer(bytes),
                              asio::redirect_error(asio::use_awaitable, error));
    if (error) break;
    const cql::FrameHeader header = cql::ReadHeader(bytes);
    if ((header.version & 0x7f) != cql::kVersion || (header.version & 0x80) != 0) {
      // As Cassandra words it: the Python driver steps down on these words.
      Send(cql::Frame(header.stream, Opcode::kError,
                      ErrorBody(ErrorCode::kProtocolError,
                                fmt::format("Invalid or unsupported protocol version ({}); "
                                            "supported versions are (4/v4)",
                                            header.version & 0x7f))));
      closing_ = true;
      break;
    }
    if (header.length > cql::kMaxBody) {
      Send(cql::Frame(header.stream, Opcode::kError,
                      ErrorBody(ErrorCode::kProtocolError,
                                fmt::format("a frame of {} bytes is over the limit of {}",
                                            header.length, cql::kMaxBody))));
      closing_ = true;
      break;
    }
    if ((header.flags & 0x05) != 0) {  // Compression, a custom payload.
      Send(cql::Frame(header.stream, Opcode::kError,
                      ErrorBody(ErrorCode::kProtocolError,
                                "compressed frames and custom payloads are not supported")));
      closing_ = true;
      break;
    }
    std::string body(header.length, '\0');
    co_await asio::async_read(socket_, asio::buffer(body),
                              asio::redirect_error(asio::use_awaitable, error));
    if (error) break;
    if (!co_await Handle(header, std::move(body))) {
      closing_ = true;
      break;
    }
  }
  closing_ = true;
  if (!writing_) Close();
}

}  // namespace

asio::awaitable<void> AcceptCql(Server& server, tcp::acceptor& acceptor) {
  auto front = std::make_shared<Front>(Front{server, {}, {}});
  server.cql_hooks().store_restarted = [front] {
    front->prepared.clear();
    for (const auto& connection : front->connections) connection->Close();
  };
  constexpr std::uint64_t kMaxAccepts = std::uint64_t{1} << 40;
  for (std::uint64_t n = 0; n < kMaxAccepts && !server.stopping(); ++n) {
    tcp::socket socket(server.io());
    if (!co_await AcceptNext(server, acceptor, socket)) continue;
    // A store that is down refuses connections: so does its front.
    bool serving = false;
    const std::function<void(Session&)> observe = [&serving](Session& session) {
      serving = session.StoreServing();
    };
    co_await server.Between(observe);
    if (!serving) continue;  // The socket closes as it goes.
    auto connection = std::make_shared<Connection>(*front, std::move(socket));
    front->connections.insert(connection);
    asio::co_spawn(
        server.io(),
        [front, connection]() -> asio::awaitable<void> {
          co_await connection->Serve();
          front->connections.erase(connection);
        },
        SayIfThrown(server, "a CQL connection"));
  }
}

}  // namespace faultline::live
