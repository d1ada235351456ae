// headmap-cli compare, end to end: two models against PyTorch's maps of each (fixtures from
// scripts/fixtures/make_attention_fixtures.py), two inputs against the difference of two dumps,
// and the refusals (unequal shapes, unequal lengths, nothing to compare) leaving no output.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/io/npy.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

using test::fixture;
using test::runCommand;
using test::shellQuote;

std::string cli() { return shellQuote(test::cliPath()) + " "; }
std::string layerA() {
  return shellQuote(fixture("attention/safetensors/mha_state_dict.safetensors"));
}
std::string layerB() {
  return shellQuote(fixture("attention/safetensors/tutorial_prefixed.safetensors"));
}
std::string input() { return shellQuote(fixture("attention/safetensors/input.npy")); }
std::string defaultModel() { return shellQuote(fixture("../../resources/default_model")); }

// CSV rows after the header, split on commas.
std::vector<std::vector<std::string>> csvRows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "layer,head,max_abs_diff,mean_abs_diff,max_q,max_k");
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    std::string cell;
    while (std::getline(row, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(CompareCli, TwoModelsGiveTorchsDifference) {
  const std::string out = test::tempPath("diff.npy");
  const auto r = runCommand(cli() + "compare " + layerA() + " --model-b " + layerB() +
                            " --heads 4 --input " + input() + " --out " + shellQuote(out));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const NpyArray a = readNpy(fixture("attention/safetensors/mha_state_dict_weights.npy"));
  const NpyArray b = readNpy(fixture("attention/safetensors/tutorial_prefixed_weights.npy"));
  const NpyArray diff = readNpy(out);
  ASSERT_EQ(diff.shape, (std::vector<int64_t>{1, 4, 5, 5}));
  double worst = 0;
  std::vector<double> headMax(4, 0.0);
  for (size_t i = 0; i < diff.values.size(); ++i) {
    const double want = double(a.values[i]) - b.values[i];
    worst = std::max(worst, std::fabs(diff.values[i] - want));
    headMax[i / 25] = std::max(headMax[i / 25], std::fabs(want));
  }
  EXPECT_LT(worst, 1e-5) << "max |diff - torch diff| = " << worst;
  const auto rows = csvRows(r.out);
  ASSERT_EQ(rows.size(), 4u);
  for (int h = 0; h < 4; ++h) {
    ASSERT_EQ(rows[h].size(), 6u);
    EXPECT_EQ(rows[h][0], "0");
    EXPECT_EQ(rows[h][1], std::to_string(h));
    EXPECT_NEAR(std::stod(rows[h][2]), headMax[h], 1e-5) << "head " << h;
    EXPECT_GT(headMax[h], 0.01) << "the two layers should differ";
  }
}

TEST(CompareCli, TwoInputsGiveTheDifferenceOfTwoDumps) {
  const std::string a = test::tempPath("a.npy"), b = test::tempPath("b.npy");
  const std::string diffPath = test::tempPath("diff.npy");
  const std::string textA = "\"the cat sat on the mat\"", textB = "\"the dog sat on the mat\"";
  ASSERT_EQ(
      runCommand(cli() + "dump " + defaultModel() + " --text " + textA + " --out " + a).exitCode,
      0);
  ASSERT_EQ(
      runCommand(cli() + "dump " + defaultModel() + " --text " + textB + " --out " + b).exitCode,
      0);
  const auto r = runCommand(cli() + "compare " + defaultModel() + " --text " + textA +
                            " --text-b " + textB + " --format json --out " + shellQuote(diffPath));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const NpyArray da = readNpy(a), db = readNpy(b), diff = readNpy(diffPath);
  ASSERT_EQ(diff.shape, da.shape);
  ASSERT_EQ(diff.shape.size(), 4u);
  EXPECT_EQ(diff.shape[0], 2);  // every layer of the default model
  double worst = 0, largest = 0;
  for (size_t i = 0; i < diff.values.size(); ++i) {
    worst = std::max(worst, std::fabs(double(diff.values[i]) - (da.values[i] - db.values[i])));
    largest = std::max(largest, std::fabs(double(da.values[i]) - db.values[i]));
  }
  EXPECT_LT(worst, 1e-7);
  EXPECT_GT(largest, 1e-3) << "a changed word must change some attention";
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["differing_positions"], nlohmann::json::array({2})) << r.out;
  EXPECT_EQ(j["a"]["tokens"][2], " cat");
  EXPECT_EQ(j["b"]["tokens"][2], " dog");
  EXPECT_NEAR(j["max_abs_diff"].get<double>(), largest, 1e-6);
  EXPECT_EQ(j["heads"].size(), 8u);
}

TEST(CompareCli, AModelAgainstItselfDiffersByZero) {
  const auto r =
      runCommand(cli() + "compare " + layerA() + " --model-b " + layerA() + " --input " + input());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto rows = csvRows(r.out);
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) EXPECT_EQ(std::stod(row[2]), 0.0) << row[0] << "," << row[1];
}

TEST(CompareCli, RefusalsNameTheProblemAndWriteNothing) {
  const std::string out = test::tempPath("never.npy");
  struct Case {
    std::string args, message;
    int exitCode;
  };
  const Case cases[] = {
      {"compare " + defaultModel() + " --model-b " + layerA() + " --text \"the cat\"",
       "model B has 1 layers × 4 heads, model A", 1},
      {"compare " + layerA() + " --input " + input() + " --input-b " +
           shellQuote(fixture("attention/safetensors/text_input.npy")),
       "A has 5 tokens, B has 6", 1},
      {"compare " + layerA() + " --input " + input(), "nothing to compare", 2},
      {"compare " + layerA() + " --input " + input() + " --text-b \"a b\" --format xml",
       "--format 'xml'", 2},
  };
  for (const Case& c : cases) {
    const auto r = runCommand(cli() + c.args + " --out " + shellQuote(out));
    EXPECT_EQ(r.exitCode, c.exitCode) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.args;
  }
}

}  // namespace
}  // namespace headmap
