#include "core/analysis/head_stats.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/common/error.h"
#include "tests/core/analysis_fixture.h"

namespace headmap {
namespace {

constexpr double kTol = 1e-6;

// One layer of `heads` copies of a (n, n) map given row by row, optionally causal-masked.
AttentionResult layerOf(const std::vector<std::vector<float>>& rows, int heads, bool causal) {
  AttentionResult r;
  const int n = static_cast<int>(rows.size());
  r.weights.heads = heads;
  r.weights.q = r.weights.k = n;
  for (int h = 0; h < heads; ++h) {
    for (const auto& row : rows)
      r.weights.values.insert(r.weights.values.end(), row.begin(), row.end());
  }
  r.keyMask.assign(static_cast<size_t>(n) * n, 0);
  r.fullyMasked.assign(n, 0);
  if (causal) {
    for (int q = 0; q < n; ++q) {
      for (int k = q + 1; k < n; ++k) r.keyMask[q * n + k] = 1;
    }
  }
  return r;
}

class HeadStatsFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(HeadStatsFixture, MatchesNumPy) {
  const test::AnalysisCase c = test::loadAnalysisCase(GetParam());
  const std::vector<HeadStats> stats = computeHeadStats(c.run, c.ids);
  const auto& expected = c.expected["stats"];
  ASSERT_EQ(stats.size(), expected.size());
  double maxDiff = 0;
  for (size_t i = 0; i < stats.size(); ++i) {
    const HeadStats& s = stats[i];
    const auto& e = expected[i];
    EXPECT_EQ(s.layer, e["layer"].get<int>());
    EXPECT_EQ(s.head, e["head"].get<int>());
    const std::pair<const char*, double> fields[] = {{"entropy", s.entropy},
                                                     {"meanDistance", s.meanDistance},
                                                     {"firstTokenMass", s.firstTokenMass},
                                                     {"previousToken", s.previousToken},
                                                     {"diagonal", s.diagonal}};
    for (const auto& [name, got] : fields) {
      const double want = test::jsonNumber(e[name]);
      const double diff = test::nanAwareDiff(got, want);
      maxDiff = std::max(maxDiff, diff);
      EXPECT_LE(diff, kTol) << GetParam() << " layer " << s.layer << " head " << s.head << " "
                            << name << ": got " << got << ", NumPy " << want;
    }
    if (e["induction"].is_null()) {
      EXPECT_FALSE(s.induction.has_value()) << "layer " << s.layer << " head " << s.head;
    } else {
      ASSERT_TRUE(s.induction.has_value()) << "layer " << s.layer << " head " << s.head;
      const double diff = std::abs(*s.induction - e["induction"].get<double>());
      maxDiff = std::max(maxDiff, diff);
      EXPECT_LE(diff, kTol) << "induction, layer " << s.layer << " head " << s.head;
    }
  }
  std::cout << GetParam() << ": max |C++ - NumPy| over all statistics = " << maxDiff << "\n";
}

INSTANTIATE_TEST_SUITE_P(Analysis, HeadStatsFixture, ::testing::ValuesIn(test::kAnalysisCases));

TEST(HeadStats, PurePreviousTokenHead) {
  // Row 0 can only see itself; every later row puts all its weight on q - 1.
  const int n = 6;
  std::vector<std::vector<float>> rows(n, std::vector<float>(n, 0.0f));
  rows[0][0] = 1;
  for (int q = 1; q < n; ++q) rows[q][q - 1] = 1;
  ModelRun run;
  run.layers.push_back({0, layerOf(rows, 2, true)});
  const auto stats = computeHeadStats(run, {});
  ASSERT_EQ(stats.size(), 2u);
  for (const HeadStats& s : stats) {
    EXPECT_DOUBLE_EQ(s.previousToken, 1.0);
    EXPECT_DOUBLE_EQ(s.entropy, 0.0);
    EXPECT_DOUBLE_EQ(s.diagonal, 1.0 / n);            // only row 0 is on itself
    EXPECT_DOUBLE_EQ(s.meanDistance, (n - 1.0) / n);  // distance 1 in all rows but row 0
    EXPECT_DOUBLE_EQ(s.firstTokenMass, 2.0 / n);      // rows 0 and 1
    EXPECT_FALSE(s.induction.has_value());            // no ids given
  }
  EXPECT_EQ(stats[1].head, 1);
}

TEST(HeadStats, UniformCausalRows) {
  // w[q, k] = 1 / (q + 1) for k <= q: entropy ln(q + 1), distance q / 2, first-token 1 / (q + 1).
  const int n = 7;
  std::vector<std::vector<float>> rows(n, std::vector<float>(n, 0.0f));
  double entropy = 0, distance = 0, first = 0, previous = 0;
  for (int q = 0; q < n; ++q) {
    for (int k = 0; k <= q; ++k) rows[q][k] = 1.0f / (q + 1);
    entropy += std::log(q + 1.0);
    distance += q / 2.0;
    first += 1.0 / (q + 1);
    if (q >= 1) previous += 1.0 / (q + 1);
  }
  ModelRun run;
  run.layers.push_back({3, layerOf(rows, 1, true)});
  const auto stats = computeHeadStats(run, {5, 6, 5, 6, 5, 6, 5});
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].layer, 3);
  EXPECT_NEAR(stats[0].entropy, entropy / n, 1e-6);
  EXPECT_NEAR(stats[0].meanDistance, distance / n, 1e-6);
  EXPECT_NEAR(stats[0].firstTokenMass, first / n, 1e-6);
  EXPECT_NEAR(stats[0].diagonal, first / n, 1e-6);
  EXPECT_NEAR(stats[0].previousToken, previous / (n - 1), 1e-6);
  // ids 5 6 5 6 5 6 5: queries 2..6 repeat the token two back; target p + 1 = q - 1.
  ASSERT_TRUE(stats[0].induction.has_value());
  EXPECT_NEAR(*stats[0].induction, (1.0 / 3 + 1.0 / 4 + 1.0 / 5 + 1.0 / 6 + 1.0 / 7) / 5, 1e-6);
}

TEST(HeadStats, PerfectInductionHead) {
  // A B C A B C: queries 3, 4, 5 look at the token after the earlier occurrence (1, 2, 3).
  const int n = 6;
  std::vector<std::vector<float>> rows(n, std::vector<float>(n, 0.0f));
  for (int q = 0; q < 3; ++q) rows[q][q] = 1;
  for (int q = 3; q < n; ++q) rows[q][q - 2] = 1;
  ModelRun run;
  run.layers.push_back({0, layerOf(rows, 1, true)});
  const auto stats = computeHeadStats(run, {10, 11, 12, 10, 11, 12});
  ASSERT_TRUE(stats[0].induction.has_value());
  EXPECT_DOUBLE_EQ(*stats[0].induction, 1.0);
  EXPECT_DOUBLE_EQ(stats[0].previousToken, 0.0);
}

TEST(HeadStats, ImmediateRepeatDoesNotCount) {
  // "x x": the earlier occurrence is q - 1, its successor is q itself (the diagonal): skipped.
  std::vector<std::vector<float>> rows = {{1, 0}, {0.5f, 0.5f}};
  ModelRun run;
  run.layers.push_back({0, layerOf(rows, 1, true)});
  EXPECT_FALSE(computeHeadStats(run, {4, 4})[0].induction.has_value());
}

TEST(HeadStats, SingleTokenHasNoPreviousToken) {
  ModelRun run;
  run.layers.push_back({0, layerOf({{1.0f}}, 1, true)});
  const auto s = computeHeadStats(run, {1})[0];
  EXPECT_TRUE(std::isnan(s.previousToken));
  EXPECT_DOUBLE_EQ(s.diagonal, 1.0);
  EXPECT_DOUBLE_EQ(s.entropy, 0.0);
}

TEST(HeadStats, EmptyMaskMeansNothingMasked) {
  AttentionResult r = layerOf({{0.5f, 0.5f}, {0.25f, 0.75f}}, 1, false);
  r.keyMask.clear();
  r.fullyMasked.clear();
  ModelRun run;
  run.layers.push_back({0, r});
  const auto s = computeHeadStats(run, {})[0];
  EXPECT_NEAR(s.meanDistance, (0.5 + 0.25) / 2, 1e-12);
  EXPECT_NEAR(s.previousToken, 0.25, 1e-12);
}

TEST(HeadStats, IdsFromPiecesNumbersByFirstOccurrence) {
  std::vector<Token> tokens(5);
  const char* pieces[] = {"the", "cat", "the", "sat", "cat"};
  for (int i = 0; i < 5; ++i) {
    tokens[i].id = i;
    tokens[i].piece = pieces[i];
  }
  EXPECT_EQ(idsFromPieces(tokens), (std::vector<int>{0, 1, 0, 3, 1}));
}

TEST(HeadStats, BadShapesThrowNamingTheValues) {
  ModelRun run;
  run.layers.push_back({2, layerOf({{1, 0}, {0.5f, 0.5f}}, 1, true)});
  try {
    computeHeadStats(run, {1, 2, 3});
    FAIL() << "expected headmap::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2 tokens but 3 token ids"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("layer 2"), std::string::npos) << e.what();
  }
  run.layers[0].result.weights.k = 3;
  EXPECT_THROW(computeHeadStats(run, {}), Error);
  run.layers[0].result.weights.k = 2;
  run.layers[0].result.keyMask.resize(3);
  EXPECT_THROW(computeHeadStats(run, {}), Error);
}

}  // namespace
}  // namespace headmap
