#pragma once
// A bare attention layer as a Model: one layer, inputs from the user (.npy) or built from the
// token texts (seeded embedding + sinusoidal positions, core/attention/embedding.h).
#include <string>

#include "core/model/model.h"

namespace headmap {

// Refuse a run whose per-head maps would need more than this (issue: never exhaust memory).
constexpr double kMaxAttentionBytes = 4.0 * 1024 * 1024 * 1024;

class AttentionModel : public Model {
 public:
  // Throws headmap::Error (via weights.validate) when the weights are inconsistent.
  AttentionModel(AttentionLayerWeights weights, std::string name);

  ModelInfo info() const override;
  // input.embeddings (n, d_model) when given, else embeddings from the token texts.
  // -> one LayerAttention (layer 0): weights (heads, n, n), output (n, d_model).
  ModelRun run(const ModelInput& input, const RunOptions& options) const override;

  const AttentionLayerWeights& weights() const { return m_weights; }

 private:
  AttentionLayerWeights m_weights;
  std::string m_name;
};

}  // namespace headmap
