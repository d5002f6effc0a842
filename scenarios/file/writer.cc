// Writing a scenario as a file: ToToml, the inverse of ParseScenario
// (scenario_file.h). Each step's fields come from its kind's table entry
// (steps.h), so a file always reads back as the scenario it was made from.
#include <fmt/format.h>

#include "scenarios/file/scenario_file.h"
#include "scenarios/steps/steps.h"
#include "sim/trace.h"

namespace faultline::scenarios {
namespace {

// TOML basic strings take JSON's escapes.
std::string Quoted(std::string_view text) { return sim::JsonQuoted(text); }

}  // namespace

namespace {

// One field of a step as a file line ("path = \"/b/k\"\n"); nothing for an
// optional text field left empty.
std::string FieldToml(StepField field, const Step& step) {
  const std::string_view key = StepFieldKey(field);
  const auto text = [&](const std::string& value) {
    return value.empty() ? std::string() : fmt::format("{} = {}\n", key, Quoted(value));
  };
  switch (field) {
    case StepField::kService:
      return text(step.service);
    case StepField::kVersion:
      return text(step.version);
    case StepField::kMethod:
      return text(step.method);
    case StepField::kPath:
      return text(step.path);
    case StepField::kQuery:
      return text(step.query);
    case StepField::kBody:
      return text(step.body);
    case StepField::kStatement:
      return text(step.statement);
    case StepField::kKeyspace:
      return text(step.keyspace);
    case StepField::kPeer:
      return text(step.peer);
    case StepField::kOneWay:
      return step.one_way ? std::string("one_way = true\n") : std::string();
    case StepField::kDistribution:
      return text(step.distribution);
    case StepField::kBase:
      return fmt::format("{} = \"{}\"\n", key, DurationText(step.duration));
    case StepField::kExtra:
      return fmt::format("{} = \"{}\"\n", key, DurationText(step.extra));
    case StepField::kProbability: {
      // A TOML float always: 1 would read back as an integer.
      std::string number = fmt::format("{}", step.probability);
      if (number.find_first_of(".e") == std::string::npos) number += ".0";
      return fmt::format("{} = {}\n", key, number);
    }
    case StepField::kSurvives:
      return step.survivors == sim::Survivors::kNothingUnsynced
                 ? std::string()
                 : fmt::format("{} = \"{}\"\n", key, sim::SurvivorsName(step.survivors));
    case StepField::kVolume:
      return text(step.volume);
    case StepField::kCommand:
      return text(step.command);
    case StepField::kOn: {
      std::string out = std::string(key) + " = [";
      for (std::size_t i = 0; i < step.io.size(); ++i) {
        out += (i == 0 ? " " : ", ") + Quoted(step.io[i]);
      }
      return out + " ]\n";
    }
    case StepField::kPersistent:
      return step.persistent ? std::string("persistent = true\n") : std::string();
    case StepField::kUntil:
      return text(step.state);
    case StepField::kTo:
      return fmt::format("{} = {}\n", key, step.number);
    case StepField::kFor:
      return fmt::format("{} = \"{}\"\n", key, DurationText(step.duration));
    case StepField::kParts: {
      std::string out = std::string(key) + " = [";
      for (std::size_t i = 0; i < step.parts.size(); ++i) {
        out += (i == 0 ? " " : ", ") + Quoted(step.parts[i]);
      }
      return out + " ]\n";
    }
  }
  return "";
}

std::string ExpectationToml(const Expectation& e) {
  switch (e.kind) {
    case Expectation::Kind::kStatus:
      return fmt::format("{{ status = {} }}", e.number);
    case Expectation::Kind::kOutputContains:
      return fmt::format("{{ contains = {} }}", Quoted(e.text));
    case Expectation::Kind::kOutputLacks:
      return fmt::format("{{ lacks = {} }}", Quoted(e.text));
    case Expectation::Kind::kStatusIn: {
      std::string list;
      for (const std::int64_t n : e.numbers) list += (list.empty() ? "" : ", ") + std::to_string(n);
      return fmt::format("{{ status_in = [{}] }}", list);
    }
    case Expectation::Kind::kLogLacks:
      return fmt::format("{{ log = {}, lacks = {} }}", Quoted(e.service), Quoted(e.text));
    case Expectation::Kind::kRows:
      return fmt::format("{{ rows = {} }}", e.number);
    case Expectation::Kind::kRowWith:
      return fmt::format("{{ row_with = {} }}", Quoted(e.text));
    case Expectation::Kind::kSchemaMigrations:
      return fmt::format("{{ schema_migrations = {}, is = {} }}", Quoted(e.service),
                         Quoted(e.text));
    case Expectation::Kind::kLogContains:
      return fmt::format("{{ log = {}, contains = {} }}", Quoted(e.service), Quoted(e.text));
    case Expectation::Kind::kRestarted:
      return fmt::format("{{ restarted = {}, times = {} }}", Quoted(e.service), e.number);
    case Expectation::Kind::kServing:
      return fmt::format("{{ {} = {} }}", e.number == 1 ? "serving" : "not_serving",
                         Quoted(e.service));
    case Expectation::Kind::kState:
      return fmt::format("{{ state = {}, is = {} }}", Quoted(e.service), Quoted(e.text));
    case Expectation::Kind::kExitCode:
      return fmt::format("{{ exited = {}, code = {} }}", Quoted(e.service), e.number);
  }
  return "";
}

}  // namespace

std::string ToToml(const Scenario& s) {
  std::string out = fmt::format("name = {}\ntitle = {}\nstory = {}\nlesson = {}\n\n",
                                Quoted(s.name), Quoted(s.title), Quoted(s.story), Quoted(s.lesson));
  if (!s.failure_class.empty()) {
    out.insert(out.size() - 1, fmt::format("class = {}\n", Quoted(s.failure_class)));
  }
  if (s.seed != 1) out.insert(out.size() - 1, fmt::format("seed = {}\n", s.seed));
  out += fmt::format("[topology]\nnode = {}\nproxy = {}\ndb_init = {}\n", Quoted(s.node_version),
                     Quoted(s.proxy_version), Quoted(s.db_init_version));
  if (s.store_version != Scenario{}.store_version) {
    out += fmt::format("store = {}\n", Quoted(s.store_version));
  }
  if (s.nodes != Scenario{}.nodes) out += fmt::format("nodes = {}\n", s.nodes);
  if (s.shared_node_keyspace) out += "node_keyspace = \"shared\"\n";
  if (s.budget != Budget{}) {
    out += fmt::format("\n[budget]\ntime = {}\nsteps = {}\n",
                       Quoted(DurationText(s.budget.virtual_time)), s.budget.steps);
  }
  if (!s.crash_site.empty()) {
    out += fmt::format("\n[crash]\nsite = {}\nhit = {}\n", Quoted(s.crash_site), s.crash_hit);
  }
  for (const FaultSpec& fault : s.faults) {
    out += fmt::format("\n[[fault]]\nsite = {}\nhit = {}\naction = \"{}\"\n", Quoted(fault.site),
                       fault.hit, NameOf(fault.action));
    if (fault.action == FaultSpec::Action::kPowerLoss &&
        fault.survivors != sim::Survivors::kNothingUnsynced) {
      out += fmt::format("survives = \"{}\"\n", sim::SurvivorsName(fault.survivors));
    }
    if (fault.action == FaultSpec::Action::kError) {
      out += fmt::format("error = {}\n", Quoted(fault.error));
      if (!fault.message.empty()) out += fmt::format("message = {}\n", Quoted(fault.message));
    }
    if (fault.action == FaultSpec::Action::kDelay) {
      out += fmt::format("for = \"{}\"\n", DurationText(fault.delay));
    }
    if (!fault.service.empty()) out += fmt::format("service = {}\n", Quoted(fault.service));
  }
  for (const ServiceOverride& change : s.services) {
    out += fmt::format("\n[[service]]\nname = {}\n", Quoted(change.name));
    if (!change.restart.empty()) out += fmt::format("restart = {}\n", Quoted(change.restart));
    if (!change.data.empty()) out += fmt::format("data = {}\n", Quoted(change.data));
    if (!change.env.empty()) {
      out += "env = {";
      const char* separator = " ";
      for (const auto& [key, value] : change.env) {
        out += fmt::format("{}{} = {}", separator, key, Quoted(value));
        separator = ", ";
      }
      out += " }\n";
    }
    if (change.depends_on) {
      out += "depends_on = [";
      for (std::size_t i = 0; i < change.depends_on->size(); ++i) {
        out += fmt::format("{}{{ service = {}, condition = {} }}", i == 0 ? " " : ", ",
                           Quoted((*change.depends_on)[i].first),
                           Quoted((*change.depends_on)[i].second));
      }
      out += " ]\n";
    }
  }
  for (const ImageSpec& image : s.images) {
    out += fmt::format("\n[[image]]\nservice = {}\nversion = {}\nrunner = {}\n",
                       Quoted(image.service), Quoted(image.version), Quoted(image.runner));
    if (image.service == "node") {
      out += fmt::format("writes_node_id = {}\n", image.writes_node_id ? "true" : "false");
    } else {
      out += fmt::format("reads_node_id = {}\n", image.reads_node_id ? "true" : "false");
    }
    const models::migrate::CassandraDriver::Options defaults;
    if (image.golang_migrate.multi_statement != defaults.multi_statement) {
      out += fmt::format("multi_statement = {}\n", image.golang_migrate.multi_statement);
    }
    if (image.golang_migrate.bound_session != defaults.bound_session) {
      out += fmt::format("bound_session = {}\n", image.golang_migrate.bound_session);
    }
    if (image.golang_migrate.migrations_table != defaults.migrations_table) {
      out += fmt::format("migrations_table = {}\n", Quoted(image.golang_migrate.migrations_table));
    }
    if (image.retry != models::s3::RetryPolicy()) {
      out += fmt::format("retry = {{ attempts = {}, delay = \"{}\", cap = \"{}\" }}\n",
                         image.retry.attempts, DurationText(image.retry.initial),
                         DurationText(image.retry.cap));
    }
    for (const models::migrate::MigrationFile& file : image.files) {
      out += fmt::format("[[image.file]]\nname = {}\nbody = {}\n", Quoted(file.name),
                         Quoted(file.contents));
    }
  }
  if (!s.checkers.empty()) {
    out += "\n[checkers]  # the whole-run checkers this story breaks (the others must hold)\n";
    for (const auto& [name, holds] : s.checkers) {
      out += fmt::format("{} = {}\n", name, holds ? "true" : "false");
    }
  }
  for (const Step& step : s.steps) {
    const StepKind& kind = StepKindOf(step);
    out += fmt::format("\n[[step]]\ndo = {}\n", Quoted(kind.name));
    if (!step.narration.empty()) out += fmt::format("say = {}\n", Quoted(step.narration));
    for (const StepFieldUse& use : kind.fields) out += FieldToml(use.field, step);
    if (!step.expect.empty()) {
      out += "expect = [\n";
      for (const Expectation& e : step.expect) out += "  " + ExpectationToml(e) + ",\n";
      out += "]\n";
    }
  }
  return out;
}

}  // namespace faultline::scenarios
