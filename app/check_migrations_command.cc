// `faultline check-migrations DIR`: is this migration folder safe to ship?
// Reads the folder (and --from, --sum) as bad input first, then runs the
// static rules and the simulated checks (scenarios/check_migrations/check_migrations.h), and
// prints the report in the format asked; --out keeps every format and each
// unsafe finding's repro scenario.
#include <unistd.h>
#include <chrono>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "app/check_config.h"
#include "app/command_util.h"
#include "app/commands.h"
#include "app/git_files.h"
#include "app/interrupt.h"
#include "app/output_files.h"
#include "app/worker_processes.h"
#include "models/migrate/folder.h"
#include "models/migrate/lint.h"
#include "models/migrate/runner.h"
#include "scenarios/check_migrations/check_migrations.h"
#include "scenarios/check_migrations/report.h"
#include "scenarios/file/scenario_file.h"

namespace faultline::app {
namespace {

namespace fs = std::filesystem;

int Bad(const std::string& message) { return BadInput(message, "check-migrations"); }
using models::migrate::MigrationFile;

struct CheckFlags {
  std::string folder;
  std::string runner = "golang-migrate";
  std::string keyspace;
  int replicas = 2;
  std::string store;  // Empty: yugabyte, and the concurrent check on both.
  std::string from;
  std::string since;
  std::string config;  // --config; empty: the .faultline.toml found above the folder.
  std::string format = "text";
  std::string out;
  std::string sum;
  std::string write_sum;
  std::uint64_t seed = 1;
  int jobs = 1;
  bool static_only = false;
  bool from_empty = false;
  bool fail_on_runner_risks = false;
  bool verbose = false;
  std::vector<scenarios::Ignore> config_ignores;  // From the config file (ApplyConfig).
  scenarios::InputLimits limits;
};

// check-migrations' flags on `command`, into `flags`.
void DeclareCheckFlags(CLI::App& command, CheckFlags& flags) {
  command.add_option("folder", flags.folder, "the migration folder")
      ->required()
      ->type_name(kDirValue);
  std::vector<std::string> runners(std::begin(models::migrate::kRunnerNames),
                                   std::end(models::migrate::kRunnerNames));
  runners.push_back("all");
  AddChoice(command, "--runner", flags.runner, runners,
            "the runner that applies the folder (default golang-migrate)");
  command
      .add_option_function<std::string>(
          "--keyspace",
          [&flags](const std::string& value) {
            if (std::string problem = scenarios::KeyspaceProblem(value); !problem.empty()) {
              throw CLI::ValidationError("--keyspace: " + problem);
            }
            flags.keyspace = value;
          },
          "the keyspace it migrates (default: the one its statements name, else app)")
      ->type_name("KS");
  AddNumber(command, "--replicas", flags.replicas, 1, 16,
            "replicas that start together (default 2; 1: no race check)");
  AddChoice(command, "--store", flags.store, {"yugabyte", "cassandra"},
            "every check on that store only (default: yugabyte, and the race check on both)");
  command
      .add_option("--from", flags.from,
                  "the folder as the release before shipped it (the upgrade starts from it and "
                  "the rollback goes back to it), or the version of this folder a deployed "
                  "database is at; default: from each older version")
      ->type_name("DIR|V")
      ->check(Given());
  command
      .add_option("--since", flags.since,
                  "judge only what is new: the files up to version V, or present in the folder "
                  "at git revision REF (a branch, tag or commit: main, origin/main, v1.2), are "
                  "history, applied first and not judged; upgrades start from each of their "
                  "versions")
      ->type_name("V|REF")
      ->check(Given());
  command
      .add_option("--config", flags.config,
                  "the config file to read (default: .faultline.toml in the folder or a folder "
                  "above it, up to the repository's root; its [check-migrations] table gives "
                  "runner, keyspace, store, since, fail-on-runner-risks and ignores; flags win)")
      ->type_name(kFileValue)
      ->check(Given());
  command
      .add_option("--sum", flags.sum,
                  "the sum file written when the files shipped (--write-sum): edited, removed "
                  "and out-of-order files are errors")
      ->type_name(kFileValue)
      ->check(Given());
  command
      .add_option("--write-sum", flags.write_sum,
                  "write this folder's sum file (-: standard output, and the report to "
                  "standard error)")
      ->type_name(kFileValue)
      ->check(Given());
  std::vector<std::string> formats;
  std::string files;  // What --out writes, from the same table as --format.
  for (const scenarios::ReportFormat& format : scenarios::ReportFormats()) {
    formats.emplace_back(format.name);
    files += (files.empty() ? "" : ", ") + std::string(format.file_name);
  }
  AddChoice(command, "--format", flags.format, formats,
            "what standard output gets (default text; sarif is SARIF 2.1.0)");
  command
      .add_option("--out", flags.out,
                  fmt::format("a new folder for every format ({}) and each repro scenario", files))
      ->type_name(kDirValue)
      ->check(FolderToWrite());
  AddNumber(command, "--seed", flags.seed, 0, UINT64_MAX, "the simulations' seed (default 1)");
  AddNumber(command, "--jobs", flags.jobs, 1, 64,
            "play the cases in N worker processes (the report is the same)");
  command.add_flag("--fail-on-runner-risks,!--no-fail-on-runner-risks", flags.fail_on_runner_risks,
                   "the runner's own risks fail the check too (golang-migrate's: a crash "
                   "mid-file needs `migrate force`, its version write can be lost, a rollback "
                   "needs a force); by default they are said once, and only the folder's own "
                   "findings fail it");
  command.add_flag("--verbose", flags.verbose,
                   "the text report with every case of every finding, each log line whole and "
                   "what held (default: per file first, each log line once, at most 100 "
                   "columns)");
  command.add_flag("--static", flags.static_only, "the static rules only: nothing is simulated");
  command.add_flag("--replay-from-empty", flags.from_empty,
                   "play each crash case, and each try of its repro, from an empty world, not "
                   "forked from the run they share (the same report but for its run count, "
                   "slower: for comparing the two)");
  AddLimits(command, flags.limits);
}

// A sum file, at most limits.sum_file_bytes.
std::optional<std::string> ReadText(const std::string& path, const scenarios::InputLimits& limits,
                                    std::string& problem) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) {
    problem = fmt::format("{}: not a readable file", path);
    return std::nullopt;
  }
  if (fs::file_size(path, error) > limits.sum_file_bytes || error) {
    problem = fmt::format("{}: {}", path,
                          scenarios::OverLimit(limits, &scenarios::InputLimits::sum_file_bytes));
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    problem = fmt::format("{}: cannot read", path);
    return std::nullopt;
  }
  if (text.str().size() > limits.sum_file_bytes) {  // It grew since it was measured.
    problem = fmt::format("{}: {}", path,
                          scenarios::OverLimit(limits, &scenarios::InputLimits::sum_file_bytes));
    return std::nullopt;
  }
  return text.str();
}

// Writes every format and each repro into `dir` (its path as the repros
// name it), false at the first file that cannot be written.
bool WriteReportFiles(const fs::path& dir, const std::string& named,
                      const scenarios::MigrationCheckReport& report,
                      const scenarios::ReportContext& context) {
  for (const scenarios::ReportFormat& format : scenarios::ReportFormats()) {
    if (!WriteWhole(dir / format.file_name, format.write(report, context))) return false;
  }
  for (std::size_t i = 0; i < report.dynamic.size(); ++i) {
    if (!report.dynamic[i].repro) continue;
    const std::string header =
        fmt::format("# {}\n# Replay: faultline run {} --seed {}\n", report.dynamic[i].cases.front(),
                    (fs::path(named) / context.repro_files.at(i)).string(), report.dynamic[i].seed);
    if (!WriteWhole(dir / context.repro_files.at(i),
                    header + scenarios::ToToml(*report.dynamic[i].repro))) {
      return false;
    }
  }
  return true;
}

// Writes every format and each repro into `dir`, which must be new or
// empty: whole or not at all (built beside it, then renamed into place).
int WriteOut(const std::string& dir, const scenarios::MigrationCheckReport& report,
             const scenarios::ReportContext& context) {
  std::error_code error;
  if (fs::exists(dir, error) && !fs::is_empty(dir, error)) {
    return Bad(fmt::format("--out: {} exists and is not empty; name a new folder", dir));
  }
  fs::path target = fs::path(dir).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // cm/ is cm.
  const fs::path staging =
      target.string() + fmt::format(".partial-{}", static_cast<long>(getpid()));
  fs::remove_all(staging, error);
  fs::create_directories(staging / "repro", error);
  const bool written = !error && WriteReportFiles(staging, dir, report, context);
  if (written) fs::rename(staging, target, error);  // Onto an empty folder too.
  if (!written || error) {
    const int saved = error ? error.value() : errno;
    fs::remove_all(staging, error);
    errno = saved;
    return CannotWrite("check-migrations", "--out", dir);
  }
  return kExitOk;
}

// The check, here or in `jobs` worker processes that each play every
// jobs-th case (the report is the same either way); nullopt when a worker
// failed (said on standard error).
std::optional<scenarios::MigrationCheckReport> Check(
    const scenarios::MigrationCheckOptions& options, int jobs) {
  if (jobs == 1) return scenarios::CheckMigrations(options);
  const auto work = [&](int job) {
    scenarios::MigrationCheckOptions mine = options;
    mine.shard = {static_cast<std::uint64_t>(job), static_cast<std::uint64_t>(jobs)};
    if (job != 0) mine.on_progress = nullptr;  // One voice is enough.
    return scenarios::ShardToJson(scenarios::PlayShard(mine));
  };
  const std::optional<std::vector<std::string>> answers =
      RunInWorkerProcesses(jobs, work, "check-migrations");
  if (!answers) return std::nullopt;
  std::vector<scenarios::PlayedShard> shards;
  for (const std::string& answer : *answers) {
    std::optional<scenarios::PlayedShard> shard = scenarios::ShardFromJson(answer);
    if (!shard) {
      std::cerr << "faultline: check-migrations: a worker process's answer is malformed\n";
      return std::nullopt;
    }
    shards.push_back(std::move(*shard));
  }
  if (const std::optional<std::string> wrong = scenarios::ShardsDisagree(shards)) {
    std::cerr << "faultline: check-migrations: the worker processes disagree: " << *wrong << "\n";
    return std::nullopt;
  }
  // The unsafe findings' repros, shrunk in workers too (each every jobs-th).
  const auto shrink = [&](int job) {
    scenarios::MigrationCheckOptions mine = options;
    if (job != 0) mine.on_progress = nullptr;
    return scenarios::ReprosToJson(scenarios::MakeRepros(
        mine, shards, {static_cast<std::uint64_t>(job), static_cast<std::uint64_t>(jobs)}));
  };
  const std::optional<std::vector<std::string>> repros =
      RunInWorkerProcesses(jobs, shrink, "check-migrations");
  if (!repros) return std::nullopt;
  std::vector<scenarios::ReproMade> made;
  for (const std::string& answer : *repros) {
    std::optional<std::vector<scenarios::ReproMade>> part = scenarios::ReprosFromJson(answer);
    if (!part) {
      std::cerr << "faultline: check-migrations: a worker process's repros are malformed\n";
      return std::nullopt;
    }
    for (scenarios::ReproMade& m : *part) made.push_back(std::move(m));
  }
  return scenarios::ReportOf(options, shards, &made);
}

// The folder, its runners, stores and keyspace into `options`; 0, or the
// exit status after saying what is wrong.
int ReadFolder(const CheckFlags& flags, scenarios::MigrationCheckOptions& options) {
  sim::Result<std::vector<MigrationFile>> files = models::migrate::ReadMigrationFolder(
      flags.folder, scenarios::FolderLimitsOf(flags.limits, true));
  if (!files.ok()) return Bad(files.status().message());
  if (files->empty()) {
    return Bad(fmt::format("{}: no migration files ({{version}}_{{title}}.up.cql)", flags.folder));
  }
  options.files = std::move(files).value();
  sim::Result<std::vector<scenarios::Ignore>> ignores = scenarios::InFileIgnores(options.files);
  // Its file:line:col, under the folder as every other message names a file.
  if (!ignores.ok()) {
    return Bad((std::filesystem::path(flags.folder) / ignores.status().message()).string());
  }
  options.ignores = std::move(ignores).value();
  options.ignores.insert(options.ignores.end(), flags.config_ignores.begin(),
                         flags.config_ignores.end());
  options.seed = flags.seed;
  options.branch = !flags.from_empty;
  options.fail_on_runner_risks = flags.fail_on_runner_risks;
  options.replicas = flags.replicas;
  if (flags.runner == "all") {
    options.runners.assign(std::begin(models::migrate::kRunnerNames),
                           std::end(models::migrate::kRunnerNames));
  } else {
    options.runners = {flags.runner};
  }
  if (flags.store == "yugabyte") options.stores = {"2.20"};
  if (flags.store == "cassandra") options.stores = {"cassandra"};
  options.keyspace = flags.keyspace;
  if (options.keyspace.empty()) {
    const std::optional<std::string> named = models::migrate::NamedKeyspace(options.files);
    options.keyspace = named.value_or("app");
    if (std::string problem = scenarios::KeyspaceProblem(options.keyspace); !problem.empty()) {
      return Bad(
          fmt::format("{}: the folder names keyspace {}; give --keyspace", flags.folder, problem));
    }
    if (flags.static_only) options.runners.clear();
    // Where the keyspace came from, said once with the progress lines (on
    // standard error, unless a report goes there), so a guess is never silent.
    if (!options.runners.empty() && !IsStandardOutput(flags.write_sum)) {
      std::cerr << fmt::format(
          "check-migrations: keyspace {} ({}; --keyspace to choose another)\n", options.keyspace,
          named ? "the one the folder's statements name" : "the folder names none");
    }
  }
  if (flags.static_only) options.runners.clear();
  return kExitOk;
}

// --from VERSION (of this folder) or --from DIR (an older release's).
int ReadFrom(const CheckFlags& flags, scenarios::MigrationCheckOptions& options) {
  if (flags.from.empty()) return kExitOk;
  if (const std::optional<std::uint64_t> version = ParseSeed(flags.from)) {
    // By number, as golang-migrate reads a version ("0001_a" is 1).
    const sim::Result<models::migrate::MigrationSource> source =
        models::migrate::MigrationSource::FromFiles(options.files);
    const bool known = source.ok() && source->Find(*version) != nullptr;
    if (!known) return Bad(fmt::format("--from: the folder has no version {}", *version));
    options.from_version = version;
    return kExitOk;
  }
  sim::Result<std::vector<MigrationFile>> older = models::migrate::ReadMigrationFolder(
      flags.from, scenarios::FolderLimitsOf(flags.limits, true));
  if (!older.ok()) return Bad("--from: " + older.status().message());
  if (older->empty()) return Bad(fmt::format("--from: {}: no migration files", flags.from));
  options.older = std::move(older).value();
  options.older_name = flags.from;
  return kExitOk;
}

// The config file's settings where no flag gave them, and its ignores
// (a file one names must be in the folder).
int ApplyConfig(CheckFlags& flags, const std::function<bool(const char*)>& given) {
  const sim::Result<std::optional<CheckConfig>> read = ReadCheckConfig(flags.folder, flags.config);
  if (!read.ok()) return Bad(read.status().message());
  if (!read->has_value()) return kExitOk;
  const CheckConfig& config = **read;
  if (config.runner && !given("--runner")) flags.runner = *config.runner;
  if (config.keyspace && !given("--keyspace")) flags.keyspace = *config.keyspace;
  if (config.store && !given("--store")) flags.store = *config.store;
  if (config.since && !given("--since")) flags.since = *config.since;
  if (config.fail_on_runner_risks && !given("--fail-on-runner-risks")) {  // Either spelling.
    flags.fail_on_runner_risks = *config.fail_on_runner_risks;
  }
  for (const scenarios::Ignore& ignore : config.ignores) {
    // A file is named as the folder lists it: by its name alone, wherever
    // the config is.
    std::error_code error;
    const bool named_alone = ignore.file.find('/') == std::string::npos;
    if (!ignore.file.empty() &&
        (!named_alone || !fs::is_regular_file(fs::path(flags.folder) / ignore.file, error))) {
      return Bad(
          fmt::format("{}: ignore: {} is no file of {} (name a file of the migration "
                      "folder by its name alone)",
                      ignore.where, ignore.file, flags.folder));
    }
    flags.config_ignores.push_back(ignore);
  }
  std::cerr << fmt::format("check-migrations: settings from {}\n", config.path);
  return kExitOk;
}

// --since VERSION, or --since REF: the newest version among the up files
// the folder held at git revision REF. A file new since REF whose version
// is not above it would be skipped by golang-migrate on a database there.
int ReadSince(const CheckFlags& flags, scenarios::MigrationCheckOptions& options) {
  if (flags.since.empty()) return kExitOk;
  const sim::Result<models::migrate::MigrationSource> source =
      models::migrate::MigrationSource::FromFiles(options.files);
  if (!source.ok()) return Bad(source.status().message());
  // A number up to the newest version is a version (the files up to it
  // are history); above it, it may be a commit's short hash, which git
  // then reads.
  const std::optional<std::uint64_t> version = ParseSeed(flags.since);
  const std::uint64_t newest_here = source->migrations().rbegin()->first;
  if (version && *version <= newest_here) {
    options.since = version;
    return kExitOk;
  }
  const sim::Result<std::set<std::string>> shipped = FilesAtRevision(flags.folder, flags.since);
  if (!shipped.ok() && version) {
    return Bad(
        fmt::format("--since {}: above every version of the folder (the newest is {}), and "
                    "no git revision ({})",
                    flags.since, newest_here, shipped.status().message()));
  }
  if (!shipped.ok()) return Bad("--since: " + shipped.status().message());
  std::optional<std::uint64_t> newest;
  for (const auto& [version, migration] : source->migrations()) {
    if (shipped->contains(migration.up_name)) newest = version;
  }
  if (!newest) {
    std::cerr << fmt::format(
        "check-migrations: --since {}: the folder had no migration file there; every file is "
        "new\n",
        flags.since);
    return kExitOk;
  }
  for (const auto& [version, migration] : source->migrations()) {
    if (version < *newest && !shipped->contains(migration.up_name)) {
      return Bad(fmt::format(
          "--since {}: {} is new but its version {} is below {}'s newest, {}: golang-migrate "
          "skips it on a database already there; give it a version above {}",
          flags.since, migration.up_name, version, flags.since, *newest, *newest));
    }
  }
  std::cerr << fmt::format("check-migrations: --since {}: history up to version {}\n", flags.since,
                           *newest);
  options.since = newest;
  return kExitOk;
}

// --sum FILE, read into `sum`, which `options` then points at.
int ReadSum(const CheckFlags& flags, std::optional<models::migrate::SumFile>& sum,
            scenarios::MigrationCheckOptions& options) {
  if (flags.sum.empty()) return kExitOk;
  std::string problem;
  const std::optional<std::string> text = ReadText(flags.sum, flags.limits, problem);
  if (!text) return Bad("--sum: " + problem);
  sim::Result<models::migrate::SumFile> read = models::migrate::ParseSumFile(*text, flags.sum);
  if (!read.ok()) return Bad(read.status().message());
  sum = std::move(read).value();
  options.sum = &*sum;
  options.sum_name = flags.sum;
  return kExitOk;
}

// --write-sum FILE (or - for standard output).
int WriteSum(const CheckFlags& flags, const std::vector<MigrationFile>& files) {
  if (IsStandardOutput(flags.write_sum)) {
    std::cout << models::migrate::WriteSumFile(files);
    if (!std::cout.flush()) return CannotWrite("check-migrations", "--write-sum", "-");
  } else if (!flags.write_sum.empty()) {
    if (!WriteWhole(flags.write_sum, models::migrate::WriteSumFile(files))) {
      return CannotWrite("check-migrations", "--write-sum", flags.write_sum);
    }
  }
  return kExitOk;
}

// Progress on standard error: a line when a check starts, and every few
// seconds within a long one (a folder of hundreds of files).
std::function<void(std::string_view, int)> Progress() {
  auto last_check = std::make_shared<std::string>();
  auto last_said =
      std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  return [last_check, last_said](std::string_view check, int runs) {
    const auto now = std::chrono::steady_clock::now();
    if (check == *last_check && now - *last_said < std::chrono::seconds(5)) return;
    *last_said = now;
    *last_check = std::string(check);
    std::cerr << fmt::format("check-migrations: {} ({} runs so far)\n", check, runs);
  };
}

int RunCheckMigrationsCommand(const CheckFlags& flags) {
  // Everything the check reads is read, and found wrong, before it runs.
  scenarios::MigrationCheckOptions options;
  std::optional<models::migrate::SumFile> sum;
  if (const int status = ReadFolder(flags, options); status != kExitOk) return status;
  if (const int status = ReadFrom(flags, options); status != kExitOk) return status;
  if (const int status = ReadSince(flags, options); status != kExitOk) return status;
  if (const int status = ReadSum(flags, sum, options); status != kExitOk) return status;
  if (const int status = WriteSum(flags, options.files); status != kExitOk) return status;
  if (!flags.out.empty()) {
    std::error_code error;
    if (fs::exists(flags.out, error) && !fs::is_empty(flags.out, error)) {
      return Bad(fmt::format("--out: {} exists and is not empty; name a new folder", flags.out));
    }
  }
  options.on_progress = Progress();
  std::optional<scenarios::MigrationCheckReport> checked;
  {
    // (A new user's Ctrl-C ended it without a word.)
    const SayOnInterrupt said(
        "\nfaultline: check-migrations interrupted: no report or --out folder was written\n");
    checked = Check(options, flags.jobs);
  }
  if (!checked) return kExitBadInput;
  const scenarios::MigrationCheckReport& report = *checked;
  scenarios::ReportContext context{.folder = flags.folder,
                                   .repro_files = scenarios::ReproFileNames(report),
                                   .repro_written = !flags.out.empty(),
                                   .verbose = flags.verbose};
  if (!flags.out.empty()) {
    if (const int status = WriteOut(flags.out, report, context); status != kExitOk) return status;
  }
  for (const scenarios::ReportFormat& format : scenarios::ReportFormats()) {
    if (format.name == flags.format) {
      (IsStandardOutput(flags.write_sum) ? std::cerr : std::cout) << format.write(report, context);
    }
  }
  return report.Unsafe() ? kExitFailureFound : kExitOk;
}

}  // namespace

CommandRun DefineCheckMigrations(CLI::App& command) {
  auto flags = std::make_shared<CheckFlags>();
  DeclareCheckFlags(command, *flags);
  return [flags, &command] {
    const auto given = [&command](const char* flag) { return command.count(flag) > 0; };
    if (const int status = ApplyConfig(*flags, given); status != kExitOk) return status;
    return RunCheckMigrationsCommand(*flags);
  };
}

}  // namespace faultline::app
