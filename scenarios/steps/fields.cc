#include "scenarios/steps/fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "fakes/network.h"
#include "fakes/runtime.h"
#include "fakes/volume.h"
#include "models/operator/migrate_cli.h"
#include "models/s3/seed_images.h"
#include "scenarios/core/duration.h"
#include "scenarios/steps/steps.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

using Field = StepField;

// A required text that must say something: an empty one would be written
// back as missing (and means nothing).
std::string NonEmpty(const FieldSource& in, std::string_view key) {
  std::string text = in.Text(key);
  if (text.empty()) in.Fail(key, fmt::format("'{}' is empty", key));
  return text;
}

void WriteText(std::string_view key, const std::string& value, FieldSink& out) {
  if (!value.empty()) out.Text(key, value);
}

// A duration of a step; a message that takes an hour is no network, so
// latency's are bounded.
sim::Duration LinkDuration(const FieldSource& in, std::string_view key) {
  const std::string text = in.Text(key);
  const std::optional<sim::Duration> duration = ParseDuration(text);
  if (!duration || *duration > std::chrono::hours(1)) {
    in.Fail(key, fmt::format("'{}' is a duration of at most 1h (write 500ms, 2s)", key));
  }
  return *duration;
}

bool Always(const Step&) { return true; }

// --- Reading each field, with its own checks --------------------------------

void ReadService(const FieldSource& in, Step& step) {
  step.service = in.Service("service");
  const std::string image = in.ImageOf(step.service);
  if (step.kind == Step::Kind::kS3 && image != models::s3::kNodeImage &&
      image != models::s3::kProxyImage) {
    in.Fail("service", "an s3 step goes to the proxy or a node, not " + step.service);
  }
}

void ReadVersion(const FieldSource& in, Step& step) {
  step.version = in.Text("version");
  in.CheckVersion("version", step.service, step.version);
}

void ReadMethod(const FieldSource& in, Step& step) {
  static const std::set<std::string, std::less<>> kMethods = {"GET", "PUT", "HEAD", "DELETE",
                                                              "POST"};
  step.method = in.Text("method");
  if (!kMethods.contains(step.method))
    in.Fail("method", "'method' is GET, PUT, HEAD, DELETE or POST");
}

void ReadPath(const FieldSource& in, Step& step) {
  step.path = NonEmpty(in, "path");
  if (!step.path.starts_with('/')) in.Fail("path", "'path' starts with /, like /bucket/key");
}

void ReadParts(const FieldSource& in, Step& step) {
  std::optional<std::vector<std::string>> parts = in.Texts("parts", "each part is a string");
  if (!parts || parts->empty() || parts->size() > kMaxParts) {
    in.Fail("parts", fmt::format("multipart needs 'parts', a list of 1 to {} strings", kMaxParts));
  }
  step.parts = std::move(*parts);
}

void ReadTo(const FieldSource& in, Step& step) {
  const std::optional<std::int64_t> to = in.Integer("to");
  if (!to) in.Fail("to", "migrate-force needs 'to', the version to record");
  if (*to < -1) in.Fail("to", "'to' is a version, or -1 for none");
  step.number = *to;
}

// A driver's fetch size: more rows than a page of the store's is no page.
void ReadPageSize(const FieldSource& in, Step& step) {
  const std::optional<std::int64_t> size = in.Integer("page-size");
  if (!size || *size < 1 || *size > 1'000'000) {
    in.Fail("page-size", "'page-size' is a number of rows, 1 to 1000000");
  }
  step.number = *size;
}

std::string HexOf(std::string_view bytes) {
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (const unsigned char byte : bytes) hex += fmt::format("{:02x}", byte);
  return hex;
}

// A paging state is the store's bytes, which TOML cannot hold: hex.
void ReadPagingState(const FieldSource& in, Step& step) {
  const std::string hex = in.Text("paging-state");
  const auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    const int high = digit(hex[i]);
    const int low = digit(hex[i + 1]);
    if (high < 0 || low < 0) break;
    bytes += static_cast<char>(high * 16 + low);
  }
  if (hex.empty() || bytes.size() * 2 != hex.size()) {
    in.Fail("paging-state", "'paging-state' is the store's paging state in lowercase hex");
  }
  step.paging_state = std::move(bytes);
}

void ReadUntil(const FieldSource& in, Step& step) {
  step.state = in.Text("until");
  if (!fakes::ContainerStateNamed(step.state)) {
    in.Fail("until", "'until' is created, running, restarting or exited");
  }
}

void ReadFor(const FieldSource& in, Step& step) {
  const std::string text = in.Text("for");
  const std::optional<sim::Duration> duration = ParseDuration(text);
  if (!duration) in.Fail("for", DurationError(text));
  // Waiting for a state, holding messages or power off needs some time.
  if ((step.kind == Step::Kind::kWaitFor || step.kind == Step::Kind::kClog ||
       step.kind == Step::Kind::kPowerLoss) &&
      *duration == sim::Duration::zero()) {
    in.Fail("for", fmt::format("{} needs a 'for' longer than 0", StepKindOf(step).name));
  }
  step.duration = *duration;
}

void ReadPeer(const FieldSource& in, Step& step) {
  step.peer = in.Service("peer");
  if (step.peer == step.service) in.Fail("peer", "'peer' is another service");
}

void ReadDistribution(const FieldSource& in, Step& step) {
  step.distribution = sim::ValueNamed(fakes::NetworkOptions::kLatencies, in.Text("distribution"));
  if (!step.distribution) {
    in.Fail("distribution", "'distribution' is " + sim::NamesOf(fakes::NetworkOptions::kLatencies));
  }
}

void ReadProbability(const FieldSource& in, Step& step) {
  if (!in.Has("probability")) {
    in.Fail("probability", "loss needs 'probability', a number from 0 to 1");
  }
  const std::optional<double> probability = in.Number("probability");
  if (!probability || *probability < 0.0 || *probability > 1.0) {
    in.Fail("probability", "'probability' is a number from 0 to 1");
  }
  step.probability = *probability;
}

void ReadSurvives(const FieldSource& in, Step& step) {
  const std::optional<sim::Survivors> survivors = sim::SurvivorsNamed(in.Text("survives"));
  if (!survivors) {
    in.Fail("survives", "'survives' is nothing-unsynced, in-order-prefix or torn-blocks");
  }
  step.survivors = *survivors;
}

void ReadOn(const FieldSource& in, Step& step) {
  constexpr std::string_view kUsage =
      "'on' lists the I/O that fails: \"read\", \"write\", \"sync\"";
  const std::optional<std::vector<std::string>> io = in.Texts("on", kUsage);
  if (!io || io->empty()) in.Fail("on", kUsage);
  for (std::size_t i = 0; i < io->size(); ++i) {
    const std::string& name = (*io)[i];
    if (!fakes::DiskIoNamed(name)) in.FailItem("on", i, kUsage);
    if (std::find(step.io.begin(), step.io.end(), name) != step.io.end()) {
      in.FailItem("on", i, fmt::format("'on' names {} twice", name));
    }
    step.io.push_back(name);
  }
}

void ReadCommand(const FieldSource& in, Step& step) {
  step.command = NonEmpty(in, "command");
  const std::vector<std::string> words = models::ops::MigrateCliWords(step.command);
  if (words.empty() || !models::ops::IsMigrateCliCommand(words[0])) {
    in.Fail("command",
            "'command' is a migrate command: up [N], down [N], down -all, goto V, force V or "
            "version");
  }
}

// --- The table ----------------------------------------------------------------

std::vector<StepFieldSpec> MakeStepFields() {
  return {
      {Field::kService, "service", R"("kuri-1")", ReadService,
       [](const Step& s, FieldSink& out) { WriteText("service", s.service, out); },
       [](const Step& s) { return !s.service.empty(); }},
      {Field::kVersion, "version", R"("v1")", ReadVersion,
       [](const Step& s, FieldSink& out) { WriteText("version", s.version, out); },
       [](const Step& s) { return !s.version.empty(); }},
      {Field::kMethod, "method", R"("PUT")", ReadMethod,
       [](const Step& s, FieldSink& out) { WriteText("method", s.method, out); },
       [](const Step& s) { return !s.method.empty(); }},
      {Field::kPath, "path", R"("/photos/cat.jpg")", ReadPath,
       [](const Step& s, FieldSink& out) { WriteText("path", s.path, out); },
       [](const Step& s) { return !s.path.empty(); }},
      {Field::kQuery, "query", R"("uploads")",
       [](const FieldSource& in, Step& s) { s.query = in.Text("query"); },
       [](const Step& s, FieldSink& out) { WriteText("query", s.query, out); },
       [](const Step& s) { return !s.query.empty(); }},
      {Field::kBody, "body", R"("meow")",
       [](const FieldSource& in, Step& s) { s.body = in.Text("body"); },
       [](const Step& s, FieldSink& out) { WriteText("body", s.body, out); },
       [](const Step& s) { return !s.body.empty(); }},
      {Field::kParts, "parts", R"(["first part", "second part"])", ReadParts,
       [](const Step& s, FieldSink& out) { out.Texts("parts", s.parts); },
       [](const Step& s) { return !s.parts.empty(); }},
      {Field::kStatement, "statement", R"("DESCRIBE KEYSPACES")",
       [](const FieldSource& in, Step& s) { s.statement = NonEmpty(in, "statement"); },
       [](const Step& s, FieldSink& out) { WriteText("statement", s.statement, out); },
       [](const Step& s) { return !s.statement.empty(); }},
      {Field::kKeyspace, "keyspace", R"("filecoingw_kuri1")",
       [](const FieldSource& in, Step& s) { s.keyspace = NonEmpty(in, "keyspace"); },
       [](const Step& s, FieldSink& out) { WriteText("keyspace", s.keyspace, out); },
       [](const Step& s) { return !s.keyspace.empty(); }},
      {Field::kTo, "to", "1754293669", ReadTo,
       [](const Step& s, FieldSink& out) { out.Integer("to", s.number); }, Always},
      {Field::kUntil, "until", R"("running")", ReadUntil,
       [](const Step& s, FieldSink& out) { WriteText("until", s.state, out); },
       [](const Step& s) { return !s.state.empty(); }},
      {Field::kFor, "for", R"("15s")", ReadFor,
       [](const Step& s, FieldSink& out) { out.Text("for", DurationText(s.duration)); }, Always},
      {Field::kPeer, "peer", R"("yugabyte")", ReadPeer,
       [](const Step& s, FieldSink& out) { WriteText("peer", s.peer, out); },
       [](const Step& s) { return !s.peer.empty(); }},
      {Field::kOneWay, "one_way", "true",
       [](const FieldSource& in, Step& s) { s.one_way = in.Flag("one_way"); },
       [](const Step& s, FieldSink& out) {
         if (s.one_way) out.Flag("one_way", true);
       },
       Always},
      {Field::kDistribution, "distribution", R"("uniform")", ReadDistribution,
       [](const Step& s, FieldSink& out) {
         if (s.distribution) {
           out.Text("distribution",
                    sim::NameOf(fakes::NetworkOptions::kLatencies, *s.distribution));
         }
       },
       [](const Step& s) { return s.distribution.has_value(); }},
      {Field::kBase, "base", R"("2ms")",
       [](const FieldSource& in, Step& s) { s.duration = LinkDuration(in, "base"); },
       [](const Step& s, FieldSink& out) { out.Text("base", DurationText(s.duration)); }, Always},
      {Field::kExtra, "extra", R"("1ms")",
       [](const FieldSource& in, Step& s) { s.extra = LinkDuration(in, "extra"); },
       [](const Step& s, FieldSink& out) { out.Text("extra", DurationText(s.extra)); }, Always},
      {Field::kProbability, "probability", "0.25", ReadProbability,
       [](const Step& s, FieldSink& out) { out.Number("probability", s.probability); }, Always},
      {Field::kSurvives, "survives", R"("torn-blocks")", ReadSurvives,
       [](const Step& s, FieldSink& out) {
         if (s.survivors != sim::Survivors::kNothingUnsynced) {
           out.Text("survives", sim::SurvivorsName(s.survivors));
         }
       },
       Always},
      {Field::kVolume, "volume", R"("/data/fgw2/kuri-1")",
       [](const FieldSource& in, Step& s) { s.volume = NonEmpty(in, "volume"); },
       [](const Step& s, FieldSink& out) { WriteText("volume", s.volume, out); },
       [](const Step& s) { return !s.volume.empty(); }},
      {Field::kOn, "on", R"(["write", "sync"])", ReadOn,
       [](const Step& s, FieldSink& out) { out.Texts("on", s.io); },
       [](const Step& s) { return !s.io.empty(); }},
      {Field::kPersistent, "persistent", "true",
       [](const FieldSource& in, Step& s) { s.persistent = in.Flag("persistent"); },
       [](const Step& s, FieldSink& out) {
         if (s.persistent) out.Flag("persistent", true);
       },
       Always},
      {Field::kCommand, "command", R"("goto 1754293669")", ReadCommand,
       [](const Step& s, FieldSink& out) { WriteText("command", s.command, out); },
       [](const Step& s) { return !s.command.empty(); }},
      {Field::kPageSize, "page-size", "100", ReadPageSize,
       [](const Step& s, FieldSink& out) {
         if (s.number > 0) out.Integer("page-size", s.number);
       },
       [](const Step& s) { return s.number > 0; }},
      {Field::kPagingState, "paging-state", R"("0a1b")", ReadPagingState,
       [](const Step& s, FieldSink& out) { WriteText("paging-state", HexOf(s.paging_state), out); },
       [](const Step& s) { return !s.paging_state.empty(); }},
  };
}

// The table's own rules, checked once: every entry whole, fields and keys
// unique.
void CheckFields(const std::vector<StepFieldSpec>& fields) {
  std::set<StepField> seen;
  std::set<std::string_view> keys;
  for (const StepFieldSpec& spec : fields) {
    FL_ASSERT_MSG(seen.insert(spec.field).second, "step field {} is in the table twice", spec.key);
    FL_ASSERT_MSG(keys.insert(spec.key).second, "step field key {} is used twice", spec.key);
    FL_ASSERT(!spec.example.empty());
    FL_ASSERT(spec.read != nullptr && spec.write != nullptr && spec.has != nullptr);
  }
}

}  // namespace

const std::vector<StepFieldSpec>& StepFields() {
  static const std::vector<StepFieldSpec> kFields = [] {
    std::vector<StepFieldSpec> fields = MakeStepFields();  // Immutable once made.
    CheckFields(fields);
    return fields;
  }();
  return kFields;
}

const StepFieldSpec& FieldSpecOf(StepField field) {
  for (const StepFieldSpec& spec : StepFields()) {
    if (spec.field == field) return spec;
  }
  FL_PANIC("step field {} has no entry in the field table", static_cast<int>(field));
}

std::string_view StepFieldKey(StepField field) { return FieldSpecOf(field).key; }

}  // namespace faultline::scenarios
