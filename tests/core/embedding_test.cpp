#include "core/attention/embedding.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/common/error.h"
#include "core/io/npy.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

TEST(Embedding, KnownHashVectors) {
  // Published FNV-1a 64 test vectors and SplitMix64's first output for seed 0.
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xe220a8397b1dcdafULL);
}

TEST(Embedding, MatchesIndependentPythonRecipe) {
  // text_input.npy comes from make_attention_fixtures.py's own implementation of the recipe.
  NpyArray ref = readNpy(test::fixture("attention/safetensors/text_input.npy"));
  RowMatrixXf x = tokenEmbeddings({"the", "cat", "sat", "on", "the", "mat"}, 64);
  ASSERT_EQ(ref.shape, (std::vector<int64_t>{6, 64}));
  double worst = 0;
  for (int i = 0; i < x.size(); ++i)
    worst = std::max(worst, double(std::fabs(x.data()[i] - ref.values[i])));
  EXPECT_LE(worst, 1e-6) << "max |diff| = " << worst;
}

TEST(Embedding, PositionEncodingValues) {
  RowMatrixXf pe = sinusoidalPositions(3, 6);
  EXPECT_FLOAT_EQ(pe(0, 0), 0.0f);
  EXPECT_FLOAT_EQ(pe(0, 1), 1.0f);
  EXPECT_FLOAT_EQ(pe(1, 0), std::sin(1.0f));
  EXPECT_FLOAT_EQ(pe(1, 1), std::cos(1.0f));
  EXPECT_FLOAT_EQ(pe(2, 2), float(std::sin(2.0 / std::pow(10000.0, 2.0 / 6))));
  EXPECT_FLOAT_EQ(pe(2, 5), float(std::cos(2.0 / std::pow(10000.0, 4.0 / 6))));
  EXPECT_EQ(sinusoidalPositions(2, 5).cols(), 5);  // odd d_model: last column is a sin
}

TEST(Embedding, SameTokenSameVectorPositionsDiffer) {
  RowMatrixXf x = tokenEmbeddings({"the", "cat", "the"}, 16);
  RowMatrixXf pe = sinusoidalPositions(3, 16);
  const VectorXf the = tokenVector("the", 16);
  EXPECT_EQ(RowMatrixXf(x.row(0)), RowMatrixXf(the.transpose() + pe.row(0)));
  EXPECT_EQ(RowMatrixXf(x.row(2)), RowMatrixXf(the.transpose() + pe.row(2)));
  EXPECT_NE(RowMatrixXf(x.row(0)), RowMatrixXf(x.row(2)));
  VectorXf e = tokenVector("héllo", 1000);  // UTF-8 bytes hash like any others
  EXPECT_LE(e.maxCoeff(), 1.0f);
  EXPECT_GE(e.minCoeff(), -1.0f);
  EXPECT_NEAR(e.mean(), 0.0f, 0.1f);
  EXPECT_THROW(tokenEmbeddings({"a"}, 0), Error);
  EXPECT_EQ(tokenEmbeddings({}, 8).rows(), 0);
}

TEST(Embedding, RandomLayerIsDeterministicAndBounded) {
  AttentionLayerWeights a = randomAttentionLayer(64, 4, 7), b = randomAttentionLayer(64, 4, 7);
  AttentionLayerWeights c = randomAttentionLayer(64, 4, 8);
  a.validate("random");
  EXPECT_EQ(a.wq, b.wq);
  EXPECT_EQ(a.bo, b.bo);
  EXPECT_NE(a.wq, c.wq);
  EXPECT_NE(a.wq, a.wk);
  EXPECT_LE(a.wv.cwiseAbs().maxCoeff(), 1.0f / 8);
  EXPECT_GT(a.wv.cwiseAbs().maxCoeff(), 0.9f / 8);
  try {
    randomAttentionLayer(10, 4, 1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("10"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("4"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace headmap
