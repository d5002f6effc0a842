// What the benchmark programs share: `--name N` flags that take positive
// integers, on/off switches, --help, and exit status 2 with a message on bad
// input; and the median of repeated measurements.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::bench {

struct IntFlag {
  std::string_view name;  // "--tasks"
  int* value;
};

struct SwitchFlag {
  std::string_view name;  // "--no-simgrid"
  bool* value;
  bool value_when_given;
};

inline void ParseFlags(std::string_view program, std::string_view usage, int argc, char** argv,
                       std::initializer_list<IntFlag> int_flags,
                       std::initializer_list<SwitchFlag> switches = {}) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::printf("usage: %.*s\n", static_cast<int>(usage.size()), usage.data());
      std::exit(0);
    }
    const auto switch_flag = std::find_if(switches.begin(), switches.end(),
                                          [&](const SwitchFlag& s) { return s.name == flag; });
    if (switch_flag != switches.end()) {
      *switch_flag->value = switch_flag->value_when_given;
      continue;
    }
    const auto int_flag = std::find_if(int_flags.begin(), int_flags.end(),
                                       [&](const IntFlag& f) { return f.name == flag; });
    if (int_flag == int_flags.end() || i + 1 >= argc) {
      std::fprintf(stderr, "%.*s: unknown or incomplete option '%s' (see --help)\n",
                   static_cast<int>(program.size()), program.data(), argv[i]);
      std::exit(2);
    }
    const char* text = argv[++i];
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || value <= 0 || value > 100'000'000) {
      std::fprintf(stderr, "%.*s: %s wants a positive integer, got '%s'\n",
                   static_cast<int>(program.size()), program.data(), argv[i - 1], text);
      std::exit(2);
    }
    *int_flag->value = static_cast<int>(value);
  }
}

// REQUIRES: !values.empty().
inline double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// The median of one field over repeated runs: MedianOf(runs, &Figures::seconds).
template <typename Run>
double MedianOf(const std::vector<Run>& runs, double Run::*field) {
  std::vector<double> values;
  for (const Run& run : runs) values.push_back(run.*field);
  return Median(std::move(values));
}

}  // namespace faultline::bench
