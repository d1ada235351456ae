// Head statistics and rollout at the sizes issue 8 asks to stay usable: 12 heads at up to 2048
// tokens (one layer's statistics), and rollout through 12 layers of 512 / 1024 tokens.
#include <benchmark/benchmark.h>

#include <random>

#include "core/analysis/head_stats.h"
#include "core/analysis/rollout.h"

namespace {

// One layer of random causal softmax rows: weights (heads, n, n), keyMask (n, n).
headmap::AttentionResult randomCausalLayer(int heads, int n, unsigned seed) {
  headmap::AttentionResult r;
  r.weights.heads = heads;
  r.weights.q = r.weights.k = n;
  r.weights.values.assign(static_cast<size_t>(heads) * n * n, 0.0f);
  r.keyMask.assign(static_cast<size_t>(n) * n, 0);
  r.fullyMasked.assign(n, 0);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int q = 0; q < n; ++q) {
    for (int k = q + 1; k < n; ++k) r.keyMask[static_cast<size_t>(q) * n + k] = 1;
  }
  for (int h = 0; h < heads; ++h) {
    auto m = r.weights.head(h);
    for (int q = 0; q < n; ++q) {
      float sum = 0;
      for (int k = 0; k <= q; ++k) sum += (m(q, k) = u(rng));
      for (int k = 0; k <= q; ++k) m(q, k) /= sum;
    }
  }
  return r;
}

void BM_LayerHeadStats(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const headmap::AttentionResult layer = randomCausalLayer(12, n, 1);
  std::vector<int> ids(n);
  for (int i = 0; i < n; ++i) ids[i] = i % 97;  // repeats, so induction is computed too
  for (auto _ : state) {
    benchmark::DoNotOptimize(headmap::computeLayerHeadStats(0, layer, ids));
  }
}
BENCHMARK(BM_LayerHeadStats)->Arg(256)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond);

void BM_Rollout12Layers(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  headmap::ModelRun run;
  for (int l = 0; l < 12; ++l) run.layers.push_back({l, randomCausalLayer(12, n, 10 + l)});
  for (auto _ : state) benchmark::DoNotOptimize(headmap::attentionRollout(run));
}
BENCHMARK(BM_Rollout12Layers)->Arg(128)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace
