// Runtime: a compose-like container runtime on the simulation. It runs
// services from registered image versions as simulated processes, owns their
// named volumes and host directories, starts them in dependency order,
// restarts them by policy with Docker's back-off, probes their health, and
// keeps each container's log.
//
// Semantics follow Docker Compose where the seed stories depend on them:
// - Named volumes belong to the runtime, not the container: `down` keeps
//   them, `down -v` removes them. Host directories (bind mounts) survive
//   both; CleanHostDirectories() (the seed's "--clean") empties them only.
// - Restart policies no / always / on-failure; the delay starts at 100 ms,
//   doubles up to one minute, and resets after 10 s of running. Stop() is
//   graceful (the entry point sees StopRequested(), then a kill after the
//   grace period) and is never followed by a restart; Kill() is a crash, and
//   the policy applies.
// - An image version change takes effect at the container's next start.
// All operations return at once; their effects unfold as the simulation
// runs, in the runtime's own process ("dockerd"), and appear in the trace.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fakes/compose.h"
#include "fakes/network.h"
#include "fakes/sqlite_vfs.h"
#include "fakes/volume.h"
#include "sim/sim.h"

namespace faultline::fakes {

enum class ContainerState : unsigned char { kCreated, kRunning, kRestarting, kExited };
enum class Health : unsigned char { kNone, kStarting, kHealthy, kUnhealthy };

// As `docker ps` names them.
inline constexpr sim::Named<ContainerState> kContainerStates[] = {
    {ContainerState::kCreated, "created"},
    {ContainerState::kRunning, "running"},
    {ContainerState::kRestarting, "restarting"},
    {ContainerState::kExited, "exited"}};
inline std::string_view ContainerStateName(ContainerState state) {
  return sim::NameOf(kContainerStates, state);
}
// The state named so (ContainerStateName's inverse), or nullopt.
inline std::optional<ContainerState> ContainerStateNamed(std::string_view name) {
  return sim::ValueNamed(kContainerStates, name);
}
std::string_view HealthName(Health health);

class Runtime;
struct Container;

// What a container's entry point and health probe see of the world.
class ContainerContext {
 public:
  ContainerContext(Runtime& runtime, Container& container)
      : runtime_(runtime), container_(container) {}

  const std::string& name() const;
  const std::string& image_version() const;
  const ServiceSpec& spec() const;
  sim::Simulation& simulation();
  sim::Process& process();
  Network& network();
  SqliteVfs& vfs();

  // The environment value for `key`, or `fallback`.
  std::string Env(const std::string& key, const std::string& fallback = "") const;
  // The volume mounted at `target` in this container, or nullptr.
  Volume* VolumeAt(const std::string& target);
  // The path to give SQLite (through vfs()) for `path` inside this container.
  std::string SqlitePath(const std::string& path) const;

  // Appends a line to the container's log (and the trace).
  void Log(const std::string& line);
  // The service says whether it is ready (what its own health endpoint
  // would answer now), for observers: no event, no message, no time. Every
  // start begins not ready. Ignored from a crashed incarnation's code.
  void SetReady(bool ready);

  // Completes when the runtime asks the container to stop gracefully.
  sim::Awaitable<void> StopRequested();

 private:
  Runtime& runtime_;
  Container& container_;
};

class Runtime {
 public:
  static constexpr sim::Duration kBackoffStart = std::chrono::milliseconds(100);
  static constexpr sim::Duration kBackoffMax = std::chrono::minutes(1);
  static constexpr sim::Duration kBackoffResetAfter = std::chrono::seconds(10);
  static constexpr std::size_t kMaxLogLines = 10'000;
  static constexpr int kMaxRestarts = 1'000'000;

  Runtime(sim::Simulation& simulation, Network& network, SqliteVfs& vfs);
  // Ends every container and the daemon, so that their coroutine frames go
  // while the volumes and the VFS they use still exist.
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Makes `image`:`version` runnable with `entry` as its main program.
  void RegisterImage(const std::string& image, const std::string& version, EntryPoint entry);
  bool HasImage(const std::string& image, const std::string& version) const {
    return images_.contains({image, version});
  }

  // compose up: creates missing containers and volumes and starts services,
  // each once its depends_on conditions hold; running containers whose image
  // version changed are recreated. InvalidArgument (nothing done) for an
  // unknown image version or dependency, or a dependency cycle. While a
  // `down` is still stopping containers, this waits for it to end first (and
  // a later `down` for this), as compose's CLI runs one command after the
  // other.
  [[nodiscard]] sim::Status Up(const ComposeSpec& spec);
  // compose down: stops every container gracefully and removes it; with
  // `remove_volumes` (down -v) removes the named volumes too.
  void Down(bool remove_volumes);
  // Empties every host directory; named volumes are untouched.
  void CleanHostDirectories();
  // Every volume's disk as it was made (Volume::Repair), each change traced.
  void RepairDisks();
  // Crashes the service's container; its restart policy applies.
  void Kill(const std::string& service);
  // Stops it gracefully; it stays stopped.
  void Stop(const std::string& service);
  // Its machine loses power: the process dies at once and nothing restarts
  // it until PowerOn. The caller drops the volumes' unsynced writes.
  void PowerOff(const std::string& service);
  // Power is back: the machine boots and docker starts the container again
  // if its restart policy says so (always; on-failure, since a power loss
  // is a failure), as after a reboot.
  void PowerOn(const std::string& service);
  // Stops it gracefully, then starts it (with its current image version).
  void Restart(const std::string& service);
  // The version its next start will run. InvalidArgument if unregistered.
  [[nodiscard]] sim::Status SetImageVersion(const std::string& service, const std::string& version);
  // Starts a created or stopped service once, like `docker compose run`
  // (no restart policy), and completes with its exit code.
  sim::Awaitable<int> RunJob(const std::string& service);

  // Operations (Up, Down, Stop, Restart) are numbered as they are asked
  // for. A caller notes operations_asked() before acting, then waits until
  // DoneSince(that number): every operation asked for since has been carried
  // out (each container it concerns started, stopped or removed). So it
  // waits for its own operations, not for an older one that may never end
  // (an up whose service waits on a dependency that never comes).
  std::uint64_t operations_asked() const { return operations_asked_; }
  bool DoneSince(std::uint64_t asked) const {
    return in_flight_.upper_bound(asked) == in_flight_.end();
  }
  bool idle() const { return in_flight_.empty(); }

  bool HasContainer(const std::string& service) const;
  ContainerState state(const std::string& service) const;
  Health health(const std::string& service) const;
  std::optional<int> exit_code(const std::string& service) const;
  // The exit code of its last incarnation that ended, even once it has been
  // started again (what `docker inspect` shows of the last exit).
  std::optional<int> last_exit_code(const std::string& service) const;
  int restart_count(const std::string& service) const;
  // Services whose last `up` did not start them because a dependency
  // failed, each "kuri-1: dependency failed to start: container db-init
  // exited (1)" (as compose reports it), by name. A start clears it.
  std::vector<std::string> HeldBack() const;
  // The container's own spec (the compose file's as of its creation, with
  // later SetImageVersion changes), the image version its current or last
  // start ran (empty before the first), and its process's incarnation.
  // REQUIRES: HasContainer(service), for these and the accessors above.
  const ServiceSpec& container_spec(const std::string& service) const;
  const std::string& running_version(const std::string& service) const;
  std::uint32_t incarnation(const std::string& service) const;
  // Whether its running incarnation said it is ready (SetReady).
  bool ready(const std::string& service) const;
  // `docker compose logs SERVICE`: "kuri-1  | line", oldest first.
  std::vector<std::string> Logs(const std::string& service) const;

  // A named volume, or a host directory by its path; nullptr if missing.
  Volume* FindVolume(const std::string& source, VolumeKind kind);

  // What `up` would refuse in `spec`, as compose does: a service twice, an
  // image not registered, a dependency undefined, one that must be healthy
  // but has no health check, a dependency cycle.
  [[nodiscard]] sim::Status Validate(const ComposeSpec& spec) const;

  sim::Simulation& simulation() { return simulation_; }
  Network& network() { return network_; }
  SqliteVfs& vfs() { return vfs_; }

 private:
  friend class ContainerContext;

  Container& At(const std::string& service);
  const Container& At(const std::string& service) const;
  Volume& EnsureVolume(const MountSpec& mount);
  void Mount(Container& container);
  void Unmount(Container& container);
  void SetState(Container& container, ContainerState state);
  void StartProcess(Container& container);
  sim::Awaitable<void> StartWhenReady(Container& container);
  sim::Awaitable<bool> WaitFor(Container& dependency, DependencyCondition condition);
  // Applies the restart policy to each exit of `container`'s process, as
  // long as `generation` is the container's supervisor.
  sim::Awaitable<void> Supervise(Container& container, std::uint64_t generation);
  sim::Awaitable<void> ProbeHealth(Container& container, std::uint32_t incarnation);
  sim::Awaitable<void> StopGracefully(Container& container);
  sim::Awaitable<void> DownAll(bool remove_volumes);
  // Up's work once it is checked, and no `down` is running.
  void ApplyUp(const ComposeSpec& spec);
  // Turns: downs, and ups asked while a down runs, each in the order asked.
  std::uint64_t TakeTurn();
  sim::Awaitable<void> WaitForTurn(std::uint64_t turn);
  void EndTurn(std::uint64_t turn);
  // Runs `body()` (an Awaitable<void>) in the daemon, counted in flight.
  template <typename Body>
  void SpawnOperation(std::string name, Body body);

  sim::Simulation& simulation_;
  Network& network_;
  SqliteVfs& vfs_;
  sim::Process& daemon_;
  std::map<std::pair<std::string, std::string>, EntryPoint> images_;
  std::map<std::string, std::unique_ptr<Container>> containers_;
  std::map<std::string, std::unique_ptr<Volume>> named_volumes_;
  std::map<std::string, std::unique_ptr<Volume>> host_directories_;
  // Volumes removed by `down -v`, kept so that no pointer to one dangles.
  std::vector<std::unique_ptr<Volume>> retired_volumes_;
  sim::Event daemon_never_set_;
  std::uint64_t turns_taken_ = 0;
  std::set<std::uint64_t> in_turn_;  // Turns taken and not yet ended.
  sim::Event turn_ended_;            // Set (and reset) as each ends.
  std::uint64_t operations_asked_ = 0;
  std::set<std::uint64_t> in_flight_;  // The numbers of the operations not yet done.
};

}  // namespace faultline::fakes
