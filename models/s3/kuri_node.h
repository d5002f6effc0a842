// The storage node (Kuri-like), as the seed gateway runs it. Start-up: run
// the image's migrations against the node's own keyspace through a store
// session, inside the retry wrapper, then serve the S3 backend API on its
// port; its index statements on filecoingw_s3.s3objects use the columns this
// image's code knows. A failed start-up logs the dependency chain that broke
// (the store session, or the migrated database), as the seed's fx logs do,
// and exits 1; the runtime's restart policy decides what comes next.
//
// API: PUT/GET/HEAD/DELETE /{bucket}/{key} and GET /healthz. PUT keeps the
// bytes in the node's data directory and writes the index row with the
// node's own node_id (when its image knows that column).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakes/compose.h"
#include "models/migrate/runner.h"
#include "models/migrate/source.h"
#include "models/s3/s3.h"

namespace faultline::models::s3 {

inline constexpr const char* kNodeImage = "kuri";
inline constexpr const char* kNodeDataDirectory = "/data";

// How an object's bytes lie in a node's data directory: as they are, or
// behind a header (kFramed, the writes-framed version: a header line
// that a reader must strip).
enum class ObjectFormat { kPlain, kFramed };
inline constexpr std::string_view kFramedObjectMagic = "FLOBJ3 size=";

// What an image version's code does on the request path. The seed's v2 is
// the default; each other value is one failure class of the teaching
// catalogue (../shared/reference/failure-catalog.md), or the code that
// prevents it, named by the version that ships it (seed_images.cc).
struct NodeCode {
  ObjectFormat writes = ObjectFormat::kPlain;
  bool reads_framed = false;             // Strips the framed header when it finds one.
  bool decodes_body_encoding = false;    // Understands X-Body-Encoding: base64.
  bool syncs_before_ack = true;          // false: acks bytes still in the page cache.
  bool index_errors_fail_put = true;     // false: logs a failed index write, answers 200.
  bool index_before_ack = true;          // false: answers the PUT, then writes the row.
  bool index_first_delete = false;       // true: removes the row before the bytes.
  bool serves_before_migrating = false;  // true: listens, then runs its migrations.
  // A journal of deletes, replayed at start-up so that a delete cut short
  // by a crash is finished: kept forever (every start replays every delete
  // ever made), or each entry cleared once its delete is done.
  enum class DeleteJournal { kNone, kNeverCleared, kClearedWhenDone };
  DeleteJournal delete_journal = DeleteJournal::kNone;
};

// Where a node with a delete journal keeps it, in its data directory.
inline constexpr const char* kDeleteJournalPath = "/journal/deletes";

// The file a node of `code` keeps for an object of `bytes`, and what a GET
// of it answers with: its own format's inverse, or, for a reader that does
// not know the framed format, the file as it is (the checkers read objects
// through it, as a GET would).
std::string StoredObjectFile(const NodeCode& code, std::string_view bytes);
std::string ServedObjectBytes(const NodeCode& code, std::string_view file);

// What an image version of the node brings.
struct NodeImage {
  migrate::MigrationSource migrations;  // For the node's own keyspace.
  // The index columns this image's code writes: the new image adds node_id
  // (and expires_at), which the old table lacks.
  bool writes_node_id = true;
  NodeCode code;
  RetryPolicy startup_retry;
  std::shared_ptr<migrate::MigrationRunner> runner =
      std::make_shared<migrate::GolangMigrateRunner>();
};

// The node's entry point. Environment: NODE_ID (default: the service's name),
// KEYSPACE (default filecoingw_<service without '-'>), PORT (7001),
// STORE_HOST (yugabyte), RETRY_ATTEMPTS / RETRY_DELAY_MS / RETRY_CAP_MS (the
// image's start-up retry policy).
fakes::EntryPoint NodeEntryPoint(NodeImage image);

// A compose service for node `name` (kuri-1 ...), with its host data
// directory, restarting always as the seed's compose file does.
fakes::ServiceSpec NodeServiceSpec(const std::string& name, std::uint16_t port,
                                   const std::string& version = "v2");

// The columns of filecoingw_s3.s3objects a node's code writes, in order:
// what its image needs of the index table, whatever its migrations say.
std::vector<std::string> NodeIndexColumns(bool writes_node_id);

// What a node service reads from its environment, with the node's defaults:
// the keyspace it migrates (KEYSPACE, else filecoingw_ and its name without
// '-') and its port (PORT, else 7001; 0 when PORT is not a port).
// Its node_id (NODE_ID, else its name), and where it keeps an object's bytes
// in its data directory.
std::string NodeKeyspace(const fakes::ServiceSpec& service);
std::uint16_t NodePort(const fakes::ServiceSpec& service);
std::string NodeId(const fakes::ServiceSpec& service);
// Its start-up retry policy: the image's, with RETRY_ATTEMPTS (1 to
// kMaxRetryAttempts), RETRY_DELAY_MS and RETRY_CAP_MS (1 to
// kMaxRetryDelayMs) from the environment; empty when one is malformed.
inline constexpr std::int64_t kMaxRetryAttempts = 10'000;
inline constexpr std::int64_t kMaxRetryDelayMs = 24LL * 3600 * 1000;
std::optional<RetryPolicy> NodeRetryPolicy(const fakes::ServiceSpec& service,
                                           const RetryPolicy& image);
std::string NodeObjectPath(const ObjectPath& object);

// The fx-style start-up failure line, naming the chain down to the link
// that broke: the store session (unreachable) or the migrated database.
std::string StartupFailureLine(const sim::Status& failure);

}  // namespace faultline::models::s3
