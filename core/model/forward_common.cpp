#include "core/model/forward_common.h"

#include <algorithm>

#include "core/common/error.h"

namespace headmap {

std::vector<int> checkedTokenIds(const ModelInput& input, const ModelInfo& info) {
  if (input.embeddings) {
    throw Error(info.name + ": a " + info.family +
                " model reads token ids, not embeddings given directly");
  }
  if (input.tokens.empty()) throw Error(info.name + ": the input has no tokens");
  const int n = static_cast<int>(input.tokens.size());
  if (info.maxPositions > 0 && n > info.maxPositions) {
    throw Error(info.name + ": " + std::to_string(n) + " tokens exceed the model's maximum of " +
                std::to_string(info.maxPositions) + " positions");
  }
  std::vector<int> ids;
  ids.reserve(n);
  for (int i = 0; i < n; ++i) {
    const int id = input.tokens[i].id;
    if (id < 0 || id >= info.vocab) {
      throw Error(info.name + ": token " + std::to_string(i) + " has id " + std::to_string(id) +
                  ", outside the vocabulary of " + std::to_string(info.vocab) + " ids (0-" +
                  std::to_string(info.vocab - 1) + ")");
    }
    ids.push_back(id);
  }
  return ids;
}

LayerPlan planLayers(const std::vector<int>& requested, const ModelInfo& info) {
  LayerPlan plan;
  plan.record.assign(info.layers, requested.empty());
  plan.lastLayer = requested.empty() ? info.layers - 1 : 0;
  for (int layer : requested) {
    if (layer < 0 || layer >= info.layers) {
      throw Error(info.name + ": layer " + std::to_string(layer) + " requested, the model has " +
                  std::to_string(info.layers) + " layers (0-" + std::to_string(info.layers - 1) +
                  ")");
    }
    plan.record[layer] = true;
    plan.lastLayer = std::max(plan.lastLayer, layer);
  }
  return plan;
}

LayerPlan planLayers(const RunOptions& options, const ModelInfo& info) {
  LayerPlan plan = planLayers(options.layers, info);
  if (options.allLayers) plan.lastLayer = std::max(plan.lastLayer, info.layers - 1);
  return plan;
}

AttentionOptions layerAttentionOptions(const RunOptions& options, const ModelInfo& info,
                                       bool recorded) {
  AttentionOptions a = options.attention;
  if (info.causalBuiltIn) a.causal = true;
  if (!recorded) a.keepStages = false;
  return a;
}

AttentionOptions layerAttentionOptions(const RunOptions& options, const ModelInfo& info,
                                       const LayerPlan& plan, int layer) {
  const bool recorded = plan.record[layer];
  AttentionOptions a = layerAttentionOptions(options, info, recorded);
  // A layer that is not recorded is thrown away after its context: keep none of its maps.
  a.keepHeads = recorded ? options.keepHeads : std::vector<int>{};
  a.onHead = nullptr;
  if (options.onHead) {
    a.onHead = [&hook = options.onHead, layer](const HeadWeights& w) {
      HeadWeights named = w;
      named.layer = layer;
      hook(named);
    };
  }
  return a;
}

}  // namespace headmap
