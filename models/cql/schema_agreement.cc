#include "models/cql/schema_agreement.h"

#include <fmt/format.h>

#include "sim/assert.h"
#include "sim/fnv.h"

namespace faultline::models::cql {
namespace {

// A table id shaped like Cassandra's (a time-based UUID), derived from what
// made it, so runs stay deterministic.
std::string TableId(const std::string& table, int coordinator, sim::TimePoint at) {
  const std::uint64_t a = sim::Fnv1a64(fmt::format("{}@{}", table, coordinator));
  const auto b = static_cast<std::uint64_t>(sim::ToNanoseconds(at));
  return fmt::format("{:08x}-{:04x}-11eb-{:04x}-{:012x}", b & 0xffffffffu, (b >> 32) & 0xffffu,
                     (a >> 48) & 0xffffu, a & 0xffffffffffffu);
}

}  // namespace

CassandraSchemaGossip::CassandraSchemaGossip(CassandraSchemaOptions options) : options_(options) {
  FL_ASSERT_MSG(options_.coordinators >= 1, "a store needs a coordinator, not {}",
                options_.coordinators);
}

int CassandraSchemaGossip::CoordinatorFor(const std::string& peer) {
  // A host's one-off helpers ("ycqlsh#7") share one coordinator: one client
  // machine, one driver's choice.
  const std::string host = peer.substr(0, peer.find('#'));
  auto [entry, added] = coordinator_of_peer_.try_emplace(host, 0);
  if (added) {
    entry->second = static_cast<int>((coordinator_of_peer_.size() - 1) %
                                     static_cast<std::size_t>(options_.coordinators));
  }
  return entry->second;
}

std::optional<CqlError> CassandraSchemaGossip::CheckCreate(const std::string& table,
                                                           int coordinator, sim::TimePoint now) {
  ForgetAgreed(now);
  auto found = recent_creations_.find(table);
  if (found == recent_creations_.end() || found->second.coordinator == coordinator) {
    return std::nullopt;
  }
  // This coordinator makes its own table with a new id; merging it with the
  // one on its way from the other coordinator fails.
  // In Cassandra's words, not YCQL's: no YCQL store says this.
  return CqlError{ErrorCode::kServerError,
                  fmt::format("org.apache.cassandra.exceptions.ConfigurationException: Column "
                              "family ID mismatch (found {}; expected {})",
                              TableId(table, coordinator, now), found->second.id)};
}

void CassandraSchemaGossip::RecordCreate(const std::string& table, int coordinator,
                                         sim::TimePoint now) {
  ForgetAgreed(now);
  recent_creations_.insert_or_assign(table,
                                     Creation{coordinator, now, TableId(table, coordinator, now)});
}

void CassandraSchemaGossip::Forget(const std::string& table) { recent_creations_.erase(table); }

void CassandraSchemaGossip::ForgetKeyspace(const std::string& keyspace) {
  const std::string prefix = keyspace + ".";
  auto it = recent_creations_.lower_bound(prefix);
  while (it != recent_creations_.end() && it->first.starts_with(prefix)) {
    it = recent_creations_.erase(it);
  }
}

// Creations every coordinator has seen cannot race any more; dropping them
// also bounds the map by the number of creates in one propagation window.
void CassandraSchemaGossip::ForgetAgreed(sim::TimePoint now) {
  std::erase_if(recent_creations_,
                [&](const auto& entry) { return now - entry.second.at >= options_.propagation; });
}

}  // namespace faultline::models::cql
