#pragma once
// Multi-head self-attention exactly as torch.nn.MultiheadAttention computes it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/common/tensor.h"

namespace headmap {

// Parameters of one attention layer in nn.Linear layout: weights (out, in), row-major.
struct AttentionLayerWeights {
  int dModel = 0;
  int nHeads = 0;
  RowMatrixXf wq, wk, wv, wo;  // (d_model, d_model)
  VectorXf bq, bk, bv, bo;     // (d_model); zero when the checkpoint has no bias

  int dHead() const { return nHeads ? dModel / nHeads : 0; }
  // Throws headmap::Error naming the values when shapes disagree or d_model % n_heads != 0.
  void validate(const std::string& where) const;
};

enum class ScoreStage { Raw, Scaled, Masked, Softmax };

// One head's softmax weights as the kernel has just computed them, with the masks of its layer;
// what a streaming consumer (head statistics, rollout, thumbnails) reads. Valid only during the
// callback: the map may point into a scratch buffer that the next head overwrites.
struct HeadWeights {
  int layer = 0;                   // Model::run fills it; attendProjected gives 0
  int head = 0;                    // model head index
  const float* weights = nullptr;  // (q, k) row-major; rows sum to 1 over unmasked
  int q = 0;
  int k = 0;
  const std::vector<uint8_t>* keyMask = nullptr;      // (q, k): 1 = masked cell
  const std::vector<uint8_t>* fullyMasked = nullptr;  // (q): 1 = every key of the row masked

  ConstRowMatrixMap map() const { return ConstRowMatrixMap(weights, q, k); }
};
// Called on the thread that called attendProjected / Model::run, heads ascending, every head of
// a layer before the next layer.
using HeadCallback = std::function<void(const HeadWeights&)>;

struct AttentionOptions {
  bool causal = false;
  std::vector<int> paddedKeys;  // 0-based positions treated as padding (keys weigh exactly 0)
  bool scale = true;            // divide scores by sqrt(d_k)
  bool keepStages = false;      // also return raw, scaled and masked scores
  // Memory-bounded runs for long inputs. keepHeads: the heads whose maps (and stages) the result
  // keeps, in any order, each in 0..heads-1; nullopt = every head (the default), empty = none.
  // Heads not kept are computed in a scratch buffer of a few heads (at most ~32 MB, at least one
  // head's (q, k)) and dropped after onHead saw them, so memory is O(kept + 1 head) × q × k
  // instead of heads × q × k. The context is always complete.
  std::optional<std::vector<int>> keepHeads;
  HeadCallback onHead;  // when set, called once for every head (kept or not)
};

// Per-head maps of one layer, stored contiguously as (heads, q, k).
struct HeadMaps {
  int heads = 0;
  int q = 0;
  int k = 0;
  std::vector<float> values;

  bool empty() const { return values.empty(); }
  ConstRowMatrixMap head(int h) const {
    return ConstRowMatrixMap(values.data() + static_cast<size_t>(h) * q * k, q, k);
  }
  RowMatrixMap head(int h) {
    return RowMatrixMap(values.data() + static_cast<size_t>(h) * q * k, q, k);
  }
};

struct AttentionResult {
  HeadMaps weights;     // softmax: (kept heads, q, k); rows sum to 1 over unmasked keys
  HeadMaps raw;         // q kᵀ (only with keepStages)
  HeadMaps scaled;      // q kᵀ / √d_k (or raw when scale is off)
  HeadMaps masked;      // scaled with -inf at masked cells
  RowMatrixXf context;  // (q, heads * d_k): per-head weights · V, heads concatenated
  RowMatrixXf output;   // (q, d_model): context · W_oᵀ + b_o (multiHeadAttention only)
  std::vector<uint8_t> fullyMasked;  // (q): 1 when every key of that query row is masked
  std::vector<uint8_t> keyMask;      // (q, k) row-major: 1 = masked cell (causal or padding)
  // (weights.heads): the model head of each kept map, ascending. Every head (0, 1, ...) unless
  // AttentionOptions::keepHeads chose fewer; empty means the same as 0..weights.heads-1.
  std::vector<int> keptHeads;

  // The map index of a model head in weights/raw/scaled/masked, or -1 when it was not kept.
  int mapIndex(int head) const;
};

// The heads a result keeps under options.keepHeads, sorted and de-duplicated (every head when
// unset). Throws headmap::Error for an index outside 0..nHeads-1.
std::vector<int> headsToKeep(const AttentionOptions& options, int nHeads);

// The kernel shared by every model once Q, K, V are projected (and rotated, for RoPE models).
// q: (n, heads * d_k), k and v: (n, kv_heads * d_k). Query head h reads KV head
// h / (heads / kv_heads) (grouped-query attention; kv_heads == heads for plain MHA).
// -> weights (kept heads, n, n), context (n, heads * d_k); output is left empty.
// q may have fewer rows than k/v (queries for the last positions only): query i then sits at
// position i + (k.rows() - q.rows()) for the causal mask.
AttentionResult attendProjected(const Eigen::Ref<const RowMatrixXf>& q,
                                const Eigen::Ref<const RowMatrixXf>& k,
                                const Eigen::Ref<const RowMatrixXf>& v, int nHeads, int nKvHeads,
                                const AttentionOptions& options);

// x: (n, d_model) -> weights (heads, n, n), output (n, d_model).
AttentionResult multiHeadAttention(const Eigen::Ref<const RowMatrixXf>& x,
                                   const AttentionLayerWeights& w, const AttentionOptions& options);

// The same two computations into an existing result, reusing its buffers: when the sizes repeat
// (e.g. between keystrokes) nothing is reallocated. Stages not asked for are cleared.
void attendProjected(const Eigen::Ref<const RowMatrixXf>& q, const Eigen::Ref<const RowMatrixXf>& k,
                     const Eigen::Ref<const RowMatrixXf>& v, int nHeads, int nKvHeads,
                     const AttentionOptions& options, AttentionResult& result);
void multiHeadAttention(const Eigen::Ref<const RowMatrixXf>& x, const AttentionLayerWeights& w,
                        const AttentionOptions& options, AttentionResult& result);

}  // namespace headmap
