// headmap-cli stats and dump --aggregate, end to end, against PyTorch + NumPy values written by
// scripts/fixtures/make_analysis_fixtures.py (tests/fixtures/analysis/cli_*).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/io/npy.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

using test::fixture;
using test::runCommand;
using test::shellQuote;

// The float32 C++ kernel against float64 PyTorch maps.
constexpr double kTol = 1e-5;

const char* const kColumns[] = {"entropy",        "mean_distance", "first_token_mass",
                                "previous_token", "diagonal",      "induction"};
const char* const kFixtureKeys[] = {"entropy",       "meanDistance", "firstTokenMass",
                                    "previousToken", "diagonal",     "induction"};

nlohmann::json expected() {
  std::ifstream in(fixture("analysis/cli_expected.json"));
  return nlohmann::json::parse(in);
}

std::string idsOption() {
  const nlohmann::json want = expected();  // keep it alive: the loop reads a member of it
  std::string ids;
  for (int id : want["ids"]) ids += (ids.empty() ? "" : ",") + std::to_string(id);
  return ids;
}

// The command line shared by every test: the fixture layer, its input, ids with a repeated
// segment, causal with the last position padded (as the PyTorch reference).
std::string command(const std::string& sub, const std::string& extra) {
  return shellQuote(test::cliPath()) + " " + sub + " " +
         shellQuote(fixture("analysis/cli_layer.safetensors")) + " --input " +
         shellQuote(fixture("analysis/cli_input.npy")) + " --ids " + idsOption() +
         " --causal --pad 9 " + extra;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!s.empty() && s.back() == sep) parts.push_back("");
  return parts;
}

double expectedValue(const nlohmann::json& row, const char* key) {
  const auto& v = row[key];
  return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>();
}

void checkCsv(const std::string& csv) {
  const auto want = expected()["stats"];
  const auto lines = split(csv, '\n');
  ASSERT_GE(lines.size(), 1u) << csv;
  EXPECT_EQ(lines[0],
            "layer,head,entropy,mean_distance,first_token_mass,previous_token,diagonal,induction");
  ASSERT_EQ(lines.size(), want.size() + 2) << csv;  // header, rows, the empty piece after '\n'
  double maxDiff = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const auto fields = split(lines[i + 1], ',');
    ASSERT_EQ(fields.size(), 8u) << lines[i + 1];
    EXPECT_EQ(std::stoi(fields[0]), want[i]["layer"].get<int>());
    EXPECT_EQ(std::stoi(fields[1]), want[i]["head"].get<int>());
    for (int c = 0; c < 6; ++c) {
      const double w = expectedValue(want[i], kFixtureKeys[c]);
      ASSERT_FALSE(std::isnan(w));  // this input defines every statistic
      ASSERT_FALSE(fields[c + 2].empty()) << kColumns[c];
      const double diff = std::abs(std::stod(fields[c + 2]) - w);
      maxDiff = std::max(maxDiff, diff);
      EXPECT_LE(diff, kTol) << "head " << i << " " << kColumns[c] << ": CLI " << fields[c + 2]
                            << ", PyTorch/NumPy " << w;
    }
  }
  std::cout << "stats CSV: max |CLI - PyTorch/NumPy| = " << maxDiff << "\n";
}

TEST(StatsCli, CsvOnStdoutMatchesReference) {
  const auto r = runCommand(command("stats", ""));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  checkCsv(r.out);
}

TEST(StatsCli, CsvFileEqualsStdout) {
  const std::string out = test::tempPath("stats.csv");
  const auto r = runCommand(command("stats", "--out " + shellQuote(out)));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  checkCsv(readFile(out));
}

TEST(StatsCli, JsonFileHasTokensAndEveryField) {
  const std::string out = test::tempPath("stats.json");
  const auto r = runCommand(command("stats", "--out " + shellQuote(out)));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto doc = nlohmann::json::parse(readFile(out));
  const auto want = expected();
  ASSERT_EQ(doc["tokens"].size(), want["ids"].size());
  for (size_t i = 0; i < want["ids"].size(); ++i) EXPECT_EQ(doc["tokens"][i]["id"], want["ids"][i]);
  ASSERT_EQ(doc["stats"].size(), want["stats"].size());
  for (size_t i = 0; i < want["stats"].size(); ++i) {
    EXPECT_EQ(doc["stats"][i]["head"], want["stats"][i]["head"]);
    for (int c = 0; c < 6; ++c) {
      EXPECT_NEAR(doc["stats"][i][kColumns[c]].get<double>(),
                  expectedValue(want["stats"][i], kFixtureKeys[c]), kTol)
          << "head " << i << " " << kColumns[c];
    }
  }
}

TEST(StatsCli, JsonOnStdoutWithFormat) {
  const auto r = runCommand(command("stats", "--format json"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["stats"].size(), 4u);
}

TEST(StatsCli, NoRepeatedTokenLeavesInductionEmpty) {
  const std::string cmd = shellQuote(test::cliPath()) + " stats " +
                          shellQuote(fixture("analysis/cli_layer.safetensors")) + " --input " +
                          shellQuote(fixture("analysis/cli_input.npy")) + " --causal";
  const auto r = runCommand(cmd);  // tokens labelled by position: no id repeats
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto lines = split(r.out, '\n');
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[1].back(), ',') << "induction should be an empty field: " << lines[1];
}

TEST(StatsCli, BareLayerWordsRepeatByText) {
  // The whitespace tokenizer numbers words by position; the induction score matches by text.
  const std::string cmd = shellQuote(test::cliPath()) + " stats " +
                          shellQuote(fixture("analysis/cli_layer.safetensors")) +
                          " --text 'the cat sat the cat sat' --causal --format json";
  const auto r = runCommand(cmd);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["stats"].size(), 4u);
  for (const auto& row : doc["stats"]) EXPECT_TRUE(row["induction"].is_number()) << row;
}

TEST(StatsCli, UsageErrorsExitWithTwoAndWriteNothing) {
  const std::string out = test::tempPath("stats.txt");
  auto r = runCommand(command("stats", "--out " + shellQuote(out)));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find(".csv or .json"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));

  r = runCommand(command("stats", "--format xml"));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("xml"), std::string::npos) << r.err;

  r = runCommand(command("stats", "--format json --out " + shellQuote(test::tempPath("s.csv"))));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("contradicts"), std::string::npos) << r.err;
}

TEST(StatsCli, MissingModelFailsWithoutOutput) {
  const std::string out = test::tempPath("stats.csv");
  const auto r = runCommand(shellQuote(test::cliPath()) + " stats /nonexistent/model.safetensors" +
                            " --text 'a b' --out " + shellQuote(out));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("/nonexistent/model.safetensors"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// dump --aggregate: (layers, 1, q, k) for mean, (1, 1, q, k) for rollout.
void checkAggregate(const std::string& kind, const char* key) {
  const std::string out = test::tempPath(kind + ".npy");
  const auto r = runCommand(command("dump", "--aggregate " + kind + " --out " + shellQuote(out)));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const NpyArray a = readNpy(out);
  const int n = static_cast<int>(expected()["ids"].size());
  ASSERT_EQ(a.shape, (std::vector<int64_t>{1, 1, n, n}));
  const auto want = expected()[key];
  ASSERT_EQ(a.values.size(), want.size());
  double maxDiff = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    maxDiff = std::max(maxDiff, std::abs(a.values[i] - want[i].get<double>()));
  }
  EXPECT_LE(maxDiff, kTol) << kind << ": max |CLI - PyTorch/NumPy| = " << maxDiff;
  std::cout << "dump --aggregate " << kind << ": max |CLI - PyTorch/NumPy| = " << maxDiff << "\n";
}

TEST(DumpAggregateCli, MeanOverHeads) { checkAggregate("mean", "mean"); }
TEST(DumpAggregateCli, Rollout) { checkAggregate("rollout", "rollout"); }

TEST(DumpAggregateCli, BadAggregateOrStageIsAUsageError) {
  const std::string out = test::tempPath("x.npy");
  auto r = runCommand(command("dump", "--aggregate max --out " + shellQuote(out)));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("max"), std::string::npos) << r.err;
  r = runCommand(command("dump", "--aggregate mean --stage scores --out " + shellQuote(out)));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("softmax"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace headmap
