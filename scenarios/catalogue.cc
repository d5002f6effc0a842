#include "scenarios/catalogue.h"

#include <chrono>

namespace faultline::scenarios {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using Kind = Step::Kind;
using Check = Expectation::Kind;

// Builders that keep the stories readable.
Step Do(Kind kind, std::string narration) {
  Step step;
  step.kind = kind;
  step.narration = std::move(narration);
  return step;
}
Step SetImage(std::string service, std::string version, std::string narration) {
  Step step = Do(Kind::kSetImage, std::move(narration));
  step.service = std::move(service);
  step.version = std::move(version);
  return step;
}
Step Restart(std::string service, std::string narration) {
  Step step = Do(Kind::kRestart, std::move(narration));
  step.service = std::move(service);
  return step;
}
Step Wait(sim::Duration duration, std::string narration) {
  Step step = Do(Kind::kWait, std::move(narration));
  step.duration = duration;
  return step;
}
Step S3(std::string method, std::string path, std::string narration, std::string query = "",
        std::string body = "bytes") {
  Step step = Do(Kind::kS3, std::move(narration));
  step.method = std::move(method);
  step.path = std::move(path);
  step.query = std::move(query);
  step.body = std::move(body);
  return step;
}
Step Cql(std::string statement, std::string narration) {
  Step step = Do(Kind::kCql, std::move(narration));
  step.statement = std::move(statement);
  return step;
}
Step MigrateVersion(std::string keyspace, std::string narration) {
  Step step = Do(Kind::kMigrateVersion, std::move(narration));
  step.keyspace = std::move(keyspace);
  return step;
}
Step MigrateForce(std::string keyspace, std::int64_t version, std::string narration) {
  Step step = Do(Kind::kMigrateForce, std::move(narration));
  step.keyspace = std::move(keyspace);
  step.number = version;
  return step;
}
Step Recreate(std::string keyspace, std::string narration) {
  Step step = Do(Kind::kRecreateKeyspace, std::move(narration));
  step.keyspace = std::move(keyspace);
  return step;
}

Expectation Status(int status) { return Expectation{Check::kStatus, "", "", status}; }
Expectation Output(std::string text) {
  return Expectation{Check::kOutputContains, "", std::move(text), 0};
}
Expectation Lacks(std::string text) {
  return Expectation{Check::kOutputLacks, "", std::move(text), 0};
}
Expectation Log(std::string service, std::string text) {
  return Expectation{Check::kLogContains, std::move(service), std::move(text), 0};
}
Expectation Restarted(std::string service, int times) {
  return Expectation{Check::kRestarted, std::move(service), "", times};
}
Expectation Serving(std::string service, bool serving) {
  return Expectation{Check::kServing, std::move(service), "", serving ? 1 : 0};
}

Step With(Step step, std::vector<Expectation> expectations) {
  step.expect = std::move(expectations);
  return step;
}

constexpr const char* kDirty = "Dirty database version 1754293669. Fix and force version.";
constexpr const char* kNewObjects =
    "CREATE TABLE filecoingw_s3.s3objects (bucket text, key text, cid text, size bigint, "
    "updated timestamp, node_id text, expires_at timestamp, PRIMARY KEY (bucket, key))";

// The old era, then a "clean" restart onto the new images: shared by the
// stale-schema story and its fix, which differ in the proxy's new image.
std::vector<Step> StaleSchemaOpening(const std::string& new_proxy) {
  return {
      With(Do(Kind::kUp, "The first era: images whose S3Objects has no node_id column."),
           {Serving("s3-proxy", true)}),
      With(S3("PUT", "/photos/cat.jpg", "An object is stored in the old era."), {Status(200)}),
      Do(Kind::kDown, "docker compose down: the containers go, the named volume stays."),
      Do(Kind::kClean, "The 'clean' restart wipes the host data directories only."),
      SetImage("kuri-1", "v2", "The new node image writes node_id."),
      SetImage("kuri-2", "v2", "Both nodes."),
      SetImage("s3-proxy", new_proxy, "The new proxy image and its migrations."),
      Do(Kind::kUp, "docker compose up on the kept volume."),
  };
}

Scenario StaleSchema() {
  Scenario s;
  s.name = "stale-schema";
  s.title = "A kept volume keeps the old S3Objects; CREATE TABLE IF NOT EXISTS hides it";
  s.story =
      "Seeds 000 and 001. The database volume survived a 'clean' restart that only wiped the "
      "host data directory. The new image's migration says CREATE TABLE IF NOT EXISTS S3Objects "
      "with node_id, the table existed without it, so nothing changed and the migration reported "
      "success; every PUT and GET then failed with Undefined Column. The fix by hand was DROP "
      "TABLE and CREATE TABLE.";
  s.lesson =
      "The running system's state, not the migration files or a success message, is the truth. "
      "IF NOT EXISTS turns 'create' into 'maybe create': a changed definition needs a new, "
      "versioned migration. And a clean step that wipes host directories leaves named volumes.";
  s.node_version = "v1";
  s.proxy_version = "v1";
  s.db_init_version = "buggy";
  s.steps = StaleSchemaOpening("v2");
  // cat.jpg went with the table; the new proxy serves a table without its columns.
  s.checkers = {{"acknowledged-writes", false}, {"schema-matches-image", false}};
  s.steps.push_back(
      With(Cql("DESCRIBE TABLE filecoingw_s3.s3objects", "The table is the old one: no node_id."),
           {Output("cid text"), Lacks("node_id")}));
  s.steps.push_back(
      With(S3("PUT", "/photos/dog.jpg", "A new node writes node_id: the store refuses."),
           {Status(500), Output("Undefined Column. Column doesn't exist")}));
  s.steps.push_back(With(S3("GET", "/photos/cat.jpg", "The proxy's lookup of node_id fails: 500."),
                         {Status(500), Output("Undefined Column")}));
  s.steps.push_back(
      Cql("DROP TABLE filecoingw_s3.s3objects", "The seed's fix: drop the table ..."));
  s.steps.push_back(Cql(kNewObjects, "... and create it as the migration defines it."));
  s.steps.push_back(With(S3("PUT", "/photos/dog.jpg", "Writes work again."), {Status(200)}));
  s.steps.push_back(
      With(S3("GET", "/photos/cat.jpg", "But the old object's index row went with the table."),
           {Status(404)}));
  return s;
}

Scenario StaleSchemaFixed() {
  Scenario s = StaleSchema();
  s.name = "stale-schema-fixed";
  s.title = "The new column as a versioned migration (ALTER TABLE ... ADD) survives a kept volume";
  s.story =
      "The same kept volume and the same new images, but the proxy's image brings node_id as "
      "migration 1755000000 (ALTER TABLE S3Objects ADD node_id) instead of an edited CREATE.";
  s.lesson =
      "Never edit an applied migration: add one. golang-migrate runs it on the kept volume, and "
      "the table gets the column. (Rows written before it would have no node_id: backfilling "
      "them is the next migration's job.)";
  s.checkers = {};  // All hold.
  s.steps = StaleSchemaOpening("v2-versioned");
  // No object from the old era here: its row would have no node_id to route
  // by (a backfill's job), which is another story.
  s.steps.erase(s.steps.begin() + 1);
  s.steps.push_back(With(Cql("DESCRIBE TABLE filecoingw_s3.s3objects", "The column is there."),
                         {Output("node_id text")}));
  s.steps.push_back(With(S3("PUT", "/photos/dog.jpg", "New writes work."), {Status(200)}));
  s.steps.push_back(With(S3("GET", "/photos/dog.jpg", "And reads."), {Status(200)}));
  return s;
}

// kuri-1 crashes right after the first statement of its first migration.
std::vector<Step> DirtyOpening() {
  return {
      Do(Kind::kUp, "kuri-1 crashes after the first statement of migration 1754293669."),
      With(Wait(minutes(8), "Compose restarts it; golang-migrate refuses, 30 tries over minutes."),
           {Log("kuri-1", kDirty), Log("kuri-1", "failed to build iface.S3ObjectIndex"),
            Restarted("kuri-1", 1), Serving("kuri-1", false)}),
      With(
          MigrateVersion("filecoingw_kuri1", "The recorded version: the one being applied, dirty."),
          {Output("1754293669 (dirty)")}),
  };
}

Scenario DirtyMigration() {
  Scenario s;
  s.name = "dirty-migration";
  s.title = "A crash mid-migration leaves the keyspace dirty; every restart refuses";
  s.story =
      "Seed 004. kuri-1 crashed while migrating; every restart then failed with 'Dirty database "
      "version 1754293669. Fix and force version.', after minutes of retries, and the fx chain "
      "named the S3 object index as the failing link.";
  s.lesson =
      "golang-migrate records the version it is applying, marked dirty, before running it: a "
      "crash leaves no way to know which statements ran. The dirty flag is a safety stop, not the "
      "problem; the problem is a partially applied migration.";
  s.crash_site = "migrate.filecoingw_kuri1.statement.after";
  s.crash_hit = 1;
  s.checkers = {{"converges", false}};  // kuri-1 never comes back by itself.
  s.steps = DirtyOpening();
  s.steps.push_back(
      With(S3("PUT", "/b/k", "The proxy still serves, through kuri-2."), {Status(200)}));
  return s;
}

Scenario DirtyMigrationFixed() {
  Scenario s;
  s.name = "dirty-migration-fixed";
  s.title = "The safe runner resumes a crashed migration by itself";
  s.story =
      "The same crash, with a node image whose runner records progress per statement under a "
      "lease lock: the restarted node waits for its old lease, resumes, checks the schema, serves.";
  s.lesson =
      "Record progress at the granularity you can crash at, make the first statement after a "
      "resume tolerate having run, and check the live schema before serving.";
  s.node_version = "safe";
  s.crash_site = "safe.filecoingw_kuri1.statement.after";
  s.crash_hit = 1;
  s.steps = {
      Do(Kind::kUp, "kuri-1 crashes after the first statement of migration 1754293669."),
      With(Wait(minutes(2), "Compose restarts it; the safe runner resumes."),
           {Log("kuri-1", "up to date, schema checked"), Serving("kuri-1", true)}),
      With(S3("PUT", "/b/k", "Both nodes serve."), {Status(200)}),
  };
  return s;
}

Scenario HandClearedFlag() {
  Scenario s = DirtyMigration();
  s.name = "hand-cleared-flag";
  s.title = "Clearing the dirty flag by hand skips the rest of the migration; forcing re-runs it";
  s.story =
      "Seed 004. The flag was cleared with UPDATE schema_migrations SET dirty = false: the node "
      "started, but the migration's remaining statements never ran. Forcing the version back "
      "re-ran the file from its first statement, which now met Duplicate Object.";
  s.lesson =
      "A safety flag cleared by hand moves the problem rather than removing it: the database "
      "must be brought to a known state first, by finishing or undoing the migration.";
  // kuri-1 served without multihashtogroup for a while, and ends down again.
  s.checkers = {{"converges", false}, {"schema-matches-image", false}};
  s.steps = DirtyOpening();
  s.steps.push_back(
      Cql("UPDATE filecoingw_kuri1.schema_migrations SET dirty = false WHERE version = "
          "1754293669",
          "The seed's quick fix."));
  s.steps.push_back(Restart("kuri-1", "kuri-1 starts again."));
  s.steps.push_back(
      With(Wait(seconds(15), "golang-migrate says no change: it starts after 1754293669."),
           {Serving("kuri-1", true)}));
  s.steps.push_back(With(Cql("SELECT * FROM filecoingw_kuri1.multihashtogroup",
                             "The migration's second table never came."),
                         {Output("Object Not Found")}));
  s.steps.push_back(
      MigrateForce("filecoingw_kuri1", -1, "The maintainers' advice: force the version before."));
  s.steps.push_back(Restart("kuri-1", "kuri-1 re-runs 1754293669 from its first statement ..."));
  s.steps.push_back(With(
      Wait(seconds(15), "... which meets the table it made the first time."),
      {Log("kuri-1", "Duplicate Object. Object 'filecoingw_kuri1.cidgroups' already exists")}));
  return s;
}

// The manual fix done right: finish the migration by hand, then record it.
std::vector<Step> FinishByHand() {
  return {
      With(Cql("CREATE TABLE filecoingw_kuri1.multihashtogroup (multihash blob PRIMARY KEY, "
               "group_id bigint)",
               "Finish the migration: run its statements that did not run."),
           {Lacks("error")}),
      MigrateForce("filecoingw_kuri1", 1754293669, "Then record it as applied, clean."),
      Restart("kuri-1", "kuri-1 starts again."),
      With(Wait(seconds(15), "golang-migrate has nothing to do; the node serves."),
           {Serving("kuri-1", true)}),
  };
}

Scenario HandClearedFlagFixed() {
  Scenario s = DirtyMigration();
  s.name = "hand-cleared-flag-fixed";
  s.title = "Finish the half-run migration by hand, then force its version";
  s.story =
      "The same dirty keyspace. Instead of clearing the flag, the operator compares the "
      "migration with the live schema (DESCRIBE), runs the statements that did not run, and "
      "only then records the version with migrate force.";
  s.lesson =
      "Bring the database to a known state first, then tell the tool. The flag is cleared by "
      "force, after the schema is what the version says.";
  s.checkers = {};  // All hold: kuri-1 serves, with its whole schema.
  s.steps = DirtyOpening();
  s.steps.push_back(
      With(Cql("DESCRIBE KEYSPACE filecoingw_kuri1", "What ran: cidgroups, not multihashtogroup."),
           {Output("CREATE TABLE filecoingw_kuri1.cidgroups"), Lacks("multihashtogroup")}));
  for (Step& step : FinishByHand()) s.steps.push_back(std::move(step));
  return s;
}

Scenario WrongKeyspace() {
  Scenario s = DirtyMigration();
  s.name = "wrong-keyspace";
  s.title = "The flag cleared in filecoingw_s3; kuri-1 reads filecoingw_kuri1";
  s.story =
      "Seed 003. The dirty flag was cleared in filecoingw_s3's schema_migrations, but kuri-1 keeps "
      "its version in its own keyspace, so nothing changed; system_schema.tables shows three "
      "schema_migrations tables.";
  s.lesson =
      "Per-node keyspaces multiply the places state lives. Look at the state the failing process "
      "reads, not the state you expect it to read.";
  s.steps = DirtyOpening();
  s.steps.push_back(
      Cql("UPDATE filecoingw_s3.schema_migrations SET dirty = false WHERE version = "
          "1756300000",
          "The flag 'cleared' in the proxy's keyspace."));
  s.steps.push_back(Restart("kuri-1", "kuri-1 starts again."));
  s.steps.push_back(With(MigrateVersion("filecoingw_kuri1", "Its own keyspace is still dirty."),
                         {Output("1754293669 (dirty)")}));
  s.steps.push_back(
      With(Cql("SELECT keyspace_name FROM system_schema.tables WHERE table_name = "
               "'schema_migrations' ALLOW FILTERING",
               "Three version tables, one per service."),
           {Output("filecoingw_kuri1"), Output("filecoingw_kuri2"), Output("filecoingw_s3")}));
  return s;
}

Scenario WrongKeyspaceFixed() {
  Scenario s = DirtyMigration();
  s.name = "wrong-keyspace-fixed";
  s.title = "Ask each keyspace its version, then fix the one the node reads";
  s.story =
      "The same dirty node. The operator asks migrate version of every keyspace before "
      "touching any: filecoingw_s3 is clean, filecoingw_kuri1 (kuri-1's) is dirty; that is "
      "where the migration is finished and forced.";
  s.lesson =
      "Find which state the failing process reads before changing state; with one keyspace per "
      "service, the version table you see first is rarely the one that matters.";
  s.checkers = {};
  s.steps = DirtyOpening();
  s.steps.push_back(
      With(MigrateVersion("filecoingw_s3", "The proxy's keyspace: clean, not the problem."),
           {Output("1756300000"), Lacks("dirty")}));
  for (Step& step : FinishByHand()) s.steps.push_back(std::move(step));
  return s;
}

Scenario VersionDrift() {
  Scenario s;
  s.name = "version-drift";
  s.title = "Tables from two eras, one version number; re-creating the keyspace ends it";
  s.story =
      "Seed 002. The image expected migration 1756300000 while the keyspace recorded 1754293669, "
      "with tables from both eras present, one made by hand. IF NOT EXISTS kept the hand-made "
      "table, the version moved on, and requests failed; the operator finally dropped and "
      "re-created the keyspace.";
  s.lesson =
      "A version number says which files ran, not what the tables look like. When they drift "
      "apart, rebuilding from the migrations is the only way back to a known state.";
  s.node_version = "v1";
  s.proxy_version = "v1";
  // The new proxy serves the hand-made multipartuploads, without its columns.
  s.checkers = {{"schema-matches-image", false}};
  s.steps = {
      Do(Kind::kUp, "The first era, at migration 1754293669."),
      Cql("CREATE TABLE filecoingw_s3.multipartuploads (upload_id text PRIMARY KEY, bucket text, "
          "key text)",
          "Someone creates the next era's table by hand, without node_id."),
      SetImage("s3-proxy", "v2", "The new images ..."),
      SetImage("kuri-1", "v2", ""),
      SetImage("kuri-2", "v2", ""),
      Do(Kind::kUp, "... are rolled out."),
      Wait(seconds(15), "The old containers stop; the new ones start and migrate."),
      With(MigrateVersion("filecoingw_s3",
                          "The version moved on: IF NOT EXISTS kept the hand-made table."),
           {Output("1756300000")}),
      With(S3("POST", "/b/big", "A multipart upload cannot record its coordinator.", "uploads"),
           {Status(500), Output("Undefined Column")}),
      With(S3("PUT", "/b/k", "Nor can a PUT write node_id."), {Status(500)}),
      Recreate("filecoingw_s3", "The operator drops and re-creates the keyspace."),
      Restart("s3-proxy", "The proxy migrates it from scratch."),
      With(S3("PUT", "/b/k", "Writes work."), {Status(200)}),
      With(S3("POST", "/b/big", "And multipart uploads.", "uploads"), {Status(200)}),
  };
  return s;
}

Scenario VersionDriftFixed() {
  Scenario s = VersionDrift();
  s.checkers = {};  // All hold: the drifted keyspace is refused, then rebuilt.
  s.name = "version-drift-fixed";
  s.title = "A start-up schema check refuses the drifted keyspace with a readable diff";
  s.story =
      "The same hand-made table, with a proxy image whose runner checks the live schema against "
      "its migrations before serving: it refuses to start and says which column is missing, "
      "instead of serving 500s; the operator re-creates the keyspace and it starts.";
  s.lesson =
      "Check the schema the code will use at start-up, and fail with the difference: an early, "
      "readable refusal beats a version number that looks right.";
  for (Step& step : s.steps) {
    if (step.kind == Kind::kSetImage && step.service == "s3-proxy") step.version = "safe";
  }
  // No 500s: the proxy refuses to start instead, and says why.
  s.steps.erase(s.steps.begin() + 7, s.steps.begin() + 10);
  s.steps.insert(
      s.steps.begin() + 7,
      With(Wait(seconds(5), "The proxy's runner compares the live schema with its migrations."),
           {Log("s3-proxy", "schema check failed for keyspace filecoingw_s3"),
            Log("s3-proxy", "table multipartuploads: column node_id (text) is missing"),
            Serving("s3-proxy", false)}));
  // A refusing proxy is in its retry back-off: its restart takes the grace period.
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    if (s.steps[i].kind == Kind::kRestart) {
      s.steps.insert(s.steps.begin() + static_cast<long>(i) + 1,
                     Wait(seconds(20), "The new proxy migrates the empty keyspace and serves."));
      break;
    }
  }
  return s;
}

// Not a seed story: golang-migrate's known failure of replicas that start
// together, on a store with Cassandra's schema agreement. The node image
// "v3" also registers the node in a table shared by all nodes.
ImageSpec RegistryNodeImage() {
  ImageSpec image;
  image.service = "node";
  image.version = "v3";
  image.files = {
      {"1754293669_init_s3_object_index.up.cql",
       "CREATE TABLE cidgroups (group_id bigint PRIMARY KEY, cids set<text>);\n"
       "CREATE TABLE multihashtogroup (multihash blob PRIMARY KEY, group_id bigint);\n"},
      {"1760000000_node_registry.up.cql",
       "CREATE TABLE IF NOT EXISTS filecoingw_s3.node_registry (node_id text PRIMARY KEY, "
       "address text);\n"},
  };
  return image;
}

Scenario ConcurrentMigratorsOn(const std::string& store) {
  Scenario s;
  s.store_version = store;
  s.node_version = "v3";
  s.images = {RegistryNodeImage()};
  return s;
}

Scenario ConcurrentMigrators() {
  Scenario s = ConcurrentMigratorsOn("cassandra");
  s.name = "concurrent-migrators";
  s.title = "On Cassandra, two nodes create one shared table at once: Column family ID mismatch";
  s.story =
      "Not a seed story: a failure golang-migrate users report. Both nodes start together on an "
      "image whose new migration creates a table shared by all nodes, with CREATE TABLE IF NOT "
      "EXISTS and no lock between processes. On Apache Cassandra a schema change reaches the "
      "other coordinators only later, so both creates go ahead with different table ids, and "
      "one node's migration fails with 'Column family ID mismatch', leaving its keyspace dirty.";
  s.lesson =
      "IF NOT EXISTS is no lock, and golang-migrate's lock is in-process only: replicas that "
      "start together race on every shared object. On a store with weak schema agreement the "
      "race fails a migration half-way, and the dirty flag keeps the loser down. Let one process "
      "own shared schema (a job the others wait for), or use a store whose catalog is strongly "
      "consistent, as YCQL's is.";
  s.checkers = {{"converges", false}};  // The loser crash-loops on its dirty keyspace.
  s.steps = {
      Do(Kind::kUp, "Both nodes start together on image v3 and migrate at once."),
      With(Wait(minutes(2), "One of them lost the race for filecoingw_s3.node_registry."),
           {Log("kuri-*", "Column family ID mismatch (found "),
            Log("kuri-*", "Dirty database version 1760000000. Fix and force version.")}),
      With(Cql("SELECT table_name FROM system_schema.tables WHERE keyspace_name = "
               "'filecoingw_s3'",
               "The shared table is there: the winner's."),
           {Output("node_registry")}),
  };
  return s;
}

Scenario ConcurrentMigratorsFixed() {
  Scenario s = ConcurrentMigratorsOn("2.20");
  s.name = "concurrent-migrators-fixed";
  s.title = "YCQL's consistent catalog: the same race is harmless";
  s.story =
      "The same images starting together on YCQL, the seed's store: of the two creates one "
      "makes the table and the other finds it, so both nodes migrate and serve.";
  s.lesson =
      "Know your store's schema agreement. With a strongly consistent catalog, IF NOT EXISTS "
      "makes concurrent creates safe; with Cassandra's, serialize schema changes instead.";
  s.steps = {
      Do(Kind::kUp, "Both nodes start together on image v3 and migrate at once."),
      With(Wait(minutes(2), "Both migrations finish."),
           {Serving("kuri-1", true), Serving("kuri-2", true)}),
      With(S3("PUT", "/b/k", "The cluster serves."), {Status(200)}),
      With(S3("GET", "/b/k", "And reads back."), {Status(200)}),
  };
  return s;
}

}  // namespace

const std::vector<Scenario>& Catalogue() {
  static const std::vector<Scenario> kCatalogue = {
      StaleSchema(),     StaleSchemaFixed(),     DirtyMigration(),      DirtyMigrationFixed(),
      HandClearedFlag(), HandClearedFlagFixed(), WrongKeyspace(),       WrongKeyspaceFixed(),
      VersionDrift(),    VersionDriftFixed(),    ConcurrentMigrators(), ConcurrentMigratorsFixed(),
  };
  return kCatalogue;
}

const Scenario* FindScenario(std::string_view name) {
  for (const Scenario& scenario : Catalogue()) {
    if (scenario.name == name) return &scenario;
  }
  return nullptr;
}

}  // namespace faultline::scenarios
