#include "ui/frame_analysis.h"

#include <algorithm>
#include <limits>

namespace headmap::ui {

PooledMap poolHead(const HeadWeights& head, int maxCells) {
  PooledMap p;
  p.layer = head.layer;
  p.head = head.head;
  const int n = head.q;
  p.cells = std::max(1, std::min(n, maxCells));
  p.edges.resize(p.cells + 1);
  for (int i = 0; i <= p.cells; ++i) p.edges[i] = int(int64_t(i) * n / p.cells);
  const size_t total = size_t(p.cells) * p.cells;
  p.values.assign(total, 0.f);
  const bool hasMask = head.keyMask && head.keyMask->size() == size_t(n) * head.k;
  if (hasMask) p.mask.assign(total, 1);
  const float lowest = std::numeric_limits<float>::lowest();
  // Row by row over the (n, k) map: each query row lands in one bin row; per key bin keep the
  // largest unmasked weight. O(n²), one pass, no temporaries.
  std::vector<float> best(p.cells);
  std::vector<uint8_t> seen(p.cells);
  for (int bi = 0; bi < p.cells; ++bi) {
    std::fill(best.begin(), best.end(), lowest);
    std::fill(seen.begin(), seen.end(), 0);
    for (int q = p.edges[bi]; q < p.edges[bi + 1]; ++q) {
      const float* row = head.weights + size_t(q) * head.k;
      const uint8_t* m = hasMask ? head.keyMask->data() + size_t(q) * head.k : nullptr;
      for (int bj = 0; bj < p.cells; ++bj) {
        float b = best[bj];
        bool any = seen[bj];
        for (int k = p.edges[bj]; k < p.edges[bj + 1]; ++k) {
          if (m && m[k]) continue;
          any = true;
          // NaN stays visible as NaN (the view greys it) rather than vanishing in max().
          b = (row[k] > b || row[k] != row[k]) ? row[k] : b;
        }
        best[bj] = b;
        seen[bj] = any;
      }
    }
    for (int bj = 0; bj < p.cells; ++bj) {
      const size_t cell = size_t(bi) * p.cells + bj;
      if (!seen[bj]) continue;  // every cell of the bin masked: stays masked (or 0)
      p.values[cell] = best[bj];
      if (hasMask) p.mask[cell] = 0;
    }
  }
  return p;
}

void LayerMeanStream::add(const HeadWeights& head) {
  if (head.layer != m_layer) return;
  if (m_heads == 0) m_sum.setZero(head.q, head.k);
  m_sum += head.map();
  ++m_heads;
}

RowMatrixXf LayerMeanStream::finish() {
  if (m_heads > 0) m_sum /= float(m_heads);
  m_heads = 0;
  return std::move(m_sum);
}

FrameAnalyzer::FrameAnalyzer(std::vector<int> ids, bool wholeModel, bool rollout, int meanLayer,
                             int thumbLayer)
    : m_stats(std::move(ids)),
      m_wholeModel(wholeModel),
      m_wantRollout(wholeModel && rollout),
      m_thumbLayer(thumbLayer),
      m_mean(meanLayer) {}

void FrameAnalyzer::add(const HeadWeights& head) {
  m_mean.add(head);
  if (!m_wholeModel) {
    if (head.layer == m_thumbLayer) m_overview.push_back(poolHead(head));
    return;
  }
  m_stats.add(head);
  if (m_wantRollout) m_rollout.add(head);
  m_overview.push_back(poolHead(head));
}

FrameAnalysis FrameAnalyzer::finish() {
  FrameAnalysis a;
  a.stats = m_stats.stats();
  if (m_wantRollout) a.rollout = m_rollout.finish();
  a.layerMean = m_mean.finish();
  a.overview = std::move(m_overview);
  return a;
}

uint64_t estimateFrameBytes(int layers, int heads, int64_t n, int keptHeads, bool keepStages,
                            bool rollout) {
  const double map = double(n) * double(n) * 4;
  double maps = keptHeads * (keepStages ? 4.0 : 1.0);
  maps += std::min<double>(heads, std::max(1.0, (32 << 20) / map));  // core's scratch
  if (rollout) maps += 2;
  // The app shows what it keeps: the frame and its copy in the window, the view's values, its
  // double-precision QCPColorMap cells and the colour image (≈ 1 + 1 + 2 + 1 maps per shown map).
  maps += 5;
  const double thumbs = double(layers) * heads * kThumbnailCells * kThumbnailCells * 4 * 4;
  return uint64_t(maps * map + map / 4 * 2 + thumbs);  // + key masks (bytes)
}

}  // namespace headmap::ui
