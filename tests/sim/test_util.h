// Helpers shared by the kernel's tests.
#pragma once

#include <string>
#include <vector>

#include "sim/sim.h"

namespace faultline::sim::testing {

// Counts live coroutine frames: a task holds one as a local, so the count
// drops exactly when the frame is destroyed.
class FrameCounter {
 public:
  class Guard {
   public:
    explicit Guard(FrameCounter& counter) : counter_(counter) { ++counter_.live_; }
    ~Guard() { --counter_.live_; }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    FrameCounter& counter_;
  };
  int live() const { return live_; }

 private:
  int live_ = 0;
};

// The names of the events in `sink`, in order, filtered by event name.
inline std::vector<std::string> FieldValues(const RingSink& sink, std::string_view event,
                                            std::string_view field) {
  std::vector<std::string> values;
  for (const TraceEvent& e : sink.Events()) {
    if (e.name != event) continue;
    if (const TraceValue* value = e.Find(field)) values.push_back(value->ToString());
  }
  return values;
}

}  // namespace faultline::sim::testing
