// RunOptions::reusePrefix (core/model/prefix_cache.h) on the GPT-2 and Llama fixtures: a run that extends
// the previous run's tokens takes their rows and must give what a fresh full run gives —
// maps, masks, context, streamed heads — and must not reuse anything when the tokens, the
// padding or the options say otherwise. The full runs themselves are checked against PyTorch in
// model_hf_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/model/hf_folder.h"
#include "tests/core/model_test_util.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

// Float rounding of a row computed in a smaller batch (Eigen's vectorised GELU takes a scalar
// path for the tail of an array) — anything larger is a wrong row.
constexpr double kTolerance = 1e-5;

struct Streamed {
  int layer, head;
  std::vector<float> map;
  std::vector<uint8_t> keyMask;
};

RunOptions cachedOptions(std::vector<Streamed>* streamed = nullptr) {
  RunOptions o;
  o.logits = false;
  o.reusePrefix = true;
  if (streamed) {
    o.onHead = [streamed](const HeadWeights& w) {
      streamed->push_back({w.layer, w.head, std::vector<float>(w.weights, w.weights + w.q * w.k),
                           *w.keyMask});
    };
  }
  return o;
}

void expectSameRun(const ModelRun& got, const ModelRun& want, const char* what) {
  ASSERT_EQ(got.layers.size(), want.layers.size()) << what;
  for (size_t l = 0; l < want.layers.size(); ++l) {
    const AttentionResult& g = got.layers[l].result;
    const AttentionResult& w = want.layers[l].result;
    EXPECT_EQ(got.layers[l].layer, want.layers[l].layer) << what;
    ASSERT_EQ(g.weights.values.size(), w.weights.values.size()) << what << " layer " << l;
    EXPECT_EQ(g.keptHeads, w.keptHeads) << what;
    EXPECT_EQ(g.keyMask, w.keyMask) << what << " layer " << l;
    EXPECT_EQ(g.fullyMasked, w.fullyMasked) << what << " layer " << l;
    EXPECT_LE(test::maxAbsDiff(g.weights.values.data(), w.weights.values.data(),
                               w.weights.values.size()),
              kTolerance)
        << what << " layer " << l << " maps";
    ASSERT_EQ(g.context.rows(), w.context.rows()) << what;
    EXPECT_LE((g.context - w.context).cwiseAbs().maxCoeff(), kTolerance) << what << " context";
  }
}

// GPT-2 (learned positions) and Llama (RoPE from the first new row's position, grouped KV).
class PrefixReuse : public ::testing::TestWithParam<const char*> {
 protected:
  // A fresh load per model: each has its own cache.
  LoadedModel load() {
    return loadHuggingFaceFolder(test::fixture(std::string("models/") + GetParam()), {});
  }
  const std::vector<int> m_ids = {5, 17, 42, 9, 120, 33, 7, 64, 2, 150};
};

TEST_P(PrefixReuse, ExtendedInputEqualsAFullRun) {
  const LoadedModel cached = load(), fresh = load();
  const std::vector<int> shortIds(m_ids.begin(), m_ids.begin() + 6);
  EXPECT_EQ(cached.model->run(test::inputFromIds(shortIds), cachedOptions()).reusedTokens, 0);

  std::vector<Streamed> gotStream, wantStream;
  const ModelRun got = cached.model->run(test::inputFromIds(m_ids), cachedOptions(&gotStream));
  RunOptions plain = cachedOptions(&wantStream);
  plain.reusePrefix = false;
  const ModelRun want = fresh.model->run(test::inputFromIds(m_ids), plain);
  EXPECT_EQ(got.reusedTokens, 6) << "the six unchanged tokens are taken from the first run";
  expectSameRun(got, want, "extended");

  // The streamed heads (statistics, rollout) see the same full maps in the same order.
  ASSERT_EQ(gotStream.size(), wantStream.size());
  for (size_t i = 0; i < wantStream.size(); ++i) {
    EXPECT_EQ(gotStream[i].layer, wantStream[i].layer);
    EXPECT_EQ(gotStream[i].head, wantStream[i].head);
    EXPECT_EQ(gotStream[i].keyMask, wantStream[i].keyMask);
    EXPECT_LE(test::maxAbsDiff(gotStream[i].map.data(), wantStream[i].map.data(),
                               wantStream[i].map.size()),
              kTolerance);
  }
}

TEST_P(PrefixReuse, EditsInTheMiddleReuseOnlyTheCommonStart) {
  const LoadedModel cached = load(), fresh = load();
  cached.model->run(test::inputFromIds(m_ids), cachedOptions());
  std::vector<int> edited = m_ids;
  edited[3] = 99;  // as if a word in the middle changed
  const ModelRun got = cached.model->run(test::inputFromIds(edited), cachedOptions());
  EXPECT_EQ(got.reusedTokens, 3);
  RunOptions plain = cachedOptions();
  plain.reusePrefix = false;
  expectSameRun(got, fresh.model->run(test::inputFromIds(edited), plain), "edited");

  // Deleting the last token: a shorter input, reused up to its last row.
  const std::vector<int> shorter(edited.begin(), edited.end() - 1);
  const ModelRun back = cached.model->run(test::inputFromIds(shorter), cachedOptions());
  EXPECT_EQ(back.reusedTokens, int(shorter.size()) - 1);
  expectSameRun(back, fresh.model->run(test::inputFromIds(shorter), plain), "shorter");
}

TEST_P(PrefixReuse, PaddingAndOptionsLimitOrPreventReuse) {
  const LoadedModel cached = load(), fresh = load();
  RunOptions o = cachedOptions();
  cached.model->run(test::inputFromIds(m_ids), o);

  // The same tokens again (a view option changed): every run computes at least its last row.
  EXPECT_EQ(cached.model->run(test::inputFromIds(m_ids), o).reusedTokens, int(m_ids.size()) - 1);

  // Padding key 2 changes rows 2.. of every layer: only rows 0-1 can be reused.
  o.attention.paddedKeys = {2};
  std::vector<int> longer = m_ids;
  longer.push_back(11);
  const ModelRun padded = cached.model->run(test::inputFromIds(longer), o);
  EXPECT_EQ(padded.reusedTokens, 2);
  RunOptions plain = o;
  plain.reusePrefix = false;
  expectSameRun(padded, fresh.model->run(test::inputFromIds(longer), plain), "padded");

  // Unscaled scores change every row.
  o.attention.scale = false;
  longer.push_back(12);
  EXPECT_EQ(cached.model->run(test::inputFromIds(longer), o).reusedTokens, 0);

  // Score stages are never cached, and they drop the cache.
  o.attention.keepStages = true;
  longer.push_back(13);
  EXPECT_EQ(cached.model->run(test::inputFromIds(longer), o).reusedTokens, 0);
  o.attention.keepStages = false;
  longer.push_back(14);
  EXPECT_EQ(cached.model->run(test::inputFromIds(longer), o).reusedTokens, 0);
}

TEST_P(PrefixReuse, KeptHeadsAndLayersAreAppliedToReusedRuns) {
  const LoadedModel cached = load(), fresh = load();
  RunOptions o = cachedOptions();
  o.allLayers = true;
  o.layers = {1};
  o.keepHeads = std::vector<int>{2, 0};
  const std::vector<int> shortIds(m_ids.begin(), m_ids.begin() + 4);
  cached.model->run(test::inputFromIds(shortIds), o);
  const ModelRun got = cached.model->run(test::inputFromIds(m_ids), o);
  EXPECT_EQ(got.reusedTokens, 4);
  RunOptions plain = o;
  plain.reusePrefix = false;
  const ModelRun want = fresh.model->run(test::inputFromIds(m_ids), plain);
  ASSERT_EQ(got.layers.size(), 1u);
  EXPECT_EQ(got.layers[0].result.keptHeads, (std::vector<int>{0, 2}));
  expectSameRun(got, want, "kept heads");

  // A run that needs more layers than the cached one had computes them all.
  const LoadedModel partial = load();
  RunOptions first = cachedOptions();
  first.layers = {0};
  partial.model->run(test::inputFromIds(shortIds), first);
  RunOptions all = cachedOptions();
  EXPECT_EQ(partial.model->run(test::inputFromIds(m_ids), all).reusedTokens, 0);
}

INSTANTIATE_TEST_SUITE_P(CausalFamilies, PrefixReuse, ::testing::Values("gpt2", "llama"));

}  // namespace
}  // namespace headmap
