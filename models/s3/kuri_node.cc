#include "models/s3/kuri_node.h"
#include "sim/fnv.h"

#include <fmt/format.h>

#include <charconv>

#include "fakes/runtime.h"
#include "models/cql/client.h"
#include "models/s3/md5.h"
#include "models/s3/multipart.h"
#include "sim/assert.h"

namespace faultline::models::s3 {
namespace {

using fakes::Request;
using fakes::Response;

std::string DataPath(const ObjectPath& object) { return NodeObjectPath(object); }

// A running node: its configuration, session, and request handlers.
class KuriNode {
 public:
  KuriNode(fakes::ContainerContext& context, const NodeImage& image)
      : context_(context),
        image_(image),
        node_id_(NodeId(context.spec())),
        keyspace_(NodeKeyspace(context.spec())),
        port_(NodePort(context.spec())),
        retry_(NodeRetryPolicy(context.spec(), image.startup_retry)),
        session_(context.network(), SessionOptions(context)),
        multipart_(context.network(), session_, context.VolumeAt(kNodeDataDirectory), node_id_,
                   fakes::Endpoint(context.name(), port_), context.process().incarnation()) {}

  sim::Awaitable<int> Run() {
    if (port_ == 0) {
      context_.Log("invalid PORT '" + context_.Env("PORT") + "'");
      co_return 1;
    }
    if (!retry_) {
      context_.Log("invalid RETRY_ATTEMPTS, RETRY_DELAY_MS or RETRY_CAP_MS");
      co_return 1;
    }
    context_.Log(
        fmt::format("starting node {} on port {}, keyspace {}", node_id_, port_, keyspace_));
    // The serves-early image answers while its start-up still runs.
    if (image_.code.serves_before_migrating) Serve();
    if (sim::Status migrated = co_await MigrateWithRetries(); !migrated.ok()) {
      context_.Log(StartupFailureLine(migrated));
      co_return 1;
    }
    if (sim::Status connected = co_await CreateGatewaySession(session_, keyspace_, *retry_);
        !connected.ok()) {
      context_.Log(StartupFailureLine(connected));
      co_return 1;
    }
    co_await ReplayDeleteJournal();
    if (!image_.code.serves_before_migrating) Serve();
    co_await context_.StopRequested();
    co_return 0;
  }

 private:
  void Serve() {
    context_.network().Listen(context_.process(), port_,
                              [this](Request request) -> sim::Awaitable<Response> {
                                co_return co_await Handle(std::move(request));
                              });
    context_.SetReady(true);  // Its /healthz answers 200 whenever it listens.
    context_.Log(fmt::format("node {} serving S3 on port {}", node_id_, port_));
  }

  static cql::ClientOptions SessionOptions(fakes::ContainerContext& context) {
    cql::ClientOptions options;
    options.store = fakes::Endpoint(context.Env("STORE_HOST", "yugabyte"), cql::kCqlPort);
    return options;
  }

  // NewYugabyteCqlDb: the migrations inside the gateway's start-up retry.
  sim::Awaitable<sim::Status> MigrateWithRetries() {
    FL_ASSERT(retry_.has_value());  // Run refuses a malformed policy first.
    co_return co_await RetryCqlStartup(
        "initialize yugabyte cql", *retry_, [this]() -> sim::Awaitable<sim::Status> {
          co_return co_await image_.runner->Migrate(
              session_, keyspace_, image_.migrations, LockOwner(context_),
              [this](const std::string& line) { context_.Log(line); });
        });
  }

  sim::Awaitable<Response> Handle(Request request) {
    if (request.path == "/healthz") co_return Response(200, "ok");
    if (request.path.starts_with("/_parts/")) co_return multipart_.ServePart(request.path);
    if (request.method == "GET" && IsBucketPath(request.path)) {
      co_return co_await BucketRequest(request.path.substr(1), request.query);
    }
    const std::optional<ObjectPath> object = ParseObjectPath(request.path);
    if (!object) co_return ErrorResponse(400, "InvalidRequest", "no bucket and key", request.path);
    const std::optional<std::string> upload = QueryParameter(request.query, "uploadId");
    if (request.method == "POST" && QueryParameter(request.query, "uploads")) {
      co_return co_await multipart_.Initiate(*object);
    }
    if (image_.code.decodes_body_encoding) {
      const auto encoding = request.headers.find(kBodyEncodingHeader);
      if (encoding != request.headers.end()) {
        std::optional<std::string> decoded = DecodeBase64(request.body);
        if (encoding->second != kBase64 || !decoded) {
          co_return ErrorResponse(400, "InvalidRequest", "bad X-Body-Encoding", request.path);
        }
        request.body = std::move(*decoded);
      }
    }
    if (upload) co_return co_await HandleUpload(*object, *upload, std::move(request));
    if (request.method == "PUT") co_return co_await Put(*object, std::move(request.body));
    if (request.method == "GET" || request.method == "HEAD") {
      co_return Get(*object, request.method == "HEAD", request.path);
    }
    if (request.method == "DELETE") co_return co_await Delete(*object);
    co_return ErrorResponse(405, "MethodNotAllowed", request.method, request.path);
  }

  // GET /bucket?location and GET /bucket?list-type=2 (from the index).
  sim::Awaitable<Response> BucketRequest(std::string bucket, std::string query) {
    FL_ASSERT(!bucket.empty());  // IsBucketPath: "/" and a name.
    if (QueryParameter(query, "location")) {
      co_return Response(200, "<LocationConstraint>us-east-1</LocationConstraint>");
    }
    if (QueryParameter(query, "list-type") != "2") {
      co_return ErrorResponse(400, "InvalidRequest", "unsupported bucket request", bucket);
    }
    std::vector<cql::Value> key;
    key.push_back(cql::Value::Text(bucket));
    cql::ClientResult rows = co_await session_.QueryAll(
        fmt::format("SELECT key, size FROM {}.{} WHERE bucket = ?", kIndexKeyspace, kObjectsTable),
        std::move(key), 1000);
    if (!rows.ok()) co_return ErrorResponse(500, "InternalError", rows.ToString(), bucket);
    std::string body = fmt::format("<ListBucketResult><Name>{}</Name><KeyCount>{}</KeyCount>",
                                   bucket, rows.result.rows.size());
    for (const cql::Row& row : rows.result.rows) {
      body += fmt::format("<Contents><Key>{}</Key><Size>{}</Size></Contents>", row.at(0).bytes,
                          row.at(1).integer);
    }
    co_return Response(200, body + "</ListBucketResult>");
  }

  sim::Awaitable<Response> HandleUpload(ObjectPath object, std::string upload, Request request) {
    if (request.method == "PUT") {
      int part = 0;
      const std::string number = QueryParameter(request.query, "partNumber").value_or("");
      std::from_chars(number.data(), number.data() + number.size(), part);
      co_return co_await multipart_.UploadPart(upload, part, std::move(request.body));
    }
    if (request.method == "DELETE") {
      co_return co_await multipart_.Abort(upload);
    }
    if (request.method != "POST") {
      co_return ErrorResponse(405, "MethodNotAllowed", request.method, request.path);
    }
    sim::Result<NodeMultipart::Claim> claim = co_await multipart_.ClaimForCompletion(upload);
    if (!claim.ok()) {
      co_return ErrorResponse(500, "InternalError", claim.status().message(), request.path);
    }
    if (*claim == NodeMultipart::Claim::kAlreadyComplete) co_return Response(200);
    if (*claim == NodeMultipart::Claim::kNoSuchUpload) {
      co_return ErrorResponse(404, "NoSuchUpload", "The specified upload does not exist.", upload);
    }
    FL_ASSERT(*claim == NodeMultipart::Claim::kClaimed);
    sim::Result<std::string> bytes = co_await multipart_.Assemble(upload, request.body);
    if (!bytes.ok()) {
      co_await multipart_.ReleaseClaim(upload);
      co_return ErrorResponse(bytes.status().code() == sim::StatusCode::kUnavailable ? 503 : 400,
                              "InvalidPart", bytes.status().message(), request.path);
    }
    Response stored = co_await Put(object, std::move(bytes).value());
    if (stored.status != 200) {
      co_await multipart_.ReleaseClaim(upload);
      co_return stored;
    }
    co_return co_await multipart_.FinishCompletion(upload);
  }

  sim::Awaitable<Response> Put(ObjectPath object, std::string body) {
    fakes::Volume* data = context_.VolumeAt(kNodeDataDirectory);
    if (data == nullptr) co_return ErrorResponse(500, "InternalError", "no data directory", "");
    fakes::SimFile& file = data->OpenOrCreate(DataPath(object));
    file.Truncate(0);
    const std::string stored = StoredObjectFile(image_.code, body);
    if (sim::Status written = data->Write(file, 0, stored); !written.ok()) {
      co_return ErrorResponse(500, "InternalError", written.message(), DataPath(object));
    }
    // Reads see every write: the file is the object, and synced, none of it is pending.
    FL_ASSERT(file.size() == stored.size());
    // This object's bytes, not every file on the volume.
    if (image_.code.syncs_before_ack) {
      if (sim::Status synced = data->Sync(file); !synced.ok()) {
        co_return ErrorResponse(500, "InternalError", synced.message(), DataPath(object));
      }
      FL_ASSERT(!file.has_pending());
    }
    const std::string cid = ContentId(body);
    std::vector<cql::Value> values;
    values.push_back(cql::Value::Text(object.bucket));
    values.push_back(cql::Value::Text(object.key));
    values.push_back(cql::Value::Text(cid));
    values.push_back(cql::Value::Int(static_cast<std::int64_t>(body.size())));
    if (image_.writes_node_id) values.push_back(cql::Value::Text(node_id_));
    std::string columns;
    std::string markers;
    for (const std::string& column : NodeIndexColumns(image_.writes_node_id)) {
      columns += (columns.empty() ? "" : ", ") + column;
      markers += markers.empty() ? "?" : ", ?";
    }
    FL_ASSERT(values.size() == (image_.writes_node_id ? 5u : 4u));
    std::string insert = fmt::format("INSERT INTO {}.{} ({}) VALUES ({})", kIndexKeyspace,
                                     kObjectsTable, columns, markers);
    fakes::Headers headers;
    // S3's ETag of a single PUT: the body's MD5 (clients check it).
    headers["ETag"] = "\"" + Md5Hex(body) + "\"";
    if (!image_.code.index_before_ack) {
      // The async-index image: the answer goes first, the row when the
      // store takes it, so a later PUT's row can land before this one's.
      context_.process().Spawn("index-" + object.key,
                               [this, insert = std::move(insert),
                                values = std::move(values)]() mutable -> sim::Awaitable<void> {
                                 co_await WriteIndexRow(std::move(insert), std::move(values));
                               });
      co_return Response(200, "", std::move(headers));
    }
    const bool indexed = co_await WriteIndexRow(std::move(insert), std::move(values));
    if (!indexed && image_.code.index_errors_fail_put) {
      co_return ErrorResponse(500, "InternalError", last_index_error_, DataPath(object));
    }
    // (The swallows-index-error image answers 200 whatever the store said.)
    co_return Response(200, "", std::move(headers));
  }

  sim::Awaitable<bool> WriteIndexRow(std::string insert, std::vector<cql::Value> values) {
    cql::ClientResult result = co_await session_.Query(std::move(insert), std::move(values));
    if (result.ok()) co_return true;
    last_index_error_ = result.ToString();
    context_.Log("index write failed: " + last_index_error_);
    co_return false;
  }

  Response Get(const ObjectPath& object, bool head, const std::string& resource) {
    fakes::Volume* data = context_.VolumeAt(kNodeDataDirectory);
    const fakes::SimFile* file = data == nullptr ? nullptr : data->Find(DataPath(object));
    if (file == nullptr) {
      return ErrorResponse(404, "NoSuchKey", "The specified key does not exist.", resource);
    }
    if (sim::Status readable = data->CheckRead(); !readable.ok()) {
      return ErrorResponse(500, "InternalError", readable.message(), resource);
    }
    // The ETag of the bytes served, as the PUT that stored them answered it.
    std::string bytes = ServedObjectBytes(image_.code, file->contents());
    fakes::Headers headers;
    headers["Content-Length"] = std::to_string(bytes.size());
    headers["ETag"] = "\"" + Md5Hex(bytes) + "\"";
    return Response(200, head ? "" : std::move(bytes), std::move(headers));
  }

  sim::Awaitable<Response> Delete(ObjectPath object) {
    if (image_.code.delete_journal != NodeCode::DeleteJournal::kNone) {
      if (sim::Status logged = AppendToJournal(object); !logged.ok()) {
        co_return ErrorResponse(500, "InternalError", logged.message(), DataPath(object));
      }
    }
    // The seed's order takes the bytes first: a failed row delete leaves a
    // row that points at nothing. The index-first-delete image takes the
    // row first, so a failure leaves bytes no row names, which is harmless.
    if (!image_.code.index_first_delete) RemoveBytes(object);
    if (sim::Status removed = co_await RemoveIndexRow(object); !removed.ok()) {
      co_return ErrorResponse(500, "InternalError", removed.message(), DataPath(object));
    }
    if (image_.code.index_first_delete) RemoveBytes(object);
    if (image_.code.delete_journal == NodeCode::DeleteJournal::kClearedWhenDone) {
      ClearJournalEntry(object);
    }
    co_return Response(204);
  }

  void RemoveBytes(const ObjectPath& object) {
    fakes::Volume* data = context_.VolumeAt(kNodeDataDirectory);
    if (data != nullptr) data->Remove(DataPath(object));
  }

  sim::Awaitable<sim::Status> RemoveIndexRow(const ObjectPath& object) {
    std::vector<cql::Value> key;
    key.push_back(cql::Value::Text(object.bucket));
    key.push_back(cql::Value::Text(object.key));
    cql::ClientResult result =
        co_await session_.Query(fmt::format("DELETE FROM {}.{} WHERE bucket = ? AND key = ?",
                                            kIndexKeyspace, kObjectsTable),
                                std::move(key));
    if (!result.ok()) co_return sim::Status::Unavailable(result.ToString());
    co_return sim::Status::Ok();
  }

  // The delete journal: one "bucket/key" line per delete, synced before the
  // delete starts.
  sim::Status AppendToJournal(const ObjectPath& object) {
    fakes::Volume* data = context_.VolumeAt(kNodeDataDirectory);
    if (data == nullptr) return sim::Status::Unavailable("no data directory");
    fakes::SimFile& journal = data->OpenOrCreate(kDeleteJournalPath);
    if (sim::Status written =
            data->Write(journal, journal.size(), object.bucket + "/" + object.key + "\n");
        !written.ok()) {
      return written;
    }
    return data->Sync(journal);
  }

  void ClearJournal() {
    fakes::Volume* data = context_.VolumeAt(kNodeDataDirectory);
    if (data != nullptr) data->Remove(kDeleteJournalPath);
  }

  // This delete's entry only: an earlier delete that failed keeps its own,
  // for the next start to finish.
  void ClearJournalEntry(const ObjectPath& object) {
    fakes::Volume* data = context_.VolumeAt(kNodeDataDirectory);
    fakes::SimFile* journal = data == nullptr ? nullptr : data->Find(kDeleteJournalPath);
    if (journal == nullptr) return;
    std::string lines = journal->contents();
    const std::string entry = object.bucket + "/" + object.key + "\n";
    const std::size_t at = lines.rfind(entry);
    if (at == std::string::npos || (at != 0 && lines[at - 1] != '\n')) return;
    lines.erase(at, entry.size());
    if (lines.empty()) return ClearJournal();
    // Rewritten in place, then cut: a failed write leaves the entry for a
    // start to replay, which is harmless; it never loses another's.
    if (!data->Write(*journal, 0, lines).ok()) return;
    journal->Truncate(lines.size());
    (void)data->Sync(*journal);
  }

  // At start-up, every delete the journal holds is done again, bytes and
  // row: what a delete cut short by a crash left undone. A journal never
  // cleared replays every delete ever made, even of an object PUT since.
  sim::Awaitable<void> ReplayDeleteJournal() {
    if (image_.code.delete_journal == NodeCode::DeleteJournal::kNone) co_return;
    fakes::Volume* data = context_.VolumeAt(kNodeDataDirectory);
    const fakes::SimFile* journal = data == nullptr ? nullptr : data->Find(kDeleteJournalPath);
    if (journal == nullptr) co_return;
    const std::string lines = journal->contents();
    constexpr std::size_t kMaxReplayed = 100'000;  // Far past any story's deletes.
    std::size_t replayed = 0;
    for (std::size_t at = 0; at < lines.size() && replayed < kMaxReplayed; ++replayed) {
      const std::size_t end = std::min(lines.find('\n', at), lines.size());
      const std::optional<ObjectPath> object = ParseObjectPath("/" + lines.substr(at, end - at));
      FL_ASSERT(end + 1 > at);  // Each line moves past the last.
      at = end + 1;
      if (!object) continue;  // A torn last line: its delete never started.
      RemoveBytes(*object);
      if (sim::Status removed = co_await RemoveIndexRow(*object); !removed.ok()) {
        context_.Log("journal replay: " + removed.message());
        co_return;  // Kept: the next start tries again.
      }
      context_.Log(fmt::format("journal replay: deleted {}/{}", object->bucket, object->key));
    }
    if (image_.code.delete_journal == NodeCode::DeleteJournal::kClearedWhenDone) ClearJournal();
  }

  fakes::ContainerContext& context_;
  const NodeImage& image_;
  std::string node_id_;
  std::string keyspace_;
  std::uint16_t port_;
  std::optional<RetryPolicy> retry_;  // Empty when the environment's is malformed.
  cql::CqlSession session_;
  NodeMultipart multipart_;
  std::string last_index_error_;  // The last failed index write's error, for its 500.
};

}  // namespace

namespace {

std::string EnvOr(const fakes::ServiceSpec& service, const std::string& key,
                  const std::string& fallback) {
  auto found = service.environment.find(key);
  return found == service.environment.end() ? fallback : found->second;
}

}  // namespace

std::string NodeKeyspace(const fakes::ServiceSpec& service) {
  std::string keyspace = "filecoingw_";
  for (const char c : service.name) {
    if (c != '-') keyspace += c;
  }
  return EnvOr(service, "KEYSPACE", keyspace);
}

std::vector<std::string> NodeIndexColumns(bool writes_node_id) {
  std::vector<std::string> columns = {"bucket", "key", "cid", "size"};
  if (writes_node_id) columns.push_back("node_id");
  return columns;
}

std::string NodeId(const fakes::ServiceSpec& service) {
  return EnvOr(service, "NODE_ID", service.name);
}

std::string StoredObjectFile(const NodeCode& code, std::string_view bytes) {
  if (code.writes == ObjectFormat::kPlain) return std::string(bytes);
  return fmt::format("{}{}\n{}", kFramedObjectMagic, bytes.size(), bytes);
}

std::string ServedObjectBytes(const NodeCode& code, std::string_view file) {
  // A reader that knows the framed format strips its header; any other
  // reader serves the file as it is, header and all.
  if (!code.reads_framed || !file.starts_with(kFramedObjectMagic)) return std::string(file);
  const std::size_t newline = file.find('\n');
  if (newline == std::string_view::npos) return std::string(file);
  return std::string(file.substr(newline + 1));
}

std::string NodeObjectPath(const ObjectPath& object) {
  return fmt::format("/objects/{}/{}", object.bucket, object.key);
}

std::optional<RetryPolicy> NodeRetryPolicy(const fakes::ServiceSpec& service,
                                           const RetryPolicy& image) {
  RetryPolicy policy = image;
  const auto read = [&service](const char* key, std::int64_t low, std::int64_t high,
                               std::int64_t& value) {
    auto found = service.environment.find(key);
    if (found == service.environment.end()) return true;
    const std::string& text = found->second;
    std::int64_t parsed = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (error != std::errc() || end != text.data() + text.size() || parsed < low || parsed > high) {
      return false;
    }
    value = parsed;
    return true;
  };
  std::int64_t attempts = policy.attempts;
  std::int64_t delay_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(policy.initial).count();
  std::int64_t cap_ms = std::chrono::duration_cast<std::chrono::milliseconds>(policy.cap).count();
  if (!read("RETRY_ATTEMPTS", 1, kMaxRetryAttempts, attempts) ||
      !read("RETRY_DELAY_MS", 1, kMaxRetryDelayMs, delay_ms) ||
      !read("RETRY_CAP_MS", 1, kMaxRetryDelayMs, cap_ms)) {
    return std::nullopt;
  }
  policy.attempts = static_cast<int>(attempts);
  policy.initial = std::chrono::milliseconds(delay_ms);
  policy.cap = std::chrono::milliseconds(std::max(cap_ms, delay_ms));
  FL_ASSERT(policy.initial <= policy.cap);  // MigrateWithRetries relies on it.
  return policy;
}

std::uint16_t NodePort(const fakes::ServiceSpec& service) {
  return ParsePort(EnvOr(service, "PORT", "7001"));
}

std::string StartupFailureLine(const sim::Status& failure) {
  FL_ASSERT(!failure.ok());  // Only a failed start-up has a line.
  // The index needs a migrated database, which needs a session: the last
  // link is the one that broke.
  const bool no_store = failure.code() == sim::StatusCode::kUnavailable ||
                        failure.code() == sim::StatusCode::kTimedOut;
  return fmt::format(
      "ERROR core core/builder.go:158 constructing the node: could not build arguments for "
      "function \"server/s3\".StartS3Server: failed to build *s3.S3Server: could not build "
      "arguments for function \"ribsplugin/s3\".MakeS3Server: failed to build "
      "iface.S3ObjectIndex: could not build arguments for function "
      "\"ribsplugin/s3\".NewS3ObjectIndex: failed to build {}: {}",
      no_store ? "*gocql.Session" : "*db.Migrated", failure.message());
}

fakes::EntryPoint NodeEntryPoint(NodeImage image) {
  auto shared = std::make_shared<const NodeImage>(std::move(image));
  return [shared](fakes::ContainerContext& context) -> sim::Awaitable<int> {
    KuriNode node(context, *shared);
    co_return co_await node.Run();
  };
}

fakes::ServiceSpec NodeServiceSpec(const std::string& name, std::uint16_t port,
                                   const std::string& version) {
  FL_ASSERT(!name.empty());
  FL_ASSERT(port != 0);
  fakes::ServiceSpec spec;
  spec.name = name;
  spec.image = kNodeImage;
  spec.version = version;
  spec.environment["PORT"] = std::to_string(port);
  spec.mounts.push_back(fakes::MountSpec{"/data/fgw2/" + name, kNodeDataDirectory,
                                         fakes::VolumeKind::kHostDirectory});
  spec.restart = fakes::RestartPolicy::kAlways;
  return spec;
}

}  // namespace faultline::models::s3
