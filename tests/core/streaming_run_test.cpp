// Memory-bounded runs for long inputs: RunOptions::keepHeads / onHead and the streaming head
// statistics and rollout. The references are the whole-run computeHeadStats / attentionRollout,
// which head_stats_test and rollout_test check against NumPy, and full runs of the same models,
// which model_*_test check against PyTorch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/analysis/head_stats.h"
#include "core/analysis/rollout.h"
#include "core/common/error.h"
#include "core/model/hf_folder.h"
#include "core/model/load.h"
#include "tests/core/model_test_util.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

constexpr double kTol = 1e-6;

double diffOrNan(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INFINITY;
  return std::abs(a - b);
}

void expectSameStats(const std::vector<HeadStats>& got, const std::vector<HeadStats>& want) {
  ASSERT_EQ(got.size(), want.size());
  double maxDiff = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].layer, want[i].layer) << i;
    EXPECT_EQ(got[i].head, want[i].head) << i;
    for (auto field : {&HeadStats::entropy, &HeadStats::meanDistance, &HeadStats::firstTokenMass,
                       &HeadStats::previousToken, &HeadStats::diagonal}) {
      maxDiff = std::max(maxDiff, diffOrNan(got[i].*field, want[i].*field));
    }
    ASSERT_EQ(got[i].induction.has_value(), want[i].induction.has_value()) << i;
    if (got[i].induction)
      maxDiff = std::max(maxDiff, std::abs(*got[i].induction - *want[i].induction));
  }
  EXPECT_LE(maxDiff, kTol) << "max |diff| of the statistics " << maxDiff;
}

double maxAbsDiff(const Eigen::Ref<const RowMatrixXf>& a, const Eigen::Ref<const RowMatrixXf>& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
  return (a - b).cwiseAbs().maxCoeff();
}

// Runs `model` twice on the same input: once keeping everything (the reference), once recording
// only `layer` with `keep` heads while streaming every head into the statistics and the rollout.
void expectStreamingMatchesFullRun(const Model& model, const ModelInput& input,
                                   const AttentionOptions& attention, const std::vector<int>& ids,
                                   int layer, const std::vector<int>& keep) {
  RunOptions full;
  full.attention = attention;
  full.logits = false;
  const ModelRun reference = model.run(input, full);
  const std::vector<HeadStats> wantStats = computeHeadStats(reference, ids);
  const RowMatrixXf wantRollout = attentionRollout(reference);

  HeadStatsStream stats(ids);
  RolloutStream rollout;
  int calls = 0;
  RunOptions streamed = full;
  streamed.layers = {layer};
  streamed.keepHeads = keep;
  streamed.allLayers = true;
  streamed.onHead = [&](const HeadWeights& w) {
    ++calls;
    stats.add(w);
    rollout.add(w);
  };
  const ModelRun run = model.run(input, streamed);
  const ModelInfo info = model.info();
  EXPECT_EQ(calls, info.layers * info.heads);
  expectSameStats(stats.stats(), wantStats);
  const double rolloutDiff = maxAbsDiff(rollout.finish(), wantRollout);
  EXPECT_LE(rolloutDiff, kTol) << "max |diff| of the rollout " << rolloutDiff;

  // Only the asked layer and heads are kept, and they equal the full run's.
  ASSERT_EQ(run.layers.size(), 1u);
  const AttentionResult& got = run.layers[0].result;
  const AttentionResult& want = reference.layers[layer].result;
  EXPECT_EQ(run.layers[0].layer, layer);
  std::vector<int> sorted = keep;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());  // duplicates count once
  EXPECT_EQ(got.keptHeads, sorted);
  ASSERT_EQ(got.weights.heads, static_cast<int>(sorted.size()));
  for (size_t i = 0; i < sorted.size(); ++i) {
    EXPECT_EQ(got.mapIndex(sorted[i]), static_cast<int>(i));
    const double d =
        maxAbsDiff(got.weights.head(static_cast<int>(i)), want.weights.head(sorted[i]));
    EXPECT_LE(d, kTol) << "head " << sorted[i] << " max |diff| " << d;
  }
  EXPECT_EQ(got.keyMask, want.keyMask);
  const double contextDiff = maxAbsDiff(got.context, want.context);
  EXPECT_EQ(contextDiff, 0.0) << "the context must not depend on which maps are kept";
}

std::vector<int> repeatingIds(int n, int vocab) {
  std::vector<int> ids;
  for (int i = 0; i < n; ++i) ids.push_back((i * 7 + 3) % std::min(vocab, 11) + 1);
  return ids;
}

TEST(StreamingRun, Stories260KMatchesWholeRunAnalysis) {
  const std::string path = test::sharedModel("stories260K/stories260K.bin");
  HEADMAP_SKIP_WITHOUT(path);
  const LoadedModel m = loadModel(path);
  const std::vector<int> ids = {1,   403, 407, 261, 378, 432, 383, 286, 261, 376,
                                298, 315, 403, 407, 261, 378, 432, 383, 286, 261};
  expectStreamingMatchesFullRun(*m.model, test::inputFromIds(ids), {}, ids, 2, {3});
  expectStreamingMatchesFullRun(*m.model, test::inputFromIds(ids), {}, ids, 4, {7, 0, 0});
}

TEST(StreamingRun, HuggingFaceFixturesMatchWholeRunAnalysis) {
  for (const char* name : {"gpt2", "bert", "llama"}) {
    SCOPED_TRACE(name);
    const LoadedModel m = loadHuggingFaceFolder(test::fixture(std::string("models/") + name), {});
    const ModelInfo info = m.model->info();
    const std::vector<int> ids = repeatingIds(14, info.vocab);
    AttentionOptions attention;
    if (std::string(name) == "bert") attention.paddedKeys = {12, 13};
    expectStreamingMatchesFullRun(*m.model, test::inputFromIds(ids), attention, ids,
                                  info.layers - 1, {1});
  }
}

// Long enough that the dropped heads run in several scratch groups (4 heads × 1500² floats is
// above the 32 MB scratch), causal with padding so that every mask path is read.
TEST(StreamingRun, BareLayerLongInputRunsInGroups) {
  const LoadedModel m = makeRandomLayer(32, 4, 7);
  std::vector<Token> tokens;
  for (int i = 0; i < 1500; ++i) {
    Token t;
    t.id = i;
    t.piece = "w" + std::to_string(i % 97);
    tokens.push_back(t);
  }
  ModelInput input;
  input.tokens = tokens;
  AttentionOptions attention;
  attention.causal = true;
  attention.paddedKeys = {0, 1499};
  expectStreamingMatchesFullRun(*m.model, input, attention, idsFromPieces(tokens), 0, {2});
}

TEST(StreamingRun, KeepNoHeadsKeepsNoMaps) {
  const LoadedModel m = makeRandomLayer(16, 4, 1);
  ModelInput input;
  input.tokens = m.tokenizer->encode("the cat sat on the mat");
  RunOptions options;
  options.keepHeads = std::vector<int>{};
  options.attention.keepStages = true;
  const ModelRun run = m.model->run(input, options);
  ASSERT_EQ(run.layers.size(), 1u);
  EXPECT_EQ(run.layers[0].result.weights.heads, 0);
  EXPECT_TRUE(run.layers[0].result.weights.values.empty());
  EXPECT_TRUE(run.layers[0].result.raw.values.empty());
  EXPECT_EQ(run.layers[0].result.mapIndex(0), -1);
  EXPECT_EQ(run.layers[0].result.context.rows(), 6);
}

TEST(StreamingRun, KeptStagesBelongToTheKeptHeads) {
  const LoadedModel m = makeRandomLayer(16, 4, 1);
  ModelInput input;
  input.tokens = m.tokenizer->encode("one two three four five");
  RunOptions options;
  options.attention.keepStages = true;
  options.attention.causal = true;
  const ModelRun full = m.model->run(input, options);
  options.keepHeads = std::vector<int>{3, 1};
  const ModelRun some = m.model->run(input, options);
  const AttentionResult& a = some.layers[0].result;
  const AttentionResult& b = full.layers[0].result;
  ASSERT_EQ(a.raw.heads, 2);
  for (int i = 0; i < 2; ++i) {
    const int h = a.keptHeads[i];
    EXPECT_EQ(maxAbsDiff(a.raw.head(i), b.raw.head(h)), 0.0) << h;
    EXPECT_EQ(maxAbsDiff(a.scaled.head(i), b.scaled.head(h)), 0.0) << h;
    EXPECT_EQ(maxAbsDiff(a.weights.head(i), b.weights.head(h)), 0.0) << h;
  }
}

TEST(StreamingRun, HeadOutOfRangeIsAnError) {
  const LoadedModel m = makeRandomLayer(16, 4, 1);
  ModelInput input;
  input.tokens = m.tokenizer->encode("a b c");
  RunOptions options;
  options.keepHeads = std::vector<int>{4};
  try {
    m.model->run(input, options);
    FAIL() << "expected headmap::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("head 4"), std::string::npos) << e.what();
  }
}

TEST(StreamingRun, OnHeadSeesEveryLayerThatRuns) {
  const LoadedModel m = loadHuggingFaceFolder(test::fixture("models/gpt2"), {});
  const ModelInfo info = m.model->info();
  ASSERT_GE(info.layers, 2);
  RunOptions options;
  options.layers = {0};
  std::vector<std::pair<int, int>> seen;
  options.onHead = [&](const HeadWeights& w) { seen.emplace_back(w.layer, w.head); };
  m.model->run(test::inputFromIds({1, 2, 3, 4}), options);
  EXPECT_EQ(static_cast<int>(seen.size()), info.heads) << "only layer 0 runs";
  seen.clear();
  options.allLayers = true;
  const ModelRun run = m.model->run(test::inputFromIds({1, 2, 3, 4}), options);
  ASSERT_EQ(static_cast<int>(seen.size()), info.layers * info.heads);
  for (int l = 0; l < info.layers; ++l) {
    for (int h = 0; h < info.heads; ++h) {
      EXPECT_EQ(seen[l * info.heads + h], std::make_pair(l, h));
    }
  }
  EXPECT_EQ(run.layers.size(), 1u);
}

TEST(StreamingRun, RolloutStreamRejectsSkippedLayers) {
  const std::vector<uint8_t> none;
  const std::vector<float> identity = {1, 0, 0, 1};
  HeadWeights w;
  w.weights = identity.data();
  w.q = w.k = 2;
  w.keyMask = &none;
  w.fullyMasked = &none;
  RolloutStream rollout;
  EXPECT_THROW(rollout.finish(), Error);
  w.layer = 0;
  rollout.add(w);
  w.layer = 2;
  EXPECT_THROW(rollout.add(w), Error);
}

}  // namespace
}  // namespace headmap
