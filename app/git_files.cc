#include "app/git_files.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <vector>

#include <fmt/format.h>

extern char** environ;

namespace faultline::app {
namespace {

// Everything readable from `fd` until its end, at most `max` bytes.
bool ReadGitOutput(int fd, std::string& out, std::size_t max) {
  char buffer[4096];
  for (;;) {
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) return true;
    if (out.size() + static_cast<std::size_t>(got) > max) return false;
    out.append(buffer, static_cast<std::size_t>(got));
  }
}

}  // namespace

sim::Result<std::set<std::string>> FilesAtRevision(const std::string& folder,
                                                   const std::string& ref) {
  if (ref.empty() || ref.front() == '-') {
    return sim::Status::InvalidArgument(fmt::format("'{}' is no git revision", ref));
  }
  // -z: names as they are, NUL-ended; paths relative to the folder (-C).
  std::vector<std::string> args = {"git",         "-C", folder, "ls-tree", "-z",
                                   "--name-only", ref,  "--",   "."};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return sim::Status::IoError("cannot make a pipe for git");
  // git's own words (errors, and warnings such as an ambiguous name) go to
  // a file of their own: in the listing they would read as a file name.
  char said_path[] = "/tmp/faultline-git-XXXXXX";
  const int said = mkstemp(said_path);
  if (said < 0) {
    close(out[0]);
    close(out[1]);
    return sim::Status::IoError("cannot make a file for git's messages");
  }
  unlink(said_path);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, said, STDERR_FILENO);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, "git", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (spawned != 0) {
    close(out[0]);
    close(said);
    return sim::Status::NotFound("git is not installed (--since GITREF runs `git ls-tree`)");
  }
  std::string text;
  constexpr std::size_t kMaxListing = 16 << 20;
  const bool read_whole = ReadGitOutput(out[0], text, kMaxListing);
  close(out[0]);
  int status = 0;
  pid_t reaped = -1;
  do {
    reaped = waitpid(pid, &status, 0);
  } while (reaped < 0 && errno == EINTR);
  std::string words;
  const bool words_read = lseek(said, 0, SEEK_SET) == 0 && ReadGitOutput(said, words, 4096);
  close(said);
  if (reaped != pid) return sim::Status::IoError("cannot wait for git");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string first = words_read ? words.substr(0, words.find('\n')) : "";
    return sim::Status::InvalidArgument(
        fmt::format("git cannot list {} at {}: {}", folder, ref,
                    first.empty() ? "it failed and said nothing" : first));
  }
  if (!read_whole) {
    return sim::Status::IoError("cannot read git ls-tree's listing (or it is over 16 MiB)");
  }
  std::set<std::string> names;
  std::size_t start = 0;
  for (std::size_t end = text.find('\0'); end != std::string::npos;
       start = end + 1, end = text.find('\0', start)) {
    names.insert(text.substr(start, end - start));
  }
  return names;
}

}  // namespace faultline::app
