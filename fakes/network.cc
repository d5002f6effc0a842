#include "fakes/network.h"

#include <fmt/format.h>

namespace faultline::fakes {

std::string FormatEndpoint(const Endpoint& endpoint) {
  return fmt::format("{}:{}", endpoint.host, endpoint.port);
}

// The caller's side of one call: the result, once known, and where the
// caller waits for it.
struct Network::PendingCall {
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

void Network::Listen(sim::Process& process, std::uint16_t port, RequestHandler handler) {
  FL_ASSERT_MSG(process.running(), "process {} is not running", process.name());
  const Endpoint endpoint{process.name(), port};
  FL_ASSERT_MSG(FindLiveListener(endpoint) == nullptr, "{} is already served",
                FormatEndpoint(endpoint));
  listeners_.insert_or_assign(endpoint,
                              Listener{process.id(), process.incarnation(), std::move(handler)});
}

const Network::Listener* Network::FindLiveListener(const Endpoint& endpoint) {
  auto it = listeners_.find(endpoint);
  if (it == listeners_.end()) return nullptr;
  const sim::Process& process = simulation_.process(it->second.process);
  if (!process.running() || process.incarnation() != it->second.incarnation) return nullptr;
  return &it->second;
}

std::string Network::CallerHost() {
  return simulation_.process(simulation_.CurrentOwner().process).name();
}

void Network::Trace(std::string_view event, std::uint64_t id, const std::string& from,
                    const std::string& to, std::string_view what) {
  simulation_.Emit(event, {{"id", id}, {"from", from}, {"to", to}, {"what", what}});
}

void Network::TraceDrop(std::uint64_t id, const std::string& from, const std::string& to,
                        std::string_view what, std::string_view reason) {
  simulation_.Emit("net.drop",
                   {{"id", id}, {"from", from}, {"to", to}, {"what", what}, {"reason", reason}});
}

// Sends at once (in the caller's job, where the caller's host is known) and
// returns the coroutine that waits for the response.
sim::Awaitable<sim::Result<Response>> Network::Call(Endpoint to, Request request,
                                                    sim::Duration timeout) {
  auto call = std::make_shared<PendingCall>();
  const std::string from = CallerHost();
  const std::string what = request.method + " " + request.path;
  const std::string to_host = to.host;
  Transmit(from, to_host, what,
           [this, from, to = std::move(to), request = std::move(request), call] {
             OnRequestArrival(from, to, request, call);
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
  scheduler.Discard(timer);
  co_return std::move(*call->result);
}

void Network::OnRequestArrival(const std::string& from, const Endpoint& to, const Request& request,
                               const std::shared_ptr<PendingCall>& call) {
  const Listener* listener = FindLiveListener(to);
  if (listener == nullptr) {
    ++counters_.refused;
    simulation_.Emit("net.refused", {{"from", from}, {"to", FormatEndpoint(to)}});
    Reply(to.host, from, call,
          sim::Status::Unavailable(fmt::format("connection refused by {}", FormatEndpoint(to))));
    return;
  }
  // Served by a task of the listening process, so a crash of the server
  // abandons the request, as it would a real connection.
  sim::Process& server = simulation_.process(listener->process);
  server.Spawn("serve",
               [this, handler = listener->handler, request, from, host = to.host,
                call]() -> sim::Awaitable<void> {
                 Response response = co_await handler(request);
                 Reply(host, from, call, std::move(response));
               });
}

void Network::Reply(const std::string& from, const std::string& to,
                    const std::shared_ptr<PendingCall>& call, sim::Result<Response> result) {
  const std::string what = result.ok() ? fmt::format("response {}", result->status) : "RST";
  Transmit(from, to, what, [this, call, result = std::move(result)] {
    if (call->result) return;  // A duplicate, or the caller timed out already.
    call->result = result;
    simulation_.scheduler().Wake(call->waiter);
  });
}

sim::TimePoint Network::ArrivalTime(const std::string& from, const std::string& to) {
  sim::Duration latency = options_.latency_base;
  if (options_.latency_extra_mean > sim::Duration::zero()) {
    latency += random_.Exponential(options_.latency_extra_mean);
  }
  sim::TimePoint arrival = simulation_.scheduler().TimeAfter(latency);
  if (auto clog = clogged_until_.find({from, to}); clog != clogged_until_.end()) {
    arrival = std::max(arrival, clog->second);
  }
  return arrival;
}

void Network::Transmit(const std::string& from, const std::string& to, std::string_view what,
                       std::function<void()> on_arrival) {
  const std::uint64_t id = ++counters_.sent;  // Message ids count from 1.
  if (options_.trace_messages) Trace("net.send", id, from, to, what);
  if (IsBlocked(from, to)) {
    ++counters_.partitioned;
    TraceDrop(id, from, to, what, "partition");
    return;
  }
  if (options_.loss_probability > 0 && random_.Bernoulli(options_.loss_probability)) {
    ++counters_.lost;
    TraceDrop(id, from, to, what, "loss");
    return;
  }
  int copies = 1;
  if (options_.duplicate_probability > 0 && random_.Bernoulli(options_.duplicate_probability)) {
    ++counters_.duplicated;
    copies = 2;
  }
  FL_ASSERT_MSG(simulation_.scheduler().held_count() < kMaxInFlight,
                "more than {} messages in flight", kMaxInFlight);
  for (int copy = 0; copy < copies; ++copy) {
    simulation_.scheduler().ScheduleAt(
        ArrivalTime(from, to), network_owner_,
        [this, id, from, to, what = std::string(what), on_arrival](sim::Wake) {
          // A link blocked while the message was in flight drops it too.
          if (IsBlocked(from, to)) {
            ++counters_.partitioned;
            TraceDrop(id, from, to, what, "partition");
            return;
          }
          ++counters_.delivered;
          if (options_.trace_messages) Trace("net.deliver", id, from, to, what);
          on_arrival();
        });
  }
}

void Network::BlockLink(const std::string& from, const std::string& to) {
  blocked_.insert({from, to});
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

void Network::Heal() {
  blocked_.clear();
  clogged_until_.clear();
  simulation_.Emit("net.heal", {});
}

void Network::Clog(const std::string& from, const std::string& to, sim::TimePoint until) {
  clogged_until_[{from, to}] = until;
  simulation_.Emit("net.clog",
                   {{"from", from}, {"to", to}, {"until_ns", sim::ToNanoseconds(until)}});
}

}  // namespace faultline::fakes
