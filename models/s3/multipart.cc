#include "models/s3/multipart.h"
#include "sim/fnv.h"

#include <fmt/format.h>

#include <charconv>

#include "sim/assert.h"

namespace faultline::models::s3 {
namespace {

// Every <tag>text</tag> in `body`, in order.
std::vector<std::string> Elements(std::string_view body, std::string_view tag) {
  std::vector<std::string> found;
  const std::string open = fmt::format("<{}>", tag);
  const std::string close = fmt::format("</{}>", tag);
  std::size_t at = 0;
  constexpr std::size_t kMaxParts = 10'000;  // S3's own limit.
  while (found.size() < kMaxParts) {
    const std::size_t start = body.find(open, at);
    if (start == std::string_view::npos) break;
    const std::size_t end = body.find(close, start + open.size());
    if (end == std::string_view::npos) break;
    found.emplace_back(body.substr(start + open.size(), end - start - open.size()));
    FL_ASSERT(end + close.size() > at);  // Each element moves past the last.
    at = end + close.size();
  }
  FL_ASSERT(found.size() <= kMaxParts);
  return found;
}

}  // namespace

std::optional<std::string> QueryParameter(std::string_view query, std::string_view name) {
  FL_ASSERT(!name.empty());
  while (!query.empty()) {
    const std::size_t end = std::min(query.find('&'), query.size());
    const std::string_view pair = query.substr(0, end);
    const std::size_t equals = pair.find('=');
    if (pair.substr(0, equals) == name) {
      return std::string(equals == std::string_view::npos ? "" : pair.substr(equals + 1));
    }
    query.remove_prefix(std::min(end + 1, query.size()));
  }
  return std::nullopt;
}

std::vector<std::pair<int, std::string>> ParseCompleteBody(std::string_view body) {
  const std::vector<std::string> numbers = Elements(body, "PartNumber");
  const std::vector<std::string> etags = Elements(body, "ETag");
  std::vector<std::pair<int, std::string>> parts;
  for (std::size_t i = 0; i < numbers.size() && i < etags.size(); ++i) {
    int number = 0;
    std::from_chars(numbers[i].data(), numbers[i].data() + numbers[i].size(), number);
    std::string etag = etags[i];
    if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
      etag = etag.substr(1, etag.size() - 2);
    }
    parts.emplace_back(number, std::move(etag));
  }
  return parts;
}

std::string CompleteBody(const std::vector<std::pair<int, std::string>>& parts) {
  std::string body = "<CompleteMultipartUpload>";
  for (const auto& [number, etag] : parts) {
    body +=
        fmt::format("<Part><PartNumber>{}</PartNumber><ETag>\"{}\"</ETag></Part>", number, etag);
  }
  return body + "</CompleteMultipartUpload>";
}

namespace {
fakes::Response NoSuchUpload(const std::string& upload_id) {
  return ErrorResponse(404, "NoSuchUpload", "The specified upload does not exist.", upload_id);
}
}  // namespace

std::string NodeMultipart::PartPath(const std::string& upload_id, int part) const {
  return fmt::format("/uploads/{}/{}", upload_id, part);
}

sim::Awaitable<fakes::Response> NodeMultipart::Initiate(ObjectPath object) {
  // Unique across restarts: the incarnation is part of it.
  const std::string upload_id = fmt::format("{}-{}-{}", node_id_, incarnation_, ++next_upload_);
  std::vector<cql::Value> values;
  values.push_back(cql::Value::Text(upload_id));
  values.push_back(cql::Value::Text(object.bucket));
  values.push_back(cql::Value::Text(object.key));
  values.push_back(cql::Value::Text(node_id_));
  cql::ClientResult result = co_await session_.Query(
      fmt::format("INSERT INTO {}.multipartuploads (upload_id, bucket, key, node_id, status) "
                  "VALUES (?, ?, ?, ?, 'open')",
                  kIndexKeyspace),
      std::move(values));
  if (!result.ok()) co_return ErrorResponse(500, "InternalError", result.ToString(), object.key);
  co_return fakes::Response(
      200, fmt::format("<InitiateMultipartUploadResult><Bucket>{}</Bucket><Key>{}</Key><UploadId>"
                       "{}</UploadId></InitiateMultipartUploadResult>",
                       object.bucket, object.key, upload_id));
}

sim::Awaitable<fakes::Response> NodeMultipart::UploadPart(std::string upload_id, int part,
                                                          std::string body) {
  if (data_ == nullptr || part < 1 || part > 10'000) {
    co_return ErrorResponse(400, "InvalidArgument", "bad part number", upload_id);
  }
  sim::Result<std::string> status = co_await Status(upload_id);
  if (!status.ok())
    co_return ErrorResponse(500, "InternalError", status.status().message(), upload_id);
  if (*status != "open") co_return NoSuchUpload(upload_id);
  FL_ASSERT(data_ != nullptr);
  fakes::SimFile& file = data_->OpenOrCreate(PartPath(upload_id, part));
  file.Truncate(0);
  if (sim::Status written = data_->Write(file, 0, body); !written.ok()) {
    co_return ErrorResponse(500, "InternalError", written.message(), upload_id);
  }
  // Reads see every write: the file is the part, and nothing of it is pending once synced.
  FL_ASSERT(file.size() == body.size());
  // This part's bytes, not every file on the volume.
  if (sim::Status synced = data_->Sync(file); !synced.ok()) {
    co_return ErrorResponse(500, "InternalError", synced.message(), upload_id);
  }
  FL_ASSERT(!file.has_pending());
  fakes::Headers headers;
  headers["ETag"] = fmt::format("\"{}/{}\"", fakes::FormatEndpoint(self_), ContentId(body));
  co_return fakes::Response(200, "", std::move(headers));
}

fakes::Response NodeMultipart::ServePart(const std::string& path) const {
  // "/_parts/<upload>/<n>"
  FL_ASSERT_MSG(path.starts_with("/_parts/"), "not a part's path: {}", path);
  const std::string rest = path.substr(std::string_view("/_parts/").size());
  const std::size_t slash = rest.rfind('/');
  if (data_ == nullptr || slash == std::string::npos) return fakes::Response(404);
  int part = 0;
  std::from_chars(rest.data() + slash + 1, rest.data() + rest.size(), part);
  const fakes::SimFile* file = data_->Find(PartPath(rest.substr(0, slash), part));
  if (file == nullptr) return fakes::Response(404);
  return fakes::Response(200, file->contents());
}

sim::Awaitable<sim::Result<std::string>> NodeMultipart::Assemble(const std::string& upload_id,
                                                                 const std::string& body) {
  const std::vector<std::pair<int, std::string>> parts = ParseCompleteBody(body);
  if (parts.empty()) co_return sim::Status::InvalidArgument("the upload lists no parts");
  // The caller has claimed the upload (ClaimForCompletion).
  std::string bytes;
  for (const auto& [number, etag] : parts) {
    const std::size_t slash = etag.find('/');
    const std::string where = etag.substr(0, slash);
    if (where == fakes::FormatEndpoint(self_)) {
      const fakes::SimFile* file =
          data_ == nullptr ? nullptr : data_->Find(PartPath(upload_id, number));
      if (file == nullptr || etag.substr(slash + 1) != ContentId(file->contents())) {
        co_return sim::Status::InvalidArgument(
            fmt::format("part {} is missing or changed", number));
      }
      bytes += file->contents();
      continue;
    }
    const std::size_t colon = where.find(':');
    std::uint16_t port = 0;
    if (colon == std::string::npos ||
        std::from_chars(where.data() + colon + 1, where.data() + where.size(), port).ec !=
            std::errc()) {
      co_return sim::Status::InvalidArgument("bad ETag " + etag);
    }
    fakes::Endpoint holder(where.substr(0, colon), port);
    fakes::Request fetch("GET", fmt::format("/_parts/{}/{}", upload_id, number));
    sim::Result<fakes::Response> part =
        co_await network_.Call(std::move(holder), std::move(fetch), std::chrono::seconds(5));
    if (!part.ok() || part->status != 200) {
      co_return sim::Status::Unavailable(
          fmt::format("part {} on {} is unavailable", number, where));
    }
    if (etag.substr(slash + 1) != ContentId(part->body)) {
      co_return sim::Status::InvalidArgument(fmt::format("part {} changed", number));
    }
    bytes += part->body;
  }
  co_return bytes;
}

sim::Awaitable<sim::Result<std::string>> NodeMultipart::Status(const std::string& upload_id) {
  std::vector<cql::Value> key;
  key.push_back(cql::Value::Text(upload_id));
  cql::ClientResult upload = co_await session_.Query(
      fmt::format("SELECT status FROM {}.multipartuploads WHERE upload_id = ?", kIndexKeyspace),
      std::move(key));
  if (!upload.ok()) co_return sim::Status::Unavailable(upload.ToString());
  if (upload.result.rows.empty()) co_return std::string();
  co_return upload.result.rows.front().at(0).bytes;
}

sim::Awaitable<sim::Result<std::optional<std::string>>> NodeMultipart::Transition(
    const std::string& upload_id, std::string from, std::string to) {
  FL_ASSERT(from != to);
  std::vector<cql::Value> values;
  values.push_back(cql::Value::Text(std::move(to)));
  values.push_back(cql::Value::Text(upload_id));
  values.push_back(cql::Value::Text(std::move(from)));
  cql::ClientResult result = co_await session_.Query(
      fmt::format("UPDATE {}.multipartuploads SET status = ? WHERE upload_id = ? IF status = ?",
                  kIndexKeyspace),
      std::move(values));
  if (!result.ok()) co_return sim::Status::Unavailable(result.ToString());
  // [applied], then (when not applied) the status it found.
  if (result.result.rows.size() != 1 || result.result.rows.front().empty()) {
    co_return sim::Status::Unavailable(
        "the store's answer to a conditional update has no [applied]");
  }
  const cql::Row& row = result.result.rows.front();
  FL_ASSERT(!row.empty());  // [applied] is there, checked above.
  if (row.front().integer != 0) co_return std::optional<std::string>();
  co_return std::optional<std::string>(row.size() > 1 ? row.back().bytes : std::string());
}

sim::Awaitable<fakes::Response> NodeMultipart::Abort(const std::string& upload_id) {
  sim::Result<std::optional<std::string>> closed =
      co_await Transition(upload_id, "open", "aborted");
  if (!closed.ok()) {
    co_return ErrorResponse(500, "InternalError", closed.status().message(), upload_id);
  }
  if (*closed) co_return NoSuchUpload(upload_id);
  co_return fakes::Response(204);
}

sim::Awaitable<sim::Result<NodeMultipart::Claim>> NodeMultipart::ClaimForCompletion(
    const std::string& upload_id) {
  sim::Result<std::optional<std::string>> claimed =
      co_await Transition(upload_id, "open", "completing");
  if (!claimed.ok()) co_return claimed.status();
  if (!*claimed || **claimed == "completing") co_return Claim::kClaimed;
  if (**claimed == "complete") co_return Claim::kAlreadyComplete;
  co_return Claim::kNoSuchUpload;
}

sim::Awaitable<fakes::Response> NodeMultipart::FinishCompletion(const std::string& upload_id) {
  sim::Result<std::optional<std::string>> finished =
      co_await Transition(upload_id, "completing", "complete");
  if (!finished.ok()) {
    co_return ErrorResponse(500, "InternalError", finished.status().message(), upload_id);
  }
  // Not applied: a concurrent completion finished it first.
  if (*finished && **finished != "complete") co_return NoSuchUpload(upload_id);
  co_return fakes::Response(200);
}

sim::Awaitable<void> NodeMultipart::ReleaseClaim(const std::string& upload_id) {
  // Best effort: a release that fails leaves it completing, which a retried
  // completion takes over.
  (void)co_await Transition(upload_id, "completing", "open");
}

}  // namespace faultline::models::s3
