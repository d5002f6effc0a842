// The data-driven conformance suite: every *.cqlt file under
// tests/models/cql_conformance runs on a fresh store, statement by statement,
// and each outcome must match the expectation written under it.
//
// File format (see the README in that folder):
//   # a comment
//   STATEMENT;               one or more lines, the last ending with ';'
//   ok                       success without rows
//   error -203 Undefined Column.   an error: the code, and its text's start
//   rows k | v               rows: the header, then one "> " line per row,
//   > 1 | one                cells as ycqlsh prints them
//   text                     DESCRIBE output, one "> " line per line
//   > CREATE TABLE ...       (">" alone for an empty line)
// A file named NAME.cassandra.cqlt runs on the store's Cassandra dialect;
// the others on YCQL's.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/models/cql_store_fixture.h"

namespace faultline::models::cql {
namespace {

struct Case {
  int line = 0;  // Where the statement starts.
  std::string statement;
  std::string expectation;         // "ok", "error ...", "rows ...", "text".
  std::vector<std::string> lines;  // The "> " lines.
};

struct CaseFile {
  std::vector<Case> cases;
  std::string error;  // A malformed file: what and where.
};

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.pop_back();
  return text;
}

bool IsExpectation(const std::string& line) {
  return line == "ok" || line == "text" || line.starts_with("error ") || line.starts_with("rows ");
}

CaseFile ReadCases(const std::filesystem::path& path) {
  CaseFile file;
  std::ifstream in(path);
  std::string line;
  int number = 0;
  Case current;
  bool expecting = false;  // The statement is complete; its expectation comes next.
  auto finish = [&] {
    if (!current.expectation.empty()) file.cases.push_back(std::move(current));
    current = Case{};
  };
  while (std::getline(in, line)) {
    ++number;
    line = Trimmed(line);
    if (line.starts_with(">")) {
      if (current.expectation.empty()) {
        file.error = fmt::format("{}:{}: '>' line without an expectation", path.string(), number);
        return file;
      }
      current.lines.push_back(line.size() > 2 ? line.substr(2) : "");
      continue;
    }
    if (line.empty() || line.starts_with("#")) continue;
    if (expecting) {
      if (!IsExpectation(line)) {
        file.error = fmt::format("{}:{}: expected ok, error, rows or text", path.string(), number);
        return file;
      }
      current.expectation = line;
      expecting = false;
      continue;
    }
    if (!current.expectation.empty()) finish();
    if (current.statement.empty()) current.line = number;
    current.statement += (current.statement.empty() ? "" : "\n") + line;
    expecting = line.ends_with(";");
  }
  if (expecting) {
    file.error = fmt::format("{}:{}: statement without an expectation", path.string(), number);
  }
  finish();
  return file;
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    text += (i == 0 ? "" : std::string(separator)) + parts[i];
  }
  return text;
}

// The outcome written in the file's notation, to compare with an expectation.
std::pair<std::string, std::vector<std::string>> SummarizeOutcome(const Outcome& outcome) {
  if (const auto* error = std::get_if<CqlError>(&outcome)) {
    return {fmt::format("error {} {}", static_cast<int>(error->code), error->message), {}};
  }
  const QueryResult& result = std::get<QueryResult>(outcome);
  if (result.kind == QueryResult::Kind::kText) {
    std::vector<std::string> lines;
    std::istringstream in(result.text);
    std::string line;
    while (std::getline(in, line)) lines.push_back(Trimmed(line));
    return {"text", lines};
  }
  if (result.kind != QueryResult::Kind::kRows) return {"ok", {}};
  std::vector<std::string> header;
  for (const ColumnSpec& column : result.columns) header.push_back(column.name);
  std::vector<std::string> rows;
  for (const Row& row : result.rows) {
    std::vector<std::string> cells;
    for (std::size_t i = 0; i < row.size(); ++i) {
      cells.push_back(FormatCell(row[i], result.columns[i].type));
    }
    rows.push_back(Join(cells, " | "));
  }
  return {"rows " + Join(header, " | "), rows};
}

bool Matches(const Case& expected, const std::pair<std::string, std::vector<std::string>>& actual) {
  if (expected.expectation.starts_with("error ")) {
    return actual.first.starts_with(expected.expectation);  // The text's start is enough.
  }
  return expected.expectation == actual.first && expected.lines == actual.second;
}

std::vector<std::filesystem::path> CaseFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(FAULTLINE_CQL_CONFORMANCE_DIR)) {
    if (entry.path().extension() == ".cqlt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class ConformanceTest : public testing::TestWithParam<std::filesystem::path> {};

TEST_P(ConformanceTest, EveryCaseMatches) {
  const CaseFile file = ReadCases(GetParam());
  ASSERT_TRUE(file.error.empty()) << file.error;
  ASSERT_FALSE(file.cases.empty()) << GetParam() << " has no cases";
  EngineOnVolume store;
  if (GetParam().stem().extension() == ".cassandra") store.UseDialect(Dialect::kCassandra);
  for (const Case& one : file.cases) {
    const auto actual = SummarizeOutcome(store.Run(one.statement));
    EXPECT_TRUE(Matches(one, actual))
        << GetParam().filename().string() << ":" << one.line << ": " << one.statement
        << "\n  expected: " << one.expectation << "\n    " << Join(one.lines, "\n    ")
        << "\n  actual:   " << actual.first << "\n    " << Join(actual.second, "\n    ");
  }
}

INSTANTIATE_TEST_SUITE_P(Files, ConformanceTest, testing::ValuesIn(CaseFiles()),
                         [](const testing::TestParamInfo<std::filesystem::path>& info) {
                           std::string name = info.param.stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// The issue asks for at least 150 cases; keep the count honest.
TEST(ConformanceSuite, HasAtLeast150Cases) {
  std::size_t cases = 0;
  for (const auto& path : CaseFiles()) cases += ReadCases(path).cases.size();
  EXPECT_GE(cases, 150u);
}

}  // namespace
}  // namespace faultline::models::cql
