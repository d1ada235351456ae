// headmap-cli end to end: the exit codes, messages and files a script relies on. Reference maps
// in tests/fixtures/cli come from torch.nn.MultiheadAttention
// (scripts/fixtures/make_cli_fixtures.py).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/io/npy.h"
#include "tests/safetensors_bytes.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

namespace fs = std::filesystem;
using test::shellQuote;

test::CommandResult cli(const std::string& args) {
  test::CommandResult r = test::runCommand(shellQuote(test::cliPath()) + " " + args);
  EXPECT_EQ(r.signal, 0) << "headmap-cli died from a signal: " << args << "\n" << r.err;
  return r;
}

std::string fx(const std::string& name) { return shellQuote(test::fixture("cli/" + name)); }

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Max |a - b| over two arrays of the same shape; fails the test on a shape mismatch.
void expectClose(const std::string& actualPath, const std::string& referenceName,
                 float tolerance = 1e-5f) {
  NpyArray actual = readNpy(actualPath);
  NpyArray expected = readNpy(test::fixture("cli/" + referenceName));
  ASSERT_EQ(actual.shape, expected.shape);
  float maxDiff = 0;
  for (size_t i = 0; i < actual.values.size(); ++i) {
    maxDiff = std::max(maxDiff, std::abs(actual.values[i] - expected.values[i]));
  }
  EXPECT_LE(maxDiff, tolerance) << "max |diff| vs " << referenceName << " = " << maxDiff;
}

void expectFailure(const test::CommandResult& r, int exitCode, const std::string& message) {
  EXPECT_EQ(r.exitCode, exitCode) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << "'" << message << "' not in: " << r.err;
}

TEST(CliHelp, MainHelpListsCommands) {
  auto r = cli("--help");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("inspect"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dump"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exit codes"), std::string::npos) << r.out;
}

TEST(CliHelp, DumpHelpDocumentsEveryOption) {
  for (const char* form : {"dump --help", "dump -h", "help dump"}) {
    auto r = cli(form);
    EXPECT_EQ(r.exitCode, 0) << form;
    for (const char* option : {"MODEL", "--text", "--ids", "--input", "--heads", "--layer",
                               "--tokenizer", "--causal", "--pad", "--stage", "--no-scale", "--out",
                               "--tokens-out", "softmax", "scores", "scaled", "masked"}) {
      EXPECT_NE(r.out.find(option), std::string::npos) << form << " lacks " << option;
    }
  }
}

TEST(CliHelp, InspectHelp) {
  auto r = cli("inspect --help");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("usage: headmap-cli inspect MODEL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--heads"), std::string::npos) << r.out;
}

TEST(CliHelp, NoArgumentsAndUnknownCommand) {
  auto r = cli("");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("usage"), std::string::npos) << r.err;
  expectFailure(cli("frobnicate"), 2, "unknown command 'frobnicate'");
}

TEST(CliInspect, TwoLayerMultiheadAttentionFile) {
  auto r = cli("inspect " + fx("two_layers.safetensors"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "safetensors");
  EXPECT_EQ(j["family"], "attention");
  ASSERT_EQ(j["attention_layers"].size(), 2u);
  const auto& l1 = j["attention_layers"][1];
  EXPECT_EQ(l1["prefix"], "blocks.1.attn.");
  EXPECT_EQ(l1["layout"], "torch_mha");
  EXPECT_EQ(l1["d_model"], 16);
  EXPECT_EQ(l1["heads"], 4);
  EXPECT_EQ(l1["d_k"], 4);
  EXPECT_EQ(j["metadata"]["num_heads"], "4");
  ASSERT_EQ(j["tensors"].size(), 8u);
  bool found = false;
  for (const auto& t : j["tensors"]) {
    if (t["name"] == "blocks.1.attn.in_proj_weight") {
      found = true;
      EXPECT_EQ(t["dtype"], "F32");
      EXPECT_EQ(t["shape"], nlohmann::json::array({48, 16}));
    }
  }
  EXPECT_TRUE(found) << r.out;
}

TEST(CliInspect, HeadsUnknownUntilGiven) {
  auto r = cli("inspect " + fx("tutorial_f16.safetensors"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["attention_layers"].size(), 1u);
  EXPECT_EQ(j["attention_layers"][0]["layout"], "tutorial");
  EXPECT_TRUE(j["attention_layers"][0]["heads"].is_null());
  EXPECT_EQ(j["tensors"][0]["dtype"], "F16");

  r = cli("inspect " + fx("tutorial_f16.safetensors") + " --heads 2");
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["attention_layers"][0]["heads"], 2);
  EXPECT_EQ(j["attention_layers"][0]["d_k"], 8);
}

TEST(CliInspect, Errors) {
  expectFailure(cli("inspect /nonexistent/model.safetensors"), 1, "/nonexistent/model.safetensors");
  expectFailure(cli("inspect"), 2, "missing MODEL");
  std::string notTensors = test::tempPath("notes.txt");
  test::writeBytes(notTensors, "just some text, not weights\n");
  expectFailure(cli("inspect " + shellQuote(notTensors)), 1, "not a recognized tensor file");
}

TEST(CliDump, MatchesTorchForTheChosenLayer) {
  for (const char* layer : {"1", "blocks.1.attn.", "blocks.1.attn"}) {
    std::string out = test::tempPath(std::string("layer") + layer + ".npy");
    auto r = cli("dump " + fx("two_layers.safetensors") + " --input " + fx("input.npy") +
                 " --layer " + shellQuote(layer) + " --out " + shellQuote(out));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    expectClose(out, "ref_layer1.npy");
  }
  // Layer 0 has other weights: the comparison above can fail.
  std::string out0 = test::tempPath("layer0.npy");
  ASSERT_EQ(cli("dump " + fx("two_layers.safetensors") + " --input " + fx("input.npy") + " --out " +
                shellQuote(out0))
                .exitCode,
            0);
  NpyArray a = readNpy(out0), b = readNpy(test::fixture("cli/ref_layer1.npy"));
  EXPECT_NE(a.values, b.values);
}

TEST(CliDump, CausalAndPaddingMatchTorch) {
  std::string base = "dump " + fx("two_layers.safetensors") + " --input " + fx("input.npy") +
                     " --layer 1 --causal";
  std::string out = test::tempPath("cp3.npy");
  ASSERT_EQ(cli(base + " --pad 3 --out " + shellQuote(out)).exitCode, 0);
  expectClose(out, "ref_layer1_causal_pad3.npy");
  // Causal + padding at 0: query 0 has no key left; its row is zeros, never NaN.
  out = test::tempPath("cp0.npy");
  ASSERT_EQ(cli(base + " --pad 0 --out " + shellQuote(out)).exitCode, 0);
  expectClose(out, "ref_layer1_causal_pad0.npy");
}

TEST(CliDump, RawScoresStage) {
  std::string out = test::tempPath("scores.npy");
  auto r = cli("dump " + fx("two_layers.safetensors") + " --input " + fx("input.npy") +
               " --layer 1 --stage scores --out " + shellQuote(out));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectClose(out, "ref_layer1_scores.npy", 1e-4f);
  // Scaled without scaling is the raw scores.
  std::string unscaled = test::tempPath("unscaled.npy");
  r = cli("dump " + fx("two_layers.safetensors") + " --input " + fx("input.npy") +
          " --layer 1 --stage scaled --no-scale --out " + shellQuote(unscaled));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectClose(unscaled, "ref_layer1_scores.npy", 1e-4f);
}

TEST(CliDump, HalfPrecisionTutorialLayoutWithHeads) {
  std::string out = test::tempPath("f16.npy");
  auto r = cli("dump " + fx("tutorial_f16.safetensors") + " --heads 4 --input " + fx("input.npy") +
               " --out " + shellQuote(out));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectClose(out, "ref_f16.npy");
}

TEST(CliDump, TextInputAndTokensJson) {
  std::string out = test::tempPath("text.npy");
  std::string tokens = test::tempPath("tokens.json");
  std::string cmd = "dump " + fx("two_layers.safetensors") +
                    " --text '  the cat sat on mats ' --pad 4 --out " + shellQuote(out) +
                    " --tokens-out " + shellQuote(tokens);
  auto r = cli(cmd);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  NpyArray a = readNpy(out);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{1, 4, 5, 5}));
  for (int row = 0; row < 4 * 5; ++row) {
    float sum = 0;
    for (int k = 0; k < 5; ++k) sum += a.values[row * 5 + k];
    EXPECT_NEAR(sum, 1.0f, 1e-5f) << "row " << row;
    EXPECT_EQ(a.values[row * 5 + 4], 0.0f) << "padded key 4 in row " << row;
  }
  auto j = nlohmann::json::parse(readText(tokens));
  EXPECT_EQ(j["pieces"], nlohmann::json::array({"the", "cat", "sat", "on", "mats"}));
  EXPECT_EQ(j["display"][1], "cat");
  EXPECT_EQ(j["ids"], nlohmann::json::array({0, 1, 2, 3, 4}));
  EXPECT_EQ(j["padded"], nlohmann::json::array({4}));
  // Same text, same maps: the embeddings are seeded from the token text.
  std::string again = test::tempPath("again.npy");
  ASSERT_EQ(cli("dump " + fx("two_layers.safetensors") +
                " --text 'the cat sat on mats' --pad 4 "
                "--out " +
                shellQuote(again))
                .exitCode,
            0);
  EXPECT_EQ(readNpy(again).values, a.values);
}

TEST(CliDump, InputOnlyTokensAreLabelledByPosition) {
  std::string out = test::tempPath("o.npy");
  std::string tokens = test::tempPath("t.json");
  ASSERT_EQ(cli("dump " + fx("two_layers.safetensors") + " --input " + fx("input.npy") + " --out " +
                shellQuote(out) + " --tokens-out " + shellQuote(tokens))
                .exitCode,
            0);
  auto j = nlohmann::json::parse(readText(tokens));
  EXPECT_EQ(j["pieces"], nlohmann::json::array({"#0", "#1", "#2", "#3", "#4"}));
}

// The attention fixtures' 64/4 files (tests/fixtures/attention/safetensors): torch's
// nn.MultiheadAttention weights are (heads, q, k); dump adds the leading layer axis.
void expectCloseToAttentionFixture(const std::string& actualPath, const std::string& reference) {
  NpyArray actual = readNpy(actualPath);
  NpyArray expected = readNpy(test::fixture("attention/safetensors/" + reference));
  std::vector<int64_t> withLayer = {1};
  withLayer.insert(withLayer.end(), expected.shape.begin(), expected.shape.end());
  ASSERT_EQ(actual.shape, withLayer) << reference;
  float maxDiff = 0;
  for (size_t i = 0; i < actual.values.size(); ++i) {
    maxDiff = std::max(maxDiff, std::abs(actual.values[i] - expected.values[i]));
  }
  EXPECT_LE(maxDiff, 1e-5f) << "max |diff| vs " << reference << " = " << maxDiff;
}

std::string ax(const std::string& name) {
  return shellQuote(test::fixture("attention/safetensors/" + name));
}

TEST(CliDumpTorch, StateDictWithTextAndMasks) {
  std::string out = test::tempPath("text.npy");
  auto r = cli("dump " + ax("mha_state_dict.safetensors") +
               " --text 'the cat sat on the mat' --out " + shellQuote(out));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectCloseToAttentionFixture(out, "mha_state_dict_text_weights.npy");

  out = test::tempPath("masked.npy");
  r = cli("dump " + ax("mha_state_dict.safetensors") + " --input " + ax("input.npy") +
          " --causal --pad 4 --out " + shellQuote(out));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectCloseToAttentionFixture(out, "mha_state_dict_causal_pad4_weights.npy");
}

TEST(CliDumpTorch, PrefixedTutorialLayoutAndEncoderLayers) {
  std::string out = test::tempPath("tutorial.npy");
  auto r = cli("dump " + ax("tutorial_prefixed.safetensors") + " --heads 4 --input " +
               ax("input.npy") + " --causal --pad 4 --out " + shellQuote(out));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectCloseToAttentionFixture(out, "tutorial_prefixed_causal_pad4_weights.npy");

  for (const char* layer : {"0", "encoder.layers.1.self_attn.", "2"}) {
    out = test::tempPath(std::string("enc") + layer + ".npy");
    r = cli("dump " + ax("encoder_layers.safetensors") + " --input " + ax("input.npy") +
            " --layer " + layer + " --out " + shellQuote(out));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::string index = std::string(layer).size() == 1 ? layer : "1";
    expectCloseToAttentionFixture(out, "encoder_layer" + index + "_weights.npy");
  }
}

TEST(CliInspectTorch, EncoderLayersListed) {
  auto r = cli("inspect " + ax("encoder_layers.safetensors"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["attention_layers"].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(j["attention_layers"][i]["prefix"],
              "encoder.layers." + std::to_string(i) + ".self_attn.");
    EXPECT_EQ(j["attention_layers"][i]["d_model"], 64);
    EXPECT_EQ(j["attention_layers"][i]["heads"], 4);
    EXPECT_EQ(j["attention_layers"][i]["d_k"], 16);
  }
  EXPECT_EQ(j["tensors"].size(), 12u);
}

// Every failing dump: its message, its exit code, no signal, and no OUT written.
struct FailingDump {
  std::string args;
  int exitCode;
  std::string message;
};

TEST(CliDump, FailuresWriteNothing) {
  std::string bad = test::tempPath("bad.safetensors");
  test::writeBytes(bad, test::rawSafetensors("{\"w_q.weight\":{\"dtype\":\"F32\",\"shape\":[64,64],"
                                             "\"data_offsets\":[0,1024]}}",
                                             std::string(1024, '\0')));
  const std::string model = fx("two_layers.safetensors");
  const std::string input = " --input " + fx("input.npy");
  const std::vector<FailingDump> cases = {
      {model + input + " --pad 5", 2, "--pad position (5 tokens) 5 is out of range"},
      {model + input + " --pad 1,x", 2, "'x' is not an integer"},
      {model + input + " --pad -1", 2, "out of range"},
      {model + input + " --stage logits", 2, "--stage 'logits' is not one of"},
      {model + input + " --heads four", 2, "--heads 'four' is not an integer"},
      {model + input + " --heads 0", 2, "--heads 0 is out of range"},
      {model + input + " --bogus", 2, "unknown option '--bogus'"},
      {model + input + " --causal=yes", 2, "--causal takes no value"},
      {model, 2, "give the tokens"},
      {model + " --text a --ids 1", 2, "either --text or --ids"},
      {model + " --text '   '", 2, "--text holds no tokens"},
      {model + input + " --heads 2", 1, "num_heads 4"},
      {model + input + " --layer 7", 1, "no attention layer '7'"},
      {model + input + " --layer decoder.", 1, "1: 'blocks.1.attn.'"},
      {model + input + " --text 'too few'", 1, "5 rows but there are 2 tokens"},
      {fx("tutorial_f16.safetensors") + input, 1, "pass --heads N"},
      {fx("tutorial_f16.safetensors") + " --heads 3" + input, 1, "not divisible by 3 heads"},
      {shellQuote(bad) + " --text a", 1,
       "tensor 'w_q.weight' needs 16384 bytes (shape [64, 64] × F32), its data_offsets span 1024"},
      {"/nonexistent.safetensors --text a", 1, "/nonexistent.safetensors"},
      {model + " --input /nonexistent/x.npy", 1, "/nonexistent/x.npy"},
      {model + " --input " + fx("two_layers.safetensors"), 1, "two_layers.safetensors"},
  };
  for (const auto& c : cases) {
    std::string out = test::tempPath("out.npy");
    fs::remove(out);
    auto r = cli("dump " + c.args + " --out " + shellQuote(out));
    SCOPED_TRACE(c.args);
    expectFailure(r, c.exitCode, c.message);
    EXPECT_FALSE(fs::exists(out)) << "OUT written on failure";
  }
}

TEST(CliDump, FailureKeepsAnExistingOutput) {
  std::string out = test::tempPath("keep.npy");
  test::writeBytes(out, "previous contents");
  auto r = cli("dump " + fx("two_layers.safetensors") + " --text 'a b' --pad 9 --out " +
               shellQuote(out));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(readText(out), "previous contents");
  // No temporary files left beside it either.
  int files = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(out).parent_path())) {
    (void)entry;
    ++files;
  }
  EXPECT_LE(files, 2);  // keep.npy and runCommand's stderr capture
}

TEST(CliDump, MissingOutAndUnwritableOut) {
  expectFailure(cli("dump " + fx("two_layers.safetensors") + " --text a"), 2,
                "--out OUT.npy is required");
  auto r =
      cli("dump " + fx("two_layers.safetensors") + " --text a --out /nonexistent-dir/sub/out.npy");
  expectFailure(r, 1, "/nonexistent-dir/sub/out.npy");
  EXPECT_FALSE(fs::exists("/nonexistent-dir/sub/out.npy"));
}

TEST(CliDump, TokensOutFailureRemovesOut) {
  std::string out = test::tempPath("o.npy");
  auto r = cli("dump " + fx("two_layers.safetensors") + " --text 'a b' --out " + shellQuote(out) +
               " --tokens-out /nonexistent-dir/t.json");
  expectFailure(r, 1, "/nonexistent-dir/t.json");
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace headmap
