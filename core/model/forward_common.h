#pragma once
// Checks and bookkeeping shared by the full-model forward passes.
#include <string>
#include <vector>

#include "core/common/tensor.h"
#include "core/model/model.h"

namespace headmap {

// Token ids of the input, checked against the model: non-empty, at most info.maxPositions
// tokens, every id below info.vocab. Throws headmap::Error with the numbers otherwise.
std::vector<int> checkedTokenIds(const ModelInput& input, const ModelInfo& info);

// Which layers a run records, and how far it must go.
struct LayerPlan {
  std::vector<bool> record;  // (layers): keep this layer's attention
  int lastLayer = 0;         // the last layer that must run to record all requested ones
  bool fullStack() const { return lastLayer + 1 == static_cast<int>(record.size()); }
};

// requested: layer indices (empty = all). Throws headmap::Error for an index out of range.
LayerPlan planLayers(const std::vector<int>& requested, const ModelInfo& info);
// The same for a run: options.layers, and the whole stack when options.allLayers is set.
LayerPlan planLayers(const RunOptions& options, const ModelInfo& info);

// The attention options one layer runs with: causal forced for causal families, stages only
// when the layer is recorded.
AttentionOptions layerAttentionOptions(const RunOptions& options, const ModelInfo& info,
                                       bool recorded);
// The same for model layer `layer` of a plan, with RunOptions::keepHeads (recorded layers) or no
// kept maps (the others), and RunOptions::onHead told the layer index.
AttentionOptions layerAttentionOptions(const RunOptions& options, const ModelInfo& info,
                                       const LayerPlan& plan, int layer);

// A named float32 tensor checked for its shape; the name travels into error messages.
struct NamedTensor {
  std::string name;
  FloatTensor tensor;
};

}  // namespace headmap
