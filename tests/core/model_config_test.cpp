// config.json parsing: defaults as Hugging Face's config classes define them, and the values read.
#include <gtest/gtest.h>

#include "core/common/error.h"
#include "core/model/config.h"

namespace headmap {
namespace {

TEST(ModelConfig, Gpt2DefaultsAndAliases) {
  const ModelConfig c = parseModelConfig(
      R"({"model_type":"gpt2","vocab_size":50257,"n_ctx":1024,"n_embd":768,"n_layer":12,
          "n_head":12,"n_inner":null})",
      "config.json");
  EXPECT_EQ(c.family, Family::Gpt2);
  EXPECT_EQ(c.maxPositions, 1024);
  EXPECT_EQ(c.dFf, 3072);
  EXPECT_EQ(c.dHead, 64);
  EXPECT_FLOAT_EQ(c.eps, 1e-5f);
  EXPECT_EQ(c.act, Activation::GeluTanh);
}

TEST(ModelConfig, BertDefaults) {
  const ModelConfig c = parseModelConfig(
      R"({"model_type":"bert","vocab_size":30522,"hidden_size":768,"num_hidden_layers":12,
          "num_attention_heads":12,"intermediate_size":3072,"max_position_embeddings":512})",
      "config.json");
  EXPECT_EQ(c.typeVocab, 2);
  EXPECT_FLOAT_EQ(c.eps, 1e-12f);
  EXPECT_EQ(c.act, Activation::GeluErf);
}

TEST(ModelConfig, LlamaFamilyValues) {
  const std::string base =
      R"("vocab_size":32000,"hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,
         "intermediate_size":14336,"max_position_embeddings":32768)";
  const ModelConfig llama = parseModelConfig("{\"model_type\":\"llama\"," + base + "}", "c.json");
  EXPECT_EQ(llama.kvHeads, 32);  // no num_key_value_heads: plain multi-head attention
  EXPECT_FLOAT_EQ(llama.ropeTheta, 10000.0f);
  EXPECT_FALSE(llama.tieEmbeddings);
  const ModelConfig mistral = parseModelConfig(
      "{\"model_type\":\"mistral\",\"num_key_value_heads\":8,\"sliding_window\":4096,"
      "\"rope_theta\":1000000.0,\"head_dim\":128," +
          base + "}",
      "c.json");
  EXPECT_EQ(mistral.kvHeads, 8);
  EXPECT_EQ(mistral.dHead, 128);
  EXPECT_EQ(mistral.maxPositions, 4096);  // beyond the window the attention would differ
  EXPECT_FLOAT_EQ(mistral.ropeTheta, 1e6f);
  const ModelConfig qwen = parseModelConfig(
      "{\"model_type\":\"qwen2\",\"sliding_window\":4096,\"use_sliding_window\":false,"
      "\"tie_word_embeddings\":true," +
          base + "}",
      "c.json");
  EXPECT_EQ(qwen.maxPositions, 32768);
  EXPECT_TRUE(qwen.tieEmbeddings);
  EXPECT_THROW(
      parseModelConfig("{\"model_type\":\"llama\",\"hidden_act\":\"gelu\"," + base + "}", "c.json"),
      Error);
}

}  // namespace
}  // namespace headmap
