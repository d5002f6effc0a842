#include "fakes/runtime.h"

#include <deque>
#include <functional>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "sim/assert.h"

namespace faultline::fakes {

std::string_view HealthName(Health health) {
  switch (health) {
    case Health::kNone:
      return "none";
    case Health::kStarting:
      return "starting";
    case Health::kHealthy:
      return "healthy";
    case Health::kUnhealthy:
      return "unhealthy";
  }
  return "unknown";
}

// What the runtime wants of a container, beside the state it is in
// (ContainerState): to run (restart by policy), to stay stopped (no restart
// after this exit), or to be gone (`down`). It moves only as Allowed says.
enum class Intent : unsigned char { kRun, kStop, kRemove };

// A stop may not undo a removal; everything else is a transition compose
// makes: stop, down, start again, up again.
bool Allowed(Intent from, Intent to) { return !(from == Intent::kRemove && to == Intent::kStop); }

// One service's container. Kept for the runtime's lifetime, even after
// `down` (then Intent::kRemove): its supervisor and health tasks refer to it.
struct Container {
  ServiceSpec spec;
  sim::Process* process = nullptr;  // The same process across restarts.
  ContainerState state = ContainerState::kCreated;
  Health health = Health::kNone;
  std::optional<int> exit_code;       // Of the current incarnation, once it ended.
  std::optional<int> last_exit_code;  // Of the last incarnation that ended: kept across starts.
  int restarts = 0;
  Intent intent = Intent::kRun;
  bool run_once = false;         // Started by RunJob: no restart policy.
  bool powered_off = false;      // Its machine has no power: nothing starts it.
  bool up_at_power_off = false;  // Running or restarting when the power went.
  bool supervised = false;
  // The supervisor is sleeping out a restart's back-off. A start by hand
  // then (an `up` that recreates the container, a restart) hands the
  // container to a new supervisor, so that the new process's exit is seen
  // when it happens; the old one, waking, finds a newer generation and ends.
  bool backing_off = false;
  std::uint64_t supervisor = 0;
  sim::TimePoint started_at{};
  std::string running_version;  // The image version its current (or last) start ran.
  bool ready = false;           // What the running incarnation last said (SetReady).
  // Why its last `up` did not start it, as compose says ("dependency failed
  // to start: ..."); empty once it starts.
  std::string held_back;
  std::deque<std::string> log;
  std::vector<std::string> mount_points;  // In the runtime's SQLite VFS.
  sim::Event changed;                     // Pulsed on every state or health change.
  sim::Event stop_signal;                 // Set while a graceful stop is asked.

  bool removed() const { return intent == Intent::kRemove; }
  bool stop_requested() const { return intent != Intent::kRun; }
  void Want(Intent next) {
    FL_ASSERT_MSG(Allowed(intent, next), "container {}: intent {} cannot become {}", spec.name,
                  static_cast<int>(intent), static_cast<int>(next));
    intent = next;
  }
};

// --- ContainerContext -------------------------------------------------------

const std::string& ContainerContext::name() const { return container_.spec.name; }
const std::string& ContainerContext::image_version() const { return container_.spec.version; }
const ServiceSpec& ContainerContext::spec() const { return container_.spec; }
sim::Simulation& ContainerContext::simulation() { return runtime_.simulation(); }
sim::Process& ContainerContext::process() { return *container_.process; }
Network& ContainerContext::network() { return runtime_.network(); }
SqliteVfs& ContainerContext::vfs() { return runtime_.vfs(); }

std::string ContainerContext::Env(const std::string& key, const std::string& fallback) const {
  auto it = container_.spec.environment.find(key);
  return it == container_.spec.environment.end() ? fallback : it->second;
}

Volume* ContainerContext::VolumeAt(const std::string& target) {
  for (const MountSpec& mount : container_.spec.mounts) {
    if (mount.target == target) return runtime_.FindVolume(mount.source, mount.kind);
  }
  return nullptr;
}

std::string ContainerContext::SqlitePath(const std::string& path) const {
  return "/containers/" + container_.spec.name + path;
}

void ContainerContext::SetReady(bool ready) {
  sim::Simulation& simulation = runtime_.simulation();
  if (!simulation.scheduler().IsLive(simulation.CurrentOwner())) return;  // Dead code: unseen.
  container_.ready = ready;
}

void ContainerContext::Log(const std::string& line) {
  sim::Simulation& simulation = runtime_.simulation();
  if (!simulation.scheduler().IsLive(simulation.CurrentOwner())) return;  // Dead code: unseen.
  if (container_.log.size() >= Runtime::kMaxLogLines) container_.log.pop_front();
  container_.log.push_back(line);
  runtime_.simulation().Emit("container.log", {{"service", container_.spec.name}, {"line", line}});
}

sim::Awaitable<void> ContainerContext::StopRequested() {
  if (container_.stop_requested()) co_return;
  co_await container_.stop_signal.Wait();
}

// --- Runtime ----------------------------------------------------------------

Runtime::Runtime(sim::Simulation& simulation, Network& network, SqliteVfs& vfs)
    : simulation_(simulation),
      network_(network),
      vfs_(vfs),
      daemon_(simulation.AddProcess("dockerd")) {
  daemon_.Start([this]() -> sim::Awaitable<int> {
    co_await daemon_never_set_.Wait();
    co_return 0;
  });
  // A power-loss fault at a container's disk I/O is its machine's: every
  // volume it mounts drops what was never synced.
  vfs_.SetPowerLossHandler(
      [this](sim::ProcessId process, sim::Survivors survivors, sim::Rng& random) {
        for (auto& [name, container] : containers_) {
          if (container->process->id() != process) continue;
          for (const MountSpec& mount : container->spec.mounts) {
            if (Volume* volume = FindVolume(mount.source, mount.kind)) {
              volume->LoseUnsynced(random, CrashModel::Of(survivors));
            }
          }
        }
      });
}

Runtime::~Runtime() {
  vfs_.SetPowerLossHandler(nullptr);
  for (auto& [name, container] : containers_) {
    if (container->process->running()) container->process->Kill();
  }
  if (daemon_.running()) daemon_.Kill();
}

void Runtime::RegisterImage(const std::string& image, const std::string& version,
                            EntryPoint entry) {
  FL_ASSERT(entry);
  images_.insert_or_assign({image, version}, std::move(entry));
}

Container& Runtime::At(const std::string& service) {
  auto it = containers_.find(service);
  FL_ASSERT_MSG(it != containers_.end() && !it->second->removed(), "no container for service {}",
                service);
  return *it->second;
}

const Container& Runtime::At(const std::string& service) const {
  return const_cast<Runtime*>(this)->At(service);
}

bool Runtime::HasContainer(const std::string& service) const {
  auto it = containers_.find(service);
  return it != containers_.end() && !it->second->removed();
}

ContainerState Runtime::state(const std::string& service) const { return At(service).state; }
Health Runtime::health(const std::string& service) const { return At(service).health; }
std::optional<int> Runtime::last_exit_code(const std::string& service) const {
  return At(service).last_exit_code;
}

std::optional<int> Runtime::exit_code(const std::string& service) const {
  return At(service).exit_code;
}
int Runtime::restart_count(const std::string& service) const { return At(service).restarts; }

std::vector<std::string> Runtime::HeldBack() const {
  std::vector<std::string> held;
  for (const auto& [name, container] : containers_) {
    if (!container->held_back.empty() && !container->removed()) {
      held.push_back(name + ": " + container->held_back);
    }
  }
  return held;
}

const ServiceSpec& Runtime::container_spec(const std::string& service) const {
  return At(service).spec;
}

const std::string& Runtime::running_version(const std::string& service) const {
  return At(service).running_version;
}

bool Runtime::ready(const std::string& service) const {
  const Container& container = At(service);
  return container.ready && container.process->running();
}

std::uint32_t Runtime::incarnation(const std::string& service) const {
  return At(service).process->incarnation();
}

std::vector<std::string> Runtime::Logs(const std::string& service) const {
  std::vector<std::string> lines;
  for (const std::string& line : At(service).log) lines.push_back(service + "  | " + line);
  return lines;
}

Volume* Runtime::FindVolume(const std::string& source, VolumeKind kind) {
  auto& volumes = kind == VolumeKind::kNamedVolume ? named_volumes_ : host_directories_;
  auto it = volumes.find(source);
  return it == volumes.end() ? nullptr : it->second.get();
}

Volume& Runtime::EnsureVolume(const MountSpec& mount) {
  auto& volumes = mount.kind == VolumeKind::kNamedVolume ? named_volumes_ : host_directories_;
  auto& slot = volumes[mount.source];
  if (slot == nullptr) {
    slot = std::make_unique<Volume>(mount.source, mount.kind);
    simulation_.Emit(
        "volume.create",
        {{"volume", mount.source},
         {"kind", mount.kind == VolumeKind::kNamedVolume ? "volume" : "host-directory"}});
  }
  // Kept under its source, in its kind's map.
  FL_ASSERT(slot->name() == mount.source && slot->kind() == mount.kind);
  return *slot;
}

void Runtime::Mount(Container& container) {
  Unmount(container);
  for (const MountSpec& mount : container.spec.mounts) {
    const std::string point = "/containers/" + container.spec.name + mount.target;
    vfs_.Mount(point, EnsureVolume(mount));
    container.mount_points.push_back(point);
  }
}

void Runtime::Unmount(Container& container) {
  for (const std::string& point : container.mount_points) vfs_.Unmount(point);
  container.mount_points.clear();
}

sim::Status Runtime::Validate(const ComposeSpec& spec) const {
  std::map<std::string, const ServiceSpec*> services;
  for (const ServiceSpec& service : spec.services) {
    if (!services.emplace(service.name, &service).second) {
      return sim::Status::InvalidArgument(fmt::format("service {} is defined twice", service.name));
    }
    if (!images_.contains({service.image, service.version})) {
      return sim::Status::InvalidArgument(
          fmt::format("service {}: no image {}:{}", service.name, service.image, service.version));
    }
  }
  for (const ServiceSpec& service : spec.services) {
    for (const auto& [dependency, condition] : service.depends_on) {
      if (!services.contains(dependency)) {
        return sim::Status::InvalidArgument(
            fmt::format("service {} depends on undefined service {}", service.name, dependency));
      }
      // docker compose refuses this too: the wait would never end.
      if (condition == DependencyCondition::kHealthy && !services.at(dependency)->healthcheck) {
        return sim::Status::InvalidArgument(
            fmt::format("service {} waits for {} to be healthy, but {} has no health check",
                        service.name, dependency, dependency));
      }
    }
  }
  // A dependency cycle would leave every service in it waiting forever.
  if (const std::vector<std::string> cycle = FindDependencyCycle(spec); !cycle.empty()) {
    return sim::Status::InvalidArgument(
        fmt::format("dependency cycle through service {}", cycle.front()));
  }
  return sim::Status::Ok();
}

template <typename Body>
void Runtime::SpawnOperation(std::string name, Body body) {
  const std::uint64_t number = ++operations_asked_;
  in_flight_.insert(number);
  daemon_.Spawn(std::move(name), [this, number, body = std::move(body)]() -> sim::Awaitable<void> {
    co_await body();
    FL_ASSERT(in_flight_.erase(number) == 1);
  });
}

sim::Status Runtime::Up(const ComposeSpec& spec) {
  if (sim::Status status = Validate(spec); !status.ok()) return status;
  if (in_turn_.empty()) {
    ApplyUp(spec);
    return sim::Status::Ok();
  }
  // A `down` is still in a container's grace period: applied now, this up
  // would start containers the down then finds running and removes. It
  // waits its turn, as compose's CLI runs one command after the other.
  const std::uint64_t turn = TakeTurn();
  SpawnOperation("up after down", [this, spec, turn]() -> sim::Awaitable<void> {
    co_await WaitForTurn(turn);
    ApplyUp(spec);
    EndTurn(turn);
  });
  return sim::Status::Ok();
}

std::uint64_t Runtime::TakeTurn() {
  const std::uint64_t turn = ++turns_taken_;
  in_turn_.insert(turn);
  return turn;
}

sim::Awaitable<void> Runtime::WaitForTurn(std::uint64_t turn) {
  // Each wake-up is an earlier turn's end (a later one waits for this).
  const auto at = in_turn_.find(turn);
  FL_ASSERT(at != in_turn_.end());
  const auto earlier = static_cast<std::size_t>(std::distance(in_turn_.begin(), at));
  for (std::size_t ended = 0; ended < earlier && *in_turn_.begin() != turn; ++ended) {
    co_await turn_ended_.Wait();
  }
  FL_ASSERT_MSG(*in_turn_.begin() == turn, "compose operation {} never got its turn", turn);
}

void Runtime::EndTurn(std::uint64_t turn) {
  FL_ASSERT(in_turn_.erase(turn) == 1);
  turn_ended_.Set();
  turn_ended_.Reset();
}

void Runtime::ApplyUp(const ComposeSpec& spec) {
  for (const ServiceSpec& service : spec.services) {
    auto& slot = containers_[service.name];
    if (slot == nullptr) {
      slot = std::make_unique<Container>();
      sim::Process* process = simulation_.FindProcess(service.name);
      slot->process = process != nullptr ? process : &simulation_.AddProcess(service.name);
    }
    FL_ASSERT(slot->process != nullptr);  // The same process across restarts.
    Container& container = *slot;
    const bool running = !container.removed() && container.process->running();
    const bool recreate = running && container.spec.version != service.version;
    if (running && !recreate) continue;  // Up to date.
    container.spec = service;
    container.Want(Intent::kRun);
    container.held_back.clear();  // This up decides anew.
    if (!running) {
      // A supervisor of the container's last life (before a `down`, or
      // after a stop) may not have seen that life's exit yet: it must not
      // apply the restart policy to this one, which has its dependencies
      // to wait for. The next start gets a supervisor of its own.
      ++container.supervisor;
      container.supervised = false;
      container.backing_off = false;
    }
    Mount(container);
    if (!running) SetState(container, ContainerState::kCreated);
    SpawnOperation("up " + service.name, [this, &container, recreate]() -> sim::Awaitable<void> {
      if (recreate) co_await StopGracefully(container);
      co_await StartWhenReady(container);
    });
  }
}

void Runtime::SetState(Container& container, ContainerState state) {
  container.state = state;
  simulation_.Emit("container.state", {{"service", container.spec.name},
                                       {"state", ContainerStateName(state)},
                                       {"incarnation", container.process->incarnation()}});
  container.changed.Set();
  container.changed.Reset();
}

sim::Awaitable<bool> Runtime::WaitFor(Container& dependency, DependencyCondition condition) {
  constexpr int kMaxChanges = 1'000'000;
  for (int change = 0; change < kMaxChanges; ++change) {
    switch (condition) {
      case DependencyCondition::kStarted:
        if (dependency.state == ContainerState::kRunning) co_return true;
        break;
      case DependencyCondition::kHealthy:
        if (dependency.state == ContainerState::kRunning && dependency.health == Health::kHealthy) {
          co_return true;
        }
        break;
      case DependencyCondition::kCompletedSuccessfully:
        if (dependency.state == ContainerState::kExited && dependency.exit_code) {
          co_return *dependency.exit_code == 0;
        }
        break;
    }
    co_await dependency.changed.Wait();
  }
  FL_PANIC("service {} changed state {} times while a dependent waited", dependency.spec.name,
           kMaxChanges);
}

sim::Awaitable<void> Runtime::StartWhenReady(Container& container) {
  // A copy: a later `up` may replace the spec while this waits.
  const auto depends_on = container.spec.depends_on;
  for (const auto& [name, condition] : depends_on) {
    auto it = containers_.find(name);
    if (it == containers_.end() || it->second->removed() || container.removed()) co_return;
    Container& dependency = *it->second;
    if (!co_await WaitFor(dependency, condition)) {
      container.held_back = fmt::format("dependency failed to start: container {} exited ({})",
                                        name, dependency.exit_code.value_or(-1));
      ContainerContext(*this, container).Log(container.held_back);
      co_return;
    }
  }
  if (!container.removed() && !container.process->running()) StartProcess(container);
}

void Runtime::StartProcess(Container& container) {
  FL_ASSERT(!container.process->running());
  if (container.removed()) return;    // `down` came first.
  if (container.powered_off) return;  // Its machine is off: PowerOn decides.
  const auto image = images_.find({container.spec.image, container.spec.version});
  FL_ASSERT(image != images_.end());
  container.Want(Intent::kRun);
  container.run_once = false;
  container.held_back.clear();
  container.running_version = container.spec.version;
  container.ready = false;
  container.stop_signal.Reset();
  container.exit_code.reset();
  container.health = container.spec.healthcheck ? Health::kStarting : Health::kNone;
  container.process->Start([this, &container, entry = image->second]() -> sim::Awaitable<int> {
    ContainerContext context(*this, container);
    co_return co_await entry(context);
  });
  container.started_at = simulation_.Now();
  SetState(container, ContainerState::kRunning);
  if (container.spec.healthcheck) {
    // Probes run inside the container, as Docker's do: they die with it.
    container.process->Spawn("healthcheck",
                             [this, &container, incarnation = container.process->incarnation()] {
                               return ProbeHealth(container, incarnation);
                             });
  }
  if (!container.supervised || container.backing_off) {
    container.supervised = true;
    container.backing_off = false;
    const std::uint64_t generation = ++container.supervisor;
    daemon_.Spawn("supervise " + container.spec.name,
                  [this, &container, generation] { return Supervise(container, generation); });
  }
}

sim::Awaitable<void> Runtime::Supervise(Container& container, std::uint64_t generation) {
  sim::Duration backoff = kBackoffStart;
  for (int round = 0; round < kMaxRestarts; ++round) {
    const sim::ExitStatus exit = co_await container.process->WaitForExit();
    if (container.supervisor != generation) co_return;  // Created again by `up`: not ours.
    if (container.process->running()) continue;         // Already started again by hand.
    container.exit_code = exit.code;
    container.last_exit_code = exit.code;
    container.health = container.spec.healthcheck ? Health::kStarting : Health::kNone;
    const sim::Duration ran = simulation_.Now() - container.started_at;
    simulation_.Emit(
        "container.exit",
        {{"service", container.spec.name}, {"code", exit.code}, {"killed", exit.killed}});
    SetState(container, ContainerState::kExited);
    const RestartPolicy policy = container.spec.restart;
    const bool by_policy =
        policy == RestartPolicy::kAlways || (policy == RestartPolicy::kOnFailure && exit.code != 0);
    if (!by_policy || container.stop_requested() || container.run_once) break;
    if (ran >= kBackoffResetAfter) backoff = kBackoffStart;
    SetState(container, ContainerState::kRestarting);
    container.backing_off = true;
    co_await sim::SleepFor(backoff);
    if (container.supervisor != generation) co_return;  // Started by hand meanwhile: not ours.
    container.backing_off = false;
    backoff = std::min(backoff * 2, kBackoffMax);
    if (container.stop_requested()) {
      SetState(container, ContainerState::kExited);  // Stopped during the back-off.
      break;
    }
    if (container.process->running()) continue;
    ++container.restarts;
    StartProcess(container);
  }
  FL_ASSERT(container.supervisor == generation);
  container.supervised = false;
}

sim::Awaitable<void> Runtime::ProbeHealth(Container& container, std::uint32_t incarnation) {
  const HealthCheck check = *container.spec.healthcheck;  // A later `up` may replace it.
  if (check.start_period > sim::Duration::zero()) co_await sim::SleepFor(check.start_period);
  int failures = 0;
  constexpr int kMaxProbes = 10'000'000;
  for (int probe = 0; probe < kMaxProbes; ++probe) {
    FL_ASSERT(container.process->incarnation() == incarnation);
    ContainerContext context(*this, container);
    const bool healthy = co_await check.probe(context);
    if (!simulation_.scheduler().IsLive(simulation_.CurrentOwner())) co_return;  // Crashed.
    failures = healthy ? 0 : failures + 1;
    Health next = container.health;
    if (healthy) next = Health::kHealthy;
    if (failures >= check.retries) next = Health::kUnhealthy;
    if (next != container.health) {
      container.health = next;
      simulation_.Emit("container.health",
                       {{"service", container.spec.name}, {"health", HealthName(next)}});
      container.changed.Set();
      container.changed.Reset();
    }
    co_await sim::SleepFor(check.interval);
  }
}

sim::Awaitable<void> Runtime::StopGracefully(Container& container) {
  // The intent comes first: a container between restarts must not start again.
  if (!container.removed()) container.Want(Intent::kStop);
  container.stop_signal.Set();
  if (!container.process->running()) co_return;
  simulation_.Emit("container.stop", {{"service", container.spec.name}});
  const sim::Result<sim::ExitStatus> exited =
      co_await sim::WithTimeout(container.process->WaitForExit(), container.spec.stop_grace_period);
  if (!exited.ok() && container.process->running()) container.process->Kill();
}

void Runtime::Kill(const std::string& service) {
  Container& container = At(service);
  if (container.process->running()) container.process->Kill();
}

void Runtime::RepairDisks() {
  for (auto* volumes : {&named_volumes_, &host_directories_}) {
    for (auto& [name, volume] : *volumes) {
      if (volume->Repair()) simulation_.Emit("volume.repair", {{"volume", name}});
    }
  }
}

void Runtime::PowerOff(const std::string& service) {
  Container& container = At(service);
  container.up_at_power_off =
      container.process->running() || container.state == ContainerState::kRestarting;
  container.powered_off = true;  // Until PowerOn, nothing starts it (StartProcess).
  // The intent too, so the supervisor takes the exit for a stop, not a crash.
  if (!container.removed()) container.Want(Intent::kStop);
  if (container.process->running()) container.process->Kill();
  FL_ASSERT(!container.process->running());
  simulation_.Emit("container.power", {{"service", service}, {"on", false}});
}

void Runtime::PowerOn(const std::string& service) {
  Container& container = At(service);
  simulation_.Emit("container.power", {{"service", service}, {"on", true}});
  FL_ASSERT_MSG(container.powered_off, "power on for {}, which has power", service);
  container.powered_off = false;
  // The machine boots: docker starts what was up and whose policy says so.
  if (container.removed() || container.process->running() || !container.up_at_power_off) return;
  if (container.spec.restart == RestartPolicy::kNo) return;
  StartProcess(container);
}

void Runtime::Stop(const std::string& service) {
  Container& container = At(service);
  SpawnOperation("stop " + service, [this, &container] { return StopGracefully(container); });
}

void Runtime::Restart(const std::string& service) {
  Container& container = At(service);
  SpawnOperation("restart " + service, [this, &container]() -> sim::Awaitable<void> {
    co_await StopGracefully(container);
    if (!container.removed() && !container.process->running()) StartProcess(container);
  });
}

sim::Status Runtime::SetImageVersion(const std::string& service, const std::string& version) {
  Container& container = At(service);
  if (!images_.contains({container.spec.image, version})) {
    return sim::Status::InvalidArgument(
        fmt::format("no image {}:{}", container.spec.image, version));
  }
  container.spec.version = version;
  simulation_.Emit("container.image", {{"service", service}, {"version", version}});
  return sim::Status::Ok();
}

sim::Awaitable<int> Runtime::RunJob(const std::string& service) {
  Container& container = At(service);
  FL_ASSERT_MSG(!container.process->running(), "service {} is already running", service);
  StartProcess(container);
  container.run_once = true;
  const sim::ExitStatus exit = co_await container.process->WaitForExit();
  co_return exit.code;
}

void Runtime::Down(bool remove_volumes) {
  // A down takes a turn: an up asked while it runs waits for it, and it
  // waits for an up asked before it that still waits for an earlier down.
  const std::uint64_t turn = TakeTurn();
  SpawnOperation("down", [this, remove_volumes, turn]() -> sim::Awaitable<void> {
    co_await WaitForTurn(turn);
    co_await DownAll(remove_volumes);
    EndTurn(turn);
  });
}

sim::Awaitable<void> Runtime::DownAll(bool remove_volumes) {
  // Mark everything first, in one step: while one container takes its grace
  // period, no other may be started again by its restart policy or by hand.
  std::vector<Container*> doomed;
  for (auto& [name, container] : containers_) {
    if (container->removed()) continue;
    container->Want(Intent::kRemove);
    doomed.push_back(container.get());
  }
  for (Container* container : doomed) co_await StopGracefully(*container);
  for (Container* container : doomed) {
    FL_ASSERT(!container->process->running());
    Unmount(*container);
    if (container->state != ContainerState::kExited) SetState(*container, ContainerState::kExited);
    simulation_.Emit("container.remove", {{"service", container->spec.name}});
  }
  if (remove_volumes) {
    for (auto& [name, volume] : named_volumes_) {
      simulation_.Emit("volume.remove", {{"volume", name}});
      retired_volumes_.push_back(std::move(volume));
    }
    named_volumes_.clear();
  }
}

void Runtime::CleanHostDirectories() {
  for (auto& [path, volume] : host_directories_) {
    volume->Wipe();
    simulation_.Emit("volume.wipe", {{"volume", path}});
  }
}

}  // namespace faultline::fakes
