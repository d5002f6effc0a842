#include "scenarios/check_migrations/observe.h"

#include <fmt/format.h>

#include <algorithm>

#include "models/s3/seed_images.h"
#include "scenarios/world/world.h"
#include "sim/assert.h"

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

// A runner's failure on one line, with the store's reason kept whole:
// golang-migrate writes "migration failed in line 0: <statement> (details:
// <reason>\n<the statement again, with a caret>\n (ql error -304))", or
// with Cassandra's reason "(details: <reason>)" on one line; a long
// statement must not push the reason out.
std::string FailureWords(const std::string& text) {
  constexpr std::size_t kStatement = 200;
  constexpr std::size_t kReason = 300;
  const std::size_t details = text.find("(details: ");
  if (details == std::string::npos) return OneLine(text, kStatement + kReason);
  const std::size_t reason_start = details + 10;
  const std::size_t reason_end = std::min(text.find('\n', reason_start), text.size());
  std::string reason = text.substr(reason_start, reason_end - reason_start);
  // On one line (Cassandra's words): the details' own ')' ends it.
  if (reason_end == text.size() && reason.ends_with(')')) reason.pop_back();
  std::string words =
      OneLine(text.substr(0, details), kStatement) + " (details: " + OneLine(reason, kReason);
  const std::size_t code = text.rfind("(ql error ");
  words += code != std::string::npos && code > reason_end ? " " + OneLine(text.substr(code)) : ")";
  FL_ASSERT(words.size() <= kStatement + kReason + 150);
  return words;
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
      seen.schema_read =
          std::make_shared<const models::migrate::SchemaModel>(std::move(schema).value());
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
