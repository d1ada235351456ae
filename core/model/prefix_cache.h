#pragma once
// Reuse of a causal model's previous run when the new input extends it, as typing at the end of
// the sentence does. In a causal model row i of every layer depends on tokens 0..i only, so when
// the first p token ids (and the padding among them) equal the previous run's, rows 0..p-1 of
// every layer's keys, values, context and softmax maps are the previous run's: only rows
// p..n-1 are computed. Used by the GPT-2 and Llama (and llama2.c) forwards when
// RunOptions::reusePrefix is set.
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/attention/attention.h"
#include "core/model/model.h"

namespace headmap {

class PrefixCache {
 public:
  // At most this many bytes of softmax maps are kept; larger runs are not cached.
  static constexpr uint64_t kMaxMapBytes = uint64_t(64) << 20;

  // Starts a run of `ids` that needs layers 0..layers-1: returns p, the rows taken from the
  // previous run (0 when nothing can be reused; at most ids.size() - 1, so that every run
  // computes at least its last row), and forgets the previous run if this one cannot be cached
  // (too large, stages or logits asked for). Nothing is reused when the scaling differs or the
  // previous run had fewer layers; padding limits p to the first position whose padding
  // changed. The caller holds lock() for the whole run.
  int begin(const std::vector<int>& ids, const RunOptions& options, int layers, int heads);
  bool caching() const { return m_caching; }
  int reusedRows() const { return m_reused; }

  // Layer l's keys and values (n, kv columns): the previous run's rows 0..p-1 over kNew / vNew.
  void keysValues(int layer, const Eigen::Ref<const RowMatrixXf>& kNew,
                  const Eigen::Ref<const RowMatrixXf>& vNew, RowMatrixXf& k, RowMatrixXf& v) const;

  // The whole layer's result from `fresh`, the attention of rows p..n-1 over every key (all
  // heads, no stages), with `options` applied as attendProjected would (kept heads, onHead),
  // and everything kept for the next run. k, v: this layer's full keys and values.
  AttentionResult complete(int layer, AttentionResult fresh, const AttentionOptions& options,
                           RowMatrixXf k, RowMatrixXf v);

  // Marks the run finished: the next begin() may reuse it. A run that threw never gets here.
  void commit();

  std::mutex& lock() { return m_mutex; }

  // For a model's run(): with options.reusePrefix, takes `lock` on this cache, begins the run and
  // returns this when the run is being cached; nullptr otherwise (compute every row).
  PrefixCache* start(std::unique_lock<std::mutex>& lock, const std::vector<int>& ids,
                     const RunOptions& options, int layers, int heads);

 private:
  struct Layer {
    RowMatrixXf k, v, context;  // (n, kv * d_k), (n, kv * d_k), (n, heads * d_k)
    HeadMaps maps;              // (heads, n, n) softmax, every head
    std::vector<uint8_t> keyMask, fullyMasked;
  };

  std::mutex m_mutex;
  bool m_valid = false;    // m_ids and m_layers describe a finished run
  bool m_caching = false;  // the current run is being recorded
  int m_reused = 0;        // p of the current run
  std::vector<int> m_ids;
  std::vector<uint8_t> m_padded;  // (ids): 1 = padded key
  bool m_scale = true;
  std::vector<Layer> m_layers;
};

// One layer's attention for rows p..n-1 of a run (q, kNew, vNew hold those rows): through the
// cache when there is one (every row of the result filled in), else plain attendProjected.
AttentionResult attendRows(PrefixCache* cache, int layer, const Eigen::Ref<const RowMatrixXf>& q,
                           const Eigen::Ref<const RowMatrixXf>& kNew,
                           const Eigen::Ref<const RowMatrixXf>& vNew, int heads, int kvHeads,
                           const AttentionOptions& layerOptions);

}  // namespace headmap
