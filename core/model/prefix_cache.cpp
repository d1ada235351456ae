#include "core/model/prefix_cache.h"

#include <algorithm>


namespace headmap {

namespace {

std::vector<uint8_t> paddedFlags(const std::vector<int>& padded, size_t n) {
  std::vector<uint8_t> flags(n, 0);
  for (int p : padded)
    if (p >= 0 && size_t(p) < n) flags[p] = 1;
  return flags;
}

// rows 0..p-1 of `old` (old.rows() >= p) over `fresh`: (p + fresh.rows(), cols).
RowMatrixXf stackRows(const RowMatrixXf& old, int p, const Eigen::Ref<const RowMatrixXf>& fresh) {
  RowMatrixXf out(p + fresh.rows(), fresh.cols());
  if (p > 0) out.topRows(p) = old.topRows(p);  // old may be empty (0 x 0) when p == 0
  out.bottomRows(fresh.rows()) = fresh;
  return out;
}

}  // namespace

int PrefixCache::begin(const std::vector<int>& ids, const RunOptions& options, int layers,
                       int heads) {
  const size_t n = ids.size();
  const uint64_t mapBytes = uint64_t(layers) * heads * n * n * sizeof(float);
  const AttentionOptions& a = options.attention;
  m_caching = !a.keepStages && !options.logits && mapBytes <= kMaxMapBytes;
  int p = 0;
  if (m_valid && m_caching && a.scale == m_scale && int(m_layers.size()) >= layers) {
    const std::vector<uint8_t> padded = paddedFlags(a.paddedKeys, n);
    const size_t limit = std::min(n - 1, m_ids.size());  // p < n: an identical input runs again
    while (size_t(p) < limit && ids[p] == m_ids[p] && padded[p] == m_padded[p]) ++p;
  }
  m_reused = p;
  // From here until commit() the stored layers are being overwritten.
  m_valid = false;
  if (m_caching) {
    m_ids = ids;
    m_padded = paddedFlags(a.paddedKeys, n);
    m_scale = a.scale;
    m_layers.resize(std::max<size_t>(m_layers.size(), size_t(layers)));
  } else {
    m_ids.clear();
    m_layers.clear();
  }
  return p;
}

void PrefixCache::keysValues(int layer, const Eigen::Ref<const RowMatrixXf>& kNew,
                             const Eigen::Ref<const RowMatrixXf>& vNew, RowMatrixXf& k,
                             RowMatrixXf& v) const {
  const Layer& old = m_layers[layer];
  k = stackRows(old.k, m_reused, kNew);
  v = stackRows(old.v, m_reused, vNew);
}

AttentionResult PrefixCache::complete(int layer, AttentionResult fresh,
                                      const AttentionOptions& options, RowMatrixXf k,
                                      RowMatrixXf v) {
  const int p = m_reused;
  const int n = fresh.weights.k, nNew = fresh.weights.q, heads = fresh.weights.heads;
  Layer& stored = m_layers[layer];

  // Every head's (n, n) map: rows 0..p-1 from the previous run (their keys past p-1 are
  // causally masked: exactly 0), rows p..n-1 from fresh.
  HeadMaps maps;
  maps.heads = heads;
  maps.q = maps.k = n;
  maps.values.assign(size_t(heads) * n * n, 0.0f);
  std::vector<uint8_t> keyMask(size_t(n) * n, 1), fullyMasked(n);
  for (int i = 0; i < p; ++i) {
    const size_t oldRow = size_t(i) * stored.maps.k;
    std::copy_n(stored.keyMask.begin() + oldRow, p, keyMask.begin() + size_t(i) * n);
    fullyMasked[i] = stored.fullyMasked[i];
    for (int h = 0; h < heads; ++h) {
      const float* src = stored.maps.values.data() + size_t(h) * stored.maps.q * stored.maps.k;
      std::copy_n(src + oldRow, p, maps.values.data() + (size_t(h) * n + i) * n);
    }
  }
  std::copy(fresh.keyMask.begin(), fresh.keyMask.end(), keyMask.begin() + size_t(p) * n);
  std::copy(fresh.fullyMasked.begin(), fresh.fullyMasked.end(), fullyMasked.begin() + p);
  for (int h = 0; h < heads; ++h) {
    std::copy_n(fresh.weights.values.data() + size_t(h) * nNew * n, size_t(nNew) * n,
                maps.values.data() + (size_t(h) * n + p) * n);
  }

  AttentionResult r;
  r.context = stackRows(stored.context, p, fresh.context);
  r.keyMask = keyMask;
  r.fullyMasked = fullyMasked;
  r.keptHeads = headsToKeep(options, heads);
  const size_t cells = size_t(n) * n;
  r.weights.heads = int(r.keptHeads.size());
  r.weights.q = r.weights.k = n;
  r.weights.values.resize(r.keptHeads.size() * cells);
  for (size_t i = 0; i < r.keptHeads.size(); ++i) {
    std::copy_n(maps.values.data() + r.keptHeads[i] * cells, cells,
                r.weights.values.data() + i * cells);
  }
  if (options.onHead) {
    for (int h = 0; h < heads; ++h) {
      HeadWeights w;
      w.head = h;
      w.weights = maps.values.data() + h * cells;
      w.q = w.k = n;
      w.keyMask = &r.keyMask;
      w.fullyMasked = &r.fullyMasked;
      options.onHead(w);
    }
  }

  stored.k = std::move(k);
  stored.v = std::move(v);
  stored.context = r.context;
  stored.maps = std::move(maps);
  stored.keyMask = std::move(keyMask);
  stored.fullyMasked = std::move(fullyMasked);
  return r;
}

void PrefixCache::commit() { m_valid = m_caching; }

PrefixCache* PrefixCache::start(std::unique_lock<std::mutex>& lock, const std::vector<int>& ids,
                                const RunOptions& options, int layers, int heads) {
  if (!options.reusePrefix) return nullptr;
  lock = std::unique_lock<std::mutex>(m_mutex);
  begin(ids, options, layers, heads);
  return m_caching ? this : nullptr;
}

AttentionResult attendRows(PrefixCache* cache, int layer, const Eigen::Ref<const RowMatrixXf>& q,
                           const Eigen::Ref<const RowMatrixXf>& kNew,
                           const Eigen::Ref<const RowMatrixXf>& vNew, int heads, int kvHeads,
                           const AttentionOptions& layerOptions) {
  if (!cache) return attendProjected(q, kNew, vNew, heads, kvHeads, layerOptions);
  RowMatrixXf k, v;  // (n, kv columns): cached rows over the new ones
  cache->keysValues(layer, kNew, vNew, k, v);
  AttentionOptions every = layerOptions;
  every.keepHeads.reset();
  every.onHead = nullptr;
  AttentionResult fresh = attendProjected(q, k, v, heads, kvHeads, every);
  return cache->complete(layer, std::move(fresh), layerOptions, std::move(k), std::move(v));
}

}  // namespace headmap
