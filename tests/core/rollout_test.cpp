#include "core/analysis/rollout.h"

#include <gtest/gtest.h>

#include "core/common/error.h"
#include "tests/core/analysis_fixture.h"

namespace headmap {
namespace {

constexpr double kTol = 1e-6;

// Max |got - want| over a (rows, cols) matrix against a flat fixture list (null = NaN).
double maxDiff(const RowMatrixXf& got, const nlohmann::json& want, size_t offset = 0) {
  double m = 0;
  for (int r = 0; r < got.rows(); ++r) {
    for (int c = 0; c < got.cols(); ++c) {
      const double w = test::jsonNumber(want[offset + static_cast<size_t>(r) * got.cols() + c]);
      m = std::max(m, test::nanAwareDiff(got(r, c), w));
    }
  }
  return m;
}

LayerAttention layer(int index, const std::vector<std::vector<float>>& rows, int heads = 1) {
  LayerAttention l;
  l.layer = index;
  const int n = static_cast<int>(rows.size());
  l.result.weights.heads = heads;
  l.result.weights.q = l.result.weights.k = n;
  for (int h = 0; h < heads; ++h) {
    for (const auto& row : rows) {
      l.result.weights.values.insert(l.result.weights.values.end(), row.begin(), row.end());
    }
  }
  return l;
}

class RolloutFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(RolloutFixture, MeanOverHeadsMatchesNumPy) {
  const test::AnalysisCase c = test::loadAnalysisCase(GetParam());
  const auto& mean = c.expected["mean"];
  for (size_t l = 0; l < c.run.layers.size(); ++l) {
    const RowMatrixXf got = meanOverHeads(c.run.layers[l].result.weights);
    ASSERT_EQ(got.rows(), c.n);
    ASSERT_EQ(got.cols(), c.n);
    const double diff = maxDiff(got, mean, l * c.n * c.n);
    EXPECT_LE(diff, kTol) << GetParam() << " layer " << l << ": max |C++ - NumPy| = " << diff;
  }
}

TEST_P(RolloutFixture, RolloutMatchesNumPy) {
  const test::AnalysisCase c = test::loadAnalysisCase(GetParam());
  const RowMatrixXf got = attentionRollout(c.run);
  ASSERT_EQ(got.rows(), c.n);
  ASSERT_EQ(got.cols(), c.n);
  const double diff = maxDiff(got, c.expected["rollout"]);
  EXPECT_LE(diff, kTol) << GetParam() << ": max |C++ - NumPy| = " << diff;
  std::cout << GetParam() << ": rollout max |C++ - NumPy| = " << diff << "\n";
  for (int r = 0; r < got.rows(); ++r) EXPECT_NEAR(got.row(r).sum(), 1.0, 1e-5) << "row " << r;
}

INSTANTIATE_TEST_SUITE_P(Analysis, RolloutFixture, ::testing::ValuesIn(test::kAnalysisCases));

TEST(Rollout, HandComputedTwoLayers) {
  // A = [[1, 0], [.5, .5]] -> Â = rownorm(A + I) = [[1, 0], [.25, .75]];
  // Â·Â = [[1, 0], [.25 + .75 * .25, .75 * .75]] = [[1, 0], [.4375, .5625]].
  ModelRun run;
  run.layers.push_back(layer(0, {{1, 0}, {0.5f, 0.5f}}, 3));
  RowMatrixXf one = attentionRollout(run);
  EXPECT_NEAR(one(1, 0), 0.25, 1e-7);
  EXPECT_NEAR(one(1, 1), 0.75, 1e-7);
  run.layers.push_back(layer(1, {{1, 0}, {0.5f, 0.5f}}, 3));
  RowMatrixXf two = attentionRollout(run);
  EXPECT_NEAR(two(0, 0), 1.0, 1e-7);
  EXPECT_NEAR(two(0, 1), 0.0, 1e-7);
  EXPECT_NEAR(two(1, 0), 0.4375, 1e-7);
  EXPECT_NEAR(two(1, 1), 0.5625, 1e-7);
}

TEST(Rollout, OrderIsLastLayerOnTheLeft) {
  // Non-commuting layers (n = 3, no masks): L1 puts every row on token 2, L2 looks back one.
  ModelRun run;
  run.layers.push_back(layer(0, {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}));
  run.layers.push_back(layer(1, {{1, 0, 0}, {1, 0, 0}, {0, 1, 0}}));
  RowMatrixXf a1(3, 3), a2(3, 3);
  a1 << 0.5f, 0, 0.5f, 0, 0.5f, 0.5f, 0, 0, 1;  // rownorm(L1 + I)
  a2 << 1, 0, 0, 0.5f, 0.5f, 0, 0, 0.5f, 0.5f;  // rownorm(L2 + I)
  const RowMatrixXf want = a2 * a1;
  const RowMatrixXf got = attentionRollout(run);
  EXPECT_LE((got - want).cwiseAbs().maxCoeff(), 1e-7) << "got\n" << got << "\nwant\n" << want;
  EXPECT_GT((want - a1 * a2).cwiseAbs().maxCoeff(), 0.1);  // the order is observable
}

TEST(Rollout, FullyMaskedRowBecomesIdentityRow) {
  LayerAttention l = layer(0, {{NAN, NAN}, {0.5f, 0.5f}});
  l.result.fullyMasked = {1, 0};
  const RowMatrixXf r = residualAttention(l.result);
  EXPECT_FLOAT_EQ(r(0, 0), 1.0f);
  EXPECT_FLOAT_EQ(r(0, 1), 0.0f);
  EXPECT_FLOAT_EQ(r(1, 0), 0.25f);
}

TEST(Rollout, MeanOverHeadsAveragesHeads) {
  LayerAttention l = layer(0, {{1, 0}, {0, 1}}, 2);
  l.result.weights.head(1) << 0, 1, 1, 0;
  const RowMatrixXf m = meanOverHeads(l.result.weights);
  EXPECT_FLOAT_EQ(m(0, 0), 0.5f);
  EXPECT_FLOAT_EQ(m(1, 0), 0.5f);
}

TEST(Rollout, ErrorsNameTheProblem) {
  ModelRun run;
  EXPECT_THROW(attentionRollout(run), Error);
  run.layers.push_back(layer(0, {{1, 0}, {0.5f, 0.5f}}));
  run.layers.push_back(layer(2, {{1, 0}, {0.5f, 0.5f}}));
  try {
    attentionRollout(run);
    FAIL() << "expected headmap::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("layer 0 followed by layer 2"), std::string::npos)
        << e.what();
  }
  run.layers[1] = layer(1, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
  EXPECT_THROW(attentionRollout(run), Error);  // size changes between layers
  HeadMaps empty;
  EXPECT_THROW(meanOverHeads(empty), Error);
}

}  // namespace
}  // namespace headmap
