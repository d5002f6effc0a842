// The failure classes the teaching catalogue is grouped by: the classes
// studies of real clusters found most often
// (../shared/reference/failure-catalog.md), and the seeds' own, repairs by
// hand. A scenario file names its class (`class = "order-violation"`); the
// one list of them is here.
#pragma once

#include <string_view>
#include <vector>

namespace faultline::scenarios {

struct FailureClass {
  std::string_view id;         // "order-violation": what a scenario file says.
  std::string_view title;      // "Order violation"
  std::string_view mechanism;  // One line: how it happens.
};

// In the order `faultline list` shows them.
const std::vector<FailureClass>& FailureClasses();
// nullptr for an id no class has.
const FailureClass* FindFailureClass(std::string_view id);

}  // namespace faultline::scenarios
