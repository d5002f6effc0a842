#include "models/cql/wire.h"

#include <cstring>

#include "models/cql/parser.h"

namespace faultline::models::cql::wire {
namespace {

class Writer {
 public:
  void Int(std::int64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void Bytes(std::string_view text) {
    Int(static_cast<std::int64_t>(text.size()));
    out_ += text;
  }
  void Values(const std::vector<Value>& values) {
    Value list;
    list.kind = Value::Kind::kList;
    list.elements = values;
    Bytes(EncodeCollection(list));
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what Writer wrote; any short or malformed input makes ok() false.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  std::int64_t Int() {
    std::int64_t v = 0;
    if (in_.size() < sizeof v) {
      ok_ = false;
      return 0;
    }
    std::memcpy(&v, in_.data(), sizeof v);
    in_.remove_prefix(sizeof v);
    return v;
  }
  std::string Bytes() {
    const std::int64_t size = Int();
    if (size < 0 || static_cast<std::uint64_t>(size) > in_.size()) {
      ok_ = false;
      return {};
    }
    std::string text(in_.substr(0, static_cast<std::size_t>(size)));
    in_.remove_prefix(static_cast<std::size_t>(size));
    return text;
  }
  std::vector<Value> Values() {
    std::optional<Value> list = DecodeUntyped(Bytes());
    if (!list || list->kind != Value::Kind::kList) {
      ok_ = false;
      return {};
    }
    return std::move(list->elements);
  }
  bool good() const { return ok_; }               // Nothing malformed so far.
  bool ok() const { return ok_ && in_.empty(); }  // All read, nothing left over.

 private:
  std::string_view in_;
  bool ok_ = true;
};

}  // namespace

std::string EncodeRequest(const RequestBody& request) {
  Writer writer;
  writer.Bytes(request.statement);
  writer.Bytes(request.keyspace);
  writer.Values(request.values);
  writer.Int(request.page.page_size);
  writer.Bytes(request.page.paging_state);
  return writer.Take();
}

std::optional<RequestBody> DecodeRequest(std::string_view bytes) {
  Reader reader(bytes);
  RequestBody request;
  request.statement = reader.Bytes();
  request.keyspace = reader.Bytes();
  request.values = reader.Values();
  request.page.page_size = static_cast<std::int32_t>(reader.Int());
  request.page.paging_state = reader.Bytes();
  if (!reader.ok()) return std::nullopt;
  return request;
}

std::string EncodeOutcome(const Outcome& outcome) {
  Writer writer;
  if (const auto* error = std::get_if<CqlError>(&outcome)) {
    writer.Int(-1);
    writer.Int(static_cast<int>(error->code));
    writer.Bytes(error->message);
    writer.Int(error->offset ? static_cast<std::int64_t>(*error->offset) : -1);
    return writer.Take();
  }
  const QueryResult& result = std::get<QueryResult>(outcome);
  writer.Int(static_cast<int>(result.kind));
  writer.Int(static_cast<std::int64_t>(result.columns.size()));
  for (const ColumnSpec& column : result.columns) {
    writer.Bytes(column.name);
    writer.Bytes(column.type.ToString());
  }
  writer.Int(static_cast<std::int64_t>(result.rows.size()));
  for (const Row& row : result.rows) writer.Values(row);
  writer.Bytes(result.paging_state);
  writer.Bytes(result.text);
  return writer.Take();
}

std::optional<Outcome> DecodeOutcome(std::string_view bytes) {
  Reader reader(bytes);
  const std::int64_t kind = reader.Int();
  if (kind == -1) {
    CqlError error;
    error.code = static_cast<ErrorCode>(reader.Int());
    error.message = reader.Bytes();
    if (const std::int64_t offset = reader.Int(); offset >= 0) {
      error.offset = static_cast<std::size_t>(offset);
    }
    if (!reader.ok()) return std::nullopt;
    return error;
  }
  QueryResult result;
  if (kind < 0 || kind > static_cast<int>(QueryResult::Kind::kText)) return std::nullopt;
  result.kind = static_cast<QueryResult::Kind>(kind);
  constexpr std::int64_t kMaxCount = 1 << 24;  // A bound against damaged input.
  const std::int64_t columns = reader.Int();
  if (columns < 0 || columns > kMaxCount) return std::nullopt;
  for (std::int64_t i = 0; i < columns && reader.good(); ++i) {
    std::string name = reader.Bytes();
    const std::optional<TypeName> type_name = ParseTypeName(reader.Bytes());
    if (!type_name) return std::nullopt;
    std::variant<CqlType, CqlError> type = ResolveType(*type_name);
    if (!std::holds_alternative<CqlType>(type)) return std::nullopt;
    result.columns.push_back({std::move(name), std::get<CqlType>(type)});
  }
  const std::int64_t rows = reader.Int();
  if (rows < 0 || rows > kMaxCount) return std::nullopt;
  for (std::int64_t i = 0; i < rows && reader.good(); ++i) result.rows.push_back(reader.Values());
  result.paging_state = reader.Bytes();
  result.text = reader.Bytes();
  if (!reader.ok()) return std::nullopt;
  return result;
}

}  // namespace faultline::models::cql::wire
