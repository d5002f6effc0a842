#include "fakes/compose.h"

#include <algorithm>
#include <map>

#include "sim/assert.h"

namespace faultline::fakes {
namespace {

// Depth-first search with the path on a stack; each service is finished
// once, so the cost is O(services + dependencies).
class CycleFinder {
 public:
  explicit CycleFinder(const ComposeSpec& spec) {
    for (const ServiceSpec& service : spec.services) services_.emplace(service.name, &service);
  }

  std::vector<std::string> Find(const ComposeSpec& spec) {
    for (const ServiceSpec& service : spec.services) {
      if (Visit(service.name)) return cycle_;
    }
    return {};
  }

 private:
  enum class Mark : unsigned char { kOnPath, kDone };

  bool Visit(const std::string& name) {
    auto service = services_.find(name);
    if (service == services_.end()) return false;
    auto [mark, fresh] = marks_.try_emplace(name, Mark::kOnPath);
    if (!fresh) {
      if (mark->second == Mark::kDone) return false;
      CloseCycle(name);
      return true;
    }
    path_.push_back(name);
    FL_ASSERT(path_.size() <= services_.size());
    for (const auto& [dependency, condition] : service->second->depends_on) {
      if (Visit(dependency)) return true;
    }
    path_.pop_back();
    mark->second = Mark::kDone;
    return false;
  }

  void CloseCycle(const std::string& name) {
    auto start = std::find(path_.begin(), path_.end(), name);
    FL_ASSERT(start != path_.end());
    cycle_.assign(start, path_.end());
    cycle_.push_back(name);
  }

  std::map<std::string, const ServiceSpec*> services_;
  std::map<std::string, Mark> marks_;
  std::vector<std::string> path_;
  std::vector<std::string> cycle_;
};

}  // namespace

std::vector<std::string> FindDependencyCycle(const ComposeSpec& spec) {
  return CycleFinder(spec).Find(spec);
}

}  // namespace faultline::fakes
