// A .pt state dict and the same weights written as safetensors (by the fixture script) must give
// the same attention through the whole loading path: openTensorFile -> layer finder -> Model::run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/model/load.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

float maxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float m = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

TEST(TorchAttention, PtFileEqualsSafetensorsOfTheSameWeights) {
  LoadOptions options;
  options.heads = 4;
  LoadedModel pt = loadModel(test::fixture("torch/mha.pt"), options);
  LoadedModel st = loadModel(test::fixture("torch/mha.safetensors"), options);
  ASSERT_TRUE(pt.model && st.model);
  EXPECT_EQ(pt.model->info().heads, 4);
  EXPECT_EQ(pt.model->info().dModel, 64);

  // Deterministic (n=7, d_model=64) input, the same for both.
  RowMatrixXf x(7, 64);
  for (int i = 0; i < x.rows(); ++i) {
    for (int j = 0; j < x.cols(); ++j) x(i, j) = std::sin(0.37f * i + 0.11f * j * j);
  }
  ModelInput input;
  input.embeddings = x;
  for (bool causal : {false, true}) {
    RunOptions run;
    run.attention.causal = causal;
    ModelRun a = pt.model->run(input, run);
    ModelRun b = st.model->run(input, run);
    ASSERT_EQ(a.layers.size(), 1u);
    ASSERT_EQ(b.layers.size(), 1u);
    const AttentionResult& ra = a.layers[0].result;
    const AttentionResult& rb = b.layers[0].result;
    ASSERT_EQ(ra.weights.heads, 4);
    ASSERT_EQ(ra.weights.q, 7);
    float dw = maxAbsDiff(ra.weights.values, rb.weights.values);
    EXPECT_LE(dw, 1e-6f) << "attention weights differ (causal " << causal << "), max |diff| " << dw;
    std::vector<float> oa(ra.output.data(), ra.output.data() + ra.output.size());
    std::vector<float> ob(rb.output.data(), rb.output.data() + rb.output.size());
    ASSERT_EQ(oa.size(), 7u * 64u);
    float dout = maxAbsDiff(oa, ob);
    EXPECT_LE(dout, 1e-6f) << "outputs differ (causal " << causal << "), max |diff| " << dout;
  }
}

TEST(TorchAttention, TorchMultiheadAttentionStateDictLoads) {
  LoadOptions options;
  options.heads = 4;
  LoadedModel m = loadModel(test::fixture("torch/torch_mha.pt"), options);
  EXPECT_EQ(m.model->info().dModel, 64);
  EXPECT_EQ(m.model->info().heads, 4);
  EXPECT_EQ(m.format, "torch");
}

TEST(TorchAttention, CheckpointWrappersFindTheLayer) {
  LoadOptions options;
  options.heads = 2;
  for (const char* file : {"checkpoint.pt", "wrapped.pt", "data_parallel.pt", "parameters.pt"}) {
    LoadedModel m = loadModel(test::fixture(std::string("torch/") + file), options);
    EXPECT_EQ(m.model->info().dModel, 16) << file;
  }
}

}  // namespace
}  // namespace headmap
