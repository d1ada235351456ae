// loadModel on torch-saved attention layers: per-head weights and layer output against
// torch.nn.MultiheadAttention (tests/fixtures/attention/safetensors, see its README).
#include "core/model/attention_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/common/error.h"
#include "core/io/npy.h"
#include "core/model/load.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

std::string st(const std::string& name) { return test::fixture("attention/safetensors/" + name); }

RowMatrixXf inputMatrix(const std::string& name) {
  NpyArray a = readNpy(st(name));
  return ConstRowMatrixMap(a.values.data(), a.shape[0], a.shape[1]);
}

void expectClose(const std::vector<float>& actual, const std::string& reference, float tol) {
  NpyArray expected = readNpy(st(reference));
  ASSERT_EQ(actual.size(), expected.values.size()) << reference;
  float maxDiff = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    maxDiff = std::max(maxDiff, std::abs(actual[i] - expected.values[i]));
  }
  EXPECT_LE(maxDiff, tol) << "max |diff| vs " << reference << " = " << maxDiff;
}

std::vector<float> flat(const RowMatrixXf& m) { return {m.data(), m.data() + m.size()}; }

ModelRun runOn(const LoadedModel& m, const std::string& input, const AttentionOptions& a = {}) {
  ModelInput in;
  in.embeddings = inputMatrix(input);
  RunOptions options;
  options.attention = a;
  return m.model->run(in, options);
}

TEST(LoadModel, TorchStateDictMatchesTorch) {
  LoadedModel m = loadModel(st("mha_state_dict.safetensors"));
  ModelInfo info = m.model->info();
  EXPECT_EQ(info.family, "attention");
  EXPECT_EQ(info.layers, 1);
  EXPECT_EQ(info.heads, 4);  // from __metadata__
  EXPECT_EQ(info.dModel, 64);
  EXPECT_EQ(m.format, "safetensors");
  EXPECT_EQ(m.tensors.size(), 4u);
  EXPECT_EQ(m.tokenizer->kind(), "whitespace");
  ModelRun run = runOn(m, "input.npy");
  ASSERT_EQ(run.layers.size(), 1u);
  expectClose(run.layers[0].result.weights.values, "mha_state_dict_weights.npy", 1e-5f);
  expectClose(flat(run.layers[0].result.output), "mha_state_dict_output.npy", 1e-5f);

  AttentionOptions masks;
  masks.causal = true;
  masks.paddedKeys = {4};
  run = runOn(m, "input.npy", masks);
  expectClose(run.layers[0].result.weights.values, "mha_state_dict_causal_pad4_weights.npy", 1e-5f);
  expectClose(flat(run.layers[0].result.output), "mha_state_dict_causal_pad4_output.npy", 1e-5f);
}

TEST(LoadModel, TextTokensUseTheTokenEmbeddings) {
  LoadedModel m = loadModel(st("mha_state_dict.safetensors"));
  ModelInput in;
  in.tokens = m.tokenizer->encode("the cat sat on the mat");
  ModelRun run = m.model->run(in, {});
  expectClose(run.layers[0].result.weights.values, "mha_state_dict_text_weights.npy", 1e-5f);
  expectClose(flat(run.layers[0].result.output), "mha_state_dict_text_output.npy", 1e-5f);
}

TEST(LoadModel, PrefixedTutorialLayoutNeedsHeads) {
  EXPECT_THROW(loadModel(st("tutorial_prefixed.safetensors")), Error);
  LoadOptions options;
  options.heads = 4;
  LoadedModel m = loadModel(st("tutorial_prefixed.safetensors"), options);
  EXPECT_NE(m.model->info().name.find("model.attn."), std::string::npos) << m.model->info().name;
  ModelRun run = runOn(m, "input.npy");
  expectClose(run.layers[0].result.weights.values, "tutorial_prefixed_weights.npy", 1e-5f);
  expectClose(flat(run.layers[0].result.output), "tutorial_prefixed_output.npy", 1e-5f);
}

TEST(LoadModel, EncoderLayersChosenByIndexOrPrefix) {
  auto layers = listAttentionLayers(st("encoder_layers.safetensors"));
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[2].prefix, "encoder.layers.2.self_attn.");
  for (int i = 0; i < 3; ++i) {
    LoadOptions options;
    options.layer = i == 1 ? "encoder.layers.1.self_attn." : std::to_string(i);
    LoadedModel m = loadModel(st("encoder_layers.safetensors"), options);
    ModelRun run = runOn(m, "input.npy");
    expectClose(run.layers[0].result.weights.values,
                "encoder_layer" + std::to_string(i) + "_weights.npy", 1e-5f);
  }
}

TEST(LoadModel, FolderWithoutConfigAndMissingPath) {
  try {
    loadModel(test::fixture("attention"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("without config.json"), std::string::npos) << e.what();
  }
  EXPECT_THROW(loadModel("/nonexistent/model"), Error);
}

TEST(AttentionModel, InputChecks) {
  LoadedModel m = makeRandomLayer(16, 4, 7);
  EXPECT_EQ(m.model->info().heads, 4);
  EXPECT_EQ(m.model->info().dModel, 16);
  ModelInput empty;
  EXPECT_THROW(m.model->run(empty, {}), Error);

  ModelInput wrongWidth;
  wrongWidth.embeddings = RowMatrixXf::Zero(3, 8);
  EXPECT_THROW(m.model->run(wrongWidth, {}), Error);

  ModelInput mismatch;
  mismatch.embeddings = RowMatrixXf::Zero(3, 16);
  mismatch.tokens = m.tokenizer->encode("a b");
  EXPECT_THROW(m.model->run(mismatch, {}), Error);

  ModelInput nan;
  nan.embeddings = RowMatrixXf::Zero(2, 16);
  (*nan.embeddings)(1, 3) = std::nanf("");
  EXPECT_THROW(m.model->run(nan, {}), Error);

  ModelInput ok;
  ok.tokens = m.tokenizer->encode("a b c");
  RunOptions otherLayer;
  otherLayer.layers = {1};
  EXPECT_THROW(m.model->run(ok, otherLayer), Error);
  ModelRun run = m.model->run(ok, {});
  ASSERT_EQ(run.layers.size(), 1u);
  EXPECT_EQ(run.layers[0].result.weights.heads, 4);
  EXPECT_EQ(run.layers[0].result.weights.q, 3);
  EXPECT_THROW(makeRandomLayer(10, 4, 1), Error);
}

TEST(AttentionModel, RefusesMapsBeyondTheMemoryLimit) {
  LoadedModel m = makeRandomLayer(8, 8, 1);
  ModelInput in;
  in.embeddings = RowMatrixXf::Zero(12000, 8);  // 8 × 12000² × 4 bytes ≈ 4.3 GiB
  try {
    m.model->run(in, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("above the limit"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace headmap
