#pragma once
// Per-head statistics of one input's self-attention: what each head does, in a few numbers.
//
// Masking rule (applies to every statistic below). For a layer with weights w: (heads, n, n),
// keyMask m: (n, n) (1 = masked cell) and fullyMasked: (n):
//   - a cell (q, k) with m[q, k] = 1 is never read; its weight counts as absent, not as 0;
//   - a *padding position* is a position p whose key column is masked in every row
//     (m[:, p] all 1; causal masking alone never does this, since row q = p sees key p);
//   - the *valid queries* are the rows q that are not fullyMasked and not padding positions;
//     every statistic is a mean over valid queries (and only over the ones for which the
//     statistic's key cell exists and is unmasked, see each field);
//   - padding positions are also skipped as earlier occurrences for the induction score.
// The weights are used as given (rows already sum to 1 over their unmasked keys); they are not
// renormalized. Sums are taken in double.
// A statistic that no valid query qualifies for is NaN (e.g. previous-token score for n = 1, or
// first-token mass when position 0 is padding); the induction score is std::nullopt instead,
// because "no token repeats" is the ordinary case for most inputs.
#include <memory>
#include <optional>
#include <vector>

#include "core/attention/attention.h"
#include "core/model/model.h"
#include "core/tokenize/tokenizer.h"

namespace headmap {

struct HeadStats {
  int layer = 0;  // LayerAttention::layer (model layer index), not the index into ModelRun
  int head = 0;
  // Mean over valid queries of the row entropy −Σ_k w ln w (nats; 0·ln 0 = 0) over unmasked keys.
  // 0 = every row on one key; ln(number of unmasked keys) = uniform.
  double entropy = 0;
  // Mean over valid queries of Σ_k w[q, k]·|q − k| over unmasked keys (in positions).
  double meanDistance = 0;
  // Mean of w[q, 0] over valid queries whose key 0 is unmasked (the "attention sink"/BOS).
  // NaN when key 0 is masked for every valid query (e.g. left padding).
  double firstTokenMass = 0;
  // Mean of w[q, q − 1] over valid queries q ≥ 1 whose key q − 1 is unmasked; NaN when none.
  double previousToken = 0;
  // Mean of w[q, q] over valid queries whose key q is unmasked; NaN when none.
  double diagonal = 0;
  // Prefix-matching score of Olsson et al. 2022 ("In-context learning and induction heads"):
  // for a valid query q, let p be the most recent earlier non-padding position with
  // ids[p] == ids[q]. The query counts when p exists, p + 1 < q (when p = q − 1 the target would
  // be q itself, which is the diagonal score, so such queries are skipped rather than searched
  // further back) and key p + 1 is unmasked in row q; its score is w[q, p + 1], the weight on
  // the token that followed the earlier occurrence. Mean over counting queries; nullopt when no
  // query counts or ids is empty.
  std::optional<double> induction;
};

// Statistics of one layer's heads. weights: (heads, n, n) softmax maps; keyMask: (n, n) or empty
// (nothing masked); fullyMasked: (n) or empty; ids: (n) token ids, or empty when unknown (then
// induction is nullopt). Throws headmap::Error when the maps are not square (q != k), when
// keyMask/fullyMasked/ids have the wrong size, or when there are no heads.
std::vector<HeadStats> computeLayerHeadStats(int layer, const AttentionResult& result,
                                             const std::vector<int>& ids);

// Ids for the induction score when a token's identity is its text rather than its id: a bare
// layer's whitespace tokenizer numbers tokens by position, so "the cat the" has ids 0 1 2 although
// both "the" get the same embedding. Returns, for each token, the position of the first token
// with the same piece: (n) -> (n), e.g. {0, 1, 0}.
std::vector<int> idsFromPieces(const std::vector<Token>& tokens);

// One entry per (recorded layer, kept head), layers in ModelRun order, heads ascending.
std::vector<HeadStats> computeHeadStats(const ModelRun& run, const std::vector<int>& ids);

struct LayerMask;

// The same statistics for long inputs, without storing any map: feed it each head as the model
// computes it (RunOptions::onHead), e.g.
//   HeadStatsStream stream(ids);
//   options.onHead = [&](const HeadWeights& w) { stream.add(w); };
// add() reads one (n, n) head and its layer's masks (derived once per layer): O(n²) time, O(n)
// memory. The result equals computeHeadStats on a run that kept every head.
class HeadStatsStream {
 public:
  explicit HeadStatsStream(std::vector<int> ids = {});  // ids: (n) token ids, or empty
  ~HeadStatsStream();
  HeadStatsStream(HeadStatsStream&&) noexcept;

  // Throws headmap::Error when the map is not square or the masks / ids disagree with it.
  void add(const HeadWeights& head);
  // One entry per head added, in the order added.
  const std::vector<HeadStats>& stats() const { return m_stats; }

 private:
  std::vector<int> m_ids;
  std::vector<HeadStats> m_stats;
  std::unique_ptr<LayerMask> m_mask;
  int m_layer = -1;
};

}  // namespace headmap
