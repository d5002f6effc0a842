// A service of our own in the simulated cluster: a tiny ledger that counts
// its starts in a file on a named volume. It is killed and restarted, the
// cluster goes down and up with its volumes kept, and the count goes on;
// `down -v` removes the volume and the count starts again.
#include <faultline/fakes/runtime.h>
#include <faultline/fakes/volume.h>
#include <faultline/scenarios/harness/cluster.h>

#include <charconv>
#include <cstdio>
#include <string>

namespace fl = faultline::scenarios;
namespace fakes = faultline::fakes;

// Reads the count, adds one, writes it and syncs it (so a power loss keeps
// it too), says so in its log, and serves until stopped.
faultline::sim::Awaitable<int> Ledger(fakes::ContainerContext& context) {
  fakes::Volume* volume = context.VolumeAt("/ledger");
  if (volume == nullptr) co_return 2;
  fakes::SimFile& file = volume->OpenOrCreate("starts");
  int starts = 0;
  const std::string& before = file.contents();
  std::from_chars(before.data(), before.data() + before.size(), starts);
  const std::string after = std::to_string(starts + 1);
  if (!volume->Write(file, 0, after).ok() || !volume->Sync(file).ok()) co_return 1;
  context.Log("start " + after);
  context.SetReady(true);
  co_await context.StopRequested();
  co_return 0;
}

// The count the ledger's log says last ("ledger  | start 3" -> "3").
std::string LastStart(const fl::Cluster& cluster) {
  const std::vector<std::string> lines = cluster.Logs("ledger");
  if (lines.empty()) return "(no log)";
  const std::size_t at = lines.back().rfind(' ');
  return lines.back().substr(at + 1);
}

int main() {
  fakes::ServiceSpec ledger;
  ledger.name = "ledger";
  ledger.image = "ledger";
  ledger.version = "1";
  ledger.mounts = {fakes::MountSpec{"ledger-data", "/ledger", fakes::VolumeKind::kNamedVolume}};
  fl::Cluster cluster(fl::Scenario{},
                      {.images = {fl::CustomImage{"ledger", "1", Ledger}}, .services = {ledger}});
  int failures = 0;
  const auto expect = [&](const char* when, const std::string& want) {
    const std::string got = LastStart(cluster);
    std::printf("%-28s start %s%s\n", when, got.c_str(),
                got == want ? "" : "  <- expected otherwise");
    failures += got == want ? 0 : 1;
  };
  cluster.Up();
  expect("up:", "1");
  cluster.Kill("ledger");
  cluster.Restart("ledger");
  cluster.Wait(std::chrono::seconds(1));
  expect("killed and restarted:", "2");
  cluster.Down();
  cluster.Up();
  expect("down, up (volumes kept):", "3");
  cluster.Down(/*volumes=*/true);
  cluster.Up();
  expect("down -v, up:", "1");
  return failures == 0 ? 0 : 1;
}
