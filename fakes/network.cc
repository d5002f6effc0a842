#include "fakes/network.h"

#include <fmt/format.h>

#include "sim/assert.h"

namespace faultline::fakes {
namespace {

constexpr std::uint32_t kNoHost = UINT32_MAX;

}  // namespace

std::string FormatEndpoint(const Endpoint& endpoint) {
  return fmt::format("{}:{}", endpoint.host, endpoint.port);
}

// The caller's side of one call: the result, once known, and where the
// caller waits for it.
struct Network::PendingCall {
  std::uint64_t request = 0;  // The request's message id, which its answer names.
  std::optional<sim::Result<Response>> result;
  sim::WaitHandle waiter;
};

Network::Network(sim::Simulation& simulation, NetworkOptions options)
    : simulation_(simulation),
      options_(options),
      random_(simulation.Random("network")),
      network_owner_{sim::Simulation::kRootProcess, simulation.root().incarnation(), 0} {
  FL_ASSERT(options_.latency_base >= sim::Duration::zero());
  FL_ASSERT(options_.latency_extra_mean >= sim::Duration::zero());
  FL_ASSERT(options_.loss_probability >= 0.0 && options_.loss_probability <= 1.0);
  FL_ASSERT(options_.duplicate_probability >= 0.0 && options_.duplicate_probability <= 1.0);
}

Network::HostId Network::Intern(const std::string& host) {
  if (auto it = host_ids_.find(host); it != host_ids_.end()) return it->second;
  FL_ASSERT_MSG(host_names_.size() < kMaxHosts, "more than {} hosts", kMaxHosts);
  const auto id = static_cast<HostId>(host_names_.size());
  host_names_.push_back(host);
  host_ids_.emplace(host, id);
  return id;
}

Network::HostId Network::CallerHost() {
  const sim::ProcessId process = simulation_.CurrentOwner().process;
  if (process >= process_hosts_.size()) process_hosts_.resize(process + 1, kNoHost);
  if (process_hosts_[process] == kNoHost) {
    process_hosts_[process] = Intern(simulation_.process(process).name());
  }
  return process_hosts_[process];
}

bool Network::IsBlocked(const std::string& from, const std::string& to) const {
  const auto a = host_ids_.find(from);
  const auto b = host_ids_.find(to);
  return a != host_ids_.end() && b != host_ids_.end() && Blocked(a->second, b->second);
}

void Network::Listen(sim::Process& process, std::uint16_t port, RequestHandler handler) {
  if (!simulation_.scheduler().IsLive(simulation_.CurrentOwner())) return;  // Dead code.
  FL_ASSERT_MSG(process.running(), "process {} is not running", process.name());
  const HostId host = Intern(process.name());
  FL_ASSERT_MSG(FindLiveListener(host, port) == nullptr, "{}:{} is already served", process.name(),
                port);
  listeners_.insert_or_assign({host, port},
                              Listener{process.id(), process.incarnation(), std::move(handler)});
}

bool Network::IsListening(const Endpoint& endpoint) const {
  const auto host = host_ids_.find(endpoint.host);
  return host != host_ids_.end() && FindLiveListener(host->second, endpoint.port) != nullptr;
}

const Network::Listener* Network::FindLiveListener(HostId host, std::uint16_t port) const {
  auto it = listeners_.find({host, port});
  if (it == listeners_.end()) return nullptr;
  const sim::Process& process = simulation_.process(it->second.process);
  if (!process.running() || process.incarnation() != it->second.incarnation) return nullptr;
  return &it->second;
}

void Network::Trace(std::string_view event, std::uint64_t id, HostId from, HostId to,
                    std::string_view what, std::uint64_t answers) {
  std::vector<sim::TraceField> fields = {
      {"id", id}, {"from", host_names_[from]}, {"to", host_names_[to]}, {"what", what}};
  // A response names the request it answers, so a reader of the trace
  // pairs them exactly, however they overlap.
  if (answers != 0) fields.push_back({"re", answers});
  simulation_.Emit(event, std::move(fields));
}

void Network::TraceDrop(std::uint64_t id, HostId from, HostId to, std::string_view what,
                        std::string_view reason) {
  simulation_.Emit("net.drop", {{"id", id},
                                {"from", host_names_[from]},
                                {"to", host_names_[to]},
                                {"what", what},
                                {"reason", reason}});
}

// Sends at once (in the caller's job, where the caller's host is known) and
// returns the coroutine that waits for the response.
sim::Awaitable<sim::Result<Response>> Network::Call(Endpoint to, Request request,
                                                    sim::Duration timeout) {
  auto call = std::make_shared<PendingCall>();
  // Code of a dead incarnation runs on only until its next suspension (after
  // a crash inside a synchronous call); it sends nothing.
  if (!simulation_.scheduler().IsLive(simulation_.CurrentOwner())) {
    return AwaitResponse(std::move(call), timeout);
  }
  const HostId from = CallerHost();
  const HostId to_host = Intern(to.host);
  // Carried by pointer: a request moves several times on its way.
  auto payload = std::make_unique<Request>(std::move(request));
  // The closure below takes the pointer; the request itself stays put.
  const Request& sent = *payload;
  const auto describe = [&sent] { return sent.method + " " + sent.path; };
  // Arrivals come later, from the scheduler: the id is set before any reply.
  call->request = Transmit(
      from, to_host, describe,
      [this, from, to_host, to = std::move(to), payload = std::move(payload),
       call](bool last) mutable {
        OnRequestArrival(from, to_host, to,
                         last ? std::move(payload) : std::make_unique<Request>(*payload), call);
      });
  return AwaitResponse(std::move(call), timeout);
}

sim::Awaitable<sim::Result<Response>> Network::AwaitResponse(std::shared_ptr<PendingCall> call,
                                                             sim::Duration timeout) {
  const sim::Executor self = co_await sim::asio::this_coro::executor;
  sim::Scheduler& scheduler = simulation_.scheduler();
  const sim::WaitHandle timer = scheduler.ScheduleAt(
      scheduler.TimeAfter(timeout), self.owner(), [call, &scheduler, timeout](sim::Wake) {
        if (call->result) return;
        call->result = sim::Status::TimedOut(
            fmt::format("no response within {}", sim::FormatDuration(timeout)));
        scheduler.Wake(call->waiter);
      });
  if (!call->result) co_await sim::detail::ParkInto(&call->waiter);
  FL_ASSERT(call->result.has_value());  // Woken only once answered, or timed out.
  scheduler.Discard(timer);
  co_return std::move(*call->result);
}

void Network::OnRequestArrival(HostId from, HostId to_host, const Endpoint& to,
                               std::unique_ptr<Request> request,
                               const std::shared_ptr<PendingCall>& call) {
  FL_ASSERT(request != nullptr);  // Each arrival has its own copy; the last, the original.
  const Listener* listener = FindLiveListener(to_host, to.port);
  if (listener == nullptr) {
    ++counters_.refused;
    simulation_.Emit("net.refused", {{"from", host_names_[from]}, {"to", FormatEndpoint(to)}});
    Reply(to_host, from, call,
          sim::Status::Unavailable(fmt::format("connection refused by {}", FormatEndpoint(to))));
    return;
  }
  request->peer = host_names_[from];
  // Served by a task of the listening process, so a crash of the server
  // abandons the request, as it would a real connection.
  sim::Process& server = simulation_.process(listener->process);
  server.Spawn("serve",
               [this, handler = listener->handler, request = std::move(request), from, to_host,
                call]() mutable -> sim::Awaitable<void> {
                 Response response = co_await handler(std::move(*request));
                 Reply(to_host, from, call, std::move(response));
               });
}

void Network::Reply(HostId from, HostId to, const std::shared_ptr<PendingCall>& call,
                    sim::Result<Response> result) {
  if (!simulation_.scheduler().IsLive(simulation_.CurrentOwner())) return;  // A dead server.
  const bool ok = result.ok();
  const int status = ok ? result->status : 0;
  const auto describe = [ok, status] {
    return ok ? fmt::format("response {}", status) : std::string("RST");
  };
  const std::uint64_t answers = call->request;
  FL_ASSERT(answers != 0);  // Only a request sent answers.
  Transmit(
      from, to, describe,
      [this, call, result = std::move(result)](bool last) mutable {
        if (call->result) return;  // A duplicate, or the caller timed out already.
        call->result = last ? std::move(result) : result;
        simulation_.scheduler().Wake(call->waiter);
      },
      answers);
}

sim::TimePoint Network::ArrivalTime(HostId from, HostId to) {
  sim::Duration latency = options_.latency_base;
  sim::Duration mean = options_.latency_extra_mean;
  NetworkOptions::Latency distribution = options_.latency_distribution;
  if (!link_models_.empty()) {
    if (auto link = link_models_.find({from, to});
        link != link_models_.end() && link->second.distribution) {
      latency = link->second.base;
      mean = link->second.extra_mean;
      distribution = *link->second.distribution;
    }
  }
  if (mean > sim::Duration::zero()) {
    switch (distribution) {
      case NetworkOptions::Latency::kFixed:
        break;
      case NetworkOptions::Latency::kUniform:
        latency += sim::Duration(random_.UniformInt(0, 2 * mean.count()));
        break;
      case NetworkOptions::Latency::kExponential:
        latency += random_.Exponential(mean);
        break;
    }
  }
  sim::TimePoint arrival = simulation_.scheduler().TimeAfter(latency);
  if (!clogged_until_.empty()) {
    if (auto clog = clogged_until_.find({from, to}); clog != clogged_until_.end()) {
      arrival = std::max(arrival, clog->second);
    }
  }
  FL_ASSERT(arrival >= simulation_.Now());  // No message arrives before it is sent.
  return arrival;
}

template <typename Describe, typename OnArrival>
std::uint64_t Network::Transmit(HostId from, HostId to, const Describe& describe,
                                OnArrival on_arrival, std::uint64_t answers) {
  const std::uint64_t id = ++counters_.sent;  // Message ids count from 1.
  // The description costs a string: made only when the trace shows it.
  std::string what = options_.trace_messages ? describe() : std::string();
  if (options_.trace_messages) Trace("net.send", id, from, to, what, answers);
  if (Blocked(from, to)) {
    ++counters_.partitioned;
    TraceDrop(id, from, to, what, "partition");
    return id;
  }
  double loss = options_.loss_probability;
  if (!link_models_.empty()) {
    if (auto link = link_models_.find({from, to});
        link != link_models_.end() && link->second.loss_probability) {
      loss = *link->second.loss_probability;
    }
  }
  if (loss > 0 && random_.Bernoulli(loss)) {
    ++counters_.lost;
    TraceDrop(id, from, to, what, "loss");
    return id;
  }
  sim::Scheduler& scheduler = simulation_.scheduler();
  FL_ASSERT_MSG(scheduler.held_count() < kMaxInFlight, "more than {} messages in flight",
                kMaxInFlight);
  std::shared_ptr<InFlight> message =
      std::make_shared<InFlightOf<OnArrival>>(std::move(on_arrival));
  message->id = id;
  message->from = from;
  message->to = to;
  message->what = std::move(what);
  if (options_.duplicate_probability > 0 && random_.Bernoulli(options_.duplicate_probability)) {
    ++counters_.duplicated;
    message->copies_left = 2;
    // The copy shares the payload: each arrival runs it.
    scheduler.ScheduleAt(ArrivalTime(from, to), network_owner_,
                         [this, message](sim::Wake) { Deliver(*message); });
  }
  scheduler.ScheduleAt(ArrivalTime(from, to), network_owner_,
                       [this, message = std::move(message)](sim::Wake) { Deliver(*message); });
  return id;
}

void Network::Deliver(InFlight& message) {
  // A link blocked while the message was in flight drops it too.
  if (Blocked(message.from, message.to)) {
    ++counters_.partitioned;
    FL_ASSERT(message.copies_left > 0);
    --message.copies_left;
    TraceDrop(message.id, message.from, message.to, message.what, "partition");
    return;
  }
  ++counters_.delivered;
  FL_ASSERT(message.copies_left > 0);
  if (options_.trace_messages) {
    Trace("net.deliver", message.id, message.from, message.to, message.what);
  }
  message.Arrive(/*last=*/--message.copies_left == 0);
}

void Network::BlockLink(const std::string& from, const std::string& to) {
  blocked_.insert({Intern(from), Intern(to)});
  simulation_.Emit("net.block", {{"from", from}, {"to", to}});
}

void Network::Partition(const std::vector<std::string>& side_a,
                        const std::vector<std::string>& side_b) {
  for (const std::string& a : side_a) {
    for (const std::string& b : side_b) {
      BlockLink(a, b);
      BlockLink(b, a);
    }
  }
}

void Network::SetLatency(NetworkOptions::Latency distribution, sim::Duration base,
                         sim::Duration extra_mean) {
  FL_ASSERT(base >= sim::Duration::zero());
  FL_ASSERT(extra_mean >= sim::Duration::zero());
  options_.latency_distribution = distribution;
  options_.latency_base = base;
  options_.latency_extra_mean = extra_mean;
  simulation_.Emit("net.latency", {{"distribution", static_cast<int>(distribution)},
                                   {"base_ns", base.count()},
                                   {"extra_mean_ns", extra_mean.count()}});
}

void Network::SetLoss(double probability) {
  FL_ASSERT(probability >= 0.0);
  FL_ASSERT(probability <= 1.0);
  options_.loss_probability = probability;
  simulation_.Emit("net.loss", {{"permille", static_cast<std::int64_t>(probability * 1000)}});
}

void Network::SetLinkLatency(const std::string& from, const std::string& to,
                             NetworkOptions::Latency distribution, sim::Duration base,
                             sim::Duration extra_mean) {
  FL_ASSERT(base >= sim::Duration::zero());
  FL_ASSERT(extra_mean >= sim::Duration::zero());
  LinkModel& link = link_models_[{Intern(from), Intern(to)}];
  link.distribution = distribution;
  link.base = base;
  link.extra_mean = extra_mean;
  simulation_.Emit("net.latency", {{"from", from},
                                   {"to", to},
                                   {"distribution", static_cast<int>(distribution)},
                                   {"base_ns", base.count()},
                                   {"extra_mean_ns", extra_mean.count()}});
}

void Network::SetLinkLoss(const std::string& from, const std::string& to, double probability) {
  FL_ASSERT(probability >= 0.0);
  FL_ASSERT(probability <= 1.0);
  link_models_[{Intern(from), Intern(to)}].loss_probability = probability;
  simulation_.Emit(
      "net.loss",
      {{"from", from}, {"to", to}, {"permille", static_cast<std::int64_t>(probability * 1000)}});
}

void Network::ClearLinkModels() {
  simulation_.Emit("net.links", {{"cleared", static_cast<std::int64_t>(link_models_.size())}});
  link_models_.clear();
}

void Network::Heal() {
  blocked_.clear();
  clogged_until_.clear();
  simulation_.Emit("net.heal", {});
}

void Network::Clog(const std::string& from, const std::string& to, sim::TimePoint until) {
  clogged_until_[{Intern(from), Intern(to)}] = until;
  simulation_.Emit("net.clog",
                   {{"from", from}, {"to", to}, {"until_ns", sim::ToNanoseconds(until)}});
}

}  // namespace faultline::fakes
