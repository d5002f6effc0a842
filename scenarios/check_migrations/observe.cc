#include "scenarios/check_migrations/observe.h"

#include <fmt/format.h>

#include "models/s3/seed_images.h"
#include "scenarios/world/world.h"

namespace faultline::scenarios::check {

Step Do(Step::Kind kind, std::string narration) {
  Step step;
  step.kind = kind;
  step.narration = std::move(narration);
  return step;
}
Step Wait(sim::Duration duration, std::string narration) {
  Step step = Do(Step::Kind::kWait, std::move(narration));
  step.duration = duration;
  return step;
}
Step ForService(Step::Kind kind, const std::string& service, std::string narration) {
  Step step = Do(kind, std::move(narration));
  step.service = service;
  return step;
}

std::string NodeName(int node) { return models::s3::NodeServiceName(node); }

std::string Joined(const std::vector<std::string>& parts, std::string_view by) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : std::string(by)) + part;
  return text;
}

std::string FirstLine(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.size() > 120 ? line.substr(0, 117) + "..." : line;
}

Observed Observe(World& world, const std::string& service, const std::string& keyspace) {
  Observed seen;
  seen.exists = world.runtime.HasContainer(service);
  seen.serving = seen.exists && IsServing(world, service);
  seen.versions = RecordedVersions(world, keyspace);
  if (auto store = ObserveStore(world); store.ok()) {
    if (auto schema = models::migrate::SnapshotSchema(**store, keyspace); schema.ok()) {
      seen.schema = std::move(schema).value();
    }
  }
  if (seen.exists) {
    // The last line that is not a start banner: a restart's banner says
    // nothing of why the service is down.
    const std::vector<std::string> logs = world.runtime.Logs(service);
    for (auto line = logs.rbegin(); line != logs.rend() && seen.last_line.empty(); ++line) {
      if (line->find("starting node ") == std::string::npos) seen.last_line = *line;
    }
    seen.restarts = world.runtime.restart_count(service);
  }
  return seen;
}

}  // namespace faultline::scenarios::check
