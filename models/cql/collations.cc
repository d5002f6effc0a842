#include "models/cql/collations.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <string>

namespace faultline::models::cql {
namespace {

// A decimal as sign, significant digits and where the point goes:
// 0.0120 is {+, "12", -1} (0.12 x 10^-1); zero has no digits.
struct Decimal {
  bool negative = false;
  std::string digits;
  std::int64_t exponent = 0;  // The value is 0.<digits> x 10^exponent.
};

Decimal ParseDecimal(std::string_view text) {
  Decimal decimal;
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) decimal.negative = text[i++] == '-';
  std::int64_t point = 0;  // Digits before the point, once significant ones began.
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      seen_point = true;
      continue;
    }
    if (c == 'e' || c == 'E') break;
    if (!std::isdigit(static_cast<unsigned char>(c))) continue;  // Checked on the way in.
    if (decimal.digits.empty() && c == '0') {
      if (seen_point) --point;  // Leading zeros after the point move it.
      continue;
    }
    decimal.digits += c;
    if (!seen_point) ++point;
  }
  std::int64_t exponent = 0;
  if (i < text.size()) {
    std::string_view rest = text.substr(i + 1);
    if (!rest.empty() && rest.front() == '+') rest.remove_prefix(1);
    // Bounded, whatever the text: values are checked on the way in, but a
    // collation must order anything SQLite hands it, without overflow.
    constexpr std::int64_t kBound = 1'000'000'000;
    if (std::from_chars(rest.data(), rest.data() + rest.size(), exponent).ec != std::errc()) {
      exponent = !rest.empty() && rest.front() == '-' ? -kBound : kBound;
    }
    exponent = std::clamp(exponent, -kBound, kBound);
  }
  while (!decimal.digits.empty() && decimal.digits.back() == '0') decimal.digits.pop_back();
  decimal.exponent = point + exponent;
  if (decimal.digits.empty()) decimal.negative = false;  // -0 is 0.
  return decimal;
}

int CompareMagnitudes(const Decimal& a, const Decimal& b) {
  if (a.digits.empty() || b.digits.empty()) {
    return static_cast<int>(!a.digits.empty()) - static_cast<int>(!b.digits.empty());
  }
  if (a.exponent != b.exponent) return a.exponent < b.exponent ? -1 : 1;
  const int digits = a.digits.compare(b.digits);
  return digits < 0 ? -1 : digits > 0 ? 1 : 0;
}

int CompareText(std::string_view a, std::string_view b) {
  const int order = a.compare(b);
  return order < 0 ? -1 : order > 0 ? 1 : 0;
}

// "tttttttt-tttt-1ttt-...": the time is time_hi (without the version), then
// time_mid, then time_low.
std::string TimeOrder(std::string_view uuid) {
  if (uuid.size() != 36) return std::string(uuid);
  std::string key;
  key += uuid.substr(15, 3);  // time_hi, after the version digit.
  key += uuid.substr(9, 4);   // time_mid
  key += uuid.substr(0, 8);   // time_low
  key += uuid.substr(19);     // clock sequence and node: the tie-break.
  return key;
}

int Collate(void* compare, int a_size, const void* a, int b_size, const void* b) {
  const auto function = reinterpret_cast<int (*)(std::string_view, std::string_view)>(compare);
  return function(std::string_view(static_cast<const char*>(a), static_cast<std::size_t>(a_size)),
                  std::string_view(static_cast<const char*>(b), static_cast<std::size_t>(b_size)));
}

}  // namespace

int CompareDecimals(std::string_view a, std::string_view b) {
  const Decimal x = ParseDecimal(a);
  const Decimal y = ParseDecimal(b);
  if (x.negative != y.negative) return x.negative ? -1 : 1;
  const int magnitude = CompareMagnitudes(x, y);
  return x.negative ? -magnitude : magnitude;
}

int CompareTimeuuids(std::string_view a, std::string_view b) {
  return CompareText(TimeOrder(a), TimeOrder(b));
}

int RegisterCollations(sqlite3* db) {
  const std::pair<std::string_view, int (*)(std::string_view, std::string_view)> collations[] = {
      {kDecimalCollation, &CompareDecimals}, {kTimeuuidCollation, &CompareTimeuuids}};
  for (const auto& [name, compare] : collations) {
    const int code =
        sqlite3_create_collation_v2(db, std::string(name).c_str(), SQLITE_UTF8,
                                    reinterpret_cast<void*>(compare), &Collate, nullptr);
    if (code != SQLITE_OK) return code;
  }
  return SQLITE_OK;
}

}  // namespace faultline::models::cql
