// Always-on assertions, in every build type. A failed assertion is a bug in
// faultline or in simulated code (never an injected fault, which is a Status):
// it prints the condition, where it failed and, when a simulation is running,
// its seed, virtual time, step and last trace events, then aborts.
#pragma once

#include <exception>
#include <string>

#include <fmt/format.h>

namespace faultline::sim {

// Something that can describe the state of a running simulation when an
// assertion fails. Simulation implements it; it is registered for the
// lifetime of the simulation. This registry is the only global in sim/, and
// it is read only to print a failure report, never to make a decision.
class AssertionContext {
 public:
  virtual ~AssertionContext() = default;
  virtual std::string DescribeForAssertion() const = 0;
};

// The most recently registered context that is still registered describes
// the failure. Registration order need not match unregistration order.
void RegisterAssertionContext(const AssertionContext* context);
void UnregisterAssertionContext(const AssertionContext* context);

// The message of the exception in `error`, for reports ("unknown exception"
// when it is not a std::exception).
std::string ExceptionMessage(const std::exception_ptr& error);

[[noreturn]] void AssertionFailed(const char* condition, const char* file, int line,
                                  const std::string& message);

}  // namespace faultline::sim

#define FL_ASSERT(condition)          \
  ((condition) ? static_cast<void>(0) \
               : ::faultline::sim::AssertionFailed(#condition, __FILE__, __LINE__, std::string()))

// FL_ASSERT_MSG(cond, "format {}", args...): as FL_ASSERT, with a message
// formatted by fmt only when the assertion fails.
#define FL_ASSERT_MSG(condition, ...)                                              \
  ((condition) ? static_cast<void>(0)                                              \
               : ::faultline::sim::AssertionFailed(#condition, __FILE__, __LINE__, \
                                                   ::fmt::format(__VA_ARGS__)))

#define FL_PANIC(...) \
  ::faultline::sim::AssertionFailed("unreachable", __FILE__, __LINE__, ::fmt::format(__VA_ARGS__))
