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
// Passes: 1 validate, 2 masks, 3 projections (multiHeadAttention), 4 per (head, block of query
// rows): scores GEMM, stages, fused masked softmax, context GEMM — the block's scores stay in
// cache between the three — 5 output projection. GEMMs run through gemm.h on whole blocks;
// the passes are spread over a small thread pool (parallel.h).
#include "core/attention/attention.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

#include "core/attention/gemm.h"
#include "core/attention/parallel.h"
#include "core/attention/softmax.h"
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

void clear(HeadMaps& maps) {
  maps.heads = maps.q = maps.k = 0;
  maps.values.clear();  // keeps the capacity for the next call
}

// Pass 1 for attendProjected: every shape, before touching data. Returns d_k.
int validateProjected(const ConstRef& q, const ConstRef& k, const ConstRef& v, int nHeads,
                      int nKvHeads) {
  const long long nq = q.rows(), nk = k.rows();
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
  const long long dk = q.cols() / nHeads;
  if (k.cols() != nKvHeads * dk) {
    throw Error("attention: K should be (" + str(nk) + ", " + str(nKvHeads * dk) + ") for " +
                str(nKvHeads) + " KV heads of " + str(dk) + ", got (" + str(nk) + ", " +
                str(k.cols()) + ")");
  }
  if (v.rows() != nk || v.cols() != k.cols()) {
    throw Error("attention: V should be (" + str(nk) + ", " + str(k.cols()) + ") like K, got (" +
                str(v.rows()) + ", " + str(v.cols()) + ")");
  }
  if (nq > nk) throw Error("attention: " + str(nq) + " queries but only " + str(nk) + " keys");
  return static_cast<int>(dk);
}

// Pass 2: keyMask (q, k) and fullyMasked (q). Query i sits at position i + (nk - nq), so with
// nq == nk causal hides keys j > i.
void buildMasks(int nq, int nk, const AttentionOptions& options, AttentionResult& r) {
  std::vector<uint8_t> padded(nk, 0);
  for (int p : options.paddedKeys) {
    if (p < 0 || p >= nk) {
      throw Error("attention: padded key position " + str(p) + " is outside 0.." + str(nk - 1) +
                  " (" + str(nk) + " tokens)");
    }
    padded[p] = 1;
  }
  r.keyMask.resize(static_cast<size_t>(nq) * nk);
  r.fullyMasked.resize(nq);
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

struct Attend {
  ConstRef q, k, v;
  int nq, nk, dk, groupSize;
  float scale;
  const AttentionOptions& options;
  AttentionResult& r;
};

// Pass 4 for head h, query rows [r0, r0 + rows): (rows, nk) scores, softmax, context columns.
// dest: the head's (nq, nk) softmax map (kept in r.weights or a scratch buffer); stageSlot: the
// head's map index in r.raw/scaled/masked, or -1 when its stages are not kept.
void attendBlock(const Attend& a, int h, float* dest, int stageSlot, int r0, int rows) {
  AttentionResult& r = a.r;
  const int nq = a.nq, nk = a.nk, dk = a.dk;
  const int offset = nk - nq;
  const int kv = h / a.groupSize;
  const auto qb = a.q.block(r0, static_cast<Eigen::Index>(h) * dk, rows, dk);  // (rows, d_k)
  RowMatrixMap s(dest + static_cast<size_t>(r0) * nk, rows, nk);               // (rows, nk)
  const uint8_t* mask = r.keyMask.data() + static_cast<size_t>(r0) * nk;
  // Causal: keys at or beyond `end` are hidden for every row of the block; skip them in both
  // GEMMs unless the stages must show the raw scores there.
  const int end = a.options.causal ? std::min(nk, r0 + rows + offset) : nk;

  if (stageSlot >= 0) {
    const size_t first = (static_cast<size_t>(stageSlot) * nq + r0) * nk;
    RowMatrixMap raw(r.raw.values.data() + first, rows, nk);
    RowMatrixMap scaled(r.scaled.values.data() + first, rows, nk);
    RowMatrixMap masked(r.masked.values.data() + first, rows, nk);
    gemmTransposedInto(raw, qb, a.k.middleCols(static_cast<Eigen::Index>(kv) * dk, dk));
    scaled = raw * a.scale;
    masked = scaled;
    float* m = masked.data();
    const size_t cells = static_cast<size_t>(rows) * nk;
    for (size_t c = 0; c < cells; ++c) {
      if (mask[c]) m[c] = -std::numeric_limits<float>::infinity();
    }
    s = scaled;
  } else {
    // Scale folded into the GEMM (alpha): one pass over the block.
    gemmTransposedInto(s.leftCols(end), qb,
                       a.k.block(0, static_cast<Eigen::Index>(kv) * dk, end, dk), a.scale);
  }
  const bool hasPadding = !a.options.paddedKeys.empty();
  maskedSoftmaxRows(s, mask, hasPadding, a.options.causal ? r0 + offset + 1 : -1);
  gemmInto(r.context.block(r0, static_cast<Eigen::Index>(h) * dk, rows, dk), s.leftCols(end),
           a.v.block(0, static_cast<Eigen::Index>(kv) * dk, end, dk));
}

// Query rows per task: a block of scores (rows, nk) of ~256 KB stays in L2 between GEMM,
// softmax and context.
int blockRowsFor(int nq, int nk) {
  const int rows = (64 * 1024) / std::max(1, nk);
  return std::clamp(rows - rows % 8, 8, std::max(8, nq));
}

// Scratch for heads that are not kept: this many bytes, but always room for one head.
constexpr size_t kScratchBytes = size_t(32) << 20;

// Pass 4 over every (head, row block). With every head kept and no callback, one fork-join over
// all heads (the fast path for short inputs). Otherwise heads run in groups whose dropped maps
// fit the scratch; after each group the callback sees its heads in order.
void attendHeads(const Attend& a, int nHeads, const std::vector<int>& kept, int blockRows) {
  AttentionResult& r = a.r;
  const size_t cells = static_cast<size_t>(a.nq) * a.nk;
  const int blocks = (a.nq + blockRows - 1) / blockRows;
  const bool stages = a.options.keepStages;
  std::vector<int> slot(nHeads, -1);  // head -> index in r.weights, -1 = not kept
  for (size_t i = 0; i < kept.size(); ++i) slot[kept[i]] = static_cast<int>(i);
  auto dest = [&](int h, std::vector<float>& scratch, int scratchSlot) {
    return slot[h] >= 0 ? r.weights.values.data() + slot[h] * cells
                        : scratch.data() + static_cast<size_t>(scratchSlot) * cells;
  };
  const double flopsPerHead = 4.0 * a.nq * a.nk * a.dk;

  // Reused across calls and never shrunk: a fresh zeroed 32 MB per layer cost page faults and a
  // memset for every layer of a long input (perf: ~20 % of a 1,024-token GPT-2 overview).
  // Workers reach it only through the reference.
  thread_local std::vector<float> scratchStore;
  std::vector<float>& scratch = scratchStore;
  if (static_cast<int>(kept.size()) == nHeads && !a.options.onHead) {
    parallelFor(nHeads * blocks, flopsPerHead * nHeads, [&](int t) {
      const int h = t / blocks, r0 = (t % blocks) * blockRows;
      attendBlock(a, h, dest(h, scratch, 0), stages ? slot[h] : -1, r0,
                  std::min(blockRows, a.nq - r0));
    });
    return;
  }
  const int dropped = nHeads - static_cast<int>(kept.size());
  const int perGroup =
      std::clamp(static_cast<int>(kScratchBytes / (cells * sizeof(float))), 1, nHeads);
  const size_t scratchCells = static_cast<size_t>(std::min(perGroup, dropped)) * cells;
  if (dropped > 0 && scratch.size() < scratchCells) scratch.resize(scratchCells);
  for (int h0 = 0; h0 < nHeads;) {
    // Heads [h0, h1): at most perGroup of them dropped.
    std::vector<int> scratchSlot(nHeads, -1);
    int h1 = h0, used = 0;
    while (h1 < nHeads && (slot[h1] >= 0 || used < perGroup)) {
      if (slot[h1] < 0) scratchSlot[h1] = used++;
      ++h1;
    }
    const int count = h1 - h0;
    parallelFor(count * blocks, flopsPerHead * count, [&](int t) {
      const int h = h0 + t / blocks, r0 = (t % blocks) * blockRows;
      attendBlock(a, h, dest(h, scratch, scratchSlot[h]), stages ? slot[h] : -1, r0,
                  std::min(blockRows, a.nq - r0));
    });
    if (a.options.onHead) {
      for (int h = h0; h < h1; ++h) {
        HeadWeights w;
        w.head = h;
        w.weights = dest(h, scratch, scratchSlot[h]);
        w.q = a.nq;
        w.k = a.nk;
        w.keyMask = &r.keyMask;
        w.fullyMasked = &r.fullyMasked;
        a.options.onHead(w);
      }
    }
    h0 = h1;
  }
}

// out[:, columns] = in · W[columns, :]ᵀ + b[columns] for column chunks of one or more
// (W, b, out) triples, in a single fork-join across threads (Q, K and V together cost one
// wake-up instead of three). The chunk width is fixed, not derived from the thread count, so that
// every thread count gives bit-identical results, also where gemm falls back to Eigen (whose
// blocking depends on the operand sizes).
struct LinearJob {
  const RowMatrixXf& w;
  const VectorXf& b;
  RowMatrixXf& out;
};

void linear(const ConstRef& in, std::initializer_list<LinearJob> jobs) {
  constexpr int width = 128;
  const int cols = static_cast<int>(jobs.begin()->w.rows());  // every W has d_model rows here
  const int chunks = (cols + width - 1) / width;
  const double flops = 2.0 * in.rows() * in.cols() * cols * jobs.size();
  PackedA& packed = packedInput();  // `in` packed once for every chunk
  packed.pack(in);
  parallelFor(chunks * static_cast<int>(jobs.size()), flops, [&](int t) {
    const LinearJob& job = jobs.begin()[t / chunks];
    const int c0 = (t % chunks) * width, cw = std::min(cols, c0 + width) - c0;
    auto dst = job.out.middleCols(c0, cw);
    gemmTransposedInto(dst, packed, job.w.middleRows(c0, cw));
    dst.rowwise() += job.b.segment(c0, cw).transpose();
  });
}

}  // namespace

int AttentionResult::mapIndex(int head) const {
  if (keptHeads.empty()) return head >= 0 && head < weights.heads ? head : -1;
  const auto it = std::lower_bound(keptHeads.begin(), keptHeads.end(), head);
  return it != keptHeads.end() && *it == head ? static_cast<int>(it - keptHeads.begin()) : -1;
}

std::vector<int> headsToKeep(const AttentionOptions& options, int nHeads) {
  std::vector<int> kept;
  if (!options.keepHeads) {
    kept.resize(nHeads);
    for (int h = 0; h < nHeads; ++h) kept[h] = h;
    return kept;
  }
  kept = *options.keepHeads;
  for (int h : kept) {
    if (h < 0 || h >= nHeads) {
      throw Error("attention: head " + str(h) + " asked to be kept, the layer has " + str(nHeads) +
                  " heads (0-" + str(nHeads - 1) + ")");
    }
  }
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  return kept;
}

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

void attendProjected(const ConstRef& q, const ConstRef& k, const ConstRef& v, int nHeads,
                     int nKvHeads, const AttentionOptions& options, AttentionResult& r) {
  const int dk = validateProjected(q, k, v, nHeads, nKvHeads);  // Pass 1
  const std::vector<int> kept = headsToKeep(options, nHeads);
  const int nq = static_cast<int>(q.rows()), nk = static_cast<int>(k.rows());
  buildMasks(nq, nk, options, r);  // Pass 2
  const int nKept = static_cast<int>(kept.size());
  allocate(r.weights, nKept, nq, nk);
  if (options.keepStages) {
    allocate(r.raw, nKept, nq, nk);
    allocate(r.scaled, nKept, nq, nk);
    allocate(r.masked, nKept, nq, nk);
  } else {
    clear(r.raw);
    clear(r.scaled);
    clear(r.masked);
  }
  r.keptHeads = kept;
  r.context.resize(nq, q.cols());

  // Pass 4: (head, row block) tasks are independent.
  const float scale = options.scale ? 1.0f / std::sqrt(static_cast<float>(dk)) : 1.0f;
  const Attend job{q, k, v, nq, nk, dk, nHeads / nKvHeads, scale, options, r};
  attendHeads(job, nHeads, kept, blockRowsFor(nq, nk));
}

AttentionResult attendProjected(const ConstRef& q, const ConstRef& k, const ConstRef& v, int nHeads,
                                int nKvHeads, const AttentionOptions& options) {
  AttentionResult r;
  attendProjected(q, k, v, nHeads, nKvHeads, options, r);
  return r;
}

void multiHeadAttention(const ConstRef& x, const AttentionLayerWeights& w,
                        const AttentionOptions& options, AttentionResult& r) {
  w.validate("attention layer");  // Pass 1
  if (x.rows() == 0) throw Error("attention: empty input (0 tokens)");
  if (x.cols() != w.dModel) {
    throw Error("attention: input has " + str(x.cols()) + " columns, the layer's d_model is " +
                str(w.dModel));
  }
  // Pass 3: projections (n, d) · (d, d)ᵀ + b, column chunks across threads.
  const int n = static_cast<int>(x.rows());
  // Reused across calls (no allocation per keystroke); one set per calling thread. Pool workers
  // only see them through the references passed below, never by name.
  thread_local RowMatrixXf q, k, v;
  q.resize(n, w.dModel);
  k.resize(n, w.dModel);
  v.resize(n, w.dModel);
  linear(x, {{w.wq, w.bq, q}, {w.wk, w.bk, k}, {w.wv, w.bv, v}});

  attendProjected(q, k, v, w.nHeads, w.nHeads, options, r);  // passes 2 and 4

  r.output.resize(n, w.dModel);  // Pass 5
  linear(r.context, {{w.wo, w.bo, r.output}});
}

AttentionResult multiHeadAttention(const ConstRef& x, const AttentionLayerWeights& w,
                                   const AttentionOptions& options) {
  AttentionResult r;
  multiHeadAttention(x, w, options, r);
  return r;
}

}  // namespace headmap
