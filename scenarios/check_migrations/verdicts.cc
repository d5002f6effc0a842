// check-migrations' vocabulary and transport: the verdicts as one table,
// the keyspaces it can check in, what the report's unsafe means, and the
// JSON a worker process sends its shard's cases and repros back in
// (check_migrations.h).
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "models/cql/parser.h"
#include "models/migrate/runner.h"
#include "models/s3/seed_images.h"
#include "scenarios/check_migrations/check_migrations.h"
#include "scenarios/file/scenario_file.h"
#include "sim/assert.h"

namespace faultline::scenarios {

namespace cql = models::cql;

const std::vector<VerdictInfo>& Verdicts() {
  static const std::vector<VerdictInfo> kVerdicts = {
      {Verdict::kSafe, "safe", false, "nothing to repair: it ends as the folder defines"},
      {Verdict::kRecovers, "recovers", false,
       "the state left was half-way, and a restart finishes it with no one's help"},
      {Verdict::kNeedsForce, "needs-force", true,
       "the service stays down until an operator runs `migrate force` (the version is said)"},
      {Verdict::kNeedsRepair, "needs-repair", true,
       "forcing a version is not enough: statements must be run or undone by hand"},
      {Verdict::kSilentDrift, "silent-drift", true,
       "it serves, but the keyspace's schema is not the one the folder defines"},
      {Verdict::kLostVersion, "lost-version", true,
       "the version table ends empty, so the runner starts again from the first file"},
  };
  return kVerdicts;
}

const VerdictInfo& InfoOf(Verdict verdict) {
  for (const VerdictInfo& info : Verdicts()) {
    if (info.verdict == verdict) return info;
  }
  FL_PANIC("verdict {}", static_cast<int>(verdict));
}

bool MigrationCheckReport::Unsafe() const {
  const bool lint_error = std::any_of(lint.begin(), lint.end(), [](const auto& finding) {
    return models::migrate::RuleOf(finding.rule).severity == models::migrate::Severity::kError;
  });
  return lint_error || std::any_of(dynamic.begin(), dynamic.end(),
                                   [&](const DynamicFinding& f) { return Fails(f); });
}

bool MigrationCheckReport::Fails(const DynamicFinding& finding) const {
  return InfoOf(finding.verdict).unsafe && (finding.runner_risk.empty() || fail_on_runner_risks);
}

std::string_view StoreName(std::string_view store_version) {
  return store_version == "2.20" ? "yugabyte" : store_version;
}

std::string KeyspaceProblem(std::string_view keyspace) {
  if (keyspace.empty()) return "no keyspace";
  if (keyspace == models::s3::kIndexKeyspace) {
    return fmt::format(
        "{} is the simulated proxy's own keyspace; check the folder in another "
        "(--keyspace) with unqualified names",
        keyspace);
  }
  if (keyspace.starts_with("system")) return fmt::format("{} is the store's own", keyspace);
  const bool letter_first = keyspace.front() >= 'a' && keyspace.front() <= 'z';
  const bool word = std::all_of(keyspace.begin(), keyspace.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!letter_first || !word) {
    return fmt::format(
        "'{}': a keyspace name here is a lower-case letter, then letters, digits "
        "and _",
        keyspace);
  }
  if (keyspace.size() > 48) return fmt::format("'{}': over 48 characters", keyspace);
  // A reserved word (select, table, ...) is no bare name.
  if (cql::Parse(fmt::format("USE {}", keyspace)).error) {
    return fmt::format("'{}' is a reserved word in CQL", keyspace);
  }
  return {};
}

std::string ReprosToJson(const std::vector<ReproMade>& made) {
  nlohmann::json list = nlohmann::json::array();
  for (const ReproMade& m : made) {
    nlohmann::json log = nlohmann::json::array();
    for (const ShrinkStep& step : m.log)
      log.push_back({{"tried", step.tried}, {"kept", step.kept}});
    list.push_back(
        {{"group", m.group}, {"scenario", ToToml(m.scenario)}, {"log", log}, {"runs", m.runs}});
  }
  return list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<std::vector<ReproMade>> ReprosFromJson(std::string_view text) {
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_array()) return std::nullopt;
  try {
    std::vector<ReproMade> made;
    for (const nlohmann::json& item : json) {
      ReproMade m;
      m.group = item.at("group").get<std::uint64_t>();
      m.runs = item.at("runs").get<int>();
      std::variant<Scenario, FileError> scenario =
          ParseScenario(item.at("scenario").get<std::string>(), "repro.toml");
      if (!std::holds_alternative<Scenario>(scenario)) return std::nullopt;
      m.scenario = std::get<Scenario>(std::move(scenario));
      for (const nlohmann::json& step : item.at("log")) {
        m.log.push_back({step.at("tried").get<std::string>(), step.at("kept").get<bool>()});
      }
      made.push_back(std::move(m));
    }
    return made;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

namespace {

using Json = nlohmann::json;

Json SignatureJson(const std::optional<Signature>& signature) {
  if (!signature) return nullptr;
  return {{"checker", signature->checker},
          {"violation", signature->violation},
          {"faults", signature->faults}};
}

std::optional<Signature> SignatureFromJson(const Json& json) {
  if (json.is_null()) return std::nullopt;
  return Signature{.checker = json.at("checker").get<std::string>(),
                   .violation = json.at("violation").get<std::string>(),
                   .faults = json.at("faults").get<std::vector<std::string>>()};
}

Json CaseJson(const JudgedCase& c) {
  Json json = {{"index", c.index},
               {"check", c.check},
               {"runner", c.runner},
               {"store", c.store},
               {"file", c.file},
               {"label", c.label},
               {"verdict", InfoOf(c.verdict).name},
               {"detail", c.detail},
               {"error", c.error},
               {"force_to", c.force_to},
               {"seed", c.seed}};
  if (!c.scenario.steps.empty()) json["scenario"] = ToToml(c.scenario);
  if (!c.folder_images.empty()) {
    Json images = Json::array();
    for (const auto& [image, version] : c.folder_images) {
      images.push_back({{"image", image}, {"up_to", version ? Json(*version) : Json()}});
    }
    json["folder_images"] = std::move(images);
  }
  if (c.ran) json["ran"] = *c.ran;
  if (c.shares) json["shares"] = *c.shares;
  if (c.awaits_share) json["awaits_share"] = true;
  if (const std::optional<CrashSeen>& seen = c.crash_seen) {
    json["crash_seen"] = {{"site", seen->site},
                          {"hit", seen->hit},
                          {"signature", SignatureJson(seen->signature)},
                          {"versions_at_crash", seen->versions_at_crash},
                          {"serving_at_end", seen->serving_at_end},
                          {"last_line_at_end", seen->last_line_at_end},
                          {"versions_at_end", seen->versions_at_end}};
  }
  return json;
}

CrashSeen CrashSeenFromJson(const Json& json) {
  return CrashSeen{.site = json.at("site").get<std::string>(),
                   .hit = json.at("hit").get<std::uint64_t>(),
                   .signature = SignatureFromJson(json.at("signature")),
                   .versions_at_crash = json.at("versions_at_crash").get<std::string>(),
                   .serving_at_end = json.at("serving_at_end").get<bool>(),
                   .last_line_at_end = json.at("last_line_at_end").get<std::string>(),
                   .versions_at_end = json.at("versions_at_end").get<std::string>()};
}

std::optional<Verdict> VerdictNamed(std::string_view name) {
  for (const VerdictInfo& info : Verdicts()) {
    if (info.name == name) return info.verdict;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> ShardsDisagree(const std::vector<PlayedShard>& shards) {
  if (shards.empty()) return "no shard answered";
  std::set<std::uint64_t> indices;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const PlayedShard& shard = shards[i];
    if (shard.shard_count != shards.size() || shard.shard_index != i) {
      return fmt::format("answer {} is shard {} of {}", i, shard.shard_index, shard.shard_count);
    }
    if (shard.total_cases != shards.front().total_cases) {
      return fmt::format("shard {} counted {} cases, shard 0 {}", i, shard.total_cases,
                         shards.front().total_cases);
    }
    for (const JudgedCase& c : shard.cases) {
      if (c.index >= shard.total_cases || c.index % shard.shard_count != i ||
          !indices.insert(c.index).second) {
        return fmt::format("case {} is not shard {}'s to play, or was played twice", c.index, i);
      }
    }
  }
  return std::nullopt;
}

std::string ShardToJson(const PlayedShard& shard) {
  Json cases = Json::array();
  for (const JudgedCase& c : shard.cases) cases.push_back(CaseJson(c));
  Json notes = Json::array();
  for (const auto& [index, note] : shard.notes) notes.push_back({{"index", index}, {"note", note}});
  Json refused = Json::array();
  for (const models::migrate::LintFinding& f : shard.refused) {
    refused.push_back({{"rule", f.rule}, {"file", f.file}, {"message", f.message}});
  }
  Json trunks = Json::object();
  for (const auto& [runner, signature] : shard.trunk_signatures) {
    trunks[runner] = SignatureJson(signature);
  }
  const Json json = {{"runs", shard.runs},
                     {"trunk_signatures", trunks},
                     {"shard_index", shard.shard_index},
                     {"shard_count", shard.shard_count},
                     {"total_cases", shard.total_cases},
                     {"cases", cases},
                     {"notes", notes},
                     {"refused", refused}};
  // Bytes that are not UTF-8 (a Latin-1 byte in a statement) would make
  // dump() throw: they travel as U+FFFD, as in every JSON report.
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::optional<PlayedShard> ShardFromJson(std::string_view text) {
  const Json json = Json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return std::nullopt;
  try {
    PlayedShard shard;
    shard.runs = json.at("runs").get<int>();
    shard.shard_index = json.at("shard_index").get<std::uint64_t>();
    shard.shard_count = json.at("shard_count").get<std::uint64_t>();
    shard.total_cases = json.at("total_cases").get<std::uint64_t>();
    for (const auto& [runner, signature] : json.at("trunk_signatures").items()) {
      shard.trunk_signatures[runner] = SignatureFromJson(signature);
    }
    for (const Json& item : json.at("cases")) {
      JudgedCase c;
      c.index = item.at("index").get<std::uint64_t>();
      c.check = item.at("check").get<std::string>();
      c.runner = item.at("runner").get<std::string>();
      c.store = item.at("store").get<std::string>();
      c.file = item.at("file").get<std::string>();
      c.label = item.at("label").get<std::string>();
      const std::optional<Verdict> verdict = VerdictNamed(item.at("verdict").get<std::string>());
      if (!verdict) return std::nullopt;
      c.verdict = *verdict;
      c.detail = item.at("detail").get<std::string>();
      c.error = item.at("error").get<std::string>();
      c.force_to = item.at("force_to").get<std::string>();
      c.seed = item.at("seed").get<std::uint64_t>();
      if (item.contains("ran")) c.ran = item.at("ran").get<std::size_t>();
      if (item.contains("crash_seen")) c.crash_seen = CrashSeenFromJson(item.at("crash_seen"));
      if (item.contains("shares")) c.shares = item.at("shares").get<std::uint64_t>();
      c.awaits_share = item.value("awaits_share", false);
      if (c.awaits_share && (!c.shares || !c.crash_seen)) return std::nullopt;
      const bool known_check =
          std::find(std::begin(kChecks), std::end(kChecks), c.check) != std::end(kChecks);
      if (!known_check || c.label.empty() || models::migrate::MakeRunner(c.runner) == nullptr) {
        return std::nullopt;
      }
      if (item.contains("scenario")) {
        std::variant<Scenario, FileError> scenario =
            ParseScenario(item.at("scenario").get<std::string>(), "shard.toml");
        if (!std::holds_alternative<Scenario>(scenario)) return std::nullopt;
        c.scenario = std::get<Scenario>(std::move(scenario));
      }
      for (const Json& image : item.value("folder_images", Json::array())) {
        const Json& up_to = image.at("up_to");
        const auto index = image.at("image").get<std::size_t>();
        if (index >= c.scenario.images.size() || !c.scenario.images[index].files.empty()) {
          return std::nullopt;
        }
        c.folder_images.emplace(
            index, up_to.is_null() ? std::nullopt : std::optional(up_to.get<std::uint64_t>()));
      }
      shard.cases.push_back(std::move(c));
    }
    for (const Json& item : json.at("notes")) {
      shard.notes.emplace_back(item.at("index").get<std::uint64_t>(),
                               item.at("note").get<std::string>());
    }
    for (const Json& item : json.at("refused")) {
      models::migrate::LintFinding finding;
      finding.rule = item.at("rule").get<std::string>();
      finding.file = item.at("file").get<std::string>();
      finding.message = item.at("message").get<std::string>();
      shard.refused.push_back(std::move(finding));
    }
    return shard;
  } catch (const Json::exception&) {
    return std::nullopt;  // A field missing or of another type: not a shard's answer.
  }
}

}  // namespace faultline::scenarios
