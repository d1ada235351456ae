// llama2.c checkpoints: stories260K's greedy decoding (the README's known answer), the conversion
// to a Hugging Face folder giving identical attention, and malformed headers.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include "core/common/error.h"
#include "core/model/hf_folder.h"
#include "core/model/llama2c_model.h"
#include "core/model/tokenizer_lookup.h"
#include "tests/core/model_test_util.h"
#include "tests/test_support.h"

namespace fs = std::filesystem;

namespace headmap {
namespace {

const std::vector<int> kGreedyFromBos = {1,   403, 407, 261, 378, 432, 383, 286, 261, 376,
                                         298, 315, 421, 395, 317, 426, 338, 401, 396, 267};

std::vector<int> greedy(const Model& model, int count) {
  std::vector<int> ids = {1};
  const int vocab = model.info().vocab;
  while (static_cast<int>(ids.size()) < count) {
    const ModelRun run = model.run(test::inputFromIds(ids), {});
    if (run.logits.size() != ids.size() * vocab) return ids;
    ids.push_back(test::argmaxRow(run.logits, static_cast<int>(ids.size()) - 1, vocab));
  }
  return ids;
}

TEST(ModelLlama2c, Stories260KInfo) {
  const std::string path = test::sharedModel("stories260K/stories260K.bin");
  HEADMAP_SKIP_WITHOUT(path);
  EXPECT_TRUE(looksLikeLlama2c(path));
  const ModelInfo info = loadLlama2c(path, {}).model->info();
  EXPECT_EQ(info.family, "llama2c");
  EXPECT_EQ(info.layers, 5);
  EXPECT_EQ(info.heads, 8);
  EXPECT_EQ(info.kvHeads, 4);
  EXPECT_EQ(info.dModel, 64);
  EXPECT_EQ(info.vocab, 512);
  EXPECT_EQ(info.maxPositions, 512);
  EXPECT_TRUE(info.causalBuiltIn);
}

TEST(ModelLlama2c, Stories260KGreedyDecodingFromBos) {
  const std::string path = test::sharedModel("stories260K/stories260K.bin");
  HEADMAP_SKIP_WITHOUT(path);
  const LoadedModel m = loadLlama2c(path, {});
  const std::vector<int> ids = greedy(*m.model, 20);
  EXPECT_EQ(ids, kGreedyFromBos);
}

TEST(ModelLlama2c, Stories260KGreedyTextWithTok512) {
  const std::string path = test::sharedModel("stories260K/stories260K.bin");
  const std::string tok = test::sharedModel("stories260K/tok512.bin");
  HEADMAP_SKIP_WITHOUT(path);
  LoadOptions options;
  options.tokenizerPath = tok;
  const LoadedModel m = loadLlama2c(path, options);
  ASSERT_TRUE(m.tokenizer);
  if (m.tokenizer->kind() == "ids") GTEST_SKIP() << "no llama2.c tokenizer reader in this build";
  const std::vector<int> ids = greedy(*m.model, 60);
  std::string text;
  for (const Token& t : m.tokenizer->fromIds(ids)) {
    if (!t.special) text += t.piece;
  }
  if (!text.empty() && text[0] == ' ') text.erase(0, 1);  // the encoder prepends a space
  const std::string expected =
      "Once upon a time, there was a little girl named Lily. She loved to play outside in the "
      "park. One day, she saw a big, red ball.";
  EXPECT_EQ(text.substr(0, expected.size()), expected) << "decoded: " << text;
}

TEST(ModelLlama2c, TokenizerBesideTheCheckpointIsFound) {
  const std::string path = test::sharedModel("stories260K/stories260K.bin");
  HEADMAP_SKIP_WITHOUT(path);
  const LoadedModel m = loadLlama2c(path, {});  // tok512.bin sits beside it
  ASSERT_TRUE(m.tokenizer);
  EXPECT_NE(m.tokenizer->kind(), "ids");
  std::vector<int> ids;
  for (const Token& t : m.tokenizer->encode("Once upon a time")) ids.push_back(t.id);
  EXPECT_EQ(ids, (std::vector<int>{1, 403, 407, 261, 378}));
}

TEST(ModelLlama2c, RecordsOnlyRequestedLayersAndStopsThere) {
  const std::string path = test::sharedModel("stories260K/stories260K.bin");
  HEADMAP_SKIP_WITHOUT(path);
  const LoadedModel m = loadLlama2c(path, {});
  const ModelInput input = test::inputFromIds(kGreedyFromBos);
  const ModelRun all = m.model->run(input, {});
  ASSERT_EQ(all.layers.size(), 5u);
  RunOptions options;
  options.layers = {2};
  const ModelRun one = m.model->run(input, options);
  ASSERT_EQ(one.layers.size(), 1u);
  EXPECT_EQ(one.layers[0].layer, 2);
  EXPECT_TRUE(one.logits.empty());
  const auto& a = one.layers[0].result.weights.values;
  const auto& b = all.layers[2].result.weights.values;
  ASSERT_EQ(a.size(), b.size());
  EXPECT_LE(test::maxAbsDiff(a.data(), b.data(), a.size()), 1e-6);
}

TEST(ModelLlama2c, BadInputsGiveMessages) {
  const std::string path = test::sharedModel("stories260K/stories260K.bin");
  HEADMAP_SKIP_WITHOUT(path);
  const LoadedModel m = loadLlama2c(path, {});
  try {
    m.model->run(test::inputFromIds(std::vector<int>(513, 1)), {});
    ADD_FAILURE() << "513 tokens accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("513 tokens exceed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("512"), std::string::npos) << e.what();
  }
  EXPECT_THROW(m.model->run(test::inputFromIds({1, 512}), {}), Error);
  EXPECT_THROW(m.model->run(test::inputFromIds({-1}), {}), Error);
}

TEST(ModelLlama2c, WithoutTokenizerIdsWorkAndTextExplains) {
  const std::string path = test::sharedModel("stories260K/stories260K.bin");
  HEADMAP_SKIP_WITHOUT(path);
  const std::string alone = test::tempPath("stories260K.bin");
  fs::copy_file(path, alone, fs::copy_options::overwrite_existing);
  const LoadedModel m = loadLlama2c(alone, {});
  ASSERT_TRUE(m.tokenizer);
  EXPECT_EQ(m.tokenizer->kind(), "ids");
  EXPECT_EQ(m.tokenizer->fromIds({1, 403}).size(), 2u);
  try {
    m.tokenizer->encode("Once upon a time");
    ADD_FAILURE() << "text accepted without a tokenizer";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--tokenizer"), std::string::npos) << e.what();
  }
}

// The conversion script (NumPy only) writes a rotate-half HF folder: same attention to 1e-5.
TEST(ModelLlama2c, ConvertedHuggingFaceFolderGivesTheSameAttention) {
  const std::string path = test::sharedModel("stories260K/stories260K.bin");
  HEADMAP_SKIP_WITHOUT(path);
  if (test::runCommand("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1").exitCode != 0) {
    GTEST_SKIP() << "/usr/bin/python3 with NumPy is not available";
  }
  const std::string script = test::fixture("../../scripts/convert_llama2c_to_hf.py");
  const std::string out = test::tempPath("stories260K-hf");
  const auto r = test::runCommand("/usr/bin/python3 " + test::shellQuote(script) + " " +
                                  test::shellQuote(path) + " " + test::shellQuote(out));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const LoadedModel native = loadLlama2c(path, {});
  const LoadedModel hf = loadHuggingFaceFolder(out, {});
  EXPECT_EQ(hf.model->info().kvHeads, 4);
  const ModelInput input = test::inputFromIds(kGreedyFromBos);
  const ModelRun a = native.model->run(input, {});
  const ModelRun b = hf.model->run(input, {});
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t l = 0; l < a.layers.size(); ++l) {
    const auto& wa = a.layers[l].result.weights.values;
    const auto& wb = b.layers[l].result.weights.values;
    ASSERT_EQ(wa.size(), wb.size());
    const double diff = test::maxAbsDiff(wa.data(), wb.data(), wa.size());
    EXPECT_LE(diff, 1e-5) << "layer " << l << ": max |diff| llama2.c vs converted = " << diff;
    std::printf("stories260K layer %zu: llama2.c vs converted HF max |diff| %.3g\n", l, diff);
  }
  ASSERT_EQ(a.logits.size(), b.logits.size());
  EXPECT_LE(test::maxAbsDiff(a.logits.data(), b.logits.data(), a.logits.size()), 1e-4);
}

// Writes a llama2.c file: the 7 header ints, then `floats` zero floats.
std::string writeCheckpoint(const std::string& name, std::vector<int32_t> header, int64_t floats) {
  const std::string path = test::tempPath(name);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(header.data()), 4 * header.size());
  const std::vector<float> zeros(size_t(std::max<int64_t>(floats, 0)), 0.0f);
  out.write(reinterpret_cast<const char*>(zeros.data()), 4 * zeros.size());
  return path;
}

// dim 8, hidden 16, 1 layer, 2 heads, 1 kv head, vocab 10, seq 4: float count of a valid file.
int64_t tinyFloats() {
  const int64_t d = 8, f = 16, kv = 4, v = 10, seq = 4, hs = 4;
  return v * d + d + d * d + 2 * kv * d + d * d + d + 3 * f * d + d + seq * hs;
}

// looksLikeLlama2c only checks the header's bounds (a truncated download still routes here and
// gets the size message), so these files are judged by loadLlama2c's message alone.
void expectLoadError(const std::string& path, const std::vector<std::string>& parts) {
  try {
    loadLlama2c(path, {});
    ADD_FAILURE() << path << " loaded";
  } catch (const Error& e) {
    for (const auto& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "message '" << e.what() << "' lacks '" << part << "'";
    }
  }
}

TEST(ModelLlama2c, TinyValidCheckpointLoadsAndRuns) {
  const std::string path = writeCheckpoint("tiny.bin", {8, 16, 1, 2, 1, 10, 4}, tinyFloats());
  EXPECT_TRUE(looksLikeLlama2c(path));
  const LoadedModel m = loadLlama2c(path, {});
  const ModelRun run = m.model->run(test::inputFromIds({1, 2, 3}), {});
  ASSERT_EQ(run.layers.size(), 1u);
  EXPECT_EQ(run.logits.size(), 30u);
  // Negative vocab: a separate classifier follows.
  const std::string sep =
      writeCheckpoint("tiny_sep.bin", {8, 16, 1, 2, 1, -10, 4}, tinyFloats() + 80);
  EXPECT_TRUE(looksLikeLlama2c(sep));
  EXPECT_EQ(loadLlama2c(sep, {}).model->run(test::inputFromIds({1}), {}).logits.size(), 10u);
}

TEST(ModelLlama2c, MalformedHeadersAreRefusedWithMessages) {
  const std::string truncated = test::tempPath("truncated.bin");
  std::ofstream(truncated, std::ios::binary).write("\x08\0\0\0\x10\0\0\0", 8);
  expectLoadError(truncated, {"28-byte header", "8 bytes"});
  expectLoadError(writeCheckpoint("negative.bin", {-8, 16, 1, 2, 1, 10, 4}, tinyFloats()),
                  {"dim = -8"});
  expectLoadError(writeCheckpoint("indivisible.bin", {9, 16, 1, 2, 1, 10, 4}, tinyFloats()),
                  {"dim 9", "n_heads 2"});
  expectLoadError(writeCheckpoint("kv.bin", {8, 16, 1, 2, 3, 10, 4}, tinyFloats()), {"n_kv_heads"});
  expectLoadError(writeCheckpoint("short.bin", {8, 16, 1, 2, 1, 10, 4}, tinyFloats() - 1),
                  {"needs " + std::to_string(28 + 4 * tinyFloats()) + " bytes",
                   "has " + std::to_string(24 + 4 * tinyFloats())});
  expectLoadError(writeCheckpoint("huge.bin", {8, 16, 1000000, 2, 1, 10, 4}, 0), {"n_layers"});
  expectLoadError(writeCheckpoint("zero_vocab.bin", {8, 16, 1, 2, 1, 0, 4}, 0), {"vocab_size"});
  // Found by fuzz_llama2c_checkpoint: negating INT32_MIN (the sign flags a shared classifier).
  expectLoadError(writeCheckpoint("int_min_vocab.bin",
                                  {8, 16, 1, 2, 1, std::numeric_limits<int32_t>::min(), 4}, 0),
                  {"|vocab_size| = 2147483648 is outside"});
}

}  // namespace
}  // namespace headmap
