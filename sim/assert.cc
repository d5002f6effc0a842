#include "sim/assert.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace faultline::sim {
namespace {

// Live simulations, newest last, for failure reports only.
std::vector<const AssertionContext*>& Contexts() {
  static std::vector<const AssertionContext*> contexts;
  return contexts;
}

}  // namespace

void RegisterAssertionContext(const AssertionContext* context) { Contexts().push_back(context); }

void UnregisterAssertionContext(const AssertionContext* context) {
  std::erase(Contexts(), context);
}

std::string ExceptionMessage(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
  }
  return "unknown exception";
}

void AssertionFailed(const char* condition, const char* file, int line,
                     const std::string& message) {
  std::fprintf(stderr, "faultline: assertion failed: %s\n  at %s:%d\n", condition, file, line);
  if (!message.empty()) std::fprintf(stderr, "  %s\n", message.c_str());
  if (!Contexts().empty()) {
    std::fprintf(stderr, "%s", Contexts().back()->DescribeForAssertion().c_str());
  } else {
    std::fprintf(stderr, "  (no simulation was running)\n");
  }
  std::fflush(stderr);
  std::abort();
}

}  // namespace faultline::sim
