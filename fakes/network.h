// The simulated network: services reach each other by name and port with
// request/response messages, HTTP-like (method, path, query, headers, body
// -> status, headers, body); the metadata store's client protocol rides on
// the same shape.
//
// Fault model (each message, each direction, decided from the seed):
// - Latency: a base plus an exponentially distributed extra, so messages can
//   arrive in another order than they were sent (reordering).
// - Loss: a message is dropped with a probability; the trace records it.
// - Duplication: a message is delivered twice with a probability (a request
//   is then served twice; the caller keeps the first response).
// - Clogging: a clogged link holds messages until it unclogs.
// - Partitions: a blocked link (one way or both) drops what crosses it, so a
//   call across a partition times out. Partial partitions are sets of
//   blocked links; Heal() unblocks all.
// - Connection refused: a request to an endpoint nobody listens on (the
//   process is down, or not serving yet) fails fast with Unavailable, when
//   the refusal can travel back.
// A listener belongs to one process incarnation: a crash ends it, and the
// requests it was serving get no response (their callers time out).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/names.h"
#include "sim/sim.h"

namespace faultline::fakes {

// Endpoint, Request and Response have constructors, so they are not
// aggregates: GCC 12 miscompiles an aggregate temporary with string members
// built inside a co_await expression, and `co_await Call({"kuri-1", 7001},
// Request("GET", "/"), ...)` is exactly how these are written.
struct Endpoint {
  Endpoint() = default;
  Endpoint(std::string host_name, std::uint16_t port_number)
      : host(std::move(host_name)), port(port_number) {}

  std::string host;  // A service name: "kuri-1", "yugabyte".
  std::uint16_t port = 0;
  friend auto operator<=>(const Endpoint&, const Endpoint&) = default;
};

std::string FormatEndpoint(const Endpoint& endpoint);

using Headers = std::map<std::string, std::string>;

struct Request {
  Request() = default;
  Request(std::string method_name, std::string request_path, std::string request_body = {},
          Headers request_headers = {}, std::string query_string = {})
      : method(std::move(method_name)),
        path(std::move(request_path)),
        query(std::move(query_string)),
        headers(std::move(request_headers)),
        body(std::move(request_body)) {}

  std::string method;  // "GET", "PUT", ..., or a protocol's own verb.
  std::string path;
  std::string query;
  Headers headers;
  std::string body;
  // The calling host, set by the network on arrival: what a real server
  // reads as the peer address of the connection.
  std::string peer;
};

struct Response {
  Response() = default;
  explicit Response(int status_code, std::string response_body = {}, Headers response_headers = {})
      : status(status_code), headers(std::move(response_headers)), body(std::move(response_body)) {}

  int status = 200;
  Headers headers;
  std::string body;
};

// Serves one request; runs as a task of the listening process.
using RequestHandler = std::function<sim::Awaitable<Response>(Request)>;

struct NetworkOptions {
  // One-way latency: latency_base plus an extra drawn from the distribution,
  // with mean latency_extra_mean.
  enum class Latency : unsigned char {
    kFixed,        // No extra: every message takes latency_base.
    kUniform,      // Extra uniform in [0, 2 * mean].
    kExponential,  // Extra exponential: a long tail, the most reordering.
  };
  static constexpr sim::Named<Latency> kLatencies[] = {{Latency::kFixed, "fixed"},
                                                       {Latency::kUniform, "uniform"},
                                                       {Latency::kExponential, "exponential"}};
  Latency latency_distribution = Latency::kExponential;
  sim::Duration latency_base = std::chrono::microseconds(100);
  sim::Duration latency_extra_mean = std::chrono::microseconds(200);
  double loss_probability = 0.0;
  double duplicate_probability = 0.0;
  // Record every send and delivery in the trace (drops are always recorded).
  bool trace_messages = true;
};

class Network {
 public:
  static constexpr std::size_t kMaxInFlight = std::size_t{1} << 22;
  static constexpr std::size_t kMaxHosts = 100'000;

  Network(sim::Simulation& simulation, NetworkOptions options = {});
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // `process` serves `port` on the host named like the process, with
  // `handler`, until its incarnation ends. REQUIRES: process.running(), and
  // nobody else listens there.
  void Listen(sim::Process& process, std::uint16_t port, RequestHandler handler);

  // Sends `request` to `to` from the calling process's host at once, and
  // returns what waits at most `timeout` (from when it is awaited) for the
  // response: Unavailable when refused, TimedOut when nothing came back.
  sim::Awaitable<sim::Result<Response>> Call(Endpoint to, Request request, sim::Duration timeout);

  // Partitions. A blocked link drops every message from `from` to `to`.
  void BlockLink(const std::string& from, const std::string& to);
  // Blocks both directions between every host of `side_a` and of `side_b`.
  void Partition(const std::vector<std::string>& side_a, const std::vector<std::string>& side_b);
  // Unblocks every link and clears every clog.
  void Heal();
  bool IsBlocked(const std::string& from, const std::string& to) const;
  // Whether a live process listens at `endpoint` now: what a connection
  // attempt would find, asked without sending anything (for observers).
  bool IsListening(const Endpoint& endpoint) const;
  // Holds messages from `from` to `to` until virtual time `until`.
  void Clog(const std::string& from, const std::string& to, sim::TimePoint until);
  // Latency and loss from now on (messages in flight keep their arrival).
  // REQUIRES: durations >= 0, 0 <= probability <= 1.
  void SetLatency(NetworkOptions::Latency distribution, sim::Duration base,
                  sim::Duration extra_mean);
  void SetLoss(double probability);
  // The same for the messages from `from` to `to` only, in place of the
  // network's own.
  void SetLinkLatency(const std::string& from, const std::string& to,
                      NetworkOptions::Latency distribution, sim::Duration base,
                      sim::Duration extra_mean);
  void SetLinkLoss(const std::string& from, const std::string& to, double probability);
  // Drops every link's own latency and loss (the network's stay), traced.
  void ClearLinkModels();
  bool HasLinkModels() const { return !link_models_.empty(); }
  const NetworkOptions& options() const { return options_; }

  // Whether any link is blocked or clogged (what Heal() would clear).
  bool HasBlockedOrClogged() const { return !blocked_.empty() || !clogged_until_.empty(); }

  struct Counters {
    std::uint64_t sent = 0;  // Also the id of the last message sent.
    std::uint64_t delivered = 0;
    std::uint64_t lost = 0;         // Dropped by the loss model.
    std::uint64_t partitioned = 0;  // Dropped on a blocked link.
    std::uint64_t duplicated = 0;
    std::uint64_t refused = 0;
  };
  const Counters& counters() const { return counters_; }
  sim::Simulation& simulation() { return simulation_; }

 private:
  struct Listener {
    sim::ProcessId process;
    std::uint32_t incarnation;
    RequestHandler handler;
  };
  struct PendingCall;
  // Hosts are interned: messages and links name them by index.
  using HostId = std::uint32_t;
  using Link = std::pair<HostId, HostId>;
  // A message on its way: one allocation holds its header and its payload
  // (the code to run at the destination), whatever the payload's size.
  struct InFlight {
    virtual ~InFlight() = default;
    // `last`: no copy of this message will arrive after this one, so the
    // payload may be consumed (moved from).
    virtual void Arrive(bool last) = 0;
    std::uint64_t id = 0;
    HostId from = 0;
    HostId to = 0;
    int copies_left = 1;  // 2 while a duplicate is on its way too.
    std::string what;     // Empty unless messages are traced.
  };
  template <typename OnArrival>
  struct InFlightOf final : InFlight {
    explicit InFlightOf(OnArrival arrival) : on_arrival(std::move(arrival)) {}
    void Arrive(bool last) override { on_arrival(last); }
    OnArrival on_arrival;
  };

  HostId Intern(const std::string& host);
  HostId CallerHost();
  // Carries a message from `from` to `to` under the fault model, then runs
  // `on_arrival` (as the network, in the root process) at each delivery.
  // `describe` names the message in the trace; called only when tracing.
  template <typename Describe, typename OnArrival>
  // Sends a message (`answers`: the id of the request it answers, 0 for a
  // request); returns its id.
  std::uint64_t Transmit(HostId from, HostId to, const Describe& describe, OnArrival on_arrival,
                         std::uint64_t answers = 0);
  void Deliver(InFlight& message);
  sim::Awaitable<sim::Result<Response>> AwaitResponse(std::shared_ptr<PendingCall> call,
                                                      sim::Duration timeout);
  sim::TimePoint ArrivalTime(HostId from, HostId to);
  bool Blocked(HostId from, HostId to) const {
    return !blocked_.empty() && blocked_.contains({from, to});
  }
  void OnRequestArrival(HostId from, HostId to_host, const Endpoint& to,
                        std::unique_ptr<Request> request, const std::shared_ptr<PendingCall>& call);
  void Reply(HostId from, HostId to, const std::shared_ptr<PendingCall>& call,
             sim::Result<Response> result);
  const Listener* FindLiveListener(HostId host, std::uint16_t port) const;
  // Events carry the message's id, so a send can be matched to its fate.
  void Trace(std::string_view event, std::uint64_t id, HostId from, HostId to,
             std::string_view what, std::uint64_t answers = 0);
  void TraceDrop(std::uint64_t id, HostId from, HostId to, std::string_view what,
                 std::string_view reason);

  sim::Simulation& simulation_;
  NetworkOptions options_;
  sim::Rng random_;
  sim::Owner network_owner_;  // Deliveries run as the root process.
  std::map<std::pair<HostId, std::uint16_t>, Listener> listeners_;
  std::vector<std::string> host_names_;
  std::map<std::string, HostId, std::less<>> host_ids_;
  std::vector<HostId> process_hosts_;  // By process id; kNoHost until known.
  std::set<Link> blocked_;
  std::map<Link, sim::TimePoint> clogged_until_;
  // Links with latency or loss of their own (NetworkOptions' fields).
  struct LinkModel {
    std::optional<NetworkOptions::Latency> distribution;  // Set with the latency.
    sim::Duration base{};
    sim::Duration extra_mean{};
    std::optional<double> loss_probability;
  };
  std::map<Link, LinkModel> link_models_;
  Counters counters_;
};

}  // namespace faultline::fakes
