#pragma once
// Head aggregates: the mean over heads, and attention rollout across layers.
//
// Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers", §3):
// for each layer ℓ, average the heads, A_ℓ = mean_h W_ℓ,h; account for the residual connection by
// adding the identity and renormalizing the rows, Â_ℓ = rownorm(A_ℓ + I). When the rows of A_ℓ
// sum to 1 this is exactly the paper's Â = 0.5·A + 0.5·I; a fully masked row (all zero) becomes
// the identity row (the token keeps only its residual). Then multiply through the layers:
//   R_1 = Â_1,   R_ℓ = Â_ℓ · R_{ℓ−1},   i.e.   R_L = Â_L · … · Â_2 · Â_1.
// Why this order: a layer's output at token q mixes the previous layer's tokens with row q of
// Â_ℓ (x_ℓ = Â_ℓ x_{ℓ−1}), so the input-token mix of the last layer is Â_L ⋯ Â_1 applied to the
// embeddings. Row q of R_L is a distribution over input tokens (rows sum to 1).
#include "core/attention/attention.h"
#include "core/common/tensor.h"
#include "core/model/model.h"

namespace headmap {

// weights: (heads, q, k) -> (q, k), the plain mean of the heads' maps. Throws headmap::Error
// when there are no heads or the value count disagrees with the shape.
RowMatrixXf meanOverHeads(const HeadMaps& weights);

// a: (n, n) a head-averaged map -> (n, n) rownorm(a + I): each row of a + I divided by its sum.
RowMatrixXf addResidual(const Eigen::Ref<const RowMatrixXf>& a);

// result.weights: (heads, n, n) -> (n, n) Â_ℓ = rownorm(A_ℓ + I), A_ℓ the mean over heads with the
// rows flagged in result.fullyMasked set to zero (their weights may be NaN or 0).
RowMatrixXf residualAttention(const AttentionResult& result);

// One layer of rollout. rollout: (n, n) up to the previous layer (pass the identity before the
// first layer); result.weights: (heads, n, n) -> (n, n) Â_ℓ · rollout.
RowMatrixXf rolloutStep(const Eigen::Ref<const RowMatrixXf>& rollout,
                        const AttentionResult& result);

// run.layers, first to last -> (n, n) R_L = Â_L ⋯ Â_1. The recorded layers must be consecutive
// (rollout skipping a layer would drop its mixing); throws headmap::Error naming the layers
// otherwise, when the run is empty, or when the maps are not square or change size.
RowMatrixXf attentionRollout(const ModelRun& run);

// The same rollout for long inputs, fed head by head (RunOptions::onHead) so that no layer's
// maps are stored: memory is three (n, n) float matrices (the current layer's head sum, the
// rollout so far and the product's destination rows, done in row blocks in place). Heads of a
// layer must come together and layers consecutively, as Model::run calls onHead. When every Â
// so far is lower triangular (causal models) the product skips the zero blocks (≈ 1/3 of the
// work). Equals attentionRollout on a run that kept every head (to float rounding).
class RolloutStream {
 public:
  // Throws headmap::Error when the map is not square, changes size, or the layers are not
  // consecutive.
  void add(const HeadWeights& head);
  // (n, n) R_L over the layers added; throws headmap::Error when nothing was added.
  RowMatrixXf finish();
  int layers() const { return m_layers; }

 private:
  void closeLayer();

  int m_layer = -1;  // layer being summed
  int m_heads = 0;   // heads summed for it
  int m_layers = 0;  // layers closed into m_rollout
  int m_n = 0;
  RowMatrixXf m_sum;                   // (n, n) sum of the current layer's heads
  RowMatrixXf m_rollout;               // (n, n) R over the closed layers
  std::vector<uint8_t> m_fullyMasked;  // (n) of the current layer
  bool m_lower = true;                 // every closed Â was lower triangular
};

}  // namespace headmap
