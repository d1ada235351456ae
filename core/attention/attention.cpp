// Multi-head attention, numbered passes as torch.nn.MultiheadAttention runs them.
//
// Shapes (n = tokens, d = d_model, h = heads, d_k = d / h, kv = KV heads):
//   x        (n, d)          input rows
//   W_q/k/v  (d, d)          nn.Linear layout (out, in): Q = x W_qᵀ + b_q
//   Q        (n, h * d_k)    head i = columns [i d_k, (i+1) d_k)
//   K, V     (n, kv * d_k)   query head i reads KV head i / (h / kv)
//   scores   (h, n, n)       Q_i K_iᵀ / √d_k, written straight into the result's weights
//   context  (n, h * d_k)    softmax(scores_i) V_i, heads side by side
//   output   (n, d)          context W_oᵀ + b_o
//
// Passes: 1 validate, 2 masks, 3 per head (scores GEMM, stages, fused masked softmax, context
// GEMM) spread over threads, 4 output projection. Every GEMM goes through Eigen on whole blocks.
#include "core/attention/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "core/attention/parallel.h"
#include "core/common/error.h"

namespace headmap {

namespace {

using ConstRef = Eigen::Ref<const RowMatrixXf>;

std::string str(long long v) { return std::to_string(v); }

void allocate(HeadMaps& maps, int heads, int q, int k) {
  maps.heads = heads;
  maps.q = q;
  maps.k = k;
  maps.values.resize(static_cast<size_t>(heads) * q * k);
}

// Pass 2: keyMask (q, k) and fullyMasked (q). Query i sits at absolute position i + (nk - nq),
// so with nq == nk causal hides keys j > i.
void buildMasks(int nq, int nk, const AttentionOptions& options, AttentionResult& r) {
  r.keyMask.assign(static_cast<size_t>(nq) * nk, 0);
  r.fullyMasked.assign(nq, 0);
  std::vector<uint8_t> padded(nk, 0);
  for (int p : options.paddedKeys) {
    if (p < 0 || p >= nk) {
      throw Error("attention: padded key position " + str(p) + " is outside 0.." + str(nk - 1) +
                  " (" + str(nk) + " tokens)");
    }
    padded[p] = 1;
  }
  const int offset = nk - nq;
  for (int i = 0; i < nq; ++i) {
    uint8_t* row = r.keyMask.data() + static_cast<size_t>(i) * nk;
    bool any = false;
    for (int j = 0; j < nk; ++j) {
      row[j] = padded[j] || (options.causal && j > i + offset);
      any = any || !row[j];
    }
    r.fullyMasked[i] = !any;
  }
}

// Fused masked softmax over one score row, in place: masked cells become exactly 0, a row with
// every key masked becomes all zeros (torch gives NaN there).
void maskedSoftmaxRow(float* row, const uint8_t* mask, int nk, bool hasPadding, int causalLimit) {
  // Keys beyond causalLimit are masked by causality; zero them without reading.
  const int end = std::min(nk, causalLimit);
  float maxValue = -std::numeric_limits<float>::infinity();
  if (hasPadding) {
    for (int j = 0; j < end; ++j) {
      if (!mask[j]) maxValue = std::max(maxValue, row[j]);
    }
  } else {
    Eigen::Map<Eigen::ArrayXf> a(row, end);
    if (end > 0) maxValue = a.maxCoeff();
  }
  if (maxValue == -std::numeric_limits<float>::infinity()) {
    std::fill(row, row + nk, 0.0f);
    return;
  }
  Eigen::Map<Eigen::ArrayXf> a(row, end);
  a = (a - maxValue).exp();
  if (hasPadding) {
    for (int j = 0; j < end; ++j) {
      if (mask[j]) row[j] = 0.0f;
    }
  }
  a *= 1.0f / a.sum();
  std::fill(row + end, row + nk, 0.0f);
}

struct HeadJob {
  ConstRef q, k, v;
  int dk, groupSize;
  float scale;
  const AttentionOptions& options;
  AttentionResult& r;
  bool hasPadding;
};

// Pass 3 for one head h: scores, optional stages, softmax, context columns.
void attendHead(const HeadJob& job, int h) {
  AttentionResult& r = job.r;
  const int nq = r.weights.q, nk = r.weights.k, dk = job.dk;
  const int kvHead = h / job.groupSize;
  auto qh = job.q.middleCols(static_cast<Eigen::Index>(h) * dk, dk);       // (nq, d_k)
  auto kh = job.k.middleCols(static_cast<Eigen::Index>(kvHead) * dk, dk);  // (nk, d_k)
  auto vh = job.v.middleCols(static_cast<Eigen::Index>(kvHead) * dk, dk);  // (nk, d_k)
  RowMatrixMap s = r.weights.head(h);                                      // (nq, nk)

  if (job.options.keepStages) {
    RowMatrixMap raw = r.raw.head(h);
    raw.noalias() = qh * kh.transpose();
    RowMatrixMap scaled = r.scaled.head(h);
    scaled = raw * job.scale;
    RowMatrixMap masked = r.masked.head(h);
    masked = scaled;
    const uint8_t* m = r.keyMask.data();
    float* out = masked.data();
    const size_t cells = static_cast<size_t>(nq) * nk;
    for (size_t c = 0; c < cells; ++c) {
      if (m[c]) out[c] = -std::numeric_limits<float>::infinity();
    }
    s = scaled;
  } else {
    // Scale folded into the GEMM's output: one pass over (nq, nk) instead of two.
    s.noalias() = (qh * kh.transpose()) * job.scale;
  }

  const int offset = nk - nq;
  for (int i = 0; i < nq; ++i) {
    const int causalLimit = job.options.causal ? i + offset + 1 : nk;
    maskedSoftmaxRow(s.row(i).data(), r.keyMask.data() + static_cast<size_t>(i) * nk, nk,
                     job.hasPadding, causalLimit);
  }
  r.context.middleCols(static_cast<Eigen::Index>(h) * dk, dk).noalias() = s * vh;
}

}  // namespace

void AttentionLayerWeights::validate(const std::string& where) const {
  auto fail = [&](const std::string& what) { throw Error(where + ": " + what); };
  if (dModel <= 0) fail("d_model must be positive, got " + str(dModel));
  if (nHeads <= 0) fail("the head count must be positive, got " + str(nHeads));
  if (dModel % nHeads != 0) {
    fail("d_model " + str(dModel) + " is not divisible by " + str(nHeads) + " heads");
  }
  const std::pair<const RowMatrixXf*, const char*> mats[] = {
      {&wq, "W_q"}, {&wk, "W_k"}, {&wv, "W_v"}, {&wo, "W_o"}};
  for (const auto& [m, name] : mats) {
    if (m->rows() != dModel || m->cols() != dModel) {
      fail(std::string(name) + " should be (" + str(dModel) + ", " + str(dModel) + "), got (" +
           str(m->rows()) + ", " + str(m->cols()) + ")");
    }
  }
  const std::pair<const VectorXf*, const char*> biases[] = {
      {&bq, "b_q"}, {&bk, "b_k"}, {&bv, "b_v"}, {&bo, "b_o"}};
  for (const auto& [b, name] : biases) {
    if (b->size() != dModel) {
      fail(std::string(name) + " should have " + str(dModel) + " values, got " + str(b->size()));
    }
  }
}

AttentionResult attendProjected(const ConstRef& q, const ConstRef& k, const ConstRef& v, int nHeads,
                                int nKvHeads, const AttentionOptions& options) {
  // Pass 1: validate every shape before touching data.
  const int nq = static_cast<int>(q.rows()), nk = static_cast<int>(k.rows());
  if (nq == 0 || nk == 0) {
    throw Error("attention: empty input (" + str(nq) + " queries, " + str(nk) + " keys)");
  }
  if (nHeads <= 0 || nKvHeads <= 0) {
    throw Error("attention: head counts must be positive, got " + str(nHeads) + " heads and " +
                str(nKvHeads) + " KV heads");
  }
  if (nHeads % nKvHeads != 0) {
    throw Error("attention: " + str(nHeads) + " heads are not a multiple of " + str(nKvHeads) +
                " KV heads");
  }
  if (q.cols() % nHeads != 0) {
    throw Error("attention: Q width " + str(q.cols()) + " is not divisible by " + str(nHeads) +
                " heads");
  }
  const int dk = static_cast<int>(q.cols() / nHeads);
  if (k.cols() != static_cast<Eigen::Index>(nKvHeads) * dk) {
    throw Error("attention: K should be (" + str(nk) + ", " + str(nKvHeads * dk) + ") for " +
                str(nKvHeads) + " KV heads of " + str(dk) + ", got (" + str(nk) + ", " +
                str(k.cols()) + ")");
  }
  if (v.rows() != nk || v.cols() != k.cols()) {
    throw Error("attention: V should be (" + str(nk) + ", " + str(k.cols()) + ") like K, got (" +
                str(v.rows()) + ", " + str(v.cols()) + ")");
  }
  if (nq > nk) {
    throw Error("attention: " + str(nq) + " queries but only " + str(nk) + " keys");
  }

  AttentionResult r;
  buildMasks(nq, nk, options, r);  // Pass 2
  allocate(r.weights, nHeads, nq, nk);
  if (options.keepStages) {
    allocate(r.raw, nHeads, nq, nk);
    allocate(r.scaled, nHeads, nq, nk);
    allocate(r.masked, nHeads, nq, nk);
  }
  r.context.resize(nq, q.cols());

  // Pass 3: heads are independent; threads take whole heads.
  const float scale = options.scale ? 1.0f / std::sqrt(static_cast<float>(dk)) : 1.0f;
  HeadJob job{q, k, v, dk, nHeads / nKvHeads, scale, options, r, !options.paddedKeys.empty()};
  const double flops = 4.0 * nq * nk * dk * nHeads;
  parallelFor(nHeads, flops, [&](int h) { attendHead(job, h); });
  return r;
}

AttentionResult multiHeadAttention(const ConstRef& x, const AttentionLayerWeights& w,
                                   const AttentionOptions& options) {
  w.validate("attention layer");
  if (x.rows() == 0) throw Error("attention: empty input (0 tokens)");
  if (x.cols() != w.dModel) {
    throw Error("attention: input has " + str(x.cols()) + " columns, the layer's d_model is " +
                str(w.dModel));
  }
  // Projections: (n, d) · (d, d)ᵀ, one GEMM each, bias broadcast over rows.
  const int n = static_cast<int>(x.rows());
  RowMatrixXf q(n, w.dModel), k(n, w.dModel), v(n, w.dModel);
  const double projFlops = 2.0 * n * w.dModel * w.dModel;
  const RowMatrixXf* ws[] = {&w.wq, &w.wk, &w.wv};
  const VectorXf* bs[] = {&w.bq, &w.bk, &w.bv};
  RowMatrixXf* outs[] = {&q, &k, &v};
  // Work split over (matrix, row block) so two threads share even 3 projections.
  const int blocks = 2 * projectionThreads(3 * projFlops);
  const int rowsPer = (n + blocks - 1) / blocks;
  parallelFor(3 * blocks, 3 * projFlops, [&](int t) {
    const int m = t / blocks, b = t % blocks;
    const int r0 = b * rowsPer, rows = std::min(n, r0 + rowsPer) - r0;
    if (rows <= 0) return;
    auto dst = outs[m]->middleRows(r0, rows);
    dst.noalias() = x.middleRows(r0, rows) * ws[m]->transpose();
    dst.rowwise() += bs[m]->transpose();
  });

  AttentionResult r = attendProjected(q, k, v, w.nHeads, w.nHeads, options);

  // Pass 4: output projection (n, h d_k) · W_oᵀ + b_o, row blocks across threads.
  r.output.resize(n, w.dModel);
  const int oBlocks = projectionThreads(projFlops);
  const int oRows = (n + oBlocks - 1) / oBlocks;
  parallelFor(oBlocks, projFlops, [&](int b) {
    const int r0 = b * oRows, rows = std::min(n, r0 + oRows) - r0;
    if (rows <= 0) return;
    auto dst = r.output.middleRows(r0, rows);
    dst.noalias() = r.context.middleRows(r0, rows) * w.wo.transpose();
    dst.rowwise() += w.bo.transpose();
  });
  return r;
}

}  // namespace headmap
