#include "core/analysis/head_stats.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <unordered_map>

#include "core/common/error.h"

namespace headmap {

// The masking facts every head of a layer shares, derived once per layer.
struct LayerMask {
  int n = 0;
  const std::vector<uint8_t>* keyMask = nullptr;  // (n, n) or empty
  std::vector<uint8_t> validQuery;                // (n)
  std::vector<int> inductionKey;                  // (n): key p + 1 to read for query q, or -1

  bool masked(int q, int k) const {
    return !keyMask->empty() && (*keyMask)[static_cast<size_t>(q) * n + k] != 0;
  }
};

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void checkShapes(int layer, const AttentionResult& result, const std::vector<int>& ids) {
  const HeadMaps& w = result.weights;
  const std::string where = "head statistics, layer " + std::to_string(layer) + ": ";
  if (w.heads <= 0) throw Error(where + "the attention weights hold no heads");
  if (w.q != w.k) {
    throw Error(where + "needs square self-attention maps (q == k), got (" + std::to_string(w.q) +
                ", " + std::to_string(w.k) + ")");
  }
  const size_t n = static_cast<size_t>(w.q);
  if (w.values.size() != static_cast<size_t>(w.heads) * n * n) {
    throw Error(where + "weights (heads, q, k) = (" + std::to_string(w.heads) + ", " +
                std::to_string(n) + ", " + std::to_string(n) + ") need " +
                std::to_string(w.heads * n * n) + " values, got " +
                std::to_string(w.values.size()));
  }
  if (!result.keyMask.empty() && result.keyMask.size() != n * n) {
    throw Error(where + "keyMask needs " + std::to_string(n * n) + " cells (q, k), got " +
                std::to_string(result.keyMask.size()));
  }
  if (!result.fullyMasked.empty() && result.fullyMasked.size() != n) {
    throw Error(where + "fullyMasked needs " + std::to_string(n) + " rows, got " +
                std::to_string(result.fullyMasked.size()));
  }
  if (!ids.empty() && ids.size() != n) {
    throw Error(where + "the maps cover " + std::to_string(n) + " tokens but " +
                std::to_string(ids.size()) + " token ids were given");
  }
}

// keyMask: (n, n) or empty; fullyMasked: (n) or empty; ids: (n) or empty.
LayerMask deriveMask(int n, const std::vector<uint8_t>& keyMask,
                     const std::vector<uint8_t>& fullyMasked, const std::vector<int>& ids) {
  LayerMask m;
  m.n = n;
  m.keyMask = &keyMask;

  // Padding: a key column masked in every row.
  std::vector<uint8_t> padding(n, 0);
  if (!keyMask.empty()) {
    for (int k = 0; k < n; ++k) {
      bool all = true;
      for (int q = 0; q < n && all; ++q) all = m.masked(q, k);
      padding[k] = all ? 1 : 0;
    }
  }
  m.validQuery.assign(n, 0);
  for (int q = 0; q < n; ++q) {
    const bool fully = !fullyMasked.empty() && fullyMasked[q] != 0;
    m.validQuery[q] = (!fully && !padding[q]) ? 1 : 0;
  }

  // Induction target: the key after the most recent earlier non-padding occurrence.
  m.inductionKey.assign(n, -1);
  if (ids.empty()) return m;
  std::unordered_map<int, int> lastSeen;
  for (int q = 0; q < n; ++q) {
    auto it = lastSeen.find(ids[q]);
    if (it != lastSeen.end() && m.validQuery[q]) {
      const int target = it->second + 1;
      if (target < q && !m.masked(q, target)) m.inductionKey[q] = target;
    }
    if (!padding[q]) lastSeen[ids[q]] = q;
  }
  return m;
}

// A running mean that reports NaN when nothing was added.
struct Mean {
  double sum = 0;
  long count = 0;
  void add(double v) {
    sum += v;
    ++count;
  }
  double value() const { return count ? sum / count : kNaN; }
};

// weights: (n, n) one head's map, row-major; row q = query q.
HeadStats headStats(const LayerMask& m, const float* weights, int layer, int head) {
  const int n = m.n;
  Mean entropy, distance, first, previous, diagonal, induction;
  for (int q = 0; q < n; ++q) {
    if (!m.validQuery[q]) continue;
    const float* row = weights + static_cast<size_t>(q) * n;
    double h = 0, d = 0;
    for (int k = 0; k < n; ++k) {
      if (m.masked(q, k)) continue;
      const double w = row[k];
      if (w > 0) h -= w * std::log(w);
      d += w * std::abs(q - k);
    }
    entropy.add(h);
    distance.add(d);
    if (!m.masked(q, 0)) first.add(row[0]);
    if (q >= 1 && !m.masked(q, q - 1)) previous.add(row[q - 1]);
    if (!m.masked(q, q)) diagonal.add(row[q]);
    if (m.inductionKey[q] >= 0) induction.add(row[m.inductionKey[q]]);
  }
  HeadStats s;
  s.layer = layer;
  s.head = head;
  s.entropy = entropy.value();
  s.meanDistance = distance.value();
  s.firstTokenMass = first.value();
  s.previousToken = previous.value();
  s.diagonal = diagonal.value();
  if (induction.count) s.induction = induction.value();
  return s;
}

}  // namespace

std::vector<HeadStats> computeLayerHeadStats(int layer, const AttentionResult& result,
                                             const std::vector<int>& ids) {
  checkShapes(layer, result, ids);
  const LayerMask mask = deriveMask(result.weights.q, result.keyMask, result.fullyMasked, ids);
  const HeadMaps& w = result.weights;
  std::vector<HeadStats> stats;
  stats.reserve(w.heads);
  for (int h = 0; h < w.heads; ++h) {
    const int head = h < static_cast<int>(result.keptHeads.size()) ? result.keptHeads[h] : h;
    stats.push_back(
        headStats(mask, w.values.data() + static_cast<size_t>(h) * w.q * w.k, layer, head));
  }
  return stats;
}

HeadStatsStream::HeadStatsStream(std::vector<int> ids) : m_ids(std::move(ids)) {}
HeadStatsStream::~HeadStatsStream() = default;
HeadStatsStream::HeadStatsStream(HeadStatsStream&&) noexcept = default;

void HeadStatsStream::add(const HeadWeights& head) {
  const std::string where = "head statistics, layer " + std::to_string(head.layer) + ": ";
  if (head.q != head.k) {
    throw Error(where + "needs square self-attention maps (q == k), got (" +
                std::to_string(head.q) + ", " + std::to_string(head.k) + ")");
  }
  static const std::vector<uint8_t> kNone;
  const std::vector<uint8_t>& keyMask = head.keyMask ? *head.keyMask : kNone;
  const std::vector<uint8_t>& fullyMasked = head.fullyMasked ? *head.fullyMasked : kNone;
  const size_t n = static_cast<size_t>(head.q);
  if ((!keyMask.empty() && keyMask.size() != n * n) ||
      (!fullyMasked.empty() && fullyMasked.size() != n) || (!m_ids.empty() && m_ids.size() != n)) {
    throw Error(where + "the masks or token ids do not match the (" + std::to_string(n) + ", " +
                std::to_string(n) + ") map");
  }
  // Every head of a layer shares its masks: derive them once per layer. The stored pointer is
  // refreshed for each head because the previous head's vectors may be gone.
  if (!m_mask || head.layer != m_layer || m_mask->n != head.q) {
    m_mask = std::make_unique<LayerMask>(deriveMask(head.q, keyMask, fullyMasked, m_ids));
    m_layer = head.layer;
  }
  m_mask->keyMask = &keyMask;
  m_stats.push_back(headStats(*m_mask, head.weights, head.layer, head.head));
}

std::vector<int> idsFromPieces(const std::vector<Token>& tokens) {
  std::unordered_map<std::string, int> first;
  std::vector<int> ids;
  ids.reserve(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    ids.push_back(first.emplace(tokens[i].piece, static_cast<int>(i)).first->second);
  }
  return ids;
}

std::vector<HeadStats> computeHeadStats(const ModelRun& run, const std::vector<int>& ids) {
  std::vector<HeadStats> stats;
  for (const LayerAttention& layer : run.layers) {
    std::vector<HeadStats> one = computeLayerHeadStats(layer.layer, layer.result, ids);
    stats.insert(stats.end(), one.begin(), one.end());
  }
  return stats;
}

}  // namespace headmap
