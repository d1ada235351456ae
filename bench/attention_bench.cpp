// Google Benchmark for the attention kernels at GPT-2-small width (d_model 768, 12 heads).
// Counters: GFLOPs = effective GFLOP/s (useful multiply-adds x 2 / time).
//   ./build/bench/headmap_bench --benchmark_filter=Attention
#include <benchmark/benchmark.h>

#include "core/attention/attention.h"
#include "core/attention/embedding.h"
#include "core/attention/gemm.h"
#include "core/attention/parallel.h"
#include "core/attention/softmax.h"

namespace headmap {
namespace {

constexpr int kDModel = 768;
constexpr int kHeads = 12;
constexpr int kDHead = kDModel / kHeads;

const AttentionLayerWeights& layer() {
  static const AttentionLayerWeights w = randomAttentionLayer(kDModel, kHeads, 42);
  return w;
}

RowMatrixXf input(int n) {
  std::vector<std::string> tokens;
  for (int i = 0; i < n; ++i) tokens.push_back("tok" + std::to_string(i % 97));
  return tokenEmbeddings(tokens, kDModel);
}

void setFlops(benchmark::State& state, double flops) {
  state.counters["GFLOPs"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void sizes(benchmark::internal::Benchmark* b) {
  for (int n : {16, 128, 512, 1024}) b->Arg(n);
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

// Q, K, V projections: three (n, d) x (d, d)ᵀ GEMMs (gemm.h) plus bias, single thread.
void BM_AttentionProjections(benchmark::State& state) {
  const int n = state.range(0);
  const RowMatrixXf x = input(n);
  RowMatrixXf q(n, kDModel), k(n, kDModel), v(n, kDModel);
  for (auto _ : state) {
    gemmTransposedInto(q, x, layer().wq);
    gemmTransposedInto(k, x, layer().wk);
    gemmTransposedInto(v, x, layer().wv);
    q.rowwise() += layer().bq.transpose();
    k.rowwise() += layer().bk.transpose();
    v.rowwise() += layer().bv.transpose();
    benchmark::DoNotOptimize(v.data());
  }
  setFlops(state, 3.0 * 2 * n * kDModel * kDModel);
}
BENCHMARK(BM_AttentionProjections)->Apply(sizes);

// Scores of all heads, one (n, d_k) x (d_k, n) GEMM (gemm.h) per head, single thread.
void BM_AttentionScores(benchmark::State& state) {
  const int n = state.range(0);
  const RowMatrixXf q = input(n), k = input(n).reverse();
  RowMatrixXf s(n, n);
  for (auto _ : state) {
    for (int h = 0; h < kHeads; ++h) {
      gemmTransposedInto(s, q.middleCols(h * kDHead, kDHead), k.middleCols(h * kDHead, kDHead));
      benchmark::DoNotOptimize(s.data());
    }
  }
  setFlops(state, 2.0 * n * n * kDModel);
}
BENCHMARK(BM_AttentionScores)->Apply(sizes);

// One float GEMM (m, k) x (k, n), single thread: headmap's gemm.h against Eigen's, at the square
// peak size and at the shapes of a GPT-2-small forward at 128 tokens (c_attn, mlp c_proj).
void gemmShapes(benchmark::internal::Benchmark* b) {
  b->Args({1024, 1024, 1024})->Args({128, 2304, 768})->Args({128, 768, 3072});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

void BM_GemmHeadmap(benchmark::State& state) {
  const int m = state.range(0), n = state.range(1), k = state.range(2);
  const RowMatrixXf a = RowMatrixXf::Random(m, k), b = RowMatrixXf::Random(k, n);
  RowMatrixXf c(m, n);
  for (auto _ : state) {
    gemmInto(c, a, b);
    benchmark::DoNotOptimize(c.data());
  }
  setFlops(state, 2.0 * m * n * k);
}
BENCHMARK(BM_GemmHeadmap)->Apply(gemmShapes);

void BM_GemmEigen(benchmark::State& state) {
  const int m = state.range(0), n = state.range(1), k = state.range(2);
  const RowMatrixXf a = RowMatrixXf::Random(m, k), b = RowMatrixXf::Random(k, n);
  RowMatrixXf c(m, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  setFlops(state, 2.0 * m * n * k);
}
BENCHMARK(BM_GemmEigen)->Apply(gemmShapes);

// The fused masked softmax over 12 heads of (n, n) scores, causal + one padded key.
void BM_AttentionMaskedSoftmax(benchmark::State& state) {
  const int n = state.range(0);
  RowMatrixXf base = RowMatrixXf::Random(n, n);
  RowMatrixXf s(n, n);
  std::vector<uint8_t> mask(static_cast<size_t>(n) * n, 0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) mask[i * n + j] = j > i || j == n / 2;
  }
  for (auto _ : state) {
    for (int h = 0; h < kHeads; ++h) {
      state.PauseTiming();
      s = base;
      state.ResumeTiming();
      maskedSoftmaxRows(RowMatrixMap(s.data(), n, n), mask.data(), true, true);
      benchmark::DoNotOptimize(s.data());
    }
  }
  state.counters["cells/s"] =
      benchmark::Counter(double(kHeads) * n * n, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AttentionMaskedSoftmax)->Apply(sizes);

// attendProjected: scores + softmax + context for 12 heads, threads over heads.
void BM_AttentionAttendProjected(benchmark::State& state) {
  const int n = state.range(0);
  const RowMatrixXf q = input(n), k = input(n).reverse(), v = input(n);
  AttentionOptions options;
  for (auto _ : state) {
    AttentionResult r = attendProjected(q, k, v, kHeads, kHeads, options);
    benchmark::DoNotOptimize(r.weights.values.data());
  }
  setFlops(state, 4.0 * n * n * kDModel);
}
BENCHMARK(BM_AttentionAttendProjected)->Apply(sizes);

// The whole layer with per-head weights, as issue 5 measures it against torch MHA.
void BM_AttentionMultiHead(benchmark::State& state) {
  const int n = state.range(0);
  const RowMatrixXf x = input(n);
  AttentionOptions options;
  for (auto _ : state) {
    AttentionResult r = multiHeadAttention(x, layer(), options);
    benchmark::DoNotOptimize(r.output.data());
  }
  setFlops(state, 8.0 * n * kDModel * kDModel + 4.0 * n * n * kDModel);
}
BENCHMARK(BM_AttentionMultiHead)->Apply(sizes);

// Same into a reused result, as the app does between keystrokes: no allocation, no page faults.
void BM_AttentionMultiHeadReused(benchmark::State& state) {
  const int n = state.range(0);
  const RowMatrixXf x = input(n);
  AttentionOptions options;
  AttentionResult r;
  for (auto _ : state) {
    multiHeadAttention(x, layer(), options, r);
    benchmark::DoNotOptimize(r.output.data());
  }
  setFlops(state, 8.0 * n * kDModel * kDModel + 4.0 * n * n * kDModel);
}
BENCHMARK(BM_AttentionMultiHeadReused)->Apply(sizes);

// Same, one thread: the per-core efficiency.
void BM_AttentionMultiHeadOneThread(benchmark::State& state) {
  setComputeThreads(1);
  BM_AttentionMultiHead(state);
  setComputeThreads(0);
}
BENCHMARK(BM_AttentionMultiHeadOneThread)->Apply(sizes);

}  // namespace
}  // namespace headmap
