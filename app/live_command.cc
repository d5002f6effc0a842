// `faultline live [NAME|FILE]`: the simulated cluster served to real
// clients on loopback (S3 over HTTP on the proxy, the CQL native protocol on
// the store), with a prompt for steps, until `exit`, Ctrl-C or SIGTERM;
// --record writes the session as a scenario file that replays without them.
#include <fmt/format.h>

#include <bit>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "app/command_util.h"
#include "app/commands.h"
#include "live/server.h"
#include "live/session.h"

namespace faultline::app {
namespace {

struct LiveFlags {
  std::string scenario;
  std::optional<std::uint64_t> seed;
  std::uint16_t s3_port = 8078;
  std::uint16_t cql_port = 9042;
  std::string listen = "127.0.0.1";
  std::string record;
  std::string control;
  bool fast = false;
  bool no_prompt = false;
  scenarios::InputLimits limits;
};

void Say(const std::string& line) { std::cerr << line << '\n'; }

int WriteRecording(const live::Session& session, const std::string& path) {
  sim::Result<std::string> text = session.Recording();
  if (!text.ok()) {
    Say("faultline: live: --record: the session cannot be written: " + text.status().message());
    return kExitBadInput;
  }
  // Written beside and renamed into place: a second Ctrl-C while it is
  // written leaves the old file or the whole new one, never half of one.
  const std::string partial = path + ".partial";
  std::ofstream out(partial, std::ios::binary | std::ios::trunc);
  out << *text;
  out.close();
  std::error_code renamed;
  if (out) std::filesystem::rename(partial, path, renamed);
  if (!out || renamed) return CannotWrite("live", "--record", path);
  // A session with large bodies is over a story's usual size: say how to replay it.
  const scenarios::InputLimits defaults;
  const std::string limit =
      text->size() <= defaults.scenario_file_bytes
          ? std::string()
          : fmt::format(" --limit scenario-file-bytes={}", std::bit_ceil(text->size()));
  Say(fmt::format("live: wrote the session ({} steps) to {}; replay it with `faultline run {}{}`",
                  session.steps_played(), path, path, limit));
  return kExitOk;
}

int RunLiveCommand(const LiveFlags& flags) {
  std::optional<scenarios::Scenario> from_file;
  scenarios::Scenario topology = live::SeedClusterTopology();
  if (!flags.scenario.empty()) {
    const scenarios::Scenario* named = NamedOrFile(flags.scenario, from_file, flags.limits);
    if (named == nullptr) return kExitBadInput;
    topology = *named;
    topology.steps.clear();
  }
  if (!flags.record.empty()) {
    // Found out now, not when the session ends and its steps would be lost.
    std::ofstream probe(flags.record, std::ios::app);
    if (!probe) return CannotWrite("live", "--record", flags.record);
  }
  const auto began = std::chrono::steady_clock::now();
  live::SessionOptions options{
      .seed = flags.seed,
      .fast = flags.fast,
      .elapsed = [began] { return std::chrono::steady_clock::now() - began; },
      .say = Say};
  live::Session session(topology, options);
  live::ServeOptions serve{.listen = flags.listen,
                           .s3_port = flags.s3_port,
                           .cql_port = flags.cql_port,
                           .control = flags.control,
                           .prompt = !flags.no_prompt};
  live::Server server(session, serve, Say);
  if (sim::Status listening = server.Listen(); !listening.ok()) {
    return BadInput(listening.message(), "live");
  }
  session.Start();
  Say(fmt::format("live: serving {}'s cluster (seed {}): S3 on http://{}:{}, CQL on {}:{}",
                  topology.name, session.cluster().seed(), flags.listen, server.s3_port(),
                  flags.listen, server.cql_port()));
  Say("live: type steps (`help` lists them); `exit` or Ctrl-C stops");
  server.Run();
  if (flags.record.empty()) return kExitOk;
  return WriteRecording(session, flags.record);
}

}  // namespace

CommandRun DefineLive(CLI::App& command) {
  auto flags = std::make_shared<LiveFlags>();
  command
      .add_option("scenario", flags->scenario,
                  "whose topology to serve: a catalogue name or a scenario file (default: the "
                  "seed cluster)")
      ->type_name(kScenarioValue);
  AddSeed(command, flags->seed, "the seed (default: the scenario's, else 1)");
  command.add_option("--s3-port", flags->s3_port, "the S3 front's port (0: any free one)")
      ->capture_default_str()
      ->type_name("PORT");
  command.add_option("--cql-port", flags->cql_port, "the CQL front's port (0: any free one)")
      ->capture_default_str()
      ->type_name("PORT");
  command.add_option("--listen", flags->listen, "the address to listen on (loopback unless said)")
      ->capture_default_str()
      ->type_name("ADDR");
  command
      .add_option("--record", flags->record, "on exit, write the session here as a scenario file")
      ->type_name("FILE");
  command
      .add_option("--control", flags->control,
                  "also take prompt lines on this Unix socket (for scripts)")
      ->type_name("PATH");
  command.add_flag("--fast", flags->fast,
                   "virtual time moves only as steps need it, not with the wall clock");
  command.add_flag("--no-prompt", flags->no_prompt, "do not read prompt lines from stdin");
  AddLimits(command, flags->limits);
  return [flags] { return RunLiveCommand(*flags); };
}

}  // namespace faultline::app
