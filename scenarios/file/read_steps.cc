// A scenario file's [[step]]s: each kind's fields (steps/fields.h) and
// each step's expectations (file/reader.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "fakes/runtime.h"
#include "fakes/sqlite_vfs.h"
#include "models/migrate/folder.h"
#include "models/migrate/statements.h"
#include "models/operator/migrate_cli.h"
#include "models/s3/seed_images.h"
#include "scenarios/checkers/expectations.h"
#include "scenarios/core/closest_name.h"
#include "scenarios/core/duration.h"
#include "scenarios/core/failure_classes.h"
#include "scenarios/file/reader.h"
#include "sim/assert.h"

namespace faultline::scenarios::file {
namespace {

// One step's or expectation's TOML table as the field tables read it
// (steps/fields.h, checkers/expectations.h): each failure at the key's
// value, or at the table when the key is absent.
class TableFields final : public FieldSource {
 public:
  TableFields(const Reader& reader, const toml::table& table, const Scenario& scenario,
              const std::string& where)
      : reader_(reader), table_(table), scenario_(scenario), where_(where) {}

  bool Has(std::string_view key) const override { return table_.contains(key); }
  std::string Text(std::string_view key) const override {
    return reader_.String(table_, key, where_, true);
  }
  std::optional<std::int64_t> Integer(std::string_view key) const override {
    return reader_.Integer(table_, key, where_);
  }
  std::optional<double> Number(std::string_view key) const override {
    const toml::node* at = table_.get(key);
    const std::optional<double> number = at == nullptr ? std::nullopt : at->value<double>();
    // TOML has nan and inf; no field of a scenario means either.
    if (number && !std::isfinite(*number)) {
      Fail(key, fmt::format("'{}' is a finite number, not {}", key, *number));
    }
    return number;
  }
  bool Flag(std::string_view key) const override {
    const toml::node* at = table_.get(key);
    const auto* flag = at == nullptr ? nullptr : at->as_boolean();
    if (flag == nullptr) Fail(key, fmt::format("'{}' is true or false", key));
    return flag->get();
  }
  std::optional<std::vector<std::string>> Texts(std::string_view key,
                                                std::string_view item_error) const override {
    const toml::node* at = table_.get(key);
    const toml::array* list = at == nullptr ? nullptr : at->as_array();
    if (list == nullptr) return std::nullopt;
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const auto* text = list->get(i)->as_string();
      if (text == nullptr) FailItem(key, i, item_error);
      texts.push_back(text->get());
    }
    FL_ASSERT(texts.size() == list->size());
    return texts;
  }
  std::optional<std::vector<std::int64_t>> Integers(std::string_view key,
                                                    std::string_view item_error) const override {
    const toml::node* at = table_.get(key);
    const toml::array* list = at == nullptr ? nullptr : at->as_array();
    if (list == nullptr) return std::nullopt;
    std::vector<std::int64_t> numbers;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const auto* number = list->get(i)->as_integer();
      if (number == nullptr) FailItem(key, i, item_error);
      numbers.push_back(number->get());
    }
    FL_ASSERT(numbers.size() == list->size());
    return numbers;
  }
  std::string Service(std::string_view key, bool pattern) const override {
    return reader_.ServiceName(table_, key, where_, pattern);
  }
  std::string ImageOf(std::string_view service) const override { return reader_.ImageOf(service); }
  void CheckVersion(std::string_view key, const std::string& service,
                    const std::string& version) const override {
    reader_.CheckVersion(table_.get(key), service, version, scenario_, where_);
  }
  [[noreturn]] void Fail(std::string_view key, std::string_view what) const override {
    const toml::node* at = table_.get(key);
    reader_.Fail(at == nullptr ? &table_ : at, where_ + std::string(what));
  }
  [[noreturn]] void FailItem(std::string_view key, std::size_t index,
                             std::string_view what) const override {
    const toml::array* list = table_.get(key)->as_array();
    FL_ASSERT(list != nullptr && index < list->size());
    reader_.Fail(list->get(index), where_ + std::string(what));
  }
  [[noreturn]] void FailTable(std::string_view what) const override {
    reader_.Fail(&table_, where_ + std::string(what));
  }

 private:
  const Reader& reader_;
  const toml::table& table_;
  const Scenario& scenario_;
  const std::string& where_;
};

}  // namespace

// A step: its kind (steps.h) says which fields it takes; each is read
// and checked as its field says, and a field of another kind is refused.
Step Reader::ReadStep(const toml::node& node, std::size_t number, const Scenario& scenario) const {
  FL_ASSERT(number >= 1);  // Steps are told from 1.
  const std::string where = fmt::format("step {}: ", number);
  const toml::table* table = node.as_table();
  if (table == nullptr) Fail(&node, where + "a step must be a table");
  const std::string action = String(*table, "do", where, true);
  const StepKind* kind = FindStepKind(action);
  if (kind == nullptr) {
    std::set<std::string> names;  // Sorted, to be read.
    for (const StepKind& known : StepKinds()) names.emplace(known.name);
    const std::vector<std::string> sorted(names.begin(), names.end());
    Fail(table->get("do"), fmt::format("{}unknown action '{}'{}; the actions:{}", where, action,
                                       DidYouMean(action, sorted), GroupedNames(sorted)));
  }
  CheckStepKeys(*table, *kind, where);
  Step step;
  step.kind = kind->kind;
  step.number = std::max<std::int64_t>(kind->number, 0);
  step.narration = String(*table, "say", where, false);
  step.duration = kind->default_duration;
  const TableFields fields(*this, *table, scenario, where);
  for (const StepFieldUse& use : kind->fields) {
    const StepFieldSpec& field = FieldSpecOf(use.field);
    if (use.required || table->contains(field.key)) field.read(fields, step);
  }
  // A link has two ends: the other end, or a direction, needs the first.
  if (step.service.empty() && (!step.peer.empty() || step.one_way)) {
    Fail(table->get(step.peer.empty() ? "one_way" : "peer"),
         fmt::format("{}'{}' needs 'service', the link's other end", where,
                     step.peer.empty() ? "one_way" : "peer"));
  }
  if (std::any_of(kind->fields.begin(), kind->fields.end(),
                  [](const StepFieldUse& use) { return use.field == StepField::kVolume; })) {
    CheckVolume(*table, step, scenario, where);
  }
  FL_ASSERT(&StepKindOf(step) == kind);  // What is read is written back as the same kind.
  if (const toml::node* expect = table->get("expect"))
    step.expect = ReadExpectations(*expect, scenario, where);
  return step;
}

// Only do, say, expect and the kind's own fields; a field another kind
// takes is named as such (a person wrote it, and it would do nothing).
void Reader::CheckStepKeys(const toml::table& table, const StepKind& kind,
                           const std::string& where) const {
  FL_ASSERT(FindStepKind(kind.name) == &kind);  // One of StepKinds(), as any_field below.
  std::set<std::string_view> allowed = {"do", "say", "expect"};
  std::string takes;
  for (const StepFieldUse& use : kind.fields) {
    allowed.insert(StepFieldKey(use.field));
    takes += (takes.empty() ? "" : ", ") + std::string(StepFieldKey(use.field));
  }
  std::set<std::string_view> any_field;
  for (const StepKind& other : StepKinds()) {
    for (const StepFieldUse& use : other.fields) any_field.insert(StepFieldKey(use.field));
  }
  for (const auto& [key, value] : table) {
    if (allowed.contains(key.str()) || !any_field.contains(key.str())) continue;
    Fail(&value, fmt::format("{}{} takes no '{}'{}", where, kind.name, key.str(),
                             takes.empty() ? "" : " (it takes " + takes + ")"));
  }
  OnlyKeys(table, allowed, where);
}

// A disk step's service mounts a volume, and its `volume` is one of them.
void Reader::CheckVolume(const toml::table& table, const Step& step, const Scenario& scenario,
                         const std::string& where) const {
  FL_ASSERT(!step.service.empty());  // Disk kinds require a service, read before.
  const fakes::ComposeSpec spec = ComposeSpecOf(scenario);
  std::vector<std::string> sources;
  for (const fakes::ServiceSpec& service : spec.services) {
    if (service.name != step.service) continue;
    for (const fakes::MountSpec& mount : service.mounts) sources.push_back(mount.source);
  }
  if (sources.empty()) {
    Fail(table.get("service"),
         fmt::format("{}{} mounts no volume: there is no disk to act on", where, step.service));
  }
  if (!step.volume.empty() &&
      std::find(sources.begin(), sources.end(), step.volume) == sources.end()) {
    Fail(table.get("volume"), fmt::format("{}{} mounts no volume '{}' (it mounts {})", where,
                                          step.service, step.volume, fmt::join(sources, ", ")));
  }
}

std::vector<Expectation> Reader::ReadExpectations(const toml::node& node, const Scenario& scenario,
                                                  const std::string& where) const {
  const toml::array* list = node.as_array();
  if (list == nullptr) Fail(&node, where + "'expect' must be an array of tables");
  std::vector<Expectation> expectations;
  for (const toml::node& item : *list) {
    const toml::table* table = item.as_table();
    if (table == nullptr) Fail(&item, where + "each expectation is a table, like { status = 200 }");
    expectations.push_back(ReadExpectation(*table, scenario, where));
  }
  FL_ASSERT(expectations.size() == list->size());
  return expectations;
}

// One expectation checks one thing: its first key (checkers/expectations.h's
// table) says what, and only that form's own keys may come with it (a stray
// key would be ignored, and a check a person wrote would silently not run).
Expectation Reader::ReadExpectation(const toml::table& table, const Scenario& scenario,
                                    const std::string& where) const {
  std::set<std::string_view> any_key;
  std::string forms;
  for (std::size_t i = 0; i < ExpectationForms().size(); ++i) {
    const ExpectationForm& form = ExpectationForms()[i];
    any_key.insert(form.keys.begin(), form.keys.end());
    forms += i == 0 ? "" : i + 1 == ExpectationForms().size() ? " or " : ", ";
    forms += form.key;
  }
  OnlyKeys(table, any_key, where + "expect: ");
  std::vector<std::string_view> keys;
  for (const auto& [key, value] : table) keys.push_back(key.str());
  const ExpectationForm* form = FindExpectationForm(keys);
  if (form == nullptr) Fail(&table, where + "an expectation needs one of " + forms);
  const std::string what = fmt::format("{}a '{}' expectation: ", where, form->key);
  OnlyKeys(table, {form->keys.begin(), form->keys.end()}, what);
  Expectation expectation;
  FL_ASSERT(!form->kinds.empty());
  expectation.kind = form->kinds.front();
  form->read(TableFields(*this, table, scenario, what), expectation);
  FL_ASSERT(&FormOf(expectation) == form);  // What is read is written back as the same form.
  return expectation;
}

}  // namespace faultline::scenarios::file
