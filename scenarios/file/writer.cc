// Writing a scenario as a file: ToToml, the inverse of ParseScenario
// (scenario_file.h). Each step's fields come from its kind's table entry
// (steps.h), so a file always reads back as the scenario it was made from.
#include <fmt/format.h>

#include "models/s3/seed_images.h"
#include "scenarios/checkers/expectations.h"
#include "scenarios/file/scenario_file.h"
#include "scenarios/steps/steps.h"
#include "sim/assert.h"
#include "sim/trace.h"

namespace faultline::scenarios {
namespace {

// TOML basic strings take JSON's escapes.
std::string Quoted(std::string_view text) { return sim::JsonQuoted(text); }

// A step's fields as file lines ("path = \"/b/k\"\n"), as the field table
// writes each (steps/fields.h).
class TomlFields final : public FieldSink {
 public:
  explicit TomlFields(std::string& out) : out_(out) {}
  void Text(std::string_view key, std::string_view value) override {
    out_ += fmt::format("{} = {}\n", key, Quoted(value));
  }
  void Integer(std::string_view key, std::int64_t value) override {
    out_ += fmt::format("{} = {}\n", key, value);
  }
  void Number(std::string_view key, double value) override {
    // A TOML float always: 1 would read back as an integer.
    std::string number = fmt::format("{}", value);
    if (number.find_first_of(".e") == std::string::npos) number += ".0";
    out_ += fmt::format("{} = {}\n", key, number);
  }
  void Flag(std::string_view key, bool value) override {
    out_ += fmt::format("{} = {}\n", key, value ? "true" : "false");
  }
  void Integers(std::string_view key, const std::vector<std::int64_t>& values) override {
    out_ += std::string(key) + " = [";
    for (std::size_t i = 0; i < values.size(); ++i) {
      out_ += fmt::format("{}{}", i == 0 ? " " : ", ", values[i]);
    }
    out_ += " ]\n";
  }
  void Texts(std::string_view key, const std::vector<std::string>& values) override {
    out_ += std::string(key) + " = [";
    for (std::size_t i = 0; i < values.size(); ++i) {
      out_ += (i == 0 ? " " : ", ") + Quoted(values[i]);
    }
    out_ += " ]\n";
  }

 private:
  std::string& out_;
};

// One expectation as an inline table ("{ log = \"kuri-1\", contains = \"x\" }"), as
// its form writes it (checkers/expectations.h).
class InlineFields final : public FieldSink {
 public:
  void Text(std::string_view key, std::string_view value) override { Add(key, Quoted(value)); }
  void Integer(std::string_view key, std::int64_t value) override {
    Add(key, std::to_string(value));
  }
  void Number(std::string_view key, double value) override { Add(key, fmt::format("{}", value)); }
  void Flag(std::string_view key, bool value) override { Add(key, value ? "true" : "false"); }
  void Texts(std::string_view key, const std::vector<std::string>& values) override {
    std::string list;
    for (const std::string& value : values) list += (list.empty() ? "" : ", ") + Quoted(value);
    Add(key, "[" + list + "]");
  }
  void Integers(std::string_view key, const std::vector<std::int64_t>& values) override {
    std::string list;
    for (const std::int64_t n : values) list += (list.empty() ? "" : ", ") + std::to_string(n);
    Add(key, "[" + list + "]");
  }
  std::string Table() const { return "{ " + fields_ + " }"; }

 private:
  void Add(std::string_view key, const std::string& value) {
    fields_ += fmt::format("{}{} = {}", fields_.empty() ? "" : ", ", key, value);
  }
  std::string fields_;
};

std::string ExpectationToml(const Expectation& e) {
  InlineFields fields;
  FormOf(e).write(e, fields);
  return fields.Table();
}

}  // namespace

namespace {

// [topology], [budget] and [crash]: the cluster and what a run may spend.
void WriteTopology(const Scenario& s, std::string& out) {
  FL_ASSERT_MSG(s.nodes >= 1 && s.nodes <= models::s3::kMaxNodes, "{}: {} nodes", s.name, s.nodes);
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
    FL_ASSERT_MSG(s.crash_hit >= 1, "{}: crash at {} pass 0", s.name, s.crash_site);
    out += fmt::format("\n[crash]\nsite = {}\nhit = {}\n", Quoted(s.crash_site), s.crash_hit);
  }
}

// Each [[fault]], with only the keys its action takes.
void WriteFaults(const Scenario& s, std::string& out) {
  for (const FaultSpec& fault : s.faults) {
    // As a file must say it: a site, a pass from 1, an action (FaultSpec's "never kNone").
    FL_ASSERT_MSG(!fault.site.empty() && fault.hit >= 1 && fault.action != sim::FaultAction::kNone,
                  "{}: fault at '{}' pass {}", s.name, fault.site, fault.hit);
    out += fmt::format("\n[[fault]]\nsite = {}\nhit = {}\naction = \"{}\"\n", Quoted(fault.site),
                       fault.hit, sim::FaultActionName(fault.action));
    if (fault.action == sim::FaultAction::kPowerLoss &&
        fault.survivors != sim::Survivors::kNothingUnsynced) {
      out += fmt::format("survives = \"{}\"\n", sim::SurvivorsName(fault.survivors));
    }
    if (fault.action == sim::FaultAction::kError) {
      out += fmt::format("error = {}\n", Quoted(fault.error));
      if (!fault.message.empty()) out += fmt::format("message = {}\n", Quoted(fault.message));
    }
    if (fault.action == sim::FaultAction::kDelay) {
      out += fmt::format("for = \"{}\"\n", DurationText(fault.delay));
    }
    if (!fault.service.empty()) out += fmt::format("service = {}\n", Quoted(fault.service));
  }
}

// Each [[service]] change.
void WriteServices(const Scenario& s, std::string& out) {
  for (const ServiceOverride& change : s.services) {
    FL_ASSERT_MSG(!change.name.empty(), "{}: a [[service]] with no name", s.name);
    out += fmt::format("\n[[service]]\nname = {}\n", Quoted(change.name));
    if (change.restart) {
      out += fmt::format("restart = {}\n",
                         Quoted(sim::NameOf(fakes::kRestartPolicies, *change.restart)));
    }
    if (change.data) {
      out += fmt::format("data = {}\n", Quoted(sim::NameOf(fakes::kVolumeKinds, *change.data)));
    }
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
        out += fmt::format(
            "{}{{ service = {}, condition = {} }}", i == 0 ? " " : ", ",
            Quoted((*change.depends_on)[i].first),
            Quoted(sim::NameOf(fakes::kDependencyConditions, (*change.depends_on)[i].second)));
      }
      out += " ]\n";
    }
  }
}

// Each [[image]], with its runner's settings when they are not the defaults
// and its migration files inline.
void WriteImages(const Scenario& s, std::string& out) {
  for (const ImageSpec& image : s.images) {
    // The one flag of its service is written, the other's left to its default.
    FL_ASSERT_MSG(image.service == "node" || image.service == "proxy", "{}: image of '{}'", s.name,
                  image.service);
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
}

// [checkers]: the whole-run checkers the story breaks.
void WriteCheckers(const Scenario& s, std::string& out) {
  if (!s.checkers.empty()) {
    out += "\n[checkers]  # the whole-run checkers this story breaks (the others must hold)\n";
    for (const auto& [name, holds] : s.checkers) {
      out += fmt::format("{} = {}\n", name, holds ? "true" : "false");
    }
  }
}

// Each [[step]]: its kind, narration, fields and expectations.
void WriteSteps(const Scenario& s, std::string& out) {
  for (const Step& step : s.steps) {
    const StepKind& kind = StepKindOf(step);
    FL_ASSERT(FindStepKind(kind.name) == &kind);  // Its `do` reads back as its kind.
    out += fmt::format("\n[[step]]\ndo = {}\n", Quoted(kind.name));
    if (!step.narration.empty()) out += fmt::format("say = {}\n", Quoted(step.narration));
    TomlFields fields(out);
    for (const StepFieldUse& use : kind.fields) FieldSpecOf(use.field).write(step, fields);
    if (!step.expect.empty()) {
      out += "expect = [\n";
      for (const Expectation& e : step.expect) out += "  " + ExpectationToml(e) + ",\n";
      out += "]\n";
    }
  }
}

}  // namespace

std::string ToToml(const Scenario& s) {
  std::string out = fmt::format("name = {}\ntitle = {}\nstory = {}\nlesson = {}\n\n",
                                Quoted(s.name), Quoted(s.title), Quoted(s.story), Quoted(s.lesson));
  FL_ASSERT(out.ends_with("\n\n"));  // class and seed go before the blank line.
  if (!s.failure_class.empty()) {
    out.insert(out.size() - 1, fmt::format("class = {}\n", Quoted(s.failure_class)));
  }
  if (s.seed != 1) out.insert(out.size() - 1, fmt::format("seed = {}\n", s.seed));
  if (s.recorded) {
    out.insert(out.size() - 1,
               fmt::format("recorded = {{ checker = {}, violation = {}{} }}\n",
                           Quoted(s.recorded->checker), Quoted(s.recorded->violation),
                           s.recorded->build.empty()
                               ? ""
                               : fmt::format(", build = {}", Quoted(s.recorded->build))));
  }
  WriteTopology(s, out);
  WriteFaults(s, out);
  WriteServices(s, out);
  WriteImages(s, out);
  WriteCheckers(s, out);
  WriteSteps(s, out);
  FL_ASSERT(out.ends_with('\n'));  // Every section writes whole lines.
  return out;
}

}  // namespace faultline::scenarios
