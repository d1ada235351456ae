// The embedded default model (resources/default_model) loads through the generic GPT-2 path and
// reproduces the attention PyTorch computed for it (tests/fixtures/default_model/reference.json,
// written by scripts/analyze_default_model.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/model/load.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

nlohmann::json readReference() {
  std::ifstream in(test::fixture("default_model/reference.json"));
  EXPECT_TRUE(in.good()) << "missing tests/fixtures/default_model/reference.json";
  return nlohmann::json::parse(in);
}

std::string defaultModelPath() { return test::fixture("../../resources/default_model"); }

TEST(DefaultModel, LoadsAsGpt2) {
  nlohmann::json ref = readReference();
  LoadedModel m = loadModel(defaultModelPath());
  ASSERT_TRUE(m.model);
  ASSERT_TRUE(m.tokenizer);
  ModelInfo info = m.model->info();
  EXPECT_EQ(info.family, "gpt2");
  EXPECT_EQ(info.layers, ref["n_layer"].get<int>());
  EXPECT_EQ(info.heads, ref["n_head"].get<int>());
  EXPECT_EQ(info.dModel, 64);
  EXPECT_EQ(info.maxPositions, 128);
  EXPECT_TRUE(info.causalBuiltIn);
}

TEST(DefaultModel, TokenizerMatchesTheTrainingScript) {
  nlohmann::json ref = readReference();
  LoadedModel m = loadModel(defaultModelPath());
  std::vector<Token> tokens = m.tokenizer->encode(ref["text"].get<std::string>());
  std::vector<int> ids;
  std::vector<std::string> pieces;
  for (const Token& t : tokens) {
    ids.push_back(t.id);
    pieces.push_back(t.piece);
  }
  EXPECT_EQ(ids, ref["ids"].get<std::vector<int>>());
  EXPECT_EQ(pieces, ref["tokens"].get<std::vector<std::string>>());
}

TEST(DefaultModel, AttentionMatchesPyTorch) {
  nlohmann::json ref = readReference();
  LoadedModel m = loadModel(defaultModelPath());
  std::vector<int> ids = ref["ids"].get<std::vector<int>>();
  ModelInput input;
  input.tokens = m.tokenizer->fromIds(ids);
  ModelRun run = m.model->run(input, RunOptions{});

  const auto& layers = ref["attention"];
  ASSERT_EQ(run.layers.size(), layers.size());
  const int n = static_cast<int>(ids.size());
  float maxDiff = 0.0f;
  for (size_t l = 0; l < layers.size(); ++l) {
    const HeadMaps& w = run.layers[l].result.weights;
    ASSERT_EQ(w.heads, static_cast<int>(layers[l].size()));
    ASSERT_EQ(w.q, n);
    ASSERT_EQ(w.k, n);
    for (int h = 0; h < w.heads; ++h) {
      auto head = w.head(h);
      for (int q = 0; q < n; ++q) {
        for (int k = 0; k < n; ++k) {
          float expected = layers[l][h][q][k].get<float>();
          maxDiff = std::max(maxDiff, std::abs(head(q, k) - expected));
        }
      }
    }
  }
  EXPECT_LT(maxDiff, 1e-4f) << "max |attention - PyTorch| = " << maxDiff;

  // The LM head (tied to wte) for the last token.
  std::vector<float> expected = ref["logits_last"].get<std::vector<float>>();
  ASSERT_EQ(run.logits.size(), static_cast<size_t>(n) * expected.size())
      << "RunOptions::logits is on by default: (n, vocab) logits expected";
  float maxLogitDiff = 0.0f;
  const float* last = run.logits.data() + static_cast<size_t>(n - 1) * expected.size();
  for (size_t i = 0; i < expected.size(); ++i) {
    maxLogitDiff = std::max(maxLogitDiff, std::abs(last[i] - expected[i]));
  }
  EXPECT_LT(maxLogitDiff, 1e-3f) << "max |logits - PyTorch| = " << maxLogitDiff;
}

}  // namespace
}  // namespace headmap
