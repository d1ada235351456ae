// The shared layers against values computed by hand / closed forms.
#include <gtest/gtest.h>

#include <cmath>

#include "core/model/layers.h"

namespace headmap {
namespace {

TEST(ModelLayers, GeluVariantsMatchClosedForms) {
  RowMatrixXf x(1, 3);
  x << -1.0f, 0.5f, 2.0f;
  RowMatrixXf erf = x, tanhApprox = x;
  activateInPlace(erf, Activation::GeluErf);
  activateInPlace(tanhApprox, Activation::GeluTanh);
  // torch.nn.functional.gelu(x) and gelu(x, approximate="tanh")
  EXPECT_NEAR(erf(0, 0), -0.15865525f, 1e-6);
  EXPECT_NEAR(erf(0, 1), 0.34573123f, 1e-6);
  EXPECT_NEAR(erf(0, 2), 1.95449974f, 1e-6);
  EXPECT_NEAR(tanhApprox(0, 0), -0.15880801f, 1e-6);
  EXPECT_NEAR(tanhApprox(0, 2), 1.95459769f, 1e-6);
}

TEST(ModelLayers, NormsUseTheirEpsilon) {
  RowMatrixXf x(1, 4);
  x << 1.0f, 2.0f, 3.0f, 6.0f;  // mean 3, biased variance 3.5, mean square 12.5
  VectorXf gain = VectorXf::Constant(4, 2.0f), bias = VectorXf::Constant(4, 1.0f);
  const RowMatrixXf ln = layerNorm(x, gain, bias, 0.5f);
  EXPECT_NEAR(ln(0, 3), 3.0f / 2.0f * 2.0f + 1.0f, 1e-6);  // (6-3)/sqrt(3.5+0.5)*2+1
  const RowMatrixXf rms = rmsNorm(x, gain, 3.5f);
  EXPECT_NEAR(rms(0, 1), 2.0f / 4.0f * 2.0f, 1e-6);  // 2/sqrt(12.5+3.5)*2
}

TEST(ModelLayers, RopeAtPositionZeroIsIdentityAndPreservesNorms) {
  RowMatrixXf x = RowMatrixXf::Random(5, 16);
  RowMatrixXf y = x;
  applyRope(y, 2, 8, 10000.0f, RopeLayout::RotateHalf);
  EXPECT_EQ(y.row(0), x.row(0));
  for (int t = 0; t < 5; ++t) {
    for (int h = 0; h < 2; ++h) {
      EXPECT_NEAR(y.row(t).segment(8 * h, 8).norm(), x.row(t).segment(8 * h, 8).norm(), 1e-5);
    }
  }
  // Position 1, first pair of the first head turns by exactly 1 radian.
  RowMatrixXf e = RowMatrixXf::Zero(2, 8);
  e(1, 0) = 1.0f;
  applyRope(e, 1, 8, 10000.0f, RopeLayout::RotateHalf);
  EXPECT_NEAR(e(1, 0), std::cos(1.0f), 1e-6);
  EXPECT_NEAR(e(1, 4), std::sin(1.0f), 1e-6);
}

// Reordering each head's features (even ones first, then odd ones) maps the adjacent-pair layout
// onto the rotate-half layout: what the llama2.c -> Hugging Face conversion relies on.
TEST(ModelLayers, RopeLayoutsAgreeUpToTheEvenOddPermutation) {
  const int heads = 3, dh = 8;
  RowMatrixXf x = RowMatrixXf::Random(6, heads * dh);
  RowMatrixXf permuted(6, heads * dh);
  for (int h = 0; h < heads; ++h) {
    for (int i = 0; i < dh / 2; ++i) {
      permuted.col(h * dh + i) = x.col(h * dh + 2 * i);
      permuted.col(h * dh + dh / 2 + i) = x.col(h * dh + 2 * i + 1);
    }
  }
  applyRope(x, heads, dh, 500.0f, RopeLayout::AdjacentPairs);
  applyRope(permuted, heads, dh, 500.0f, RopeLayout::RotateHalf);
  for (int h = 0; h < heads; ++h) {
    for (int i = 0; i < dh / 2; ++i) {
      EXPECT_LT((permuted.col(h * dh + i) - x.col(h * dh + 2 * i)).cwiseAbs().maxCoeff(), 1e-6);
      EXPECT_LT(
          (permuted.col(h * dh + dh / 2 + i) - x.col(h * dh + 2 * i + 1)).cwiseAbs().maxCoeff(),
          1e-6);
    }
  }
}

TEST(ModelLayers, LinearAndConv1dLayouts) {
  RowMatrixXf x(1, 2);
  x << 1.0f, 2.0f;
  RowMatrixXf w(3, 2);  // nn.Linear (out=3, in=2)
  w << 1, 0, 0, 1, 1, 1;
  VectorXf b = VectorXf::Constant(3, 0.5f);
  const RowMatrixXf y = linear(x, w, b);
  EXPECT_EQ(y(0, 2), 3.5f);
  const RowMatrixXf z = conv1d(x, w.transpose(), b);  // Conv1D stores (in, out)
  EXPECT_EQ(z, y);
}

}  // namespace
}  // namespace headmap
