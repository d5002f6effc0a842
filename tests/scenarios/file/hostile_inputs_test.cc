// Issue #25: scenario inputs that crashed, hung or passed the reader (a
// key nested 50,000 levels, nan, a FIFO, duplicate tables, BACKENDS naming
// no node, an expectation that can never hold), each refused when the file
// is read, with its place.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <variant>

#include "scenarios/file/scenario_file.h"
#include "tests/scenarios/file/read_error.h"

namespace faultline::scenarios {
namespace {

// Issue #25: inputs that crashed, hung or passed the reader, each refused
// when the file is read, with its place.
TEST(ScenarioFileTest, HostileInputsAreRefusedWhenRead) {
  const std::string head = "name = \"x\"\ntitle = \"t\"\n";
  const std::string up = "[[step]]\ndo = \"up\"\n";
  // A dotted key or a table header 50,000 levels deep overflowed toml++'s
  // recursion (SIGSEGV).
  std::string deep_key;
  std::string deep_header = "[";
  for (int i = 0; i < 50'000; ++i) {
    deep_key += "a.";
    deep_header += "a.";
  }
  EXPECT_EQ(ReadError(head + deep_key + "b = 1\n" + up),
            "story.toml:3:514: a key nested more than 256 levels deep");
  EXPECT_EQ(ReadError(head + deep_header + "b]\n" + up),
            "story.toml:3:515: a key nested more than 256 levels deep");
  // Dots in strings, comments and numbers are not keys.
  std::string dots(2'000, '.');
  EXPECT_TRUE(std::holds_alternative<Scenario>(ParseScenario(
      head + "story = \"" + dots + "\"\n# " + dots + "\n" + up, "story.toml", InputLimits{})));
  // NaN and infinities: the reader let nan through to an assertion at run
  // time.
  for (const char* number : {"nan", "+nan", "inf", "-inf"}) {
    EXPECT_EQ(ReadError(head + "[[step]]\ndo = \"loss\"\nprobability = " + number + "\n"),
              fmt::format("story.toml:5:15: step 1: 'probability' is a finite number, not {}",
                          std::string_view(number).ends_with("nan") ? "nan"
                          : number[0] == '-'                        ? "-inf"
                                                                    : "inf"));
  }
  // A schema_migrations expectation that can never hold.
  EXPECT_EQ(ReadError(head + "[[step]]\ndo = \"up\"\nexpect = [ { schema_migrations = "
                             "\"filecoingw_kuri1\", is = \"garbage\" } ]\n"),
            "story.toml:5:59: step 1: a 'schema_migrations' expectation: 'is' is 'none' or the "
            "rows as '<version> dirty' or '<version> clean', comma-separated (\"1754293669 "
            "clean, 1760000000 dirty\")");
  EXPECT_TRUE(std::holds_alternative<Scenario>(
      ParseScenario(head + "[[step]]\ndo = \"up\"\nexpect = [ { schema_migrations = \"k\", is = "
                           "\"1754293669 clean, 1760000000 dirty\" } ]\n",
                    "story.toml", InputLimits{})));
  // A service changed by two tables; an image defined twice.
  EXPECT_EQ(ReadError(head +
                      "[[service]]\nname = \"kuri-1\"\nrestart = \"no\"\n[[service]]\nname "
                      "= \"kuri-1\"\nrestart = \"always\"\n" +
                      up),
            "story.toml:7:8: service 2: kuri-1 has a [[service]] table already (service 1); put "
            "its changes in one");
  EXPECT_EQ(ReadError(head +
                      "[[image]]\nservice = \"node\"\nversion = \"mine\"\n[[image]]\nservice "
                      "= \"node\"\nversion = \"mine\"\n" +
                      up),
            "story.toml:8:11: image 2: a node image 'mine' is defined already; give this one "
            "another version");
  // The proxy's BACKENDS name the topology's nodes.
  EXPECT_EQ(ReadError(head +
                      "[[service]]\nname = \"s3-proxy\"\nenv = { BACKENDS = "
                      "\"kuri-1:7001,kuri-7:7007\" }\n" +
                      up),
            "story.toml:5:20: service 1: env: BACKENDS names kuri-7, which is not a node of "
            "this topology");
  EXPECT_EQ(
      ReadError(head + "[[service]]\nname = \"s3-proxy\"\nenv = { BACKENDS = \"kuri-1\" }\n" + up),
      "story.toml:5:20: service 1: env: BACKENDS is 'node:port' items, comma-separated "
      "(\"kuri-1:7001,kuri-2:7002\"), not 'kuri-1'");
  // As the proxy reads them: an empty item is skipped, and no backends at
  // all is a story of its own (the proxy exits).
  for (const char* backends : {"kuri-1:7001,kuri-2:7002,", ""}) {
    EXPECT_TRUE(std::holds_alternative<Scenario>(ParseScenario(
        head + "[[service]]\nname = \"s3-proxy\"\nenv = { BACKENDS = \"" + backends + "\" }\n" + up,
        "story.toml", InputLimits{})))
        << backends;
  }
}

// A FIFO as the scenario path blocked every command forever.
TEST(ScenarioFileTest, AFifoIsNotAScenarioFile) {
  const std::filesystem::path fifo =
      std::filesystem::temp_directory_path() / fmt::format("faultline-fifo-{}", getpid());
  std::filesystem::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto loaded = LoadScenarioFile(fifo, InputLimits{});
  std::filesystem::remove(fifo);
  ASSERT_TRUE(std::holds_alternative<FileError>(loaded));
  EXPECT_EQ(std::get<FileError>(loaded).message,
            fifo.string() +
                ": is not a regular file (a FIFO, a device or a socket), not a scenario file");
}

}  // namespace
}  // namespace faultline::scenarios
