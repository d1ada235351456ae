// Hugging Face folders (GPT-2, BERT, Llama, Qwen2) against PyTorch references made by
// scripts/fixtures/make_model_fixtures.py, plus the loaders' error messages.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>

#include "core/common/error.h"
#include "core/io/npy.h"
#include "core/model/hf_folder.h"
#include "tests/core/model_test_util.h"
#include "tests/test_support.h"

namespace fs = std::filesystem;

namespace headmap {
namespace {

constexpr double kTolerance = 1e-4;

// Runs every case of a fixture folder and compares all layers' heads (and logits when stored).
void expectMatchesTorch(const std::string& folder) {
  const std::string dir = test::fixture("models/" + folder);
  LoadedModel loaded = loadHuggingFaceFolder(dir, {});
  const ModelInfo info = loaded.model->info();
  const auto cases = test::readCases(dir + "/cases.txt");
  ASSERT_FALSE(cases.empty());
  for (const auto& c : cases) {
    RunOptions options;
    options.attention.paddedKeys = c.padded;
    const ModelRun run = loaded.model->run(test::inputFromIds(c.ids), options);
    const NpyArray ref = readNpy(dir + "/attn_" + std::to_string(c.index) + ".npy");
    const int n = static_cast<int>(c.ids.size());
    ASSERT_EQ(ref.shape, (std::vector<int64_t>{info.layers, info.heads, n, n}));
    ASSERT_EQ(static_cast<int>(run.layers.size()), info.layers);
    for (int l = 0; l < info.layers; ++l) {
      const HeadMaps& w = run.layers[l].result.weights;
      ASSERT_EQ(run.layers[l].layer, l);
      ASSERT_EQ(w.values.size(), size_t(info.heads) * n * n);
      const double diff = test::maxAbsDiff(
          w.values.data(), ref.values.data() + size_t(l) * w.values.size(), w.values.size());
      EXPECT_LE(diff, kTolerance) << folder << " case " << c.index << " layer " << l
                                  << ": max |diff| vs torch = " << diff;
      std::printf("%s case %d layer %d: attention max |diff| vs torch %.3g\n", folder.c_str(),
                  c.index, l, diff);
    }
    const std::string logitsPath = dir + "/logits_" + std::to_string(c.index) + ".npy";
    if (fs::exists(logitsPath)) {
      const NpyArray refLogits = readNpy(logitsPath);
      ASSERT_EQ(run.logits.size(), refLogits.values.size()) << folder << ": logits size";
      const double diff =
          test::maxAbsDiff(run.logits.data(), refLogits.values.data(), run.logits.size());
      EXPECT_LE(diff, kTolerance) << folder << " case " << c.index
                                  << ": logits max |diff| vs torch = " << diff;
      std::printf("%s case %d: logits max |diff| vs torch %.3g\n", folder.c_str(), c.index, diff);
    } else {
      EXPECT_TRUE(run.logits.empty());
    }
  }
}

TEST(ModelHf, Gpt2SafetensorsMatchesTorch) { expectMatchesTorch("gpt2"); }
TEST(ModelHf, Gpt2PytorchModelBinMatchesTorch) { expectMatchesTorch("gpt2_torchbin"); }
TEST(ModelHf, BertWithPaddingMatchesTorch) { expectMatchesTorch("bert"); }
TEST(ModelHf, LlamaShardedGqaMatchesTorch) { expectMatchesTorch("llama"); }
TEST(ModelHf, Qwen2BiasBf16TiedMatchesTorch) { expectMatchesTorch("qwen2"); }

TEST(ModelHf, InfoDescribesEachFamily) {
  const ModelInfo gpt2 = loadHuggingFaceFolder(test::fixture("models/gpt2"), {}).model->info();
  EXPECT_EQ(gpt2.family, "gpt2");
  EXPECT_EQ(gpt2.name, "gpt2");
  EXPECT_EQ(gpt2.layers, 2);
  EXPECT_EQ(gpt2.heads, 4);
  EXPECT_EQ(gpt2.dModel, 32);
  EXPECT_EQ(gpt2.vocab, 200);
  EXPECT_EQ(gpt2.maxPositions, 24);
  EXPECT_TRUE(gpt2.causalBuiltIn);
  const ModelInfo bert = loadHuggingFaceFolder(test::fixture("models/bert"), {}).model->info();
  EXPECT_EQ(bert.family, "bert");
  EXPECT_FALSE(bert.causalBuiltIn);
  const ModelInfo llama = loadHuggingFaceFolder(test::fixture("models/llama"), {}).model->info();
  EXPECT_EQ(llama.family, "llama");
  EXPECT_EQ(llama.heads, 4);
  EXPECT_EQ(llama.kvHeads, 2);
  EXPECT_TRUE(llama.causalBuiltIn);
  const ModelInfo qwen = loadHuggingFaceFolder(test::fixture("models/qwen2"), {}).model->info();
  EXPECT_EQ(qwen.kvHeads, 1);
}

TEST(ModelHf, CausalIsForcedForGpt2AndOnlyRequestedLayersAreKept) {
  LoadedModel m = loadHuggingFaceFolder(test::fixture("models/gpt2"), {});
  RunOptions options;
  options.attention.causal = false;  // a causal model ignores this
  options.layers = {1};
  const std::vector<int> ids = {5, 17, 199, 3, 42, 42, 8};
  const ModelRun run = m.model->run(test::inputFromIds(ids), options);
  ASSERT_EQ(run.layers.size(), 1u);
  EXPECT_EQ(run.layers[0].layer, 1);
  EXPECT_TRUE(run.logits.empty() == false);  // layer 1 is the last: the stack ran to the end
  const NpyArray ref = readNpy(test::fixture("models/gpt2/attn_0.npy"));
  const auto& w = run.layers[0].result.weights;
  const double diff =
      test::maxAbsDiff(w.values.data(), ref.values.data() + w.values.size(), w.values.size());
  EXPECT_LE(diff, kTolerance) << "layer 1 alone: max |diff| = " << diff;
  for (int h = 0; h < w.heads; ++h) EXPECT_EQ(w.head(h)(0, 1), 0.0f);

  options.layers = {0};
  const ModelRun first = m.model->run(test::inputFromIds(ids), options);
  ASSERT_EQ(first.layers.size(), 1u);
  EXPECT_EQ(first.layers[0].layer, 0);
  EXPECT_TRUE(first.logits.empty()) << "layer 1 was not needed, so no logits";
}

TEST(ModelHf, BertPaddedKeysWeighZero) {
  LoadedModel m = loadHuggingFaceFolder(test::fixture("models/bert"), {});
  RunOptions options;
  options.attention.paddedKeys = {5, 6, 7};
  const ModelRun run = m.model->run(test::inputFromIds({1, 60, 61, 62, 2, 0, 0, 0}), options);
  for (const auto& layer : run.layers) {
    for (int h = 0; h < layer.result.weights.heads; ++h) {
      EXPECT_EQ(layer.result.weights.head(h).rightCols(3).maxCoeff(), 0.0f);
      EXPECT_GT(layer.result.weights.head(h)(0, 4), 0.0f);  // bidirectional: future keys count
    }
  }
}

void expectErrorContains(const std::function<void()>& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "expected headmap::Error containing '" << parts.front() << "'";
  } catch (const Error& e) {
    for (const std::string& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "message '" << e.what() << "' lacks '" << part << "'";
    }
  }
}

TEST(ModelHf, BadInputsGiveMessagesWithTheNumbers) {
  LoadedModel m = loadHuggingFaceFolder(test::fixture("models/gpt2"), {});
  std::vector<int> tooMany(25, 1);
  expectErrorContains([&] { m.model->run(test::inputFromIds(tooMany), {}); }, {"25", "24"});
  expectErrorContains(
      [&] {
        m.model->run(test::inputFromIds({1, 200}), {});
      },
      {"200", "vocabulary"});
  expectErrorContains([&] { m.model->run(test::inputFromIds({}), {}); }, {"no tokens"});
  RunOptions options;
  options.layers = {2};
  expectErrorContains([&] { m.model->run(test::inputFromIds({1}), options); },
                      {"layer 2", "2 layers"});
}

// Copies a fixture folder to a temp folder and replaces its config.json.
std::string withConfig(const std::string& folder, const std::string& configText) {
  const fs::path dir = test::tempPath(folder);
  fs::create_directories(dir);
  fs::copy(test::fixture("models/" + folder), dir,
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  std::ofstream(dir / "config.json") << configText;
  return dir.string();
}

TEST(ModelHf, MissingOrMisshapenTensorsAreNamed) {
  const std::string moreLayers = withConfig(
      "gpt2",
      R"({"model_type":"gpt2","vocab_size":200,"n_positions":24,"n_embd":32,"n_layer":3,"n_head":4})");
  expectErrorContains([&] { loadHuggingFaceFolder(moreLayers, {}); },
                      {"model.safetensors", "transformer.h.2.ln_1.weight"});
  const std::string morePositions = withConfig(
      "gpt2",
      R"({"model_type":"gpt2","vocab_size":200,"n_positions":30,"n_embd":32,"n_layer":2,"n_head":4})");
  expectErrorContains([&] { loadHuggingFaceFolder(morePositions, {}); },
                      {"transformer.wpe.weight", "[24, 32]", "[30, 32]"});
}

TEST(ModelHf, BadConfigJsonIsNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{not json", "not valid JSON"},
      {R"({"n_embd": 32})", "'model_type'"},
      {R"({"model_type": "t5"})", "'t5'"},
      {R"({"model_type":"gpt2","vocab_size":200,"n_positions":24,"n_layer":2,"n_head":4})",
       "'n_embd'"},
      {R"({"model_type":"gpt2","vocab_size":200,"n_positions":24,"n_embd":32,"n_layer":2,"n_head":-4})",
       "'n_head'"},
      {R"({"model_type":"gpt2","vocab_size":200,"n_positions":24,"n_embd":"32","n_layer":2,"n_head":4})",
       "'n_embd'"},
      {R"({"model_type":"gpt2","vocab_size":200,"n_positions":24,"n_embd":30,"n_layer":2,"n_head":4})",
       "not divisible"},
      {R"({"model_type":"llama","vocab_size":160,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":3,"intermediate_size":64,"max_position_embeddings":32})",
       "'num_key_value_heads'"},
      {R"({"model_type":"llama","vocab_size":160,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":64,"max_position_embeddings":32,"rope_scaling":{"type":"linear","factor":2}})",
       "'rope_scaling'"},
      {R"({"model_type":"bert","vocab_size":200,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"max_position_embeddings":24})",
       "'intermediate_size'"},
  };
  for (const auto& [text, part] : cases) {
    const std::string dir = withConfig("gpt2", text);
    expectErrorContains([&] { loadHuggingFaceFolder(dir, {}); }, {"config.json", part});
  }
}

TEST(ModelHf, FolderWithoutWeightsOrTokenizerSaysWhatToPass) {
  const fs::path dir = test::tempPath("empty_model");
  fs::create_directories(dir);
  std::ofstream(dir / "config.json")
      << R"({"model_type":"gpt2","vocab_size":200,"n_positions":24,"n_embd":32,"n_layer":2,"n_head":4})";
  expectErrorContains([&] { loadHuggingFaceFolder(dir.string(), {}); },
                      {"model.safetensors", "pytorch_model.bin"});
  // The fixture folders carry no tokenizer: ids still work, text says what to pass.
  LoadedModel m = loadHuggingFaceFolder(test::fixture("models/llama"), {});
  ASSERT_TRUE(m.tokenizer);
  EXPECT_EQ(m.tokenizer->fromIds({1, 2}).size(), 2u);
  expectErrorContains([&] { m.tokenizer->encode("hello"); }, {"--tokenizer"});
}

}  // namespace
}  // namespace headmap
