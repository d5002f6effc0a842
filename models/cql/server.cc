#include "models/cql/server.h"
#include "sim/fnv.h"

#include <fmt/format.h>

#include "fakes/runtime.h"
#include "models/cql/parser.h"
#include "models/cql/store_database.h"
#include "models/cql/wire.h"
#include "sim/assert.h"
#include "sim/trace.h"

namespace faultline::models::cql {
namespace {

fakes::Response Answer(const Outcome& outcome) {
  return fakes::Response(200, wire::EncodeOutcome(outcome));
}

// A prepared statement's id: a hash (FNV-1a) of the keyspace it was prepared
// in and its text, stable across restarts, so clients can keep ids; a
// restarted store just asks for a re-prepare (UNPREPARED) the first time.
std::string PreparedId(std::string_view keyspace, std::string_view text) {
  return fmt::format("{:016x}", sim::Fnv1a64(fmt::format("{}\n{}", keyspace, text)));
}

// "'photos', 'cat.jpg', 5, null": bound values as literals, untyped (a blob
// as hex), each cut at 60 characters.
std::string BoundValuesText(const std::vector<Value>& values) {
  std::string text;
  for (const Value& value : values) {
    std::string one;
    switch (value.kind) {
      case Value::Kind::kNull:
        one = "null";
        break;
      case Value::Kind::kInt:
        one = std::to_string(value.integer);
        break;
      case Value::Kind::kDouble:
        one = fmt::format("{}", value.real);
        break;
      case Value::Kind::kBool:
        one = value.integer != 0 ? "true" : "false";
        break;
      case Value::Kind::kText:
        one = "'" + value.bytes + "'";
        break;
      case Value::Kind::kBlob:
        one = "0x";
        for (const unsigned char c : value.bytes) one += fmt::format("{:02x}", c);
        break;
      default:
        one = fmt::format("<{} elements>", value.elements.size());
        break;
    }
    if (one.size() > 60) one = std::string(sim::CutAtCharacter(one, 57)) + "...";
    FL_ASSERT(one.size() <= 60);
    text += (text.empty() ? "" : ", ") + one;
  }
  return text;
}

}  // namespace

CqlError StoreService::Worded(CqlError error, std::string_view statement) const {
  if (error.code == ErrorCode::kUnprepared) return error;  // A protocol answer, not a statement's.
  if (gossip_) {                                           // Cassandra mode.
    if (error.code == ErrorCode::kNoKeyspace) error.message = kCassandraNoKeyspaceText;
    return error;
  }
  error.message = error.WireText(statement, error.offset);
  return error;
}

StoreService::Reply StoreService::Serve(const fakes::Request& request) {
  std::optional<wire::RequestBody> body = wire::DecodeRequest(request.body);
  if (!body) return {fakes::Response(400, "malformed request")};
  const Session session{body->keyspace};
  if (request.method == wire::kExecute) {
    auto found = prepared_.find(body->statement);
    if (found == prepared_.end()) {
      return {Answer(CqlError{ErrorCode::kUnprepared, "Unprepared Statement"})};
    }
    return Run(Session{found->second.keyspace}, found->second.statement, body->values, body->page,
               request.peer);
  }
  if (request.method == wire::kOptions) return {Answer(QueryResult{})};
  if (request.method != wire::kQuery && request.method != wire::kPrepare) {
    return {fakes::Response(400, "unknown method")};
  }
  if (request.method == wire::kQuery) {
    // Services send the same texts again and again: parse each once.
    auto cached = parsed_queries_.find(body->statement);
    if (cached != parsed_queries_.end()) {
      return Run(session, cached->second, body->values, body->page, request.peer);
    }
  }
  ParseResult parsed = Parse(body->statement);
  if (parsed.error) {
    CqlError error = SyntaxError(parsed.error->message);
    error.offset = parsed.error->position.offset;  // Into the request's text.
    return {Answer(Worded(std::move(error), body->statement))};
  }
  if (parsed.statements.size() != 1) {
    return {Answer(Worded(InvalidArgument("Expected exactly one statement"), body->statement))};
  }
  if (request.method == wire::kQuery) {
    constexpr std::size_t kMaxParsed = 1'000;  // A bound; past it, start over.
    if (parsed_queries_.size() >= kMaxParsed) parsed_queries_.clear();
    auto [entry, inserted] =
        parsed_queries_.emplace(body->statement, std::move(parsed.statements[0]));
    FL_ASSERT(inserted && parsed_queries_.size() <= kMaxParsed);
    return Run(session, entry->second, body->values, body->page, request.peer);
  }
  if (request.method == wire::kPrepare) {
    // A statement the store's grammar refuses fails to prepare, as it would
    // to run.
    if (std::optional<CqlError> refused = engine_.DialectError(parsed.statements[0])) {
      return {Answer(Worded(std::move(*refused), body->statement))};
    }
    std::string id = PreparedId(body->keyspace, body->statement);
    // A bound: past it the store forgets them all, and clients re-prepare
    // on "Unprepared Statement" as after a restart.
    constexpr std::size_t kMaxPrepared = 10'000;
    if (prepared_.size() >= kMaxPrepared) prepared_.clear();
    prepared_.insert_or_assign(id, Prepared{std::move(parsed.statements[0]), body->keyspace});
    FL_ASSERT(prepared_.size() <= kMaxPrepared && prepared_.contains(id));
    QueryResult result;
    result.text = std::move(id);
    return {Answer(result)};
  }
  return {fakes::Response(400, "unknown method")};
}

StoreService::Reply StoreService::Run(const Session& session, const ParsedStatement& statement,
                                      const std::vector<Value>& values, const PageRequest& page,
                                      const std::string& peer) {
  const int coordinator = gossip_ ? gossip_->CoordinatorFor(peer) : 0;
  Session running = session;
  std::optional<CqlError> race = CheckSchemaRace(session, statement, coordinator);
  Outcome outcome = race ? Outcome(*race) : engine_.Execute(running, statement, values, page);
  const auto* done = std::get_if<QueryResult>(&outcome);
  const bool schema_changed = done != nullptr && done->kind == QueryResult::Kind::kSchemaChange;
  FL_ASSERT(!race || !schema_changed);  // A statement that lost the race changed nothing.
  FL_ASSERT(coordinator >= 0);
  if (schema_changed) RecordSchemaChange(session, statement, coordinator);
  if (simulation_ != nullptr) {
    std::string result = "ok";
    if (const auto* error = std::get_if<CqlError>(&outcome)) {
      // Its number and YCQL's words for it ("error -301 Object Not Found").
      result = fmt::format("error {} {}", static_cast<int>(error->code), Headline(error->message));
    } else if (done->kind == QueryResult::Kind::kRows) {
      result = fmt::format("{} rows", done->rows.size());
    }
    std::vector<sim::TraceField> fields = {
        {"statement", statement.text}, {"keyspace", session.keyspace}, {"outcome", result}};
    // The bound values, so a reader of the trace sees what each '?' was.
    if (!values.empty()) fields.push_back({"values", BoundValuesText(values)});
    fields.push_back({"from", peer});  // Which client sent it, for readers of the trace.
    if (gossip_) fields.push_back({"coordinator", coordinator});
    simulation_->Emit("cql.statement", std::move(fields));
  }
  if (auto* error = std::get_if<CqlError>(&outcome)) {
    outcome = Worded(std::move(*error), statement.text);
  }
  Reply reply{Answer(outcome)};
  if (gossip_ && (schema_changed || race)) reply.delay = gossip_->propagation();
  return reply;
}

namespace {

// "ks.t" for a table a statement names, in the session's keyspace when it
// names none; empty when there is neither.
std::string FullName(const Session& session, const QualifiedName& table) {
  const std::string& keyspace = table.keyspace.empty() ? session.keyspace : table.keyspace;
  if (keyspace.empty()) return {};
  return keyspace + "." + table.name;
}

}  // namespace

std::optional<CqlError> StoreService::CheckSchemaRace(const Session& session,
                                                      const ParsedStatement& statement,
                                                      int coordinator) {
  if (!gossip_) return std::nullopt;
  const auto* create = std::get_if<CreateTable>(&statement.statement);
  FL_ASSERT(simulation_ != nullptr);  // Cassandra mode runs in a simulation.
  if (create == nullptr) return std::nullopt;
  const std::string table = FullName(session, create->table);
  if (table.empty()) return std::nullopt;
  return gossip_->CheckCreate(table, coordinator, simulation_->Now());
}

void StoreService::RecordSchemaChange(const Session& session, const ParsedStatement& statement,
                                      int coordinator) {
  if (!gossip_) return;
  if (const auto* create = std::get_if<CreateTable>(&statement.statement)) {
    gossip_->RecordCreate(FullName(session, create->table), coordinator, simulation_->Now());
  } else if (const auto* drop = std::get_if<DropTable>(&statement.statement)) {
    gossip_->Forget(FullName(session, drop->table));
  } else if (const auto* drop_keyspace = std::get_if<DropKeyspace>(&statement.statement)) {
    gossip_->ForgetKeyspace(drop_keyspace->name);
  }
}

fakes::EntryPoint StoreEntryPoint(StoreOptions options) {
  return [options](fakes::ContainerContext& context) -> sim::Awaitable<int> {
    const std::string path = context.SqlitePath(std::string(kStoreDataDirectory) + "/meta.db");
    auto opened = StoreDatabase::Open(context.vfs(), path, options.durability, options.dialect);
    if (auto* status = std::get_if<sim::Status>(&opened)) {
      context.Log("cannot open the store: " + status->ToString());
      co_return 1;
    }
    std::unique_ptr<StoreDatabase> store =
        std::move(std::get<std::unique_ptr<StoreDatabase>>(opened));
    std::optional<StoreService> service;
    if (options.schema_agreement == SchemaAgreement::kCassandra) {
      service.emplace(store->engine(), context.simulation(), options.cassandra);
    } else {
      service.emplace(store->engine(), &context.simulation());
    }
    const sim::Duration statement_time = options.statement_time;
    context.network().Listen(
        context.process(), kCqlPort,
        [&service, statement_time](fakes::Request request) -> sim::Awaitable<fakes::Response> {
          co_await sim::SleepFor(statement_time);
          StoreService::Reply reply = service->Serve(request);
          if (reply.delay > sim::Duration::zero()) co_await sim::SleepFor(reply.delay);
          co_return std::move(reply.response);
        });
    context.SetReady(true);
    context.Log(fmt::format("store ready on port {}", kCqlPort));
    co_await context.StopRequested();
    context.Log("store stopping");
    co_return 0;
  };
}

fakes::ServiceSpec StoreServiceSpec(std::string name, std::string volume) {
  fakes::ServiceSpec spec;
  spec.name = std::move(name);
  spec.image = kStoreImage;
  spec.version = "2.20";
  spec.mounts.push_back(
      fakes::MountSpec{std::move(volume), kStoreDataDirectory, fakes::VolumeKind::kNamedVolume});
  spec.restart = fakes::RestartPolicy::kAlways;
  FL_ASSERT(!spec.name.empty() && !spec.mounts.front().source.empty());
  return spec;
}

}  // namespace faultline::models::cql
