#include "scenarios/checkers/checkers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "scenarios/checkers/end_of_run.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

std::vector<CheckerSpec> MakeCheckers() {
  return {
      {"acknowledged-writes",
       "every object a PUT was acknowledged for reads back as a GET through the proxy would read "
       "it",
       CheckerPhase::kSettled,
       {"down -v", "clean"},
       checkers::AcknowledgedWrites},
      {"index-points-at-bytes",
       "every row of the object index names a node whose data directory holds the object",
       CheckerPhase::kEveryMoment,
       {"down -v", "clean"},
       checkers::IndexPointsAtBytes},
      {"schema-matches-image",
       "after every step, each serving node and proxy has the schema its image's migrations define",
       CheckerPhase::kEveryMoment,
       {},
       checkers::SchemaMatchesImage},
      {"converges",
       "after the fault-free liveness phase, the proxy and every node serve",
       CheckerPhase::kSettled,
       {},
       checkers::Converges},
  };
}

// The table's own rules, checked once: names unique, every entry whole.
void CheckCheckers(const std::vector<CheckerSpec>& checkers) {
  std::set<std::string_view> names;
  for (const CheckerSpec& checker : checkers) {
    FL_ASSERT_MSG(names.insert(checker.name).second, "checker {} is in the table twice",
                  checker.name);
    FL_ASSERT(!checker.meaning.empty());
    FL_ASSERT(checker.verdict != nullptr);
  }
}

// Which services serve (the store included), in which incarnation and image
// version: the schema check reads the store again only when this changes,
// or when a schema statement ran or a volume was wiped or removed. Costs
// O(services), with no allocation once the versions are copied.
void ServingFingerprint(const World& world,
                        std::vector<std::tuple<bool, std::uint32_t, std::string>>& fingerprint) {
  fingerprint.resize(world.served.size());
  FL_ASSERT(fingerprint.size() == world.served.size());
  for (std::size_t i = 0; i < world.served.size(); ++i) {
    const ServedService& service = world.served[i];
    const bool serving = IsServing(world, service);
    auto& [was_serving, incarnation, version] = fingerprint[i];
    was_serving = serving;
    incarnation = serving ? world.runtime.incarnation(service.name) : 0;
    if (!serving) {
      version.clear();
    } else if (version != world.runtime.running_version(service.name)) {
      version = world.runtime.running_version(service.name);
    }
  }
}

// A statement that may change a schema: CREATE, ALTER or DROP.
bool IsSchemaStatement(const std::string& text) {
  std::size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  std::string verb;
  for (std::size_t i = start; i < text.size() && verb.size() < 6; ++i) {
    verb += static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
  }
  return verb.starts_with("CREATE") || verb.starts_with("ALTER") || verb.starts_with("DROP");
}

}  // namespace

const std::vector<CheckerSpec>& WholeRunCheckers() {
  static const std::vector<CheckerSpec> kCheckers = [] {
    std::vector<CheckerSpec> checkers = MakeCheckers();  // Immutable once made.
    CheckCheckers(checkers);
    return checkers;
  }();
  return kCheckers;
}

const CheckerSpec* FindChecker(std::string_view name) {
  for (const CheckerSpec& checker : WholeRunCheckers()) {
    if (checker.name == name) return &checker;
  }
  return nullptr;
}

bool ExemptedBy(const CheckerSpec& checker, std::string_view step_kind) {
  return std::find(checker.exempted_by.begin(), checker.exempted_by.end(), step_kind) !=
         checker.exempted_by.end();
}

void Checkers::Write(const sim::TraceEvent& event) {
  if (schema_statement_seen_) return;
  if (event.name == "volume.wipe" || event.name == "volume.remove") {
    schema_statement_seen_ = true;  // The store's data may have gone with it.
    return;
  }
  if (event.name != "cql.statement") return;
  const sim::TraceValue* statement = event.Find("statement");
  if (statement != nullptr && IsSchemaStatement(statement->ToString())) {
    schema_statement_seen_ = true;
  }
}

void Checkers::After(World& world) {
  if (!schema_violation_.empty()) return;
  // Two buffers, swapped: no allocation per step once the versions are in.
  ServingFingerprint(world, next_fingerprint_);
  const bool changed = next_fingerprint_ != serving_fingerprint_;
  std::swap(next_fingerprint_, serving_fingerprint_);
  if (!schema_statement_seen_ && !changed) return;
  schema_statement_seen_ = false;
  const std::string violation = checkers::SchemaViolations(world);
  if (!violation.empty()) {
    schema_violation_ =
        fmt::format("at {}: {}", sim::FormatTime(world.simulation.Now()), violation);
  }
}

std::vector<CheckResult> Checkers::Verdicts(World& world) {
  After(world);
  const sim::Result<checkers::Index> index = checkers::ObservedIndex(world);
  FL_ASSERT(!index.ok() || index->exists || index->rows.empty());
  const checkers::EndOfRun end{world, index, schema_violation_};
  std::vector<CheckResult> verdicts;
  for (const CheckerSpec& checker : WholeRunCheckers()) {
    verdicts.push_back(checker.verdict(end));
    FL_ASSERT_MSG(verdicts.back().what == checker.name, "checker {} answered as {}", checker.name,
                  verdicts.back().what);
  }
  return verdicts;
}

}  // namespace faultline::scenarios
