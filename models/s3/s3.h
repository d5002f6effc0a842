// What the storage node and the S3 proxy share: request paths, S3-style XML
// error bodies, the index table's name, and the start-up retry wrapper the
// seed gateway puts around its migrations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fakes/network.h"
#include "sim/sim.h"

namespace faultline::models::s3 {

inline constexpr const char* kIndexKeyspace = "filecoingw_s3";
inline constexpr const char* kObjectsTable = "s3objects";

// "/bucket/key/with/slashes" -> bucket and key; nullopt when either is empty.
struct ObjectPath {
  std::string bucket;
  std::string key;
};
std::optional<ObjectPath> ParseObjectPath(const std::string& path);
// "/bucket" (no key): a bucket-level request.
bool IsBucketPath(const std::string& path);

// An S3 error response: status, and the XML body S3 sends.
fakes::Response ErrorResponse(int status, std::string_view code, std::string_view message,
                              std::string_view resource);

// The gateway's start-up retry: `attempts` tries, sleeping `initial` after the
// first failure, doubling up to `cap`. The seed's values: 30, 2 s, 15 s.
struct RetryPolicy {
  int attempts = 30;
  sim::Duration initial = std::chrono::seconds(2);
  sim::Duration cap = std::chrono::seconds(15);
};

}  // namespace faultline::models::s3
