#include "scenarios/steps/steps.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>

#include "fakes/network.h"
#include "scenarios/steps/perform.h"
#include "sim/assert.h"
#include "sim/names.h"

namespace faultline::scenarios {
namespace {

using Kind = Step::Kind;
using Field = StepField;

// --- The table -----------------------------------------------------------

std::string OnVolume(const Step& step) {
  return step.volume.empty() ? std::string() : " (volume " + step.volume + ")";
}

std::vector<StepKind> MakeStepKinds() {
  const auto required = [](Field field) { return StepFieldUse{field, true}; };
  const auto optional = [](Field field) { return StepFieldUse{field, false}; };
  return {
      {.kind = Kind::kUp,
       .name = "up",
       .show = [](const Step&) -> std::string { return "docker compose up"; },
       .perform = PerformUp},
      {.kind = Kind::kDown,
       .name = "down",
       .fault = true,
       .show = [](const Step&) -> std::string { return "docker compose down"; },
       .perform = PerformDown},
      {.kind = Kind::kDown,
       .name = "down -v",
       .number = 1,
       .fault = true,
       .show = [](const Step&) -> std::string { return "docker compose down -v"; },
       .perform = PerformDown},
      {.kind = Kind::kClean,
       .name = "clean",
       .fault = true,
       .show = [](const Step&) -> std::string { return "clean the host data directories"; },
       .perform = PerformClean},
      {.kind = Kind::kSetImage,
       .name = "set-image",
       .fields = {required(Field::kService), required(Field::kVersion)},
       .fault = true,
       .show =
           [](const Step& s) {
             return fmt::format("edit the compose file: {} image {}", s.service, s.version);
           },
       .perform = PerformSetImage},
      {.kind = Kind::kRestart,
       .name = "restart",
       .fields = {required(Field::kService)},
       .fault = true,
       .show = [](const Step& s) { return "docker compose restart " + s.service; },
       .perform = PerformRestart},
      {.kind = Kind::kWait,
       .name = "wait",
       .fields = {required(Field::kFor)},
       .show = [](const Step& s) { return "wait " + sim::FormatDuration(s.duration); },
       .perform = PerformWait},
      {.kind = Kind::kS3,
       .name = "s3",
       .fields = {required(Field::kMethod), required(Field::kPath), optional(Field::kQuery),
                  optional(Field::kBody), optional(Field::kService)},
       .show =
           [](const Step& s) {
             return fmt::format("{} {}{}{}{}", s.method, s.path, s.query.empty() ? "" : "?",
                                s.query, s.service.empty() ? "" : " (to " + s.service + ")");
           },
       .perform = PerformS3},
      {.kind = Kind::kCql,
       .name = "cql",
       .number = -1,  // page-size
       .fields = {required(Field::kStatement), optional(Field::kKeyspace),
                  optional(Field::kPageSize), optional(Field::kPagingState)},
       .show =
           [](const Step& s) {
             // A driver's request (live mode) names its session's keyspace.
             if (!s.keyspace.empty()) return fmt::format("CQL ({}) {}", s.keyspace, s.statement);
             return "ycqlsh -e \"" + s.statement + "\"";
           },
       .perform = PerformCql},
      {.kind = Kind::kMigrateVersion,
       .name = "migrate-version",
       .fields = {required(Field::kKeyspace)},
       .show = [](const Step& s) { return "migrate version (" + s.keyspace + ")"; },
       .perform = PerformMigrateVersion},
      {.kind = Kind::kMigrateForce,
       .name = "migrate-force",
       .number = -1,
       .fields = {required(Field::kKeyspace), required(Field::kTo)},
       .show =
           [](const Step& s) { return fmt::format("migrate force {} ({})", s.number, s.keyspace); },
       .perform = PerformMigrateForce},
      {.kind = Kind::kMigrate,
       .name = "migrate",
       .fields = {required(Field::kKeyspace), required(Field::kCommand), optional(Field::kService)},
       .show =
           [](const Step& s) {
             return fmt::format(
                 "migrate -path {} -database 'cassandra://yugabyte:9042/{}?x-multi-statement=true' "
                 "{}",
                 s.service.empty() ? "<its folder>" : s.service + "'s folder", s.keyspace,
                 s.command);
           },
       .perform = PerformMigrate},
      {.kind = Kind::kRecreateKeyspace,
       .name = "recreate-keyspace",
       .fields = {required(Field::kKeyspace)},
       .show = [](const Step& s) { return "drop and re-create keyspace " + s.keyspace; },
       .perform = PerformRecreateKeyspace},
      {.kind = Kind::kKill,
       .name = "kill",
       .fields = {required(Field::kService)},
       .fault = true,
       .show = [](const Step& s) { return "docker kill " + s.service; },
       .perform = PerformKill},
      {.kind = Kind::kWaitFor,
       .name = "wait-for",
       .fields = {required(Field::kService), required(Field::kUntil), optional(Field::kFor)},
       .default_duration = std::chrono::minutes(10),
       .show =
           [](const Step& s) {
             return fmt::format("wait until {} is {} (at most {})", s.service, s.state,
                                sim::FormatDuration(s.duration));
           },
       .perform = PerformWaitFor},
      {.kind = Kind::kMultipart,
       .name = "multipart",
       .fields = {required(Field::kPath), required(Field::kParts)},
       .show =
           [](const Step& s) {
             return fmt::format("multipart upload of {} parts to {}", s.parts.size(), s.path);
           },
       .perform = PerformMultipart},
      {.kind = Kind::kStop,
       .name = "stop",
       .fields = {required(Field::kService)},
       .show = [](const Step& s) { return "docker compose stop " + s.service; },
       .perform = PerformStop},
      {.kind = Kind::kPartition,
       .name = "partition",
       .fields = {required(Field::kService), optional(Field::kPeer), optional(Field::kOneWay)},
       .fault = true,
       .show =
           [](const Step& s) {
             return s.peer.empty() ? "isolate " + s.service
                                   : fmt::format("partition {} {} {}", s.service,
                                                 s.one_way ? "->" : "<->", s.peer);
           },
       .perform = PerformPartition},
      {.kind = Kind::kHeal,
       .name = "heal",
       .show = [](const Step&) -> std::string { return "heal the network"; },
       .perform = PerformHeal},
      {.kind = Kind::kClog,
       .name = "clog",
       .fields = {required(Field::kService), optional(Field::kPeer), required(Field::kFor),
                  optional(Field::kOneWay)},
       .show =
           [](const Step& s) {
             return fmt::format("clog {} {} {} for {}", s.service, s.one_way ? "->" : "<->",
                                s.peer.empty() ? "everyone" : s.peer,
                                sim::FormatDuration(s.duration));
           },
       .perform = PerformClog},
      {.kind = Kind::kLatency,
       .name = "latency",
       .fields = {required(Field::kBase), optional(Field::kExtra), optional(Field::kDistribution),
                  optional(Field::kService), optional(Field::kPeer), optional(Field::kOneWay)},
       .fault = true,
       .show =
           [](const Step& s) {
             return fmt::format(
                 "latency {} + {} {}{}", sim::FormatDuration(s.duration),
                 sim::NameOf(fakes::NetworkOptions::kLatencies,
                             s.distribution.value_or(fakes::NetworkOptions::Latency::kExponential)),
                 sim::FormatDuration(s.extra),
                 s.service.empty() ? std::string() : " " + Between(s));
           },
       .perform = PerformLatency},
      {.kind = Kind::kLoss,
       .name = "loss",
       .fields = {required(Field::kProbability), optional(Field::kService), optional(Field::kPeer),
                  optional(Field::kOneWay)},
       .fault = true,
       .show =
           [](const Step& s) {
             return fmt::format("loss {:g}{}", s.probability,
                                s.service.empty() ? std::string() : " " + Between(s));
           },
       .perform = PerformLoss},
      {.kind = Kind::kPowerLoss,
       .name = "power-loss",
       .fields = {required(Field::kService), optional(Field::kSurvives), optional(Field::kFor)},
       .default_duration = std::chrono::seconds(10),
       .fault = true,
       .show =
           [](const Step& s) {
             return fmt::format("power loss on {} for {} (keeping {})", s.service,
                                sim::FormatDuration(s.duration), sim::SurvivorsName(s.survivors));
           },
       .perform = PerformPowerLoss},
      {.kind = Kind::kDiskFull,
       .name = "disk-full",
       .fields = {required(Field::kService), optional(Field::kVolume)},
       .fault = true,
       .show = [](const Step& s) { return "fill the disk of " + s.service + OnVolume(s); },
       .perform = PerformDiskFull},
      {.kind = Kind::kDiskErrors,
       .name = "disk-errors",
       .fields = {required(Field::kService), required(Field::kOn), optional(Field::kPersistent),
                  optional(Field::kVolume)},
       .fault = true,
       .show =
           [](const Step& s) {
             return fmt::format("EIO on {} {} for {}{}", fmt::join(s.io, ", "),
                                s.persistent ? "from now on" : "once", s.service, OnVolume(s));
           },
       .perform = PerformDiskErrors},
      {.kind = Kind::kDiskOk,
       .name = "disk-ok",
       .fields = {required(Field::kService), optional(Field::kVolume)},
       .show = [](const Step& s) { return "repair the disk of " + s.service + OnVolume(s); },
       .perform = PerformDiskOk},
  };
}

}  // namespace

// The table's own rules, checked once: names unique, no field twice in a
// kind, an optional `for` has its default. (A Step::Kind without an entry
// cannot be read from a file; StepKindOf names it if code builds one.)
void CheckTable(const std::vector<StepKind>& kinds) {
  std::set<std::string_view> names;
  for (const StepKind& kind : kinds) {
    FL_ASSERT_MSG(names.insert(kind.name).second, "step kind {} is in the table twice", kind.name);
    FL_ASSERT(kind.show != nullptr);
    FL_ASSERT(kind.perform != nullptr);
    std::set<StepField> fields;
    for (const StepFieldUse& use : kind.fields) {
      FL_ASSERT_MSG(fields.insert(use.field).second, "{} takes {} twice", kind.name,
                    StepFieldKey(use.field));
      if (use.field == Field::kFor && !use.required) {
        FL_ASSERT_MSG(kind.default_duration > sim::Duration::zero(),
                      "{}: an optional 'for' "
                      "needs a default",
                      kind.name);
      }
    }
    for (const StepFieldUse& use : kind.fields) FieldSpecOf(use.field);  // Each has an entry.
    // A kind whose number is a field (-1) takes the one field that sets
    // it (migrate-force's `to`, cql's `page-size`), and only it does.
    FL_ASSERT_MSG(
        (kind.number < 0) == (fields.contains(Field::kTo) || fields.contains(Field::kPageSize)),
        "{}: a number field, and number -1, go together", kind.name);
  }
}

const std::vector<StepKind>& StepKinds() {
  static const std::vector<StepKind> kKinds = [] {
    std::vector<StepKind> kinds = MakeStepKinds();  // Immutable once made.
    CheckTable(kinds);
    return kinds;
  }();
  return kKinds;
}

const StepKind* FindStepKind(std::string_view name) {
  for (const StepKind& kind : StepKinds()) {
    if (kind.name == name) return &kind;
  }
  return nullptr;
}

const StepKind& StepKindOf(const Step& step) {
  for (const StepKind& kind : StepKinds()) {
    // Kinds that share a Step::Kind differ by the number their name sets.
    if (kind.kind == step.kind && (kind.number < 0 || kind.number == step.number)) {
      FL_ASSERT(kind.kind == step.kind);
      return kind;
    }
  }
  FL_PANIC("step kind {} is not in the table", static_cast<int>(step.kind));
}

}  // namespace faultline::scenarios
