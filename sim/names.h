// Names of an enum's values, as files, flags and the trace spell them: one
// table per enum (a constexpr array of Named<E>), read by the functions
// below, so a value and its name are written down once and every reader,
// writer and error message works from that table.
//
//   inline constexpr sim::Named<Color> kColors[] = {{Color::kRed, "red"}, ...};
//   sim::NameOf(kColors, Color::kRed)   // "red"
//   sim::ValueNamed(kColors, "red")     // Color::kRed, or nullopt
//   sim::NamesOf(kColors)               // "red, green or blue", for a message
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/assert.h"

namespace faultline::sim {

template <typename E>
struct Named {
  E value;
  std::string_view name;
};

// The name of `value`. REQUIRES: the table names it.
template <typename E>
std::string_view NameOf(std::span<const Named<E>> table, E value) {
  for (const Named<E>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  FL_PANIC("a value without a name in its table: {}", static_cast<int>(value));
}
template <typename E, std::size_t N>
std::string_view NameOf(const Named<E> (&table)[N], E value) {
  return NameOf(std::span<const Named<E>>(table), value);
}

// The value named `name`, or nullopt.
template <typename E>
std::optional<E> ValueNamed(std::span<const Named<E>> table, std::string_view name) {
  for (const Named<E>& entry : table) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}
template <typename E, std::size_t N>
std::optional<E> ValueNamed(const Named<E> (&table)[N], std::string_view name) {
  return ValueNamed(std::span<const Named<E>>(table), name);
}

// "a, b or c": the names in the table's order, for a message.
template <typename E>
std::string NamesOf(std::span<const Named<E>> table) {
  std::string names;
  for (std::size_t i = 0; i < table.size(); ++i) {
    names += i == 0 ? "" : i + 1 == table.size() ? " or " : ", ";
    names += table[i].name;
  }
  return names;
}
template <typename E, std::size_t N>
std::string NamesOf(const Named<E> (&table)[N]) {
  return NamesOf(std::span<const Named<E>>(table));
}

}  // namespace faultline::sim
