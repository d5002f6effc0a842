#include "scenarios/scenario.h"

#include "models/s3/seed_images.h"

namespace faultline::scenarios {

std::vector<std::string> MatchingServices(std::string_view name) {
  std::vector<std::string> matching;
  const bool prefix = name.ends_with('*');
  if (prefix) name.remove_suffix(1);
  for (const std::string& service : models::s3::SeedServices()) {
    if (prefix ? service.starts_with(name) : service == name) matching.push_back(service);
  }
  return matching;
}

}  // namespace faultline::scenarios
