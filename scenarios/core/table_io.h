// A table of fields (a step, an expectation) as its readers and writers
// see it, whatever the file format: the step field table (steps/fields.h)
// and the expectation table (checkers/expectations.h) read and write
// through these, and the file reader and writer (file/) implement them
// over TOML.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::scenarios {

// What a reader of fields asks of its input: the file reader's TOML table
// of one step or expectation (file/read_steps.cc). Each Fail names the
// place: the key's value, or the table when the key is absent, after the
// table's own place ("step 2: ").
class FieldSource {
 public:
  virtual ~FieldSource() = default;
  virtual bool Has(std::string_view key) const = 0;
  // The value, which must be a string; missing: an error.
  virtual std::string Text(std::string_view key) const = 0;
  // nullopt when absent; an error when not an integer.
  virtual std::optional<std::int64_t> Integer(std::string_view key) const = 0;
  // nullopt when absent or not a finite number (an integer is one).
  virtual std::optional<double> Number(std::string_view key) const = 0;
  // The value, which must be true or false.
  virtual bool Flag(std::string_view key) const = 0;
  // The list's items, each a string (else `item_error` at the item);
  // nullopt when absent or not a list.
  virtual std::optional<std::vector<std::string>> Texts(std::string_view key,
                                                        std::string_view item_error) const = 0;
  // The list's items, each an integer (else `item_error` at the item);
  // nullopt when absent or not a list.
  virtual std::optional<std::vector<std::int64_t>> Integers(std::string_view key,
                                                            std::string_view item_error) const = 0;
  // A service of this cluster, named under `key`; with `pattern`, also
  // "kuri-*", every service whose name starts so.
  virtual std::string Service(std::string_view key, bool pattern = false) const = 0;
  // The image `service` runs in this cluster; empty when there is none.
  virtual std::string ImageOf(std::string_view service) const = 0;
  // `version` must be a version of `service`'s image: a built-in one, or
  // an [[image]] of the scenario.
  virtual void CheckVersion(std::string_view key, const std::string& service,
                            const std::string& version) const = 0;
  [[noreturn]] virtual void Fail(std::string_view key, std::string_view what) const = 0;
  [[noreturn]] virtual void FailItem(std::string_view key, std::size_t index,
                                     std::string_view what) const = 0;
  // At the table itself: what is wrong is no one key.
  [[noreturn]] virtual void FailTable(std::string_view what) const = 0;
};

// What a writer of fields gives its output (the file writer's TOML).
class FieldSink {
 public:
  virtual ~FieldSink() = default;
  virtual void Text(std::string_view key, std::string_view value) = 0;
  virtual void Integer(std::string_view key, std::int64_t value) = 0;
  virtual void Number(std::string_view key, double value) = 0;
  virtual void Flag(std::string_view key, bool value) = 0;
  virtual void Texts(std::string_view key, const std::vector<std::string>& values) = 0;
  virtual void Integers(std::string_view key, const std::vector<std::int64_t>& values) = 0;
};

}  // namespace faultline::scenarios
