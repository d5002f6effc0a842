// libFuzzer target: check-migrations' static side on any bytes. The input
// is cut into migration files (and a sum file) at "\n--8<--\n"; each is
// checked as text (FindNotText), and the folder through every static rule,
// against an older folder and the sum file; a sum file written from the
// files must read back to the same entries. Nothing may crash, hang or
// report a rule, a file or a place that does not exist.
//
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build/fuzz/tests/fuzz/migration_lint_fuzz tests/fuzz/migration_corpus
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "models/migrate/folder.h"
#include "models/migrate/lint.h"

namespace {

using faultline::models::migrate::MigrationFile;

void Require(bool condition) {
  if (!condition) std::abort();
}

// The pieces of `data`, at most `max` of them, each a file's body.
std::vector<std::string> Pieces(std::string_view data, std::size_t max) {
  constexpr std::string_view kCut = "\n--8<--\n";
  std::vector<std::string> pieces;
  while (pieces.size() + 1 < max) {
    const std::size_t at = data.find(kCut);
    if (at == std::string_view::npos) break;
    pieces.emplace_back(data.substr(0, at));
    data.remove_prefix(at + kCut.size());
  }
  pieces.emplace_back(data);
  return pieces;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  if (size > 64 * 1024) return 0;  // The lint is linear; big inputs only slow the search.
  const std::string_view data(reinterpret_cast<const char*>(bytes), size);
  std::vector<std::string> pieces = Pieces(data, 9);
  const std::string sum_text = pieces.size() > 1 ? pieces.back() : std::string();
  if (pieces.size() > 1) pieces.pop_back();
  std::vector<MigrationFile> files;
  std::vector<MigrationFile> older;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    (void)faultline::models::migrate::FindNotText(pieces[i]);
    // Versions 1, 2, ...; every third a down file of the one before.
    const bool down = i % 3 == 2;
    const std::size_t version = down ? i : i + 1;
    files.emplace_back(std::to_string(version) + "_f." + (down ? "down" : "up") + ".cql",
                       pieces[i]);
    if (i % 2 == 0)
      older.emplace_back(files.back().name, pieces[i].substr(0, pieces[i].size() / 2));
  }
  faultline::models::migrate::LintInput input;
  input.files = files;
  input.keyspace = "app";
  input.older = &older;
  input.older_name = "older";
  const auto sum = faultline::models::migrate::ParseSumFile(sum_text, "fuzz.sum");
  if (sum.ok()) {
    input.sum = &*sum;
    input.sum_name = "fuzz.sum";
  }
  std::set<std::string> names;
  for (const MigrationFile& file : files) names.insert(file.name);
  for (const bool multi : {true, false}) {
    input.multi_statement = multi;
    for (const auto& finding : faultline::models::migrate::LintFolder(input)) {
      (void)faultline::models::migrate::RuleOf(finding.rule);  // Panics on an unknown rule.
      Require(finding.line >= 1 && finding.column >= 1);
      Require(!finding.in_folder || names.contains(finding.file));
    }
  }
  (void)faultline::models::migrate::NamedKeyspace(files);
  const auto written = faultline::models::migrate::ParseSumFile(
      faultline::models::migrate::WriteSumFile(files), "w");
  Require(written.ok() && written->entries.size() == files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    Require(written->entries[i].file == files[i].name);
    Require(written->entries[i].checksum ==
            faultline::models::migrate::FileChecksum(files[i].contents));
  }
  return 0;
}
