#include "core/io/attention_layers.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/common/error.h"
#include "core/io/safetensors.h"
#include "tests/safetensors_bytes.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

using test::f32Bytes;
using test::RawTensor;

// Values i * scale + offset, so every element of every tensor is distinct and traceable.
std::vector<float> ramp(int64_t n, float offset) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = offset + 0.001f * static_cast<float>(i);
  return v;
}

RawTensor f32(const std::string& name, std::vector<int64_t> shape, float offset) {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return {name, "F32", shape, f32Bytes(ramp(n, offset))};
}

std::vector<RawTensor> tutorialLayer(const std::string& p, int64_t d, bool bias = true) {
  std::vector<RawTensor> t = {f32(p + "w_q.weight", {d, d}, 1), f32(p + "w_k.weight", {d, d}, 2),
                              f32(p + "w_v.weight", {d, d}, 3), f32(p + "w_o.weight", {d, d}, 4)};
  if (bias) {
    for (const char* b : {"w_q.bias", "w_k.bias", "w_v.bias", "w_o.bias"}) {
      t.push_back(f32(p + b, {d}, -1));
    }
  }
  return t;
}

std::vector<RawTensor> mhaLayer(const std::string& p, int64_t d, bool bias = true) {
  std::vector<RawTensor> t = {f32(p + "in_proj_weight", {3 * d, d}, 1),
                              f32(p + "out_proj.weight", {d, d}, 4)};
  if (bias) {
    t.push_back(f32(p + "in_proj_bias", {3 * d}, 10));
    t.push_back(f32(p + "out_proj.bias", {d}, 20));
  }
  return t;
}

std::unique_ptr<SafetensorsFile> openBytes(const std::string& bytes) {
  std::string path = test::tempPath("layers.safetensors");
  test::writeBytes(path, bytes);
  return SafetensorsFile::open(path);
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(AttentionLayers, TutorialLayoutAtTopLevel) {
  auto file = openBytes(test::safetensorsBytes(tutorialLayer("", 8), {{"num_heads", "2"}}));
  auto layers = findAttentionLayers(*file);
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_EQ(layers[0].prefix, "");
  EXPECT_EQ(layers[0].layout, "tutorial");
  EXPECT_EQ(layers[0].dModel, 8);
  EXPECT_EQ(layers[0].heads, 2);
  AttentionLayerWeights w = loadAttentionLayer(*file, layers[0], 0);
  EXPECT_EQ(w.nHeads, 2);
  EXPECT_EQ(w.dModel, 8);
  EXPECT_FLOAT_EQ(w.wq(0, 0), 1.0f);
  EXPECT_FLOAT_EQ(w.wk(1, 2), 2.0f + 0.001f * 10);  // row-major: element 1*8+2
  EXPECT_FLOAT_EQ(w.wo(7, 7), 4.0f + 0.001f * 63);
  EXPECT_FLOAT_EQ(w.bv(3), -1.0f + 0.003f);
}

TEST(AttentionLayers, TorchMhaLayoutSplitsInProjIntoQkv) {
  auto file = openBytes(test::safetensorsBytes(mhaLayer("attn.", 4)));
  auto layers = findAttentionLayers(*file);
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_EQ(layers[0].prefix, "attn.");
  EXPECT_EQ(layers[0].layout, "torch_mha");
  EXPECT_EQ(layers[0].dModel, 4);
  EXPECT_EQ(layers[0].heads, 0);
  AttentionLayerWeights w = loadAttentionLayer(*file, layers[0], 2);
  // in_proj_weight row r, column c holds 1 + 0.001 * (r * 4 + c); W_k is rows 4..7.
  EXPECT_FLOAT_EQ(w.wq(3, 1), 1.0f + 0.001f * 13);
  EXPECT_FLOAT_EQ(w.wk(0, 0), 1.0f + 0.001f * 16);
  EXPECT_FLOAT_EQ(w.wv(3, 3), 1.0f + 0.001f * 47);
  EXPECT_FLOAT_EQ(w.bq(0), 10.0f);
  EXPECT_FLOAT_EQ(w.bk(0), 10.0f + 0.004f);
  EXPECT_FLOAT_EQ(w.bv(3), 10.0f + 0.011f);
  EXPECT_FLOAT_EQ(w.bo(2), 20.0f + 0.002f);
}

TEST(AttentionLayers, MissingBiasesAreZero) {
  auto file = openBytes(test::safetensorsBytes(mhaLayer("", 4, false)));
  auto w = loadAttentionLayer(*file, findAttentionLayers(*file).at(0), 1);
  EXPECT_EQ(w.bq.size(), 4);
  EXPECT_EQ(
      w.bq.cwiseAbs().sum() + w.bk.cwiseAbs().sum() + w.bv.cwiseAbs().sum() + w.bo.cwiseAbs().sum(),
      0.0f);
  auto file2 = openBytes(test::safetensorsBytes(tutorialLayer("x.", 4, false)));
  auto w2 = loadAttentionLayer(*file2, findAttentionLayers(*file2).at(0), 1);
  EXPECT_EQ(w2.bo.size(), 4);
  EXPECT_EQ(w2.bo.cwiseAbs().sum(), 0.0f);
}

TEST(AttentionLayers, ManyLayersNaturallySortedAndChosen) {
  std::vector<RawTensor> tensors;
  for (int i : {10, 2, 0, 1}) {
    auto layer = mhaLayer("encoder.layers." + std::to_string(i) + ".self_attn.", 4);
    tensors.insert(tensors.end(), layer.begin(), layer.end());
  }
  tensors.push_back(f32("encoder.norm.weight", {4}, 0));
  auto file = openBytes(test::safetensorsBytes(tensors, {{"num_heads", "2"}}));
  auto layers = findAttentionLayers(*file);
  ASSERT_EQ(layers.size(), 4u);
  EXPECT_EQ(layers[0].prefix, "encoder.layers.0.self_attn.");
  EXPECT_EQ(layers[2].prefix, "encoder.layers.2.self_attn.");
  EXPECT_EQ(layers[3].prefix, "encoder.layers.10.self_attn.");

  const std::string name = file->path();
  EXPECT_EQ(chooseAttentionLayer(layers, "", name).prefix, "encoder.layers.0.self_attn.");
  EXPECT_EQ(chooseAttentionLayer(layers, "3", name).prefix, "encoder.layers.10.self_attn.");
  EXPECT_EQ(chooseAttentionLayer(layers, "encoder.layers.1.self_attn.", name).prefix,
            "encoder.layers.1.self_attn.");
  EXPECT_EQ(chooseAttentionLayer(layers, "encoder.layers.2.self_attn", name).prefix,
            "encoder.layers.2.self_attn.");

  std::string message = errorOf([&] { chooseAttentionLayer(layers, "decoder", name); });
  EXPECT_NE(message.find("no attention layer 'decoder'"), std::string::npos) << message;
  EXPECT_NE(message.find("3: 'encoder.layers.10.self_attn.'"), std::string::npos) << message;
  message = errorOf([&] { chooseAttentionLayer(layers, "4", name); });
  EXPECT_NE(message.find("index 0..3"), std::string::npos) << message;
}

TEST(AttentionLayers, MixedLayoutsInOneFile) {
  auto tensors = tutorialLayer("a.", 4);
  auto mha = mhaLayer("b.", 8);
  tensors.insert(tensors.end(), mha.begin(), mha.end());
  auto file = openBytes(test::safetensorsBytes(tensors));
  auto layers = findAttentionLayers(*file);
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_EQ(layers[0].layout, "tutorial");
  EXPECT_EQ(layers[1].layout, "torch_mha");
  EXPECT_EQ(layers[1].dModel, 8);
}

TEST(AttentionLayers, IncompleteLayersAndOtherTensorsAreIgnored) {
  auto file = openBytes(
      test::safetensorsBytes({f32("w_q.weight", {4, 4}, 0), f32("w_k.weight", {4, 4}, 0),
                              f32("mlp.weight", {4, 4}, 0), f32("x.in_proj_weight", {12, 4}, 0)}));
  EXPECT_TRUE(findAttentionLayers(*file).empty());
  std::string message = errorOf([&] { chooseAttentionLayer({}, "", file->path()); });
  EXPECT_NE(message.find("no attention layer found"), std::string::npos) << message;
}

TEST(AttentionLayers, HeadsFromPrefixedMetadataFirst) {
  auto tensors = tutorialLayer("enc.", 8);
  auto file =
      openBytes(test::safetensorsBytes(tensors, {{"num_heads", "2"}, {"enc.num_heads", "4"}}));
  EXPECT_EQ(findAttentionLayers(*file).at(0).heads, 4);
}

TEST(AttentionLayers, MissingHeadCountSaysPassHeads) {
  auto file = openBytes(test::safetensorsBytes(tutorialLayer("", 8)));
  auto layer = findAttentionLayers(*file).at(0);
  std::string message = errorOf([&] { loadAttentionLayer(*file, layer, 0); });
  EXPECT_NE(message.find("layers.safetensors"), std::string::npos) << message;
  EXPECT_NE(message.find("pass --heads N"), std::string::npos) << message;
  EXPECT_EQ(loadAttentionLayer(*file, layer, 4).nHeads, 4);
}

TEST(AttentionLayers, RequestedHeadsContradictingMetadata) {
  auto file = openBytes(test::safetensorsBytes(tutorialLayer("", 8), {{"num_heads", "2"}}));
  auto layer = findAttentionLayers(*file).at(0);
  std::string message = errorOf([&] { loadAttentionLayer(*file, layer, 4); });
  EXPECT_NE(message.find("num_heads 2"), std::string::npos) << message;
  EXPECT_NE(message.find("4 heads were requested"), std::string::npos) << message;
  EXPECT_EQ(loadAttentionLayer(*file, layer, 2).nHeads, 2);
}

TEST(AttentionLayers, BadMetadataHeadCount) {
  for (const char* bad : {"four", "0", "-2", "", "99999999999"}) {
    auto file = openBytes(test::safetensorsBytes(tutorialLayer("", 8), {{"num_heads", bad}}));
    std::string message = errorOf([&] { findAttentionLayers(*file); });
    EXPECT_NE(message.find("'num_heads' must be a positive integer"), std::string::npos)
        << bad << ": " << message;
  }
}

TEST(AttentionLayers, HeadsMustDivideDModel) {
  auto file = openBytes(test::safetensorsBytes(tutorialLayer("", 8)));
  std::string message =
      errorOf([&] { loadAttentionLayer(*file, findAttentionLayers(*file).at(0), 3); });
  EXPECT_NE(message.find("d_model 8"), std::string::npos) << message;
  EXPECT_NE(message.find("not divisible by 3 heads"), std::string::npos) << message;
}

TEST(AttentionLayers, ShapeMismatchNamesTheTensor) {
  auto tensors = tutorialLayer("p.", 8);
  tensors[1] = f32("p.w_k.weight", {8, 4}, 0);
  auto file = openBytes(test::safetensorsBytes(tensors));
  std::string message =
      errorOf([&] { loadAttentionLayer(*file, findAttentionLayers(*file).at(0), 2); });
  EXPECT_NE(message.find("tensor 'p.w_k.weight' has shape [8, 4], expected [8, 8]"),
            std::string::npos)
      << message;

  auto mha = mhaLayer("", 4);
  mha[2] = f32("in_proj_bias", {4}, 0);
  auto file2 = openBytes(test::safetensorsBytes(mha));
  message = errorOf([&] { loadAttentionLayer(*file2, findAttentionLayers(*file2).at(0), 2); });
  EXPECT_NE(message.find("tensor 'in_proj_bias' has shape [4], expected [12]"), std::string::npos)
      << message;

  auto odd = mhaLayer("", 4);
  odd[0] = f32("in_proj_weight", {10, 4}, 0);
  auto file3 = openBytes(test::safetensorsBytes(odd));
  message = errorOf([&] { loadAttentionLayer(*file3, findAttentionLayers(*file3).at(0), 2); });
  EXPECT_NE(message.find("tensor 'in_proj_weight' has shape [10, 4], expected [12, 4]"),
            std::string::npos)
      << message;
}

TEST(AttentionLayers, NonFiniteWeightsAreReported) {
  auto tensors = tutorialLayer("", 4);
  std::vector<float> values(16, 0.5f);
  values[5] = std::nanf("");
  tensors[2] = {"w_v.weight", "F32", {4, 4}, f32Bytes(values)};
  auto file = openBytes(test::safetensorsBytes(tensors));
  std::string message =
      errorOf([&] { loadAttentionLayer(*file, findAttentionLayers(*file).at(0), 2); });
  EXPECT_NE(message.find("tensor 'w_v.weight' holds NaN at element 5"), std::string::npos)
      << message;
}

TEST(AttentionLayers, HalfPrecisionLayerIsConverted) {
  // F16 1.0 = 0x3c00, BF16 2.0 = 0x4000.
  std::vector<RawTensor> tensors;
  for (const char* n : {"w_q.weight", "w_k.weight", "w_v.weight", "w_o.weight"}) {
    tensors.push_back({n, "F16", {2, 2}, test::u16Bytes({0x3c00, 0, 0, 0x3c00})});
  }
  tensors.push_back({"w_q.bias", "BF16", {2}, test::u16Bytes({0x4000, 0x4000})});
  auto file = openBytes(test::safetensorsBytes(tensors));
  auto w = loadAttentionLayer(*file, findAttentionLayers(*file).at(0), 1);
  EXPECT_EQ(w.wq(1, 1), 1.0f);
  EXPECT_EQ(w.wq(0, 1), 0.0f);
  EXPECT_EQ(w.bq(1), 2.0f);
}

TEST(NaturalSort, NumbersCompareByValue) {
  EXPECT_TRUE(naturalLess("layers.2.", "layers.10."));
  EXPECT_FALSE(naturalLess("layers.10.", "layers.2."));
  EXPECT_TRUE(naturalLess("a", "b"));
  EXPECT_TRUE(naturalLess("", "a"));
  EXPECT_FALSE(naturalLess("a", "a"));
  EXPECT_TRUE(naturalLess("l.9.x", "l.09.y"));
  EXPECT_TRUE(naturalLess("l.99999999999999999999998", "l.99999999999999999999999"));
}

}  // namespace
}  // namespace headmap
