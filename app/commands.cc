// The table of faultline's commands: one entry each, in the order `faultline
// help` lists them. A command's flags are declared by its Define function,
// next to the code that runs it; this table holds what is said about it.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/cli.h"
#include "app/command_util.h"
#include "app/commands.h"

namespace faultline::app {
namespace {

constexpr std::string_view kDemoDetails =
    R"(Runs every scenario of the catalogue (the seed stories and their fixes) and
the kernel's demos, and prints a table: scenario, verdict, virtual time
covered, wall time, what happened. Exit 0 when all pass, 1 when one fails.)";

constexpr std::string_view kCqlDetails =
    R"(A shell on faultline's CQL metadata store, answering as ycqlsh does.
Without -e or -f, statements are read from standard input (with a prompt on
a terminal). The first failing statement stops the run: its error is printed
as SOURCE:LINE: and the exit status is 2. Statements before it stay applied.)";

constexpr std::string_view kExplainDetails =
    R"(A scenario's story, its steps and its lesson: a catalogue name, or a
scenario file, read and checked as `run` reads it. With --toml, the scenario
as a file (docs/scenario-format.md) to copy and change.)";

constexpr std::string_view kRunDetails =
    R"(Plays a catalogue scenario, or a scenario file (docs/scenario-format.md),
and prints each step, its outcome and each expectation's verdict, then the
whole-run checkers. When --trace or --perfetto is - (standard output), the
report goes to standard error. Exit 0 when every expectation held, 1 when
one did not, 2 for bad input (a broken file says file:line:col).)";

constexpr std::string_view kExploreDetails =
    R"(Takes a scenario's steps as the workload; each run draws a fault schedule
from its seed (crashes, errors and delays at fault sites; kills, restarts,
partitions, latency and loss, power losses, full and failing disks,
upgrades and rollbacks, down/up and clean between or during the steps; each
fault kind switched on or off for the whole run, among those --faults or
--no-faults leave; at most 3 events, 3 crashes and 1 power loss), plays it,
and asks the whole-run checkers. The
runs of a batch (--batch) play on one world seed, so they play alike up to
their first drawn event: the workload is played once per batch and each run
is forked from it there, and plays as it would have from scratch (a group's
repro.toml holds the world seed it replays on); where a fork costs more on
this machine than the past it saves, each run is played from empty on its
batch's seed instead, with the same results. Failures are grouped by the
failing checker, the kind of its first violation and the fault events drawn
(the workload's own steps and faults are not counted as faults);
each group's first failure is shrunk to a scenario file that `faultline
run` replays, and shrunk groups that fail alike from the same kinds of
fault (a crash, whatever its site) are one. The results directory holds summary.json, groups.tsv and, per
group, repro.toml, shrink.log, trace.jsonl, perfetto.json and timeline.txt.
The results are written in DIR.partial and renamed to DIR once complete.
Ctrl-C (or SIGTERM) stops it between batches and writes what was found,
marked interrupted, the groups not yet shrunk left unshrunk; a second Ctrl-C
ends it at once, its results directory incomplete (no summary.json).
`explore --resume DIR` continues an interrupted or killed exploration (from
the journal of the batches it played) to the result of one that never
stopped.
Exit 0 when nothing failed, 1 when a group was found, 2 for bad input, 130
(143 for SIGTERM) when stopped with nothing found.)";

constexpr std::string_view kMergeDetails =
    R"(Folds the results directories of one exploration's shards (explore --shard
I/N) into one, as if it had run unsharded: the same groups and repros.
Shards of another exploration, of another build of faultline or of another
version of the scenario are refused.)";

constexpr std::string_view kReportDetails =
    R"(Plays a scenario (a catalogue name, or a scenario file: a story of your own,
an explore repro.toml, a check-migrations repro) and writes one HTML page of
the run that opens in any browser, offline: the story, the steps with their
narration, outcomes and verdicts, the store's schema and rows after any step
(a scrubber), a message sequence diagram (a column per service and
incarnation, an arrow per message, crashes, restarts and faults marked), the
whole-run checkers and every service's log. Nothing is fetched: no network,
no external script or font. Exit status 0 when the run passed, 1 when it did
not (the page says why), 2 for bad input, or a run its budget stopped (the
page shows what ran).)";

constexpr std::string_view kShellDetails =
    R"(Plays a scenario (a catalogue name or a scenario file) up to and including
step STEP, numbered as `faultline run` prints them (0: before the first),
and opens a ycqlsh-like prompt on the metadata store as it was then: its
schema and its rows, read from the store's volume. What you change there
stays in the shell; the run is not touched. At the prompt: any CQL
statement ending in ';', DESCRIBE ..., HELP, EXIT or QUIT. Exit status 0, or
2 for bad input (a flag, a file, a CQL error).)";

constexpr std::string_view kCheckMigrationsDetails =
    R"(Is this migration folder (golang-migrate's layout: {version}_{title}.up.cql
and .down.cql) safe to ship? First the static rules (each with an id, see
docs/check-migrations.md), then the folder runs in the simulated cluster as
a node image of its own, with each runner asked for: a crash at every fault
site it passes (every statement, every step of SetVersion) and a restart;
an upgrade from each older version on a kept volume; a rollback to the image
before the newest file; replicas starting together (on YCQL and on the
Cassandra store), in drawn schedules and with one paused at each of its
statement and version-write boundaries in turn (up to 48 a store); and up,
down -all, up when every file has a down. Each
outcome is safe, recovers, needs-force, needs-repair, silent-drift or
lost-version; each unsafe one comes with a scenario file that
`faultline run` replays. Exit 0 when nothing unsafe was found (warnings and
notes do not count), 1 when something was, 2 for bad input.)";

constexpr std::string_view kLiveDetails =
    R"(Builds the cluster of a scenario's topology (default: the seed cluster),
brings it up, and serves it on loopback until `exit`, Ctrl-C or SIGTERM:
S3 over HTTP/1.1 on the proxy (path-style; aws, boto3, s3cmd, curl) and the
CQL native protocol v4 on the store (the Python driver, gocql). Each
request is a step played in the simulation, so a fault reaches it: type
steps at the prompt in the scenario format's words (`kill kuri-1`,
`partition yugabyte`, `wait 30s`, `status`, `logs kuri-1`, `help`).
Virtual time follows the wall clock (--fast: only as steps need it).
--record FILE writes the session as a scenario file, each request's answer
its expectation, that `faultline run` replays without any client.
docs/live.md has the commands for each client.)";

constexpr Command kCommands[] = {
    {"demo", "run the scenario catalogue and print a table; exit 0 when all pass", kDemoDetails,
     DefineDemo},
    {"cql", "a ycqlsh-like shell on the metadata store", kCqlDetails, DefineCql},
    {"list", "the scenario catalogue by failure class, one line each",
     "The scenario catalogue, grouped by failure class: each story's name, then\nwhat it "
     "shows.",
     DefineList},
    {"explain", "a scenario's story, steps and lesson (--toml: as a scenario file)",
     kExplainDetails, DefineExplain},
    {"run", "play a catalogue scenario or a scenario file: each step, its outcome, its verdicts",
     kRunDetails, DefineRun},
    {"explore", "draw fault schedules around a scenario, group the failures, shrink each",
     kExploreDetails, DefineExplore},
    {"merge", "fold the results of explore's shards into one", kMergeDetails, DefineMerge},
    {"report", "one self-contained HTML page of a run: steps, store, messages, logs",
     kReportDetails, DefineReport},
    {"shell", "a ycqlsh-like prompt on the store as it was after a step of a run", kShellDetails,
     DefineShell},
    {"check-migrations", "is this migration folder safe to ship? rules, then simulated faults",
     kCheckMigrationsDetails, DefineCheckMigrations},
    {"live", "serve the simulated cluster to real clients (S3, CQL), with a prompt for faults",
     kLiveDetails, DefineLive},
    {"help", "this help, or a command's: faultline help COMMAND",
     "The tool's help, or COMMAND's: its flags and what it does.", DefineHelp},
    {"version", "print the version", "Prints faultline's version.", DefineVersion},
    {"completion", "print a bash completion script: source <(faultline completion bash)",
     "Prints a bash completion script for faultline: commands, flags, flag values\n"
     "and the catalogue's scenario names. Load it with\n"
     "source <(faultline completion bash), or save it as\n/etc/bash_completion.d/faultline.",
     DefineCompletion},
};

}  // namespace

std::span<const Command> Commands() { return kCommands; }

int ShowHelp(const CLI::App& app, const std::vector<std::string>& words) {
  if (words.empty() || words.front() == "--help" || words.front() == "-h") {
    // The tool's own help (app.help() would be the chosen command's).
    std::cout << app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
    return kExitOk;
  }
  if (words.size() > 1) return BadInput("help: it takes one command, got '" + words[1] + "' too");
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (command->get_name() == words.front()) {
      std::cout << command->help(app.get_name());
      return kExitOk;
    }
  }
  return BadInput("help: no command '" + words.front() + "'");
}

}  // namespace faultline::app
