#pragma once
// What the app computes from one model run, fed head by head (RunOptions::onHead) so that long
// inputs never hold layers × heads × n² floats: head statistics, the attention rollout, the
// selected layer's mean over heads and one small thumbnail per head for the overview.
//
// Memory for n tokens, L layers, H heads (float32):
//   kept maps of the selected layer      H·n² when H·n²·4 ≤ kWholeLayerBytes, else 1·n²
//   dropped heads' scratch (core)        ≤ 32 MB, at least n²
//   rollout (when computed)              2·n²
//   selected layer's mean (Mean mode)    n²
//   thumbnails                           L·H·kThumbnailCells²
#include <cstdint>
#include <vector>

#include "core/analysis/head_stats.h"
#include "core/analysis/rollout.h"
#include "core/attention/attention.h"

namespace headmap::ui {

// The selected layer keeps every head's map (grid, mean and head switches need no recompute)
// up to this size; above it only the shown head is kept and a head switch recomputes.
constexpr uint64_t kWholeLayerBytes = uint64_t(64) << 20;
// Overview cells: each head max-pooled to at most this many bins per side.
constexpr int kThumbnailCells = 96;
// Up to this many tokens every frame runs every layer for the statistics, the overview and the
// rollout; beyond, only when one of them is on screen (else the run stops at the selected layer).
constexpr int kAlwaysAnalyseTokens = 512;
// The rollout (L − 1 products of n × n matrices) is computed with every frame while it costs
// less than this; beyond, only when the rollout is on screen.
constexpr double kRolloutFlops = 8e9;

// One head max-pooled to at most kThumbnailCells × kThumbnailCells: bin i covers tokens
// [edges[i], edges[i + 1]) for both queries and keys. A pooled cell is the largest unmasked
// weight of its bin (so that thin patterns such as the previous-token diagonal stay visible) and
// masked only when every cell of the bin is masked. With n ≤ kThumbnailCells it is the map itself.
struct PooledMap {
  int layer = 0;
  int head = 0;
  int cells = 0;              // bins per side
  std::vector<int> edges;     // (cells + 1)
  std::vector<float> values;  // (cells, cells)
  std::vector<uint8_t> mask;  // (cells, cells), 1 = masked; empty = nothing masked
};

// head: one head's (n, n) weights with its layer's masks -> its pooled map.
PooledMap poolHead(const HeadWeights& head, int maxCells = kThumbnailCells);

// Sums the heads of one layer into its mean (n, n) over heads.
class LayerMeanStream {
 public:
  explicit LayerMeanStream(int layer) : m_layer(layer) {}
  void add(const HeadWeights& head);
  RowMatrixXf finish();  // (n, n), empty when the layer was never seen

 private:
  int m_layer;
  int m_heads = 0;
  RowMatrixXf m_sum;
};

// Everything computeFrame streams out of one run.
struct FrameAnalysis {
  std::vector<HeadStats> stats;     // one per (layer, head), layers ascending
  RowMatrixXf rollout;              // (n, n) or empty when not asked for
  RowMatrixXf layerMean;            // (n, n) or empty when not asked for
  std::vector<PooledMap> overview;  // one per (layer, head), layer-major
};

class FrameAnalyzer {
 public:
  // ids: (n) token ids for the induction score, or empty. wholeModel: statistics and overview
  // (every head); rollout: also the rollout; meanLayer: layer whose mean over heads to keep, or
  // -1; thumbLayer: without wholeModel, the layer whose thumbnails to keep (grid), or -1.
  FrameAnalyzer(std::vector<int> ids, bool wholeModel, bool rollout, int meanLayer,
                int thumbLayer = -1);
  void add(const HeadWeights& head);
  FrameAnalysis finish();

 private:
  HeadStatsStream m_stats;
  bool m_wholeModel;
  bool m_wantRollout;
  int m_thumbLayer;
  RolloutStream m_rollout;
  LayerMeanStream m_mean;
  std::vector<PooledMap> m_overview;
};

// Approximate peak bytes of a frame's computation and display for n tokens (see the top of this
// file), for the memory check before a run.
uint64_t estimateFrameBytes(int layers, int heads, int64_t n, int keptHeads, bool keepStages,
                            bool rollout);

}  // namespace headmap::ui
